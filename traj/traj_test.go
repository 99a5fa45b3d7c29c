package traj_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestGeometryFacts checks the generators against airstack.md §1.5 and
// §1.7: waypoint counts raw and after duplicate removal, path length,
// nominal duration under trajectory_library's time law, start and end.
func TestGeometryFacts(t *testing.T) {
	cases := []struct {
		typ              string
		raw, used        int
		lengthM, durS    float64
		first, last      geom.Vec2
		minX, maxX       float64
		minY, maxY       float64
		minStep, maxStep float64 // waypoint spacing, ignoring the Circle's 5e-14-m segment
	}{
		{traj.Circle, 41, 40, 82.75, 41.38, geom.Vec2{}, geom.Vec2{}, -10, 10, -10, 10, 1.743, 10},
		{traj.Figure8, 599, 599, 94.15, 48.26, geom.Vec2{}, geom.Vec2{X: -0.003, Y: -0.335}, -30, 0, -8, 8, 0.105, 0.230},
		{traj.Racetrack, 256, 256, 71.09, 34.14, geom.Vec2{}, geom.Vec2{X: -0.320, Y: 0.010}, -5, 25, 0, 10, 0.253, 0.321},
		{traj.Line, 40, 40, 19.5, 10.00, geom.Vec2{}, geom.Vec2{X: 19.5}, 0, 19.5, 0, 0, 0.5, 0.5},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			p, err := traj.Generate(c.typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Frame != traj.Body {
				t.Errorf("frame: got %v; want body", p.Frame)
			}
			if got := len(p.Waypoints); got != c.raw {
				t.Errorf("raw waypoints: got %d; want %d", got, c.raw)
			}
			tr, err := traj.NewTimed(p.Waypoints)
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Len(); got != c.used {
				t.Errorf("waypoints after duplicate removal: got %d; want %d", got, c.used)
			}
			if got := tr.Length(); !near(got, c.lengthM, 0.005) {
				t.Errorf("path length: got %.4f m; want %.2f", got, c.lengthM)
			}
			if got := tr.Duration(); !near(got, c.durS, 0.005) {
				t.Errorf("nominal duration: got %.4f s; want %.2f", got, c.durS)
			}
			w := p.Waypoints
			if got := w[0].Pos.XY(); got.Dist(c.first) > 0.0005 {
				t.Errorf("first point: got %v; want %v", got, c.first)
			}
			if got := w[len(w)-1].Pos.XY(); got.Dist(c.last) > 0.0005 {
				t.Errorf("last point: got %v; want %v", got, c.last)
			}
			lo, hi := geom.Vec2{X: math.Inf(1), Y: math.Inf(1)}, geom.Vec2{X: math.Inf(-1), Y: math.Inf(-1)}
			minStep, maxStep := math.Inf(1), 0.0
			for i, wp := range w {
				lo.X, lo.Y = math.Min(lo.X, wp.Pos.X), math.Min(lo.Y, wp.Pos.Y)
				hi.X, hi.Y = math.Max(hi.X, wp.Pos.X), math.Max(hi.Y, wp.Pos.Y)
				if wp.Pos.Z != 0 {
					t.Errorf("waypoint %d: z = %v; want 0 (flat, height 0)", i, wp.Pos.Z)
				}
				if i > 0 {
					if d := wp.Pos.Sub(w[i-1].Pos).Norm(); d > 1e-9 {
						minStep, maxStep = math.Min(minStep, d), math.Max(maxStep, d)
					}
				}
			}
			if !near(lo.X, c.minX, 0.01) || !near(hi.X, c.maxX, 0.01) || !near(lo.Y, c.minY, 0.01) || !near(hi.Y, c.maxY, 0.01) {
				t.Errorf("extent: got x [%.3f, %.3f] y [%.3f, %.3f]; want x [%g, %g] y [%g, %g]", lo.X, hi.X, lo.Y, hi.Y, c.minX, c.maxX, c.minY, c.maxY)
			}
			if !near(minStep, c.minStep, 0.001) || !near(maxStep, c.maxStep, 0.001) {
				t.Errorf("spacing: got %.4f–%.4f m; want %.3f–%.3f", minStep, maxStep, c.minStep, c.maxStep)
			}
		})
	}
}

// TestCircleQuirks checks the float-loop detail (airstack.md §1.5): 37 loop
// points, the last 5e-14 m short of (R, 0), every speed the velocity, the
// loop entered at 5.0 s and left at 36.38 s.
func TestCircleQuirks(t *testing.T) {
	p, err := traj.Generate(traj.Circle, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := p.Waypoints
	loop := w[2 : len(w)-2]
	if len(loop) != 37 {
		t.Fatalf("loop points: got %d; want 37", len(loop))
	}
	last := loop[36].Pos
	if !near(last.X, 10, 1e-12) || !(last.Y < 0 && last.Y > -1e-12) {
		t.Errorf("37th loop point: got %v; want (10, −4.7e-14)", last)
	}
	for i, wp := range w {
		if wp.Speed != 2 || wp.Yaw != 0 {
			t.Errorf("waypoint %d: speed %v yaw %v; want 2, 0", i, wp.Speed, wp.Yaw)
		}
	}
	tr, _ := traj.NewTimed(w)
	pts := tr.Points()
	if got := pts[1].T; !near(got, 5.0, 1e-9) {
		t.Errorf("time at (R, 0): got %v s; want 5.0", got)
	}
	if got := pts[38].T; !near(got, 36.38, 0.005) {
		t.Errorf("time at the end of the loop: got %.3f s; want 36.38", got)
	}
	// The loop runs counter-clockwise in the body frame: toward +y (left).
	if w[3].Pos.Y <= 0 {
		t.Errorf("second loop point %v: want y > 0 (counter-clockwise)", w[3].Pos)
	}
}

// TestSpeeds checks the speed helpers' values (airstack.md §1.4–1.5).
func TestSpeeds(t *testing.T) {
	gen := func(typ string) []traj.Waypoint {
		p, err := traj.Generate(typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p.Waypoints
	}
	line := gen(traj.Line)
	for i, want := range []float64{1.0, math.Sqrt2, math.Sqrt(3), 2, 2} {
		if got := line[i].Speed; !near(got, want, 1e-12) {
			t.Errorf("Line speed %d: got %v; want %v", i, got, want)
		}
	}
	if got := line[len(line)-1].Speed; got != 2 {
		t.Errorf("Line last speed: got %v; want 2 (its distance to next wraps to the first)", got)
	}
	f8 := gen(traj.Figure8)
	for _, c := range []struct {
		i    int
		want float64
		tol  float64
	}{{0, 0.579, 0.0005}, {1, 0.819, 0.0005}, {11, 1.997, 0.001}, {12, 2, 0}, {586, 2, 0}, {587, 1.992, 0.001}, {598, 0, 0}} {
		if got := f8[c.i].Speed; !near(got, c.want, c.tol) {
			t.Errorf("Figure8 speed %d: got %.4f; want %.3f", c.i, got, c.want)
		}
	}
	for i := 510; i < 598; i++ {
		if f8[i].Speed <= 0 {
			t.Errorf("Figure8 speed %d: got %v; want > 0", i, f8[i].Speed)
		}
	}
	if got := f8[0].Yaw; !near(got, math.Pi/2, 1e-9) {
		t.Errorf("Figure8 starts heading %v rad; want π/2 (+y, left)", got)
	}
	rt := gen(traj.Racetrack)
	if rt[0].Speed != 0 || rt[255].Speed != 0 || rt[1].Speed != 3 || rt[80].Speed != 1.5 || rt[128].Speed != 3 || rt[208].Speed != 1.5 {
		t.Errorf("Racetrack speeds: first %v, straight %v, turn %v, straight %v, turn %v, last %v; want 0, 3, 1.5, 3, 1.5, 0",
			rt[0].Speed, rt[1].Speed, rt[80].Speed, rt[128].Speed, rt[208].Speed, rt[255].Speed)
	}
	// Turn 2 points backwards: its yaw is the tangent + π. Mid-turn the
	// track heads −y (down the page), so the yaw is +π/2.
	if got := rt[208+23].Yaw; !near(geom.WrapPi(got-math.Pi/2), 0, 0.07) {
		t.Errorf("Racetrack turn-2 yaw mid-turn: got %.3f; want ≈ π/2 (tangent −π/2, plus π)", got)
	}
	tr, _ := traj.NewTimed(rt)
	pts := tr.Points()
	for _, c := range []struct {
		i int
		t float64
	}{{79, 6.75}, {127, 16.94}, {207, 23.75}} {
		if got := pts[c.i].T; !near(got, c.t, 0.006) {
			t.Errorf("Racetrack time at waypoint %d: got %.3f s; want %.2f", c.i, got, c.t)
		}
	}
	if a := rt[10].Acc; a != (geom.Vec3{}) {
		t.Errorf("Racetrack straight acceleration: got %v; want 0", a)
	}
	if a := f8[5].Acc; a == (geom.Vec3{}) {
		t.Errorf("Figure8 acceleration at 5: got 0; want get_accelerations' value")
	}
}

// TestWorld checks the body-to-NED transform with a pose snapshot.
func TestWorld(t *testing.T) {
	p := traj.Path{Type: "test", Frame: traj.Body, Waypoints: []traj.Waypoint{
		{Pos: geom.Vec3{X: 1}}, {Pos: geom.Vec3{Y: 1}}, {Pos: geom.Vec3{Z: 1}, Yaw: math.Pi / 2},
	}}
	cases := []struct {
		name string
		pose traj.Pose
		want []geom.Vec3
		yaw  float64 // of the third waypoint
	}{
		{"facing North", traj.Pose{Pos: geom.Vec3{X: 5, Y: 6, Z: -10}}, []geom.Vec3{{X: 6, Y: 6, Z: -10}, {X: 5, Y: 5, Z: -10}, {X: 5, Y: 6, Z: -11}}, -math.Pi / 2},
		{"facing East", traj.Pose{Yaw: math.Pi / 2}, []geom.Vec3{{Y: 1}, {X: 1}, {Z: -1}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := p.World(c.pose)
			if w.Frame != traj.World {
				t.Errorf("frame: got %v; want world", w.Frame)
			}
			for i, want := range c.want {
				if got := w.Waypoints[i].Pos; got.Sub(want).Norm() > 1e-12 {
					t.Errorf("point %d: got %v; want %v", i, got, want)
				}
			}
			if got := w.Waypoints[2].Yaw; !near(geom.WrapPi(got-c.yaw), 0, 1e-12) {
				t.Errorf("yaw: got %v; want %v (left turn in FLU is a left turn in NED)", got, c.yaw)
			}
			if again := w.World(traj.Pose{Yaw: 1}); again.Waypoints[0] != w.Waypoints[0] {
				t.Errorf("World on a world path changed it")
			}
		})
	}
}

// TestOverrides checks parameter overrides and the errors of bad ones.
func TestOverrides(t *testing.T) {
	p, err := traj.Generate(traj.Circle, map[string]float64{"radius": 15})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Waypoints[1].Pos.X; got != 15 {
		t.Errorf("radius=15: second waypoint x = %v; want 15", got)
	}
	bad := []struct {
		name, typ string
		over      map[string]float64
		is        error
		says      []string
	}{
		{"unknown type", "Spiral", nil, traj.ErrUnknownType, []string{"Spiral"}},
		{"unknown param", traj.Circle, map[string]float64{"width": 3}, traj.ErrUnknownParam, []string{"width", "Circle"}},
		{"zero radius", traj.Circle, map[string]float64{"radius": 0}, traj.ErrBadParam, []string{"radius", "> 0"}},
		{"negative speed", traj.Line, map[string]float64{"velocity": -2}, traj.ErrBadParam, []string{"velocity", "-2"}},
		{"zero turn speed", traj.Racetrack, map[string]float64{"turn_velocity": 0}, traj.ErrBadParam, []string{"turn_velocity"}},
		{"NaN", traj.Figure8, map[string]float64{"length": math.NaN()}, traj.ErrBadParam, []string{"length", "finite"}},
		{"racetrack narrower than long", traj.Racetrack, map[string]float64{"width": 30}, traj.ErrBadParam, []string{"length", "width"}},
		{"line too short", traj.Line, map[string]float64{"length": 0.5}, traj.ErrBadParam, []string{"length"}},
		{"huge", traj.Line, map[string]float64{"length": 1e9}, traj.ErrBadParam, []string{"length", "1000"}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := traj.Generate(c.typ, c.over)
			if !errors.Is(err, c.is) {
				t.Fatalf("got %v; want %v", err, c.is)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

// TestParseParam covers the --trajectory-param syntax; its cases seed the
// fuzz target.
var parseCases = []struct {
	in        string
	typ, name string
	v         float64
	wantErr   error
}{
	{"radius=15", "", "radius", 15, nil},
	{" velocity = 2.5 ", "", "velocity", 2.5, nil},
	{"Line.length=30", traj.Line, "length", 30, nil},
	{"radius", "", "", 0, traj.ErrBadParam},
	{"=3", "", "", 0, traj.ErrBadParam},
	{"radius=abc", "", "", 0, traj.ErrBadParam},
	{"radius=Inf", "", "", 0, traj.ErrBadParam},
	{"Spiral.radius=3", "", "", 0, traj.ErrUnknownType},
	{"Circle.=3", "", "", 0, traj.ErrUnknownParam},
}

func TestParseParam(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.in, func(t *testing.T) {
			typ, name, v, err := traj.ParseParam(c.in)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("got %v; want %v", err, c.wantErr)
				}
				return
			}
			if err != nil || typ != c.typ || name != c.name || v != c.v {
				t.Errorf("got %q %q %v %v; want %q %q %v", typ, name, v, err, c.typ, c.name, c.v)
			}
		})
	}
}

func FuzzParseParam(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, name, v, err := traj.ParseParam(s)
		if err != nil {
			return
		}
		if name == "" || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("accepted %q as %q.%q = %v", s, typ, name, v)
		}
		// Whatever parses either resolves or fails with a named error.
		if typ != "" {
			if _, err := traj.Resolve(typ, map[string]float64{name: v}); err != nil {
				var pe *traj.ParamError
				if !errors.As(err, &pe) || pe.Param == "" {
					t.Fatalf("Resolve(%q): %v is not a ParamError naming the parameter", s, err)
				}
			}
		}
	})
}

// TestTimedInterpolation checks At between waypoints and at the ends, and
// the yaw interpolation the short way round.
func TestTimedInterpolation(t *testing.T) {
	tr, err := traj.NewTimed([]traj.Waypoint{
		{Pos: geom.Vec3{}, Speed: 1, Yaw: 3},
		{Pos: geom.Vec3{}, Speed: 1, Yaw: 3}, // duplicate, dropped
		{Pos: geom.Vec3{X: 2}, Speed: 3, Yaw: -3},
	})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 2 || tr.Duration() != 1 {
		t.Fatalf("got %d points, %v s; want 2, 1 s (2 m at a mean of 2 m/s)", tr.Len(), tr.Duration())
	}
	mid := tr.At(0.5)
	if mid.Pos.X != 1 || mid.Vel.X != 2 {
		t.Errorf("At(0.5): got pos %v vel %v; want x 1, vx 2", mid.Pos, mid.Vel)
	}
	if !near(math.Abs(mid.Yaw), math.Pi, 1e-9) {
		t.Errorf("At(0.5) yaw: got %v; want ±π (3 → −3 the short way)", mid.Yaw)
	}
	if got := tr.At(-1).Pos.X; got != 0 {
		t.Errorf("At(−1): got %v; want clamped to 0", got)
	}
	if got := tr.At(9).Pos.X; got != 2 {
		t.Errorf("At(9): got %v; want clamped to 2", got)
	}
	if got := tr.TimeAtArc(1); got != 0.5 {
		t.Errorf("TimeAtArc(1): got %v; want 0.5", got)
	}
	if _, err := traj.NewTimed(nil); !errors.Is(err, traj.ErrEmpty) {
		t.Errorf("NewTimed(nil): got %v; want ErrEmpty", err)
	}
}

func BenchmarkGenerateFigure8(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := traj.Generate(traj.Figure8, nil); err != nil {
			b.Fatal(err)
		}
	}
}
