package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/daemon"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

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
	fl.StringVar(&f.record, "record", "", recordFileUsage+" (positions, the queue, the black-box records), finished when the daemon stops")
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

// missionServeOpts checks the state log and fault flags and puts them, and
// the other flags, into the daemon's configuration.
func missionServeOpts(f missionServeFlags) (daemon.Config, error) {
	o := daemon.Config{Adapter: f.adapter, Connect: f.connect, Speed: f.speed, Seed: f.seed, Tick: f.tick, Listen: f.listen,
		StateLog: f.stateLog, StateLogBytes: f.stateLogBytes, SampleEvery: -1, AllowHosts: f.allowHosts}
	if r := f.stateLogRate; math.IsNaN(r) || r < 0 || r > 1000 {
		return o, fmt.Errorf("--state-log-rate %v: want samples per second from 0 to 1000", r)
	} else if r > 0 {
		o.SampleEvery = time.Duration(float64(time.Second) / r)
	}
	if f.stateLog != "" {
		if dir := filepath.Dir(f.stateLog); !daemon.IsDir(dir) {
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
		o.Faults = append(o.Faults, ft)
	}
	return o, nil
}

// missionServe runs the daemon until ctx is done. ready, if not nil,
// receives the daemon once it listens (for tests).
func missionServe(ctx context.Context, cmd *cobra.Command, f missionServeFlags, ready chan<- *daemon.Daemon) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := daemon.CheckListen(f.listen, f.allowRemote); err != nil {
		return err
	}
	if err := daemon.CheckAdapter(f.adapter, f.speed); err != nil {
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
	cfg, err := missionServeOpts(f)
	if err != nil {
		return err
	}
	if f.adapter == "sim" && p.HomeZ != 0 {
		return fmt.Errorf("home_z %v: the sim adapter starts at its origin (home_z 0)", p.HomeZ)
	}
	var rec *daemon.Recording
	if f.record != "" {
		if rec, err = daemon.NewRecording(f.record); err != nil {
			return err
		}
		defer rec.Abort()
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
	cfg.Params, cfg.Token, cfg.Logf = p, tok, logf
	d, err := daemon.Start(cfg)
	if err != nil {
		return err
	}
	if f.rosbridge != "" {
		stopROS, err := d.JoinROS(ctx, f.rosbridge, f.rosNamespace, logf)
		if err != nil {
			_ = d.Stop()
			return err
		}
		defer stopROS()
		fmt.Fprintf(stderr, "shakedown mission: on the ROS 2 graph of %s as %s\n", f.rosbridge, f.rosNamespace)
	}
	for _, ft := range cfg.Faults {
		fmt.Fprintf(stderr, "shakedown mission: fault %s scheduled (expect FAILSAFE %s)\n", ft, ft.Kind.Reason())
	}
	fmt.Fprintln(stdout, d.URL())
	fmt.Fprintf(stderr, "shakedown mission: listening on %s (adapter %s, speed ×%g, token in %s); Ctrl-C stops\n",
		d.URL(), f.adapter, f.speed, f.tokenFile)
	if rec != nil {
		rec.Start(d)
	}
	if ready != nil {
		ready <- d
	}
	<-ctx.Done()
	fmt.Fprintln(stderr, "shakedown mission: stopping")
	err = d.Stop()
	if rec != nil {
		if cerr := rec.Finish(); cerr != nil && err == nil {
			err = cerr
		} else if cerr == nil {
			fmt.Fprintf(stderr, "shakedown mission: wrote %s\n", f.record)
		}
	}
	return err
}
