package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/daemon"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/run"
)

func TestSITLBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"mower", []string{"sitl", "--vehicle", "mower"}, "--vehicle"},
		{"bad listen URL", []string{"sitl", "--listen", "carrier-pigeon://x:1"}, "--listen"},
		{"port out of range", []string{"sitl", "--listen", "udp://127.0.0.1:70000"}, "port"},
		{"bad gcs URL", []string{"sitl", "--gcs", "udp://nohost"}, "--gcs"},
		{"speed 0", []string{"sitl", "--speed", "0"}, "--speed"},
		{"bad obstacle", []string{"sitl", "--obstacle", "1,2"}, "--obstacle"},
		{"obstacle outside the area", []string{"sitl", "--obstacle", "10,4,20,-80,24.5,0,30"}, "empty"},
		{"unknown case study", []string{"sitl", "nosuch.yaml"}, "nosuch"},
		{"fly --connect bad URL", []string{"fly", "mission2", "--connect", "udp://"}, "--connect"},
		{"fly --connect with --record", []string{"fly", "mission2", "--connect", "udp://127.0.0.1:9", "--record", "x.mcap"}, "--record"},
		{"mission serve mavlink without --connect", []string{"mission", "serve", "--adapter", "mavlink", "--listen", "127.0.0.1:0", "--token-file", "TOKEN"}, "--connect"},
		{"mission serve mavlink bad URL", []string{"mission", "serve", "--adapter", "mavlink", "--connect", "udp://x", "--listen", "127.0.0.1:0", "--token-file", "TOKEN"}, "--connect"},
		{"mission serve demo with --connect", []string{"mission", "serve", "--connect", "udp://127.0.0.1:14540", "--listen", "127.0.0.1:0", "--token-file", "TOKEN"}, "--connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, a := range tc.args {
				if a == "TOKEN" {
					tc.args[i] = t.TempDir() + "/token"
				}
			}
			code, out, errOut := sh(t, tc.args...)
			if code != exitBadRun || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", code, out, errOut, tc.want)
			}
		})
	}
}

// sitlDefault is the default of the sitl command's flag name.
func sitlDefault(t *testing.T, name string) string {
	t.Helper()
	fl := newSITLCmd().Flags().Lookup(name)
	if fl == nil {
		t.Fatalf("sitl has no --%s", name)
	}
	return fl.DefValue
}

// TestSITLFliesAsFly: sitl's and fly's --autopilot default to the same
// autopilot (avoid), so that a mission flown on `shakedown sitl` flies as
// `shakedown fly` flies it.
func TestSITLFliesAsFly(t *testing.T) {
	fly := newFlyCmd().Flags().Lookup("autopilot").DefValue
	if got := sitlDefault(t, "autopilot"); got != fly || got != run.AutopilotAvoid {
		t.Errorf("sitl --autopilot defaults to %q, fly to %q; want both %q", got, fly, run.AutopilotAvoid)
	}
}

func sitlFreePort(t *testing.T) string {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port)
}

// startSITL runs `shakedown sitl` (in-process) on a free loopback port at
// speed, with the command's default autopilot; stop ends it as SIGINT
// would.
func startSITL(t *testing.T, speed float64, args ...string) (url string, stop func()) {
	t.Helper()
	url = "udp://127.0.0.1:" + sitlFreePort(t)
	f := sitlFlags{vehicle: "quad", listen: url, speed: speed, seed: 1, autopilot: sitlDefault(t, "autopilot"), rules: "2025"}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *mavlink.Server, 1)
	errc := make(chan error, 1)
	var stderr lockedBuffer
	arg := ""
	if len(args) > 0 {
		arg = args[0]
	}
	go func() { errc <- runSITL(ctx, &stderr, arg, f, ready) }()
	select {
	case <-ready:
	case err := <-errc:
		cancel()
		t.Fatalf("sitl: %v", err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("sitl: %v", err)
			}
			if !strings.Contains(stderr.String(), "stopped") {
				t.Errorf("sitl stderr: %s", stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	return url, stop
}

// startDaemon starts a mission daemon on adapter at speed with its black
// box dumped into a temporary directory.
func startDaemon(t *testing.T, adapterName string, speed float64, connect string, telemetryTimeout time.Duration) (*daemon.Daemon, string) {
	t.Helper()
	p := server.DefaultParams()
	// Daemon time: at ×10, 8 s is 0.8 s of wall time, room for a machine
	// loaded by other tests (both ends run on the wall clock here).
	p.Machine.TelemetryTimeout = telemetryTimeout
	p.RecordDir = t.TempDir()
	var log lockedBuffer
	d, err := daemon.Start(daemon.Config{Params: p, Adapter: adapterName, Connect: connect, Speed: speed, Seed: 4, Tick: 50 * time.Millisecond,
		Listen: "127.0.0.1:0", Token: "tok", Logf: func(format string, args ...any) { log.Write([]byte(format + "\n")) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	return d, p.RecordDir
}

// wall waits for the daemon's status to satisfy pred, for at most limit of
// wall time.
func wall(t *testing.T, s *server.Server, what string, limit time.Duration, pred func(mission.Status) bool) mission.Status {
	t.Helper()
	ch, unsub := s.Subscribe()
	defer unsub()
	tm := time.NewTimer(limit)
	defer tm.Stop()
	for {
		st := s.Status()
		if pred(st) {
			return st
		}
		select {
		case <-ch:
		case <-tm.C:
			b, _ := json.Marshal(st)
			t.Fatalf("%s: not reached within %v of wall time; status %s", what, limit, b)
		}
	}
}

func order(t *testing.T, s *server.Server, ev mission.Event) {
	t.Helper()
	rep, err := s.Do(context.Background(), ev)
	if err != nil || !rep.Success {
		t.Fatalf("%s: %+v %v", ev.Name(), rep, err)
	}
}

func ready(state string) func(mission.Status) bool {
	return func(st mission.Status) bool { return st.State == state && !st.CommandPending }
}

// flyThreeWaypoints connects, arms, takes off, flies three waypoints with a
// pause and a resume, and lands; it returns the recorded transitions.
func flyThreeWaypoints(t *testing.T, d *daemon.Daemon, speed float64) string {
	t.Helper()
	s := d.Server()
	lim := func(simS float64) time.Duration {
		return time.Duration(simS/speed*float64(time.Second)) + 20*time.Second
	}
	// An operator connects once the vehicle's telemetry shows.
	wall(t, s, "telemetry", 10*time.Second, func(st mission.Status) bool { return st.Position != nil })
	order(t, s, mission.Connect{})
	wall(t, s, "ARMING", lim(15), ready("ARMING"))
	order(t, s, mission.Arm{})
	wall(t, s, "TAKEOFF", lim(10), ready("TAKEOFF"))
	order(t, s, mission.Airborne{})
	wall(t, s, "EXECUTING", lim(30), ready("EXECUTING"))
	order(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 6, Z: -3}, {X: 6, Y: 6, Z: -4, SpeedMS: 2}, {X: 0, Y: 6, Z: -3}}})
	wall(t, s, "waypoint 1", lim(60), func(st mission.Status) bool { return st.MissionQueue.Completed == 1 })
	order(t, s, mission.Pause{})
	wall(t, s, "PAUSED", lim(10), ready("PAUSED"))
	order(t, s, mission.Resume{})
	wall(t, s, "COMPLETED", lim(90), func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" })
	order(t, s, mission.Land{})
	wall(t, s, "LANDED", lim(90), ready("LANDED"))
	rep, err := s.DumpLog(context.Background())
	if err != nil || !rep.Success {
		t.Fatalf("dump_log: %+v %v", rep, err)
	}
	return recordedTransitions(t, rep.Files[0])
}

func recordedTransitions(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, r := range rows[1:] {
		if r[2] == mission.KindTransition {
			st = append(st, r[3])
		}
	}
	return strings.Join(st, " ")
}

// TestMissionOverUDP is the integration test over real loopback UDP:
// `mission serve --adapter mavlink` against `shakedown sitl` (both at ×10)
// connects, arms, takes off, flies three waypoints, pauses, resumes and
// lands with the same status sequence as the daemon on the in-process
// simulator (`--adapter sim`), flown alongside.
func TestMissionOverUDP(t *testing.T) {
	const speed = 10
	const want = "CONNECTING ARMING TAKEOFF EXECUTING PAUSED EXECUTING LANDING LANDED"
	var got [2]string
	t.Run("group", func(t *testing.T) {
		t.Run("sim", func(t *testing.T) {
			t.Parallel()
			d, _ := startDaemon(t, "sim", speed, "", 8*time.Second)
			got[0] = flyThreeWaypoints(t, d, speed)
		})
		t.Run("mavlink", func(t *testing.T) {
			t.Parallel()
			url, _ := startSITL(t, speed)
			d, _ := startDaemon(t, "mavlink", speed, url, 8*time.Second)
			got[1] = flyThreeWaypoints(t, d, speed)
		})
	})
	if got[0] != want || got[1] != want {
		t.Errorf("transitions:\n in-process sim %s\n MAVLink/UDP    %s\n want           %s", got[0], got[1], want)
	}
}

// TestSITLStopFailsafe: stopping `shakedown sitl` mid-flight puts the
// mission manager in FAILSAFE for want of telemetry (before its 10-s
// link-loss grace), with the reason in the black box.
func TestSITLStopFailsafe(t *testing.T) {
	const speed = 10
	url, stopSITL := startSITL(t, speed)
	d, _ := startDaemon(t, "mavlink", speed, url, 5*time.Second) // below the 10-s link-loss grace
	s := d.Server()
	wall(t, s, "telemetry", 10*time.Second, func(st mission.Status) bool { return st.Position != nil })
	order(t, s, mission.Connect{})
	wall(t, s, "ARMING", 10*time.Second, ready("ARMING"))
	order(t, s, mission.Arm{})
	wall(t, s, "TAKEOFF", 10*time.Second, ready("TAKEOFF"))
	order(t, s, mission.Airborne{})
	wall(t, s, "EXECUTING", 10*time.Second, ready("EXECUTING"))
	order(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 30, Z: -3}}})
	wall(t, s, "flying", 10*time.Second, func(st mission.Status) bool { return st.Position != nil && st.Position.X > 3 })
	stopSITL()
	st := wall(t, s, "FAILSAFE", 10*time.Second, func(st mission.Status) bool { return st.State == "FAILSAFE" })
	if st.FailsafeReason == nil || *st.FailsafeReason != mission.ReasonTelemetryTimeout {
		t.Fatalf("reason: got %v; want %s", st.FailsafeReason, mission.ReasonTelemetryTimeout)
	}
	rep, err := s.DumpLog(context.Background())
	if err != nil || !rep.Success {
		t.Fatalf("dump_log: %+v %v", rep, err)
	}
	b, _ := os.ReadFile(rep.Files[0])
	rows, _ := csv.NewReader(bytes.NewReader(b)).ReadAll()
	found := false
	for _, r := range rows[1:] {
		if r[2] == mission.KindTransition && r[3] == "FAILSAFE" && blackbox.Reason(r[4]) == mission.ReasonTelemetryTimeout {
			found = true
		}
	}
	if !found {
		t.Errorf("no FAILSAFE transition with reason telemetry_timeout in %s", rep.Files[0])
	}
}

// TestFlyConnect flies competition mission2 with `fly --connect` on
// `shakedown sitl` over loopback UDP at ×20.
func TestFlyConnect(t *testing.T) {
	url, _ := startSITL(t, 20, "mission2")
	code, out, errOut := sh(t, "fly", "mission2", "--connect", url, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var r struct {
		Completed   bool    `json:"completed"`
		PathLengthM float64 `json:"path_length_m"`
		Reason      string  `json:"reason"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Completed || r.PathLengthM < 120 || r.PathLengthM > 160 || !strings.Contains(r.Reason, "estimated position") {
		t.Errorf("result: %+v", r)
	}
	if !strings.Contains(errOut, "connected to px4 system 1") {
		t.Errorf("stderr: %s", errOut)
	}
}
