package server_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

var (
	_ server.Adapter = (*adapter.Kinematic)(nil)
	_ server.Adapter = (*adapter.Sim)(nil)
)

// start runs a server until the returned stop is called; stop waits for
// Run to return and reports its error.
func start(t *testing.T, cfg server.Config) (*server.Server, func() error) {
	t.Helper()
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	var once sync.Once
	var runErr error
	return s, func() error {
		once.Do(func() {
			cancel()
			runErr = <-errc
		})
		return runErr
	}
}

// waitFor blocks until pred holds for the status, failing after limit of
// the server's clock. Inside a synctest bubble the clock is fake, so this
// takes no wall time.
func waitFor(t *testing.T, s *server.Server, what string, limit time.Duration, pred func(mission.Status) bool) mission.Status {
	t.Helper()
	ch, unsub := s.Subscribe()
	defer unsub()
	deadline := time.After(limit)
	for {
		st := s.Status()
		if pred(st) {
			return st
		}
		select {
		case <-ch:
		case <-deadline:
			b, _ := json.Marshal(st)
			t.Fatalf("%s: not reached within %v; status %s", what, limit, b)
		}
	}
}

func do(t *testing.T, s *server.Server, ev mission.Event) {
	t.Helper()
	rep, err := s.Do(context.Background(), ev)
	if err != nil || !rep.Success {
		t.Fatalf("%s: %+v, %v", ev.Name(), rep, err)
	}
}

func state(want string) func(mission.Status) bool {
	return func(st mission.Status) bool { return st.State == want && !st.CommandPending }
}

// takeOff flies a server from IDLE to EXECUTING.
func takeOff(t *testing.T, s *server.Server) {
	t.Helper()
	do(t, s, mission.Connect{})
	waitFor(t, s, "ARMING", 15*time.Second, state("ARMING"))
	do(t, s, mission.Arm{})
	waitFor(t, s, "TAKEOFF", 5*time.Second, state("TAKEOFF"))
	do(t, s, mission.Airborne{})
	waitFor(t, s, "EXECUTING", 30*time.Second, state("EXECUTING"))
}

func recorder(t *testing.T) *blackbox.Recorder {
	r, err := blackbox.New(blackbox.DefaultMaxEvents)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestDemoFlight flies the specification's demo: three waypoints at 2 m/s
// with a pause, a return home and an automatic landing, on the demo adapter
// in fake time, and dumps the black box.
func TestDemoFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewDemo(adapter.KinematicConfig{}),
			Recorder: recorder(t), RecordDir: dir, DumpOnShutdown: true})
		takeOff(t, s)
		do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 4, Z: -2, SpeedMS: 2}, {X: 8, Z: -2, SpeedMS: 2}, {X: 12, Z: -2, SpeedMS: 2}}})
		waitFor(t, s, "waypoint 1", 20*time.Second, func(st mission.Status) bool { return st.MissionQueue.Completed == 1 })
		do(t, s, mission.Pause{})
		st := waitFor(t, s, "PAUSED", 5*time.Second, state("PAUSED"))
		if st.Target == nil || st.Target.X != 8 || st.Target.SpeedMS != 2 || st.MissionQueue.State != "PAUSED" || *st.MissionQueue.CurrentIndex != 1 {
			t.Fatalf("paused status: target %+v queue %+v", st.Target, st.MissionQueue)
		}
		time.Sleep(3 * time.Second) // fake time: nothing advances while paused
		if st := s.Status(); st.MissionQueue.Completed != 1 || st.State != "PAUSED" {
			t.Fatalf("advanced while paused: %+v", st.MissionQueue)
		}
		do(t, s, mission.Resume{})
		waitFor(t, s, "COMPLETED", 30*time.Second, func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" })
		do(t, s, mission.ReturnHome{})
		st = waitFor(t, s, "LANDED", 60*time.Second, state("LANDED"))
		if st.Position == nil || st.Position.X != 0 || st.Position.Z != 0 || st.Armed || !st.Landed {
			t.Fatalf("landed status: %+v armed %v landed %v", st.Position, st.Armed, st.Landed)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		// dump_on_shutdown wrote both files
		rows := readCSV(t, filepath.Join(dir, blackbox.CSVName))
		var states []string
		kinds := map[string]int{}
		for _, r := range rows[1:] {
			kinds[r[2]]++
			if r[2] == mission.KindTransition {
				states = append(states, r[3])
			}
		}
		want := "CONNECTING ARMING TAKEOFF EXECUTING PAUSED EXECUTING RETURNING LANDING LANDED"
		if got := strings.Join(states, " "); got != want {
			t.Errorf("recorded transitions: got %s; want %s", got, want)
		}
		for _, k := range []string{mission.KindMissionLoaded, mission.KindMissionCompleted, mission.KindCommand} {
			if kinds[k] == 0 {
				t.Errorf("no %s recorded: %v", k, kinds)
			}
		}
		if kinds[mission.KindWaypointReached] != 3 {
			t.Errorf("waypoint_reached: got %d; want 3", kinds[mission.KindWaypointReached])
		}
		var sum blackbox.Summary
		b, err := os.ReadFile(filepath.Join(dir, blackbox.SummaryName))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Events != len(rows)-1 || sum.StateDurationsS["LANDED"] < 0 || sum.StateDurationsS["EXECUTING"] <= 0 {
			t.Errorf("summary: %+v", sum)
		}
	})
}

// TestTelemetryTimeoutSim: the embedded quadrotor flies a goto; its
// telemetry stops; FAILSAFE follows within one timeout period (plus one
// tick) of simulated time, the queue is aborted and the black box holds the
// reason.
func TestTelemetryTimeoutSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ad, err := adapter.NewSim(vehicle.SimConfig{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		cfg := mission.DefaultConfig()
		const tick = 50 * time.Millisecond
		s, stop := start(t, server.Config{Machine: cfg, Adapter: ad, Tick: tick, Recorder: recorder(t), RecordDir: dir})
		defer stop()
		takeOff(t, s)
		do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 10, Z: -3, SpeedMS: 3}, {X: 10, Y: 10, Z: -3}}})
		waitFor(t, s, "flying", 10*time.Second, func(st mission.Status) bool { return st.Position != nil && st.Position.X > 2 })
		ad.SetFaults(adapter.Faults{DropTelemetry: true})
		lost := time.Now() // the next poll gets no telemetry; the last sample is at most one tick older
		st := waitFor(t, s, "FAILSAFE", 5*time.Second, func(st mission.Status) bool { return st.State == "FAILSAFE" })
		took := time.Since(lost)
		if took > cfg.TelemetryTimeout+tick {
			t.Errorf("FAILSAFE %v after the telemetry stopped; want within %v", took, cfg.TelemetryTimeout+tick)
		}
		if st.FailsafeReason == nil || *st.FailsafeReason != mission.ReasonTelemetryTimeout || st.MissionQueue.State != "ABORTED" {
			t.Fatalf("status: reason %v queue %+v", st.FailsafeReason, st.MissionQueue)
		}
		rep, err := s.DumpLog(context.Background())
		if err != nil || !rep.Success {
			t.Fatalf("dump_log: %+v %v", rep, err)
		}
		found := false
		for _, r := range readCSV(t, rep.Files[0]) {
			if r[2] == mission.KindTransition && r[3] == "FAILSAFE" && blackbox.Reason(r[4]) == mission.ReasonTelemetryTimeout {
				found = true
			}
		}
		if !found {
			t.Errorf("no FAILSAFE transition with reason telemetry_timeout in %s", rep.Files[0])
		}
		t.Logf("FAILSAFE %v after the telemetry stopped (timeout %v, tick %v)", took, cfg.TelemetryTimeout, tick)
	})
}

// TestSimFlight flies the embedded quadrotor through a queue, a return home
// with the slow correction and the settling gate, and the landing to LANDED.
func TestSimFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ad, err := adapter.NewSim(vehicle.SimConfig{Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: ad, Recorder: recorder(t)})
		defer stop()
		takeOff(t, s)
		do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 6, Z: -3}, {X: 6, Y: 6, Z: -4, SpeedMS: 2}}})
		waitFor(t, s, "COMPLETED", 60*time.Second, func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" })
		do(t, s, mission.ReturnHome{})
		waitFor(t, s, "LANDING", 90*time.Second, func(st mission.Status) bool { return st.State == "LANDING" })
		st := waitFor(t, s, "LANDED", 60*time.Second, state("LANDED"))
		truth := ad.Vehicle().Trace()
		end := truth[len(truth)-1].Pos
		if d := end.XY().Norm(); d > 0.5 {
			t.Errorf("landed %.2f m from home (truth %v)", d, end)
		}
		if st.Armed || !st.Landed {
			t.Errorf("LANDED with armed %v landed %v", st.Armed, st.Landed)
		}
	})
}

// TestRefusedTakeoff: the demo vehicle refuses the take-off: the status
// says takeoff_rpc_result false and FAILSAFE takeoff_rejected, and the
// vehicle is disarmed.
func TestRefusedTakeoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ad := adapter.NewDemo(adapter.KinematicConfig{})
		ad.SetFaults(adapter.Faults{RefuseTakeoff: true})
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: ad})
		defer stop()
		do(t, s, mission.Connect{})
		waitFor(t, s, "ARMING", 5*time.Second, state("ARMING"))
		do(t, s, mission.Arm{})
		st := waitFor(t, s, "FAILSAFE", 5*time.Second, func(st mission.Status) bool { return st.State == "FAILSAFE" && !st.CommandPending && !st.Armed })
		if st.TakeoffRPCResult == nil || *st.TakeoffRPCResult || *st.FailsafeReason != mission.ReasonTakeoffRejected {
			t.Fatalf("takeoff_rpc_result %v reason %v", st.TakeoffRPCResult, st.FailsafeReason)
		}
		do(t, s, mission.Reset{})
		waitFor(t, s, "IDLE", time.Second, state("IDLE"))
	})
}

// TestLinkLoss: the adapter reports the link down; FAILSAFE link_lost
// follows after the configured grace period.
func TestLinkLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ad := adapter.NewDemo(adapter.KinematicConfig{})
		cfg := mission.DefaultConfig()
		cfg.LinkLoss = 3 * time.Second
		cfg.TelemetryTimeout = 10 * time.Second
		s, stop := start(t, server.Config{Machine: cfg, Adapter: ad})
		defer stop()
		takeOff(t, s)
		ad.SetFaults(adapter.Faults{LinkDown: true})
		down := time.Now()
		st := waitFor(t, s, "FAILSAFE", 10*time.Second, func(st mission.Status) bool { return st.State == "FAILSAFE" })
		if got := time.Since(down); got < cfg.LinkLoss || got > cfg.LinkLoss+100*time.Millisecond {
			t.Errorf("link_lost after %v; want %v", got, cfg.LinkLoss)
		}
		if *st.FailsafeReason != mission.ReasonLinkLost || st.LinkUp {
			t.Errorf("reason %v link_up %v", *st.FailsafeReason, st.LinkUp)
		}
	})
}

// TestRecorderOffIsIdentical: the same flight with and without the
// recorder dispatches the same commands and makes the same transitions at
// the same (fake) times, and ends in the same status; only dump_log
// differs.
func TestRecorderOffIsIdentical(t *testing.T) {
	flight := func(rec *blackbox.Recorder) (log []string, final string) {
		synctest.Test(t, func(t *testing.T) {
			t0 := time.Now()
			logf := func(format string, args ...any) {
				line := fmt.Sprintf(format, args...)
				if !strings.HasPrefix(line, "dump_log") {
					log = append(log, fmt.Sprintf("%v %s", time.Since(t0), line))
				}
			}
			s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewDemo(adapter.KinematicConfig{}),
				Recorder: rec, RecordDir: t.TempDir(), Logf: logf})
			takeOff(t, s)
			do(t, s, mission.Goto{Waypoint: mission.Waypoint{X: 3, Y: 4, Z: -5}})
			waitFor(t, s, "arrived", 20*time.Second, func(st mission.Status) bool { return st.Target == nil && !st.CommandPending })
			do(t, s, mission.Land{})
			waitFor(t, s, "LANDED", 30*time.Second, state("LANDED"))
			rep, err := s.DumpLog(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Success != (rec != nil) || (rec == nil && rep.Code != server.CodeRecordingDisabled) {
				t.Errorf("dump_log with recorder %v: %+v", rec != nil, rep)
			}
			js, _ := s.StatusJSON()
			final = string(js)
			stop()
		})
		return log, final
	}
	logWith, finalWith := flight(recorder(t))
	logWithout, finalWithout := flight(nil)
	if len(logWith) < 10 {
		t.Fatalf("only %d log lines", len(logWith))
	}
	if diff := cmp.Diff(logWith, logWithout); diff != "" {
		t.Errorf("flight differs with and without the recorder (-with +without):\n%s", diff)
	}
	if finalWith != finalWithout {
		t.Errorf("final status differs:\n%s\n%s", finalWith, finalWithout)
	}
}

func TestNewErrors(t *testing.T) {
	ad := adapter.NewDemo(adapter.KinematicConfig{})
	bad := mission.DefaultConfig()
	bad.MaxAltitudeM = -1
	for _, tc := range []struct {
		name string
		cfg  server.Config
	}{
		{"no adapter", server.Config{Machine: mission.DefaultConfig()}},
		{"bad machine config", server.Config{Machine: bad, Adapter: ad}},
		{"tick above timeout", server.Config{Machine: mission.DefaultConfig(), Adapter: ad, Tick: 2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := server.New(tc.cfg); err == nil {
				t.Errorf("got nil; want an error")
			}
		})
	}
}

func TestScaledClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := server.NewScaled(nil, 10)
		t0 := c.Now()
		tk := c.NewTicker(time.Second)
		defer tk.Stop()
		<-tk.C()
		if got := c.Now().Sub(t0); got != time.Second {
			t.Errorf("one tick of 1 s at ×10: %v of scaled time", got)
		}
		time.Sleep(time.Second)
		if got := c.Now().Sub(t0); got != 11*time.Second {
			t.Errorf("after 1.1 s of base time: %v; want 11 s", got)
		}
	})
}
