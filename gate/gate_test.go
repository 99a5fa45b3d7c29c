package gate_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/gate"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func newGate(t testing.TB, cfg gate.Config) *gate.Gate {
	t.Helper()
	g, err := gate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// clearScan is a fresh scan with nothing near.
func clearScan(t float64) gate.Scan {
	r := make([]float64, 271)
	for i := range r {
		r[i] = 12
	}
	return gate.Scan{T: t, AngleMinRad: -3 * math.Pi / 4, AngleIncRad: 3 * math.Pi / 2 / 270, Ranges: r, MountXM: 0.3}
}

// wallScan is a scan of a wall d metres ahead of the lidar.
func wallScan(t, d float64) gate.Scan {
	s := clearScan(t)
	for i := range s.Ranges {
		a := s.AngleMinRad + float64(i)*s.AngleIncRad
		if c := math.Cos(a); c > 0.05 {
			s.Ranges[i] = math.Min(12, d/c)
		}
	}
	return s
}

// The watchdog: a driver that wants motion must repeat itself every 0.5 s.
func TestWatchdog(t *testing.T) {
	cases := []struct {
		name     string
		cfg      gate.Config
		cmd      gate.Command
		silenceS float64
		wantHold gate.Hold
		wantOut  gate.Command
	}{
		{"fresh", gate.Config{}, gate.Command{V: 0.3, Blade: true}, 0.49, gate.HoldNone, gate.Command{V: 0.3, Blade: true}},
		{"silent", gate.Config{}, gate.Command{V: 0.3, Blade: true}, 0.52, gate.HoldWatchdog, gate.Command{}},
		{"blade alone", gate.Config{}, gate.Command{Blade: true}, 0.52, gate.HoldWatchdog, gate.Command{}},
		{"idle needs no refresh", gate.Config{}, gate.Command{}, 60, gate.HoldNone, gate.Command{}},
		{"custom timeout", gate.Config{WatchdogS: 0.2}, gate.Command{W: 0.5}, 0.25, gate.HoldWatchdog, gate.Command{}},
		{"no watchdog (eol-1)", gate.Config{NoWatchdog: true}, gate.Command{V: 0.3, Blade: true}, 60, gate.HoldNone, gate.Command{V: 0.3, Blade: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.NoLidar = true
			g := newGate(t, c.cfg)
			g.Request(1, c.cmd)
			out := g.Step(1+c.silenceS, gate.Inputs{})
			if out.Hold != c.wantHold || out.Drive != c.wantOut {
				t.Errorf("after %.2f s of silence: got %v %+v; want %v %+v", c.silenceS, out.Hold, out.Drive, c.wantHold, c.wantOut)
			}
		})
	}
	// A new command after the watchdog fired is obeyed at once.
	g := newGate(t, gate.Config{NoLidar: true})
	g.Request(0, gate.Command{V: 0.3})
	g.Step(1, gate.Inputs{})
	g.Request(1.1, gate.Command{V: 0.2})
	if out := g.Step(1.1, gate.Inputs{}); out.Drive.V != 0.2 {
		t.Errorf("after the driver came back: got %+v; want v = 0.2", out.Drive)
	}
}

// The STOP latch: cut at once, held until GO is held for 2 s, and no
// restart until the driver asks for nothing.
func TestStopLatch(t *testing.T) {
	g := newGate(t, gate.Config{NoLidar: true})
	drive := gate.Command{V: 0.3, Blade: true}
	tm := 0.0
	step := func(stop, goHeld bool) gate.Output {
		tm += 0.02
		g.Request(tm, drive) // the driver keeps commanding motion
		return g.Step(tm, gate.Inputs{Stop: stop, Go: goHeld})
	}
	if out := step(false, false); out.Drive != drive || out.Ring != gate.RingGreen {
		t.Fatalf("before STOP: %+v", out)
	}
	out := step(true, false)
	if !out.Latched || out.Drive != (gate.Command{}) || out.Ring != gate.RingRed || out.Hold != gate.HoldLatched {
		t.Fatalf("STOP pressed: got %+v; want latched, zero, red", out)
	}
	for range 100 { // button let go: still latched
		if out := step(false, false); !out.Latched || out.Drive != (gate.Command{}) {
			t.Fatalf("STOP let go: got %+v; want still latched", out)
		}
	}
	// GO for 1.9 s is not enough; let go, and it starts again.
	for range 95 {
		step(false, true)
	}
	if out := step(false, false); !out.Latched {
		t.Fatalf("GO held 1.9 s released the latch")
	}
	// GO while STOP is still held does nothing.
	for range 150 {
		if out := step(true, true); !out.Latched {
			t.Fatalf("GO released the latch while STOP was held")
		}
	}
	var released gate.Output
	for i := range 120 {
		released = step(false, true)
		if !released.Latched {
			if held := float64(i+1) * 0.02; held < 2-1e-9 {
				t.Fatalf("released after GO held %.2f s; want 2 s", held)
			}
			break
		}
	}
	if released.Latched || released.Hold != gate.HoldRearm || released.Drive != (gate.Command{}) || released.Ring != gate.RingAmber {
		t.Fatalf("after GO held 2 s: got %+v; want unlatched, waiting for idle, zero, amber", released)
	}
	for range 50 { // the driver still asks for motion: nothing moves
		if out := step(false, false); out.Drive != (gate.Command{}) {
			t.Fatalf("after the release the gate passed %+v", out.Drive)
		}
	}
	drive = gate.Command{}
	step(false, false)
	drive = gate.Command{V: 0.2}
	if out := step(false, false); out.Drive != drive || out.Hold != gate.HoldNone {
		t.Errorf("after an idle command: got %+v; want the new command passed", out)
	}
}

// The obstacle stop: forward motion stops when a return in the corridor is
// within StopM + v·LatencyS + v²/(2·BrakeMS2); turning and reversing go on.
func TestObstacleStop(t *testing.T) {
	oc := gate.ObstacleConfig{}
	stop03 := oc.StopDistM(0.3) // 0.25 + 0.045 + 0.0225
	if math.Abs(stop03-0.3175) > 1e-12 {
		t.Fatalf("stop distance at 0.3 m/s: got %v; want 0.3175", stop03)
	}
	front, mount := 0.40, 0.30
	cases := []struct {
		name     string
		cmd      gate.Command
		scan     gate.Scan
		wantHold gate.Hold
		wantV    float64
	}{
		{"clear", gate.Command{V: 0.3}, clearScan(1), gate.HoldNone, 0.3},
		{"wall beyond the stop distance", gate.Command{V: 0.3}, wallScan(1, front-mount+stop03+0.01), gate.HoldNone, 0.3},
		{"wall within it", gate.Command{V: 0.3}, wallScan(1, front-mount+stop03-0.01), gate.HoldObstacle, 0},
		{"slow is allowed closer", gate.Command{V: 0.05}, wallScan(1, front-mount+0.30), gate.HoldNone, 0.05},
		{"pivot in front of the wall", gate.Command{W: 0.5}, wallScan(1, front-mount+0.1), gate.HoldNone, 0},
		{"reverse from the wall", gate.Command{V: -0.2}, wallScan(1, front-mount+0.1), gate.HoldNone, -0.2},
		{"stale scan blocks forward", gate.Command{V: 0.3}, clearScan(0.2), gate.HoldNoLidar, 0},
		{"no scan blocks forward", gate.Command{V: 0.3}, gate.Scan{}, gate.HoldNoLidar, 0},
		{"too close to measure", gate.Command{V: 0.3}, func() gate.Scan { s := clearScan(1); s.Ranges[135] = math.NaN(); return s }(), gate.HoldObstacle, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGate(t, gate.Config{})
			g.Request(1, c.cmd)
			out := g.Step(1, gate.Inputs{Scan: c.scan})
			if out.Hold != c.wantHold || out.Drive.V != c.wantV {
				t.Errorf("got %v v=%v (ahead %.3f m); want %v v=%v", out.Hold, out.Drive.V, out.AheadM, c.wantHold, c.wantV)
			}
		})
	}
	// A box beside the corridor does not stop the robot.
	g := newGate(t, gate.Config{})
	s := clearScan(1)
	// A return 0.5 m ahead and 0.5 m to the side of the lidar.
	a := math.Atan2(0.5, 0.5)
	s.Ranges[int(math.Round((a-s.AngleMinRad)/s.AngleIncRad))] = math.Hypot(0.5, 0.5)
	g.Request(1, gate.Command{V: 0.3})
	if out := g.Step(1, gate.Inputs{Scan: s}); out.Hold != gate.HoldNone {
		t.Errorf("a return outside the corridor stopped the robot: %+v", out)
	}
}

func TestConfigRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  gate.Config
	}{
		{"negative watchdog", gate.Config{WatchdogS: -1}},
		{"NaN stop distance", gate.Config{Obstacle: gate.ObstacleConfig{StopM: math.NaN()}}},
		{"infinite brake", gate.Config{Obstacle: gate.ObstacleConfig{BrakeMS2: math.Inf(1)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := gate.New(c.cfg); err == nil {
				t.Errorf("New accepted %+v", c.cfg)
			}
		})
	}
}

// TestScenario runs a mowing robot's day through the gate and compares the
// transcript of what the motors got with testdata/scenario.golden.
func TestScenario(t *testing.T) {
	g := newGate(t, gate.Config{})
	var b strings.Builder
	var last gate.Output
	first := true
	type action struct {
		at   float64
		what string
		do   func(*gate.Inputs)
	}
	in := gate.Inputs{}
	wall := 10.0
	actions := []action{
		{0.10, "driver: forward 0.3 m/s, blade on", func(*gate.Inputs) {}},
		{1.00, "driver goes silent", nil},
		{2.00, "driver: forward 0.3 m/s, blade on", nil},
		{3.00, "STOP pressed", func(i *gate.Inputs) { i.Stop = true }},
		{3.20, "STOP let go", func(i *gate.Inputs) { i.Stop = false }},
		{5.00, "GO held", func(i *gate.Inputs) { i.Go = true }},
		{7.50, "GO let go", func(i *gate.Inputs) { i.Go = false }},
		{8.00, "driver: idle", nil},
		{8.50, "driver: forward 0.3 m/s, blade on; a wall 1.5 m ahead closes in", nil},
	}
	cmd := gate.Command{}
	silent := false
	for k := 0; k <= 700; k++ {
		tm := float64(k) * 0.02
		for _, a := range actions {
			if math.Abs(a.at-tm) < 1e-9 {
				fmt.Fprintf(&b, "%6.2f  > %s\n", tm, a.what)
				switch {
				case strings.HasPrefix(a.what, "driver: forward"):
					cmd, silent = gate.Command{V: 0.3, Blade: true}, false
				case a.what == "driver: idle":
					cmd, silent = gate.Command{}, false
				case a.what == "driver goes silent":
					silent = true
				}
				if strings.Contains(a.what, "wall") {
					wall = 1.5
				}
				if a.do != nil {
					a.do(&in)
				}
			}
		}
		if !silent && (math.Mod(tm+1e-9, 0.1) < 0.02) {
			g.Request(tm, cmd)
		}
		if wall < 10 && cmd.V > 0 && last.Drive.V > 0 {
			wall -= last.Drive.V * 0.02
		}
		in.Scan = wallScan(tm, wall)
		out := g.Step(tm, in)
		out.AheadM = 0
		if first || out != last {
			fmt.Fprintf(&b, "%6.2f  drive v=%.2f w=%.2f blade=%-5v ring=%-5s latched=%-5v hold=%s\n", tm, out.Drive.V, out.Drive.W, out.Drive.Blade, out.Ring, out.Latched, out.Hold)
		}
		first, last = false, out
	}
	for _, e := range g.Events() {
		fmt.Fprintf(&b, "%6.2f  event: %s\n", e.T, e.Text)
	}
	golden(t, "scenario.golden", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, d)
	}
}

func TestNames(t *testing.T) {
	if got := gate.RingRed.String() + gate.HoldObstacle.String() + gate.Ring(7).String() + gate.Hold(9).String(); got != "redobstacleRing(7)Hold(9)" {
		t.Errorf("names: got %q", got)
	}
}

func BenchmarkStep(b *testing.B) {
	g := newGate(b, gate.Config{})
	s := wallScan(0, 3)
	b.ReportAllocs()
	tm := 0.0
	for b.Loop() {
		tm += 0.02
		s.T = tm
		g.Request(tm, gate.Command{V: 0.3})
		g.Step(tm, gate.Inputs{Scan: s})
	}
}
