package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

type sitlFlags struct {
	vehicle   string
	listen    string
	gcs       string
	speed     float64
	seed      uint64
	autopilot string
	obstacles []string
	rules     string
	rosbridge string // host:port: serve on a rosbridge server instead of MAVLink (rosbridge.go)
	profile   string // the robot profile YAML with --rosbridge; "" = the built-in one
	variant   string // the mower of one of the end-of-line seed's runs (rosbridge.go)
}

func newSITLCmd() *cobra.Command {
	var f sitlFlags
	cmd := &cobra.Command{
		Use:   "sitl [case-study]",
		Short: "Serve the embedded simulator as a PX4-like MAVLink vehicle",
		Long: `Run the embedded quadrotor (PX4 SIH physics, PX4-like autopilot) as a
MAVLink 2 vehicle, the way PX4 SITL serves one: system 1, component 1, a
heartbeat with the armed flag and PX4's custom mode, COMMAND_LONG answered
with COMMAND_ACK (arming in the air and a take-off while disarmed are
TEMPORARILY_REJECTED, a motor test while armed DENIED), the mission protocol,
offboard setpoints (SET_POSITION_TARGET_LOCAL_NED) with COM_OF_LOSS_T = 1 s
and a failsafe that holds and lands after COM_FAIL_ACT_T = 5 s, and telemetry
at SITL rates (ATTITUDE, LOCAL_POSITION_NED, GLOBAL_POSITION_INT, HIGHRES_IMU
at 50 Hz; GPS_RAW_INT, EXTENDED_SYS_STATE, DISTANCE_SENSOR, SYS_STATUS,
BATTERY_STATUS, HOME_POSITION, …).

--listen is the offboard/API link: the vehicle listens there (point
"shakedown mission serve --adapter mavlink --connect", "shakedown fly
--connect" or MAVSDK at it). --gcs is where it sends to a ground station:
QGroundControl listens on UDP 14550 and connects by itself; --gcs "" turns it
off. The vehicle stands at PX4 SITL's spawn point (47.397742 N, 8.545594 E,
488 m). The optional case study (mission1…7, a YAML or a .plan) and
--obstacle set the obstacles and the PX4 parameters; its mission is not
started: upload one over MAVLink. --autopilot avoid (the default, as for
fly) flies mission legs with the obstacle-avoidance planner on the depth
camera's point cloud; plain flies them straight. Offboard setpoints and
commands are the same with both.

Runs until interrupted (SIGINT, SIGTERM).`,
		Example: `  shakedown sitl
  shakedown sitl --speed 5 mission2
  shakedown sitl --listen udp://127.0.0.1:14541 --gcs "" --obstacle 10,4,20,-8,24.5,0,30`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			if f.rosbridge != "" {
				return runSITLRosbridge(ctx, cmd.ErrOrStderr(), arg, f, nil)
			}
			return runSITL(ctx, cmd.ErrOrStderr(), arg, f, nil)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.vehicle, "vehicle", "quad", "the simulated vehicle: quad, or mower (with --rosbridge)")
	fl.StringVar(&f.listen, "listen", "udp://127.0.0.1:14540", "offboard/API link `URL` the vehicle listens on (udp://, tcp://)")
	fl.StringVar(&f.gcs, "gcs", "udp://127.0.0.1:14550", "ground-station `URL` the vehicle sends to; \"\" = none")
	fl.Float64Var(&f.speed, "speed", 1, "simulated seconds per wall second (PX4_SIM_SPEED_FACTOR)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the simulator's noise")
	fl.StringVar(&f.autopilot, "autopilot", run.AutopilotAvoid, "avoid (mission legs flown with the obstacle-avoidance planner, as fly does) or plain")
	fl.StringArrayVar(&f.obstacles, "obstacle", nil, "obstacle `l,w,h,x,y,z,r` (m, degrees; competition frame); repeatable")
	fl.StringVar(&f.rules, "rules", "2025", "obstacle validity rules: 2024, 2025 or 2026")
	fl.StringVar(&f.rosbridge, "rosbridge", "", "serve the robot (quad or --vehicle mower) to ROS 2 on a rosbridge v2 server at `host:port` (e.g. 127.0.0.1:9090) instead of MAVLink")
	fl.StringVar(&f.variant, "sim-variant", "", "with --vehicle mower: simulate the mower of the seed's run `eol-1` or eol-2 (as shakedown eol --sim-variant)")
	fl.StringVar(&f.profile, "profile", "", "robot profile `YAML` (topics, rates, frames) for --rosbridge; default the built-in quad or mower profile")
	return cmd
}

// sitlSim builds the simulator from the flags: the case study's
// parameters and obstacles, or none.
func sitlSim(arg string, f sitlFlags) (*vehicle.Sim, string, error) {
	if f.vehicle != "quad" {
		return nil, "", fmt.Errorf("--vehicle %q: want quad (the mower has no MAVLink server)", f.vehicle)
	}
	if !(f.speed > 0) || f.speed > 1000 || math.IsInf(f.speed, 0) {
		return nil, "", fmt.Errorf("--speed %v: want a factor > 0 and at most 1000", f.speed)
	}
	if f.autopilot != run.AutopilotAvoid && f.autopilot != run.AutopilotPlain {
		return nil, "", fmt.Errorf("--autopilot %q: want %s or %s", f.autopilot, run.AutopilotAvoid, run.AutopilotPlain)
	}
	rules, err := rulesFor(f.rules)
	if err != nil {
		return nil, "", err
	}
	cs := &scenario.CaseStudy{Name: "empty"}
	if arg != "" {
		if cs, err = scenario.Load(arg); err != nil {
			return nil, "", err
		}
	}
	if len(f.obstacles) > 0 {
		cs.Obstacles = cs.Obstacles[:0]
		for i, s := range f.obstacles {
			b, err := scenario.ParseObstacle(s)
			if err != nil {
				return nil, "", fmt.Errorf("--obstacle #%d %q: %w", i+1, s, err)
			}
			cs.Obstacles = append(cs.Obstacles, b)
		}
	}
	if err := rules.Check(cs.Obstacles); err != nil {
		return nil, "", fmt.Errorf("%s: %w", cs.Name, err)
	}
	s, _, err := run.NewSim(cs, run.Options{Seed: f.seed, Autopilot: f.autopilot})
	if err != nil {
		return nil, "", err
	}
	return s, cs.Name, nil
}

// sitlEndpoints parses the API and ground-station URLs.
func sitlEndpoints(listen, gcs string) ([]gomavlib.EndpointConf, error) {
	if listen == "" {
		return nil, errors.New("--listen: empty URL")
	}
	api, err := mavlink.ParseURL(listen, mavlink.Incoming)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	eps := []gomavlib.EndpointConf{api}
	if gcs != "" {
		g, err := mavlink.ParseURL(gcs, mavlink.Outgoing)
		if err != nil {
			return nil, fmt.Errorf("--gcs: %w", err)
		}
		eps = append(eps, g)
	}
	return eps, nil
}

// runSITL serves until ctx is done. ready, if not nil, receives the server
// once its links are open (for tests).
func runSITL(ctx context.Context, stderr io.Writer, arg string, f sitlFlags, ready chan<- *mavlink.Server) error {
	sim, name, err := sitlSim(arg, f)
	if err != nil {
		return err
	}
	eps, err := sitlEndpoints(f.listen, f.gcs)
	if err != nil {
		return err
	}
	srv, err := mavlink.NewServer(mavlink.ServerConfig{Sim: sim, Endpoints: eps, Speed: f.speed,
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "shakedown sitl: "+format+"\n", args...) }})
	if err != nil {
		return err
	}
	gcs := f.gcs
	if gcs == "" {
		gcs = "none"
	}
	fmt.Fprintf(stderr, "shakedown sitl: %s, %d obstacles, speed ×%g; API link %s, ground station %s; Ctrl-C stops\n",
		name, len(sim.Scene().Boxes), f.speed, f.listen, gcs)
	if ready != nil {
		ready <- srv
	}
	if err := srv.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "shakedown sitl: stopped")
	return nil
}

// connectVehicle dials a MAVLink vehicle at url and waits until it is
// ready (heartbeat, position, home), for the harnesses' --connect flag.
func connectVehicle(ctx context.Context, url string, stderr io.Writer) (*mavlink.Vehicle, error) {
	if _, err := mavlink.ParseURL(url, mavlink.Outgoing); err != nil {
		return nil, fmt.Errorf("--connect: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// PX4 SITL refuses to arm until its preflight checks pass, some
	// seconds after its first heartbeat: ask again for a minute.
	v, err := mavlink.Dial(cctx, mavlink.Config{URL: url, ArmRetry: time.Minute})
	if err != nil {
		return nil, fmt.Errorf("--connect %s: %w", url, err)
	}
	l := v.Link()
	fmt.Fprintf(stderr, "shakedown: connected to %s system %d at %s\n", l.Flavor, l.SystemID, url)
	return v, nil
}

// checkMavlinkConnect checks the mission daemon's --connect: required with
// --adapter mavlink (and a URL ParseURL takes), refused with the others.
func checkMavlinkConnect(adapterName, url string) error {
	switch {
	case adapterName != "mavlink" && url != "":
		return fmt.Errorf("--connect is for --adapter mavlink, not %s", adapterName)
	case adapterName != "mavlink":
		return nil
	case url == "":
		return errors.New("--adapter mavlink needs --connect URL (e.g. udp://127.0.0.1:14540)")
	}
	if _, err := mavlink.ParseURL(url, mavlink.Outgoing); err != nil {
		return fmt.Errorf("--connect: %w", err)
	}
	return nil
}
