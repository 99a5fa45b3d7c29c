package track

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/traj"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

func line(n int, step, speed float64) *traj.Timed {
	var w []traj.Waypoint
	for i := range n {
		w = append(w, traj.Waypoint{Pos: geom.Vec3{X: float64(i) * step}, Speed: speed})
	}
	tr, err := traj.NewTimed(w)
	if err != nil {
		panic(err)
	}
	return tr
}

func TestRegistry(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "airstack,feedforward" {
		t.Errorf("Names: got %s; want airstack,feedforward", got)
	}
	for _, n := range Names() {
		tr, err := New(n)
		if err != nil || tr.Name() != n {
			t.Errorf("New(%q): got %v, %v", n, tr, err)
		}
	}
	if _, err := New("mpc"); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "mpc") {
		t.Errorf("New(mpc): got %v; want ErrUnknown naming it", err)
	}
	body, _ := traj.Generate(traj.Line, nil)
	for _, n := range Names() {
		tr, _ := New(n)
		if err := tr.Start(body, Odom{}); !errors.Is(err, ErrNotWorld) {
			t.Errorf("%s.Start(body frame): got %v; want ErrNotWorld", n, err)
		}
	}
}

// TestSphereIntersection checks get_waypoint_sphere_intersection on a
// straight line: the larger root, the final waypoint inside the sphere, and
// the first-segment rule.
func TestSphereIntersection(t *testing.T) {
	tr := line(11, 1, 2) // x = 0..10 m at 2 m/s: t = x/2
	cases := []struct {
		name  string
		t0    float64
		c     geom.Vec3
		r     float64
		t     float64
		found bool
	}{
		{"ahead on the line", 1, geom.Vec3{X: 2}, 2, 2, true},                   // exits at x = 4
		{"offset robot", 1, geom.Vec3{X: 2, Y: 1}, 2, 1 + math.Sqrt(3)/2, true}, // x = 2 + √3
		{"end inside", 4.5, geom.Vec3{X: 9.5}, 2, 5, true},                      // no root, final waypoint
		{"first segment start outside", 0.25, geom.Vec3{X: 0.5, Y: 3}, 2, 0, false},
		{"too far", 2, geom.Vec3{X: 5, Y: 5}, 2, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := sphereIntersection(tr, c.t0, c.c, c.r)
			if ok != c.found || (ok && math.Abs(got-c.t) > 1e-9) {
				t.Errorf("got %v, %v; want %v, %v", got, ok, c.t, c.found)
			}
		})
	}
	if got := distanceAhead(tr, 1, 3); math.Abs(got-2.5) > 1e-9 {
		t.Errorf("distanceAhead(1 s, 3 m): got %v; want 2.5 s", got)
	}
	if got := distanceAhead(tr, 1, 100); got != 5 {
		t.Errorf("distanceAhead past the end: got %v; want 5 (the final waypoint)", got)
	}
	p, ok := closest(tr, geom.Vec3{X: 3.3, Y: 2}, 0, 1)
	if !ok || math.Abs(p.T-1) > 1e-9 {
		t.Errorf("closest within [0, 1 s]: got %v at %v; want the window's end, t = 1", ok, p.T)
	}
	if _, ok := closest(tr, geom.Vec3{}, 2, 1); ok {
		t.Errorf("closest over an empty window: got ok; want not")
	}
}

// TestPID checks pid_controller's element: the clamp includes the
// constant, the integral is held so that i·integral sits at the limit.
func TestPID(t *testing.T) {
	p := pid{g: PIDGains{P: 0.2, I: 0.1, Min: -0.5, Max: 1, Constant: 0.5}}
	if got := p.update(1, 0.05); math.Abs(got-(0.2+0.1*0.05+0.5)) > 1e-12 {
		t.Errorf("first update: got %v; want 0.705", got)
	}
	for range 1000 {
		p.update(10, 0.05)
	}
	if got := p.g.I * p.integral; got != 1 {
		t.Errorf("i·integral after windup: got %v; want 1 (the max)", got)
	}
	if got := p.update(10, 0.05); got != 1 {
		t.Errorf("output: got %v; want the max 1", got)
	}
	q := pid{g: PIDGains{P: 1, Min: -3, Max: 3}}
	q.update(5, 0.05)
	if q.integral != 0 {
		t.Errorf("i = 0: integral %v; want 0", q.integral)
	}
}

// TestAirStackTicks checks the tracker's first ticks and its completion on
// a line, with the robot sitting where the tracking point is: time advance
// first (the previous tracking point had no speed), then sphere mode with r
// = speed × 1 s, done when vt reaches the duration.
func TestAirStackTicks(t *testing.T) {
	a := NewAirStack(AirStackConfig{})
	p := traj.Path{Type: "line", Frame: traj.World}
	for i := range 21 {
		p.Waypoints = append(p.Waypoints, traj.Waypoint{Pos: geom.Vec3{X: float64(i)}, Speed: 2})
	}
	if err := a.Start(p, Odom{}); err != nil {
		t.Fatal(err)
	}
	c := a.Update(Odom{T: 0})
	if !c.Attitude {
		t.Fatalf("command kind: got motion; want attitude")
	}
	if a.vt != 0.05 {
		t.Errorf("first tick: vt = %v; want 0.05 (time advance)", a.vt)
	}
	// A robot creeping along the line at 1 m/s: from the second tick on,
	// the tracking point is r = 2 m/s × 1 s ahead of it.
	o := Odom{}
	for i := 1; i <= 200; i++ {
		o.T = float64(i) * 0.005
		o.Pos = geom.Vec3{X: o.T}
		a.Update(o)
		if i%10 == 0 && i > 10 {
			if got := a.tp.Pos.X - o.Pos.X; math.Abs(got-2) > 1e-9 {
				t.Fatalf("t = %.2f s: tracking point %.4f m ahead of the robot; want r = 2", o.T, got)
			}
		}
	}
	if got := a.vt; math.Abs(got-o.T/2) > 1e-9 {
		t.Errorf("vt: got %v s; want the robot's projection, %v s", got, o.T/2)
	}
	for i := 400; i < 20000 && !a.Done(); i++ {
		o.T = float64(i) * 0.005
		a.Update(o)
		o.Pos = a.tp.Pos
	}
	if !a.Done() || a.Progress() != 1 {
		t.Errorf("not done: vt %v of %v", a.vt, a.tr.Duration())
	}
}

// fly flies a tracker along a path type on the embedded simulator from a
// 10-m hover, in calm air, and returns the mean and max distance to the
// path and the time to done.
func fly(t *testing.T, name, typ string) (mean, maxD, dur float64) {
	t.Helper()
	ap := autopilot.DefaultConfig()
	s, err := vehicle.NewSim(vehicle.SimConfig{Autopilot: ap, Quad: quad.Config{NoNoise: true}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s.Wait(ctx, time.Second, nil)
	if err := s.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Takeoff(ctx, 10); err != nil {
		t.Fatal(err)
	}
	s.Wait(ctx, 20*time.Second, nil)
	body, _ := traj.Generate(typ, nil)
	tel := s.Telemetry()
	w := body.World(traj.Pose{Pos: tel.Pos, Yaw: tel.Heading()})
	tr, _ := New(name)
	if err := tr.Start(w, Odom{T: tel.T, Pos: tel.Pos, Vel: tel.Vel, Yaw: tel.Heading()}); err != nil {
		t.Fatal(err)
	}
	ideal := w.Positions()
	var sum float64
	n := 0
	t0 := tel.T
	for !tr.Done() && s.Time()-t0 < 120 {
		tel := s.Telemetry()
		c := tr.Update(Odom{T: tel.T, Pos: tel.Pos, Vel: tel.Vel, Yaw: tel.Heading()})
		sp := vehicle.Setpoint{Pos: c.Pos, Vel: c.Vel, Acc: c.Acc, Yaw: c.Yaw}
		if c.Attitude {
			// A crude attitude path for the test: the tilt as an
			// acceleration, velocity passed through (see bench's driver).
			bz := c.Att.Rotate(geom.Vec3{Z: 1})
			g := quad.GravityMS2
			sp = vehicle.Setpoint{Pos: geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()}, Vel: tel.Vel,
				Acc: geom.Vec3{X: -g * bz.X / bz.Z, Y: -g * bz.Y / bz.Z, Z: g * (1 - c.Thrust*bz.Z)}, Yaw: c.Att.Yaw()}
		}
		if err := s.Setpoint(ctx, sp); err != nil {
			t.Fatal(err)
		}
		s.Step()
		d := math.Inf(1)
		for i := 1; i < len(ideal); i++ {
			d = math.Min(d, geom.PointSegmentDist(s.Telemetry().Pos.XY(), ideal[i-1].XY(), ideal[i].XY()))
		}
		sum += d
		maxD = math.Max(maxD, d)
		n++
	}
	if !tr.Done() {
		t.Fatalf("%s on %s: not done after 120 s", name, typ)
	}
	return sum / float64(n), maxD, s.Time() - t0
}

// TestFlyLine flies both trackers along the Line in calm air: both finish,
// the default within its planned time and a few centimetres of the path.
func TestFlyLine(t *testing.T) {
	for _, c := range []struct {
		name            string
		meanMax, maxMax float64
		durMax          float64
	}{
		{"feedforward", 0.02, 0.1, 11.5},
		{"airstack", 0.1, 0.3, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			mean, maxD, dur := fly(t, c.name, traj.Line)
			t.Logf("mean %.4f m, max %.4f m, %.2f s", mean, maxD, dur)
			if mean > c.meanMax || maxD > c.maxMax || dur > c.durMax {
				t.Errorf("got mean %.4f m, max %.4f m, %.2f s; want ≤ %g, %g, %g", mean, maxD, dur, c.meanMax, c.maxMax, c.durMax)
			}
		})
	}
}

// TestFeedforwardProfile checks the planned speed profile: a 90° corner is
// taken at √(a·R) with R the arc within 5 cm of the vertex, the Circle's
// 10° steps are not slowed for, and a straight 20 m at 2 m/s with 2 m/s²
// ramps takes 11 s.
func TestFeedforwardProfile(t *testing.T) {
	f := NewFeedforward(FeedforwardConfig{})
	f.pts = []geom.Vec3{{}, {X: 10}, {X: 10, Y: 10}}
	f.arc = []float64{0, 10, 20}
	want := math.Sqrt(2 * 0.05 / (1/math.Cos(math.Pi/4) - 1))
	if got := f.cornerSpeed(1); math.Abs(got-want) > 1e-12 || math.Abs(got-0.49) > 0.01 {
		t.Errorf("90° corner speed: got %.4f m/s; want %.4f", got, want)
	}
	f.pts = []geom.Vec3{{}, {X: 1}, {X: 1 + math.Cos(10*math.Pi/180), Y: math.Sin(10 * math.Pi / 180)}}
	if got := f.cornerSpeed(1); got < 2 {
		t.Errorf("10° corner speed: got %.3f m/s; want above the Circle's 2 m/s", got)
	}
	p := traj.Path{Frame: traj.World}
	for i := range 21 {
		p.Waypoints = append(p.Waypoints, traj.Waypoint{Pos: geom.Vec3{X: float64(i)}, Speed: 2})
	}
	if err := f.Start(p, Odom{}); err != nil {
		t.Fatal(err)
	}
	if got := f.Duration(); math.Abs(got-11) > 1e-9 {
		t.Errorf("20 m at 2 m/s from rest to rest: got %.4f s; want 11 (9 s cruise, two 1-s ramps)", got)
	}
}

func BenchmarkAirStackUpdate(b *testing.B) {
	p, _ := traj.Generate(traj.Figure8, nil)
	w := p.World(traj.Pose{})
	a := NewAirStack(AirStackConfig{})
	if err := a.Start(w, Odom{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	o := Odom{}
	for b.Loop() {
		o.T += 0.05 // one tick per call
		o.Pos = a.tp.Pos
		a.Update(o)
		if a.Done() {
			a.Start(w, Odom{T: o.T})
		}
	}
}

func BenchmarkFeedforwardUpdate(b *testing.B) {
	p, _ := traj.Generate(traj.Figure8, nil)
	w := p.World(traj.Pose{})
	f := NewFeedforward(FeedforwardConfig{})
	if err := f.Start(w, Odom{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	o := Odom{}
	for b.Loop() {
		o.T += 0.005
		c := f.Update(o)
		o.Pos = c.Pos
		if f.Done() {
			f.Start(w, Odom{T: o.T})
		}
	}
}
