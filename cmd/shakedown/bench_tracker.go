package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/robot"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/track/extern"
)

// externParams are the --tracker-param names of the trackers outside the
// process.
var externParams = []string{"rate_hz", "timeout_s"}

// trackerSpec is --tracker and --tracker-param, checked.
type trackerSpec struct {
	kind   string // "builtin", "exec" or "ros"
	name   string // the built-in tracker, the command line or the URL
	argv   []string
	params map[string]float64
}

// parseTracker checks --tracker and --tracker-param without starting
// anything.
func parseTracker(tracker string, params []string) (trackerSpec, error) {
	s := trackerSpec{kind: "builtin", name: tracker, params: map[string]float64{}}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || k == "" || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return s, fmt.Errorf("--tracker-param %q: want name=number", p)
		}
		if _, dup := s.params[k]; dup {
			return s, fmt.Errorf("--tracker-param %s: given twice", k)
		}
		s.params[k] = x
	}
	switch {
	case strings.HasPrefix(tracker, "exec:"):
		s.kind, s.name = "exec", strings.TrimPrefix(tracker, "exec:")
		if s.argv = strings.Fields(s.name); len(s.argv) == 0 {
			return s, fmt.Errorf("--tracker exec: no command given (exec:PROGRAM ARGS…)")
		}
	case strings.HasPrefix(tracker, "ros:"):
		s.kind, s.name = "ros", strings.TrimPrefix(tracker, "ros:")
		if !isRosbridgeURL(s.name) {
			return s, fmt.Errorf("--tracker %s: want ros:ws://host:9090, the rosbridge server of the tracker's graph", tracker)
		}
	default:
		if len(s.params) == 0 {
			_, err := track.New(tracker)
			return s, err
		}
		_, err := track.NewWith(tracker, s.params)
		return s, err
	}
	for k, v := range s.params {
		switch {
		case k == "rate_hz" && !(v >= 1 && v <= 1000):
			return s, fmt.Errorf("--tracker-param rate_hz=%v: want 1 to 1000 Hz", v)
		case k == "timeout_s" && !(v > 0 && v <= 600):
			return s, fmt.Errorf("--tracker-param timeout_s=%v: want seconds in (0, 600]", v)
		case k != "rate_hz" && k != "timeout_s":
			return s, fmt.Errorf("--tracker-param %s: a tracker outside the process takes %s", k, strings.Join(externParams, ", "))
		}
	}
	return s, nil
}

// setTracker makes cfg's trackers from the spec; the returned function
// releases what it opened (the rosbridge connection).
func setTracker(ctx context.Context, s trackerSpec, cfg *bench.Config, stderr io.Writer) (func(), error) {
	rate := s.params["rate_hz"]
	timeout := time.Duration(s.params["timeout_s"] * float64(time.Second))
	switch s.kind {
	case "builtin":
		if len(s.params) > 0 {
			cfg.NewTracker = func(int) (track.Tracker, error) { return track.NewWith(s.name, s.params) }
		}
		return func() {}, nil
	case "exec":
		if _, err := exec.LookPath(s.argv[0]); err != nil {
			return nil, fmt.Errorf("--tracker exec:%s: %w", s.name, err)
		}
		cfg.Tracker = "exec:" + s.name
		cfg.NewTracker = func(int) (track.Tracker, error) {
			p, err := extern.StartProcess(s.argv, stderr, timeout)
			if err != nil {
				return nil, err
			}
			return extern.New(cfg.Tracker, p, rate)
		}
		return func() {}, nil
	}
	for _, n := range cfg.NumRobots {
		if n != 1 {
			return nil, fmt.Errorf("--tracker ros: flies one robot (the graph has one odometry topic); give --num-robots 1")
		}
	}
	prof, err := robot.Builtin(robot.KindQuad)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := rosbridge.Dial(dctx, rosbridge.ClientConfig{URL: s.name})
	if err != nil {
		return nil, fmt.Errorf("--tracker ros:%s: %w", s.name, err)
	}
	link, err := robot.NewTrackerLink(ctx, c, prof, timeout)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("--tracker ros:%s: %w", s.name, err)
	}
	cfg.Tracker, cfg.Workers = "ros:"+s.name, 1
	cfg.NewTracker = func(int) (track.Tracker, error) { return extern.New(cfg.Tracker, link, rate) }
	return func() { link.Shutdown(); c.Close() }, nil
}
