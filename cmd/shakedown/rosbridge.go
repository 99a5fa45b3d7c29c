package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/robot"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// rosbridgeAddr takes host:port or ws://host:port/ (a server listens on
// the host and port).
func rosbridgeAddr(s string) (string, error) {
	a := strings.TrimSuffix(strings.TrimPrefix(s, "ws://"), "/")
	if _, _, err := net.SplitHostPort(a); err != nil {
		return "", fmt.Errorf("--rosbridge %q: want host:port (e.g. 127.0.0.1:9090): %w", s, err)
	}
	return a, nil
}

// loadProfile returns the profile file's robot, or the built-in one of kind.
func loadProfile(path, kind string) (*robot.Profile, error) {
	if path == "" {
		return robot.Builtin(kind)
	}
	p, err := robot.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	if p.Kind != kind {
		return nil, fmt.Errorf("--profile %s: a %s profile, not a %s", path, p.Kind, kind)
	}
	return p, nil
}

// runSITLRosbridge serves the embedded robot on a rosbridge server until
// ctx is done. ready, if not nil, gets the server's ws:// URL once it
// listens (for tests).
func runSITLRosbridge(ctx context.Context, stderr io.Writer, arg string, f sitlFlags, ready chan<- string) error {
	addr, err := rosbridgeAddr(f.rosbridge)
	if err != nil {
		return err
	}
	if f.vehicle != "quad" && f.vehicle != "mower" {
		return fmt.Errorf("--vehicle %q: want quad or mower", f.vehicle)
	}
	prof, err := loadProfile(f.profile, f.vehicle)
	if err != nil {
		return err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "shakedown sitl: "+format+"\n", args...) }
	var serve func(context.Context, rosbridge.Node) error
	name := ""
	switch f.vehicle {
	case "quad":
		sim, n, err := sitlSim(arg, f)
		if err != nil {
			return err
		}
		name = n
		serve = func(ctx context.Context, node rosbridge.Node) error {
			return robot.ServeQuad(ctx, node, robot.QuadConfig{Profile: prof, Sim: sim, Speed: f.speed, Logf: logf})
		}
	case "mower":
		if f.variant != "" && f.vehicle != "mower" {
			return errors.New("--sim-variant is for the mower")
		}
		if arg != "" || len(f.obstacles) > 0 {
			return errors.New("the mower takes no case study or --obstacle: its lawn has the end-of-line test's box")
		}
		rc, gc := rover.Config{}, gate.Config{}
		switch f.variant {
		case "":
		case "eol-1", "eol-2":
			rc.Params = rover.DefaultParams()
			rc.Params.BladeTorqueNm = rover.Unlimited
			gc.NoWatchdog = f.variant == "eol-1"
		default:
			return fmt.Errorf("--sim-variant %q: want eol-1 or eol-2", f.variant)
		}
		sim, err := vehicle.NewMowerSim(vehicle.MowerSimConfig{Rover: rc, Gate: gc, Scene: world.Scene{Boxes: []world.Box{vehicle.MowerTestBox()}}, Seed: f.seed})
		if err != nil {
			return err
		}
		name = "eol lawn"
		serve = func(ctx context.Context, node rosbridge.Node) error {
			return robot.ServeMower(ctx, node, robot.MowerConfig{Profile: prof, Sim: sim, Speed: f.speed, Logf: logf})
		}
	}
	srv, err := rosbridge.NewServer(rosbridge.ServerConfig{Logf: logf})
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("--rosbridge: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, ln) }()
	url := "ws://" + ln.Addr().String()
	fmt.Fprintf(stderr, "shakedown sitl: %s %s (profile %s), speed ×%g; rosbridge server on %s; Ctrl-C stops\n",
		f.vehicle, name, prof.Name, f.speed, url)
	if ready != nil {
		ready <- url
	}
	serr := serve(ctx, srv)
	cancel()
	if err := <-errc; err != nil && serr == nil {
		serr = err
	}
	if serr != nil {
		return serr
	}
	fmt.Fprintln(stderr, "shakedown sitl: stopped")
	return nil
}

func isRosbridgeURL(s string) bool {
	return strings.HasPrefix(s, "ws://") || strings.HasPrefix(s, "wss://")
}

// runEOLRosbridge runs the mower's end-of-line test on a mower on a ROS 2
// graph, through its rosbridge server: the sensors from its topics, the
// commands published where its safety gate listens.
func runEOLRosbridge(ctx context.Context, f eolFlags, opt eol.Options, rec *eolRecord) (*eol.Report, error) {
	prof, err := loadProfile(f.profile, "mower")
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := rosbridge.Dial(dctx, rosbridge.ClientConfig{URL: f.connect})
	if err != nil {
		return nil, fmt.Errorf("--connect: %w", err)
	}
	defer c.Close()
	m, err := robot.NewRemoteMower(ctx, c, prof, robot.Origin{})
	if err != nil {
		return nil, fmt.Errorf("--connect %s: %w", f.connect, err)
	}
	defer m.Close()
	// Wait for the first samples of every sensor before step 1 counts rates.
	if _, err := m.Wait(dctx, time.Second, nil); err != nil {
		return nil, fmt.Errorf("--connect %s: %w", f.connect, err)
	}
	g := prof.Geometry
	opt.Source = "rosbridge " + f.connect
	opt.Mower = eol.MowerSpec{WheelRadiusM: g.WheelRadiusM, TrackM: g.TrackM, FrontM: g.FrontM, HalfWidthM: g.HalfWidthM,
		BladeFullRadS: g.BladeFullRPM * 2 * math.Pi / 60,
		IMUHz:         prof.Topics["imu"].RateHz, GNSSHz: prof.Topics["gnss"].RateHz, JointHz: prof.Topics["joints"].RateHz,
		LidarHz: prof.Topics["scan"].RateHz, BatteryHz: prof.Topics["battery"].RateHz}
	rm, err := rec.wrap(m)
	if err != nil {
		return nil, err
	}
	return eol.RunMower(ctx, rm, opt)
}
