package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/flightlog"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// missionDefaultAddr is where the daemon listens and the client connects by
// default: loopback only.
const missionDefaultAddr = "127.0.0.1:7350"

// missionTokenPath returns the default token file,
// $XDG_CONFIG_HOME/shakedown/mission.token (~/.config on Linux).
func missionTokenPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "mission.token"
	}
	return filepath.Join(dir, "shakedown", "mission.token")
}

func newMissionCmd(stdout, stderr io.Writer) *cobra.Command {
	cl := &missionClientFlags{}
	cmd := &cobra.Command{
		Use:   "mission",
		Short: "Mission safety manager: the daemon, its client and a smoke run",
		Long: `The mission safety manager flies one vehicle under a safety state machine
(IDLE → CONNECTING → ARMING → TAKEOFF → EXECUTING ↔ PAUSED → RETURNING →
LANDING → LANDED, and FAILSAFE on any abnormal condition) with a queue of up
to 100 NED waypoints and a flight-event black box.

"serve" runs the daemon with its HTTP API; send (and send goal), wait,
pause, resume, cancel, return-home, land, dump-log and status are its
client; smoke starts a daemon of its own and checks a whole flight against
it (--faults: every injectable failsafe); stats computes mission statistics
from state logs and black-box exports.

A successful command means the daemon accepted it, not that the action is
done: watch the status. Client exit status: 0 accepted, 1 refused in the
current state (e.g. pause while landing), 2 bad input, wrong token, or no
daemon.`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&cl.addr, "addr", missionDefaultAddr, "daemon `address` (host:port or http://host:port)")
	pf.StringVar(&cl.tokenFile, "token-file", missionTokenPath(), "bearer token `file`")
	cmd.AddCommand(newMissionServeCmd(), newMissionSmokeCmd(), newMissionStatsCmd())
	for _, c := range newMissionClientCmds(cl) {
		cmd.AddCommand(c)
	}
	return cmd
}

type missionServeFlags struct {
	adapter     string
	connect     string // --adapter mavlink: the vehicle's URL
	record      string // --record: the mission as an MCAP file
	listen      string
	tokenFile   string
	recordDir   string
	params      string
	speed       float64
	seed        uint64
	tick        time.Duration
	allowRemote bool

	maxAltitude      float64
	homeZ            float64
	groundMargin     float64
	maxHorDist       float64
	allowHosts       []string
	takeoffAltitude  float64
	telemetryTimeout float64
	batteryMin       float64
	linkLoss         float64
	failsafeAction   string
	recordEvents     bool
	recordMaxEvents  int
	dumpOnShutdown   bool

	stateLog      string
	stateLogRate  float64
	stateLogBytes int64
	faults        []string
	rosbridge     string // ws://host:9090: join that ROS 2 graph (mission_ros.go)
	rosNamespace  string
}

func newMissionServeCmd() *cobra.Command {
	var f missionServeFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the mission daemon and its HTTP API",
		Long: `Run the mission daemon: the safety state machine, a vehicle adapter and the
HTTP API, until interrupted (SIGINT, SIGTERM). On exit it writes the black
box (flight_events.csv, flight_events_summary.json) into --record-dir when
it holds events and dump_on_shutdown is on.

Adapters: demo moves at constant speed without dynamics (as the
specification's demo); sim flies the embedded quadrotor (PX4 SIH physics,
PX4-like autopilot) in real time, or --speed times faster; state_only makes
every command take effect at once.

The API listens on loopback by default; --allow-remote is needed for any
other address. Requests whose Host header names neither an IP address,
localhost nor an --allow-host name are refused (DNS rebinding); at most 64
status streams and 256 connections are open at once, and requests must
arrive within the read timeouts (headers 5 s, whole request 30 s). POST requests need "Authorization: Bearer <token>" with the
token from --token-file, which is created (mode 0600) when missing. The
token is never printed or logged.

Parameters come from --params FILE (a JSON object with the names below), then
from the flags given: max_altitude, home_z, takeoff_altitude,
ground_margin, max_hor_dist, telemetry_timeout, battery_min, link_loss_timeout, failsafe_action,
record_events, record_max_events, record_dir, dump_on_shutdown.`,
		Example: `  shakedown mission serve
  shakedown mission serve --adapter sim --speed 5 --record-dir flights/
  shakedown mission serve --params params.json --listen 127.0.0.1:0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return missionServe(ctx, cmd, f, nil)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.adapter, "adapter", "demo", "vehicle adapter: demo, sim, state_only or mavlink")
	fl.StringVar(&f.record, "record", "", "write the mission as an MCAP `FILE` for Foxglove (positions, the queue, the black-box records), finished when the daemon stops")
	fl.StringVar(&f.connect, "connect", "", "--adapter mavlink: the vehicle's `URL` (udp://127.0.0.1:14540 dials shakedown sitl, udp://:14540 listens for PX4 SITL, tcp://127.0.0.1:5760 dials ArduPilot SITL)")
	fl.StringVar(&f.listen, "listen", missionDefaultAddr, "HTTP `address` to listen on (port 0 picks a free port)")
	fl.StringVar(&f.tokenFile, "token-file", missionTokenPath(), "bearer token `file` (created with mode 0600 when missing)")
	fl.StringVar(&f.recordDir, "record-dir", "", "`dir`ectory for dump_log (record_dir; default the current directory)")
	fl.StringVar(&f.params, "params", "", "parameter `file` (JSON)")
	fl.Float64Var(&f.speed, "speed", 1, "run the daemon's clock (and the simulated vehicle) this many times faster than real time")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the sim adapter's noise")
	fl.DurationVar(&f.tick, "tick", 50*time.Millisecond, "period of telemetry polls and timeout checks (daemon time)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow --listen on an address that is not loopback")
	fl.Float64Var(&f.maxAltitude, "max-altitude", 0, "max_altitude above home, m (default 30)")
	fl.Float64Var(&f.homeZ, "home-z", 0, "home_z: where the demo and state_only vehicles stand (NED z, m, within ±100000)")
	fl.Float64Var(&f.groundMargin, "ground-margin", 0, "ground_margin: how far above home every waypoint must be, m (default 0.5; 0 = z < home_z)")
	fl.Float64Var(&f.maxHorDist, "max-hor-dist", 0, "max_hor_dist: the geofence, the largest horizontal distance of a waypoint from home, m (PX4's GF_MAX_HOR_DIST; default 1000)")
	fl.StringArrayVar(&f.allowHosts, "allow-host", nil, "accept this `name` in the Host header besides IP addresses and localhost (a reverse proxy's; repeatable)")
	fl.Float64Var(&f.takeoffAltitude, "takeoff-altitude", 0, "take-off height above home, m (default 2)")
	fl.Float64Var(&f.telemetryTimeout, "telemetry-timeout", 0, "telemetry timeout, s (default 1)")
	fl.Float64Var(&f.batteryMin, "battery-min", 0, "battery fraction that triggers FAILSAFE (default 0.07; 0 disables)")
	fl.Float64Var(&f.linkLoss, "link-loss-timeout", 0, "link-loss grace, s (default 10; 0 disables)")
	fl.StringVar(&f.failsafeAction, "failsafe-action", "", "what FAILSAFE does in the air: hold (default) or land")
	fl.BoolVar(&f.recordEvents, "record-events", true, "keep the flight-event black box")
	fl.IntVar(&f.recordMaxEvents, "record-max-events", blackbox.DefaultMaxEvents, "black-box ring size")
	fl.BoolVar(&f.dumpOnShutdown, "dump-on-shutdown", true, "write the black box on exit when it holds events")
	fl.StringVar(&f.stateLog, "state-log", "", "write the JSONL state log to `FILE` (off by default; its folder must exist)")
	fl.Float64Var(&f.stateLogRate, "state-log-rate", 2, "status samples per second of daemon time in the state log (0: records only)")
	fl.Int64Var(&f.stateLogBytes, "state-log-max-bytes", 10<<20, "rotate the state log at this size, keeping FILE.1 … FILE.3")
	fl.StringVar(&f.rosbridge, "rosbridge", "", "also join the ROS 2 graph of the rosbridge server at `URL` (ws://host:9090): status and queue topics, a command topic, Trigger services and the execute_mission action")
	fl.StringVar(&f.rosNamespace, "ros-namespace", server.DefaultROSNamespace, "the ROS `name` the topics, services and action live under with --rosbridge")
	fl.StringArrayVar(&f.faults, "fault", nil, "inject a fault at daemon time T s: `KIND@T` (altitude, rpc, takeoff, battery, link, telemetry, gnss, motor; repeatable; sim, demo and state_only)")
	return cmd
}

// missionParams merges the parameter file and the flags that were given.
func missionParams(cmd *cobra.Command, f missionServeFlags) (server.Params, error) {
	p := server.DefaultParams()
	if f.params != "" {
		data, err := os.ReadFile(f.params)
		if err != nil {
			return p, err
		}
		if p, err = server.ParseParams(data, f.params); err != nil {
			return p, err
		}
	}
	set := cmd.Flags().Changed
	secs := func(name string, v float64, zeroOK bool) (time.Duration, error) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (!zeroOK && v == 0) || v > 3600 {
			return 0, fmt.Errorf("--%s %v: want seconds, finite, %s and at most 3600", name, v, map[bool]string{true: "≥ 0", false: "> 0"}[zeroOK])
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	var err error
	if set("max-altitude") {
		p.Machine.MaxAltitudeM = f.maxAltitude
	}
	if set("home-z") {
		p.HomeZ = f.homeZ
	}
	if set("takeoff-altitude") {
		p.Machine.TakeoffAltM = f.takeoffAltitude
	}
	if set("ground-margin") {
		p.Machine.GroundMarginM = f.groundMargin
	}
	if set("max-hor-dist") {
		p.Machine.MaxHorDistM = f.maxHorDist
	}
	if set("telemetry-timeout") {
		if p.Machine.TelemetryTimeout, err = secs("telemetry-timeout", f.telemetryTimeout, false); err != nil {
			return p, err
		}
	}
	if set("link-loss-timeout") {
		if p.Machine.LinkLoss, err = secs("link-loss-timeout", f.linkLoss, true); err != nil {
			return p, err
		}
	}
	if set("battery-min") {
		p.Machine.BatteryMin = f.batteryMin
	}
	if set("failsafe-action") {
		switch f.failsafeAction {
		case "hold", "land":
			p.Machine.FailsafeLand = f.failsafeAction == "land"
		default:
			return p, fmt.Errorf("--failsafe-action %q: want hold or land", f.failsafeAction)
		}
	}
	if set("record-events") {
		p.RecordEvents = f.recordEvents
	}
	if set("record-max-events") {
		p.RecordMaxEvents = f.recordMaxEvents
	}
	if set("dump-on-shutdown") {
		p.DumpOnShutdown = f.dumpOnShutdown
	}
	if set("record-dir") || p.RecordDir == "" {
		p.RecordDir = f.recordDir
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("parameters: %w", err)
	}
	if f.adapter == "mavlink" && (set("home-z") || p.HomeZSet) {
		return p, fmt.Errorf("home_z %v: --adapter mavlink takes home from the vehicle at connect; remove home_z (from --home-z or --params)", p.HomeZ)
	}
	return p, nil
}

// missionDaemonOpts are the daemon's options beyond its parameters.
type missionDaemonOpts struct {
	stateLog      string        // "" = none
	sampleEvery   time.Duration // state log sample period; < 0 = none
	stateLogBytes int64
	faults        []adapter.Fault
	allowHosts    []string // Host header names accepted besides IP addresses and localhost
}

// missionServeOpts checks the state log and fault flags.
func missionServeOpts(f missionServeFlags) (missionDaemonOpts, error) {
	o := missionDaemonOpts{stateLog: f.stateLog, stateLogBytes: f.stateLogBytes, sampleEvery: -1, allowHosts: f.allowHosts}
	if r := f.stateLogRate; math.IsNaN(r) || r < 0 || r > 1000 {
		return o, fmt.Errorf("--state-log-rate %v: want samples per second from 0 to 1000", r)
	} else if r > 0 {
		o.sampleEvery = time.Duration(float64(time.Second) / r)
	}
	if f.stateLog != "" {
		if dir := filepath.Dir(f.stateLog); !missionIsDir(dir) {
			return o, fmt.Errorf("--state-log %s: the folder %s does not exist", f.stateLog, dir)
		}
		if f.stateLogBytes < 4096 {
			return o, fmt.Errorf("--state-log-max-bytes %d: want at least 4096", f.stateLogBytes)
		}
	}
	for _, s := range f.faults {
		ft, err := adapter.ParseFault(s)
		if err != nil {
			return o, fmt.Errorf("--fault: %w", err)
		}
		switch {
		case f.adapter == "mavlink":
			return o, fmt.Errorf("--fault %s: faults are injected into the embedded vehicles (sim, demo, state_only), not a real one", s)
		case ft.Kind == adapter.FaultMotor && f.adapter != "sim":
			return o, fmt.Errorf("--fault %s: a motor failure needs the dynamics of --adapter sim", s)
		}
		o.faults = append(o.faults, ft)
	}
	return o, nil
}

func missionIsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// missionListenAddr checks that addr is host:port on loopback unless
// remote access is allowed.
func missionListenAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port: %v", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %q is not a loopback address; the API would be reachable from the network: add --allow-remote to mean it", addr)
	}
	return nil
}

// missionCheckAdapter checks the adapter name and the clock speed-up.
func missionCheckAdapter(name string, speed float64) error {
	switch name {
	case "demo", "sim", "state_only":
	case "mavlink":
	default:
		return fmt.Errorf("--adapter %q: want demo, sim, state_only or mavlink", name)
	}
	if !(speed > 0) || speed > 100 {
		return fmt.Errorf("--speed %v: want a number > 0 and at most 100", speed)
	}
	return nil
}

// missionDaemon is a running daemon: the server loop and the HTTP server.
type missionDaemon struct {
	srv    *server.Server
	http   *http.Server
	ln     net.Listener
	token  string
	cancel context.CancelFunc
	wg     sync.WaitGroup
	runErr error
}

// URL returns the API's base URL.
func (d *missionDaemon) URL() string { return "http://" + d.ln.Addr().String() }

// stop stops the daemon: the server loop first (it closes the event
// streams), then the HTTP server.
func (d *missionDaemon) stop() error {
	d.cancel()
	<-d.srv.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	herr := d.http.Shutdown(ctx)
	d.wg.Wait()
	if d.runErr != nil {
		return d.runErr
	}
	return herr
}

// startMissionDaemon builds the adapter, the server and the listener and
// starts them.
func startMissionDaemon(p server.Params, adapterName string, speed float64, seed uint64, tick time.Duration,
	listen, token string, logf func(string, ...any), connect ...string) (*missionDaemon, error) {
	return startMissionDaemonOpts(p, adapterName, speed, seed, tick, listen, token, logf, missionDaemonOpts{}, connect...)
}

// startMissionDaemonOpts is startMissionDaemon with a state log and
// faults. Nothing is left behind when it fails: the state log it created
// is closed and, if still empty, removed.
func startMissionDaemonOpts(p server.Params, adapterName string, speed float64, seed uint64, tick time.Duration,
	listen, token string, logf func(string, ...any), opts missionDaemonOpts, connect ...string) (d *missionDaemon, err error) {
	if err := missionCheckAdapter(adapterName, speed); err != nil {
		return nil, err
	}
	var ad server.Adapter
	switch adapterName {
	case "demo":
		ad = adapter.NewDemo(adapter.KinematicConfig{Start: geom.Vec3{Z: p.HomeZ}})
	case "state_only":
		ad = adapter.NewStateOnly(adapter.KinematicConfig{Start: geom.Vec3{Z: p.HomeZ}})
	case "sim":
		if p.HomeZ != 0 {
			return nil, fmt.Errorf("home_z %v: the sim adapter starts at its origin (home_z 0)", p.HomeZ)
		}
		s, err := adapter.NewSim(vehicle.SimConfig{Seed: seed})
		if err != nil {
			return nil, err
		}
		ad = s
	case "mavlink":
		var err error
		if ad, err = newMavlinkMissionAdapter(strings.Join(connect, ""), logf); err != nil {
			return nil, err
		}
	}
	if len(opts.faults) > 0 {
		sch, ok := ad.(interface {
			SetSchedule([]adapter.Fault, float64) error
		})
		if !ok {
			ad.Close()
			return nil, fmt.Errorf("--fault: the %s adapter takes no faults", adapterName)
		}
		if err := sch.SetSchedule(opts.faults, p.HomeZ-p.Machine.MaxAltitudeM); err != nil {
			ad.Close()
			return nil, fmt.Errorf("--fault: %w", err)
		}
	}
	var slog *server.StateLog
	if opts.stateLog != "" {
		existed := missionIsFile(opts.stateLog)
		var err error
		if slog, err = server.OpenStateLog(server.StateLogConfig{Path: opts.stateLog, MaxBytes: opts.stateLogBytes}); err != nil {
			ad.Close()
			return nil, err
		}
		defer func() {
			if err != nil {
				slog.Close()
				if fi, serr := os.Stat(opts.stateLog); !existed && serr == nil && fi.Size() == 0 {
					os.Remove(opts.stateLog)
				}
			}
		}()
	}
	var rec *blackbox.Recorder
	if p.RecordEvents {
		var err error
		if rec, err = blackbox.New(p.RecordMaxEvents); err != nil {
			return nil, err
		}
	}
	var clock server.Clock = server.RealClock{}
	if speed != 1 {
		clock = server.NewScaled(nil, speed)
	}
	srv, err := server.New(server.Config{Machine: p.Machine, Adapter: ad, Clock: clock, Tick: tick, Recorder: rec,
		RecordDir: p.RecordDir, DumpOnShutdown: p.DumpOnShutdown, Logf: logf, StateLog: slog, SampleEvery: opts.sampleEvery})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := srv.NewHandler(server.HTTPConfig{Token: token, Addr: ln.Addr().String(), Hosts: opts.allowHosts})
	hs, lln := server.NewHTTPServer(ln, h, server.HTTPLimits{})
	d = &missionDaemon{srv: srv, ln: lln, token: token, cancel: cancel, http: hs}
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		d.runErr = srv.Run(ctx)
	}()
	go func() {
		defer d.wg.Done()
		if err := d.http.Serve(d.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("http: %v", err)
		}
	}()
	return d, nil
}

// missionServe runs the daemon until ctx is done. ready, if not nil,
// receives the daemon once it listens (for tests).
func missionServe(ctx context.Context, cmd *cobra.Command, f missionServeFlags, ready chan<- *missionDaemon) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := missionListenAddr(f.listen, f.allowRemote); err != nil {
		return err
	}
	if err := missionCheckAdapter(f.adapter, f.speed); err != nil {
		return err
	}
	if err := checkMavlinkConnect(f.adapter, f.connect); err != nil {
		return err
	}
	if err := checkMissionROS(f.rosbridge, f.rosNamespace); err != nil {
		return err
	}
	p, err := missionParams(cmd, f)
	if err != nil {
		return err
	}
	opts, err := missionServeOpts(f)
	if err != nil {
		return err
	}
	if f.adapter == "sim" && p.HomeZ != 0 {
		return fmt.Errorf("home_z %v: the sim adapter starts at its origin (home_z 0)", p.HomeZ)
	}
	var rec *mcapFile
	if f.record != "" {
		if rec, err = newMCAPFile(f.record); err != nil {
			return err
		}
		defer rec.abort()
	}
	tok, created, err := server.LoadOrCreateToken(f.tokenFile)
	if err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	if created {
		fmt.Fprintf(stderr, "shakedown mission: created the token file %s (mode 0600)\n", f.tokenFile)
	}
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
	}
	d, err := startMissionDaemonOpts(p, f.adapter, f.speed, f.seed, f.tick, f.listen, tok, logf, opts, f.connect)
	if err != nil {
		return err
	}
	if f.rosbridge != "" {
		stopROS, err := missionJoinROS(ctx, d.srv, f.rosbridge, f.rosNamespace, logf)
		if err != nil {
			_ = d.stop()
			return err
		}
		defer stopROS()
		fmt.Fprintf(stderr, "shakedown mission: on the ROS 2 graph of %s as %s\n", f.rosbridge, f.rosNamespace)
	}
	for _, ft := range opts.faults {
		fmt.Fprintf(stderr, "shakedown mission: fault %s scheduled (expect FAILSAFE %s)\n", ft, ft.Kind.Reason())
	}
	fmt.Fprintln(stdout, d.URL())
	fmt.Fprintf(stderr, "shakedown mission: listening on %s (adapter %s, speed ×%g, token in %s); Ctrl-C stops\n",
		d.URL(), f.adapter, f.speed, f.tokenFile)
	recDone := make(chan struct{})
	rctx, stopRec := context.WithCancel(context.Background())
	defer stopRec()
	if rec != nil {
		go func() { defer close(recDone); d.srv.Record(rctx, rec.w) }()
	} else {
		close(recDone)
	}
	if ready != nil {
		ready <- d
	}
	<-ctx.Done()
	fmt.Fprintln(stderr, "shakedown mission: stopping")
	err = d.stop()
	stopRec()
	<-recDone
	if rec != nil {
		if cerr := rec.commit(); cerr != nil && err == nil {
			err = cerr
		} else if cerr == nil {
			fmt.Fprintf(stderr, "shakedown mission: wrote %s\n", f.record)
		}
	}
	return err
}

// mcapFile is an MCAP recording written to a temporary file beside its
// destination and renamed into place when complete, so that a crash leaves
// no half-written recording under the name asked for.
type mcapFile struct {
	path string
	f    *os.File
	w    *flightlog.Writer
	done bool
}

func newMCAPFile(path string) (*mcapFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	w, err := flightlog.New(f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &mcapFile{path: path, f: f, w: w}, nil
}

func (m *mcapFile) commit() error {
	m.done = true
	if err := m.w.Close(); err != nil {
		m.f.Close()
		os.Remove(m.f.Name())
		return err
	}
	if err := m.f.Close(); err != nil {
		os.Remove(m.f.Name())
		return err
	}
	if err := os.Chmod(m.f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(m.f.Name(), m.path)
}

func (m *mcapFile) abort() {
	if !m.done {
		m.f.Close()
		os.Remove(m.f.Name())
	}
}

func missionIsFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
