package avoid

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
)

func newPlanner(t *testing.T) *Planner {
	t.Helper()
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fan returns n level body-frame rays spread over the camera's field of
// view and the range each one measures against a wall x = wallX (NED,
// vehicle at the origin facing North), or maxM when it misses.
func fan(n int, wallX, halfWidth, maxM float64) ([]float64, []geom.Vec3) {
	hfov := DefaultConfig().HFOVDeg * math.Pi / 180
	r := make([]float64, n)
	d := make([]geom.Vec3, n)
	for i := range n {
		az := -hfov/2 + hfov*float64(i)/float64(n-1)
		d[i] = geom.Vec3{X: math.Cos(az), Y: math.Sin(az)}
		r[i] = maxM
		if dist := wallX / math.Cos(az); dist < maxM && math.Abs(dist*math.Sin(az)) <= halfWidth {
			r[i] = dist
		}
	}
	return r, d
}

var level = geom.QuatIdentity

func TestObserveMemory(t *testing.T) {
	p := newPlanner(t)
	at := geom.Vec3{Z: -10}
	r, d := fan(32, 8, 3, 18)
	if err := p.Observe(0, at, level, r, d, 18); err != nil {
		t.Fatal(err)
	}
	seen := p.Points()
	if seen == 0 {
		t.Fatal("no points remembered from a wall 8 m ahead")
	}
	// Looking the same way again replaces them (no growth).
	_ = p.Observe(0.05, at, level, r, d, 18)
	if got := p.Points(); got != seen {
		t.Errorf("same view again: got %d points; want %d (replaced, not added)", got, seen)
	}
	// Turned to face East, seeing nothing: the wall is outside the view
	// and is kept.
	east := geom.QuatEuler(0, 0, math.Pi/2)
	empty, _ := fan(32, 1e9, 0, 18)
	_ = p.Observe(1, at, east, empty, d, 18)
	if got := p.Points(); got != seen {
		t.Errorf("after turning away: got %d points; want %d kept", got, seen)
	}
	// Facing North again with nothing there: the memory empties.
	_ = p.Observe(2, at, level, empty, d, 18)
	if got := p.Points(); got != 0 {
		t.Errorf("looking back at an empty view: got %d points; want 0", got)
	}
	// Points out of view are forgotten after PointAgeS.
	_ = p.Observe(3, at, level, r, d, 18)
	_ = p.Observe(3+DefaultConfig().PointAgeS+0.1, at, east, empty, d, 18)
	if got := p.Points(); got != 0 {
		t.Errorf("after the point age: got %d points; want 0", got)
	}
	if err := p.Observe(4, at, level, r[:3], d, 18); err != ErrMismatch {
		t.Errorf("mismatched lengths: got %v; want ErrMismatch", err)
	}
}

func TestObserveIgnoresGroundAndNaN(t *testing.T) {
	p := newPlanner(t)
	// A ray pitched 45° down from 10 m hits the ground at 14.1 m.
	d := []geom.Vec3{{X: math.Sqrt2 / 2, Z: math.Sqrt2 / 2}, {X: 1}}
	_ = p.Observe(0, geom.Vec3{Z: -10}, level, []float64{10 * math.Sqrt2, math.NaN()}, d, 18)
	if got := p.Points(); got != 0 {
		t.Errorf("ground hit and NaN: got %d points; want 0", got)
	}
}

func state(pos, vel geom.Vec3, yaw float64) control.State {
	return control.State{Pos: pos, Vel: vel, Att: geom.QuatEuler(0, 0, yaw)}
}

// With nothing in the way the planner flies at the goal and speeds up to
// its cruise speed, holding the goal's altitude.
func TestFreeFlight(t *testing.T) {
	p := newPlanner(t)
	goal := geom.Vec3{X: 30, Y: 30, Z: -10}
	var sp control.Setpoint
	for i := range 200 { // 10 s at 20 Hz, vehicle kept at the origin facing the goal
		sp = p.Setpoint(float64(i)*0.05, state(geom.Vec3{Z: -10}, geom.Vec3{}, math.Pi/4), geom.Vec3{Z: -10}, goal)
	}
	if d := math.Abs(p.Direction() - math.Pi/4); d > 1e-9 {
		t.Errorf("direction: got %.4f rad; want π/4 (the goal)", p.Direction())
	}
	if v := sp.Vel.XY().Norm(); math.Abs(v-DefaultConfig().CruiseMS) > 0.01 {
		t.Errorf("speed: got %.3f m/s; want cruise %v", v, DefaultConfig().CruiseMS)
	}
	if sp.Pos.Z != -10 || !math.IsNaN(sp.Pos.X) {
		t.Errorf("setpoint position %v: want altitude hold only", sp.Pos)
	}
}

// A wall across the way makes it turn past the wall's edge plus the
// inflation margin; it does not fly at the wall.
func TestTurnsAwayFromWall(t *testing.T) {
	p := newPlanner(t)
	at := geom.Vec3{Z: -10}
	r, d := fan(32, 6, 4, 18) // a wall 6 m ahead, 8 m wide
	_ = p.Observe(0, at, level, r, d, 18)
	p.Setpoint(0, state(at, geom.Vec3{X: 1.5}, 0), geom.Vec3{Z: -10}, geom.Vec3{X: 40, Z: -10})
	edge := math.Atan2(4, 6) * 180 / math.Pi
	if got := math.Abs(deg(p.Direction())); got < edge {
		t.Errorf("direction %.1f° off the goal; want beyond the wall's edge at %.1f°", got, edge)
	}
}

// Within GoalSnapM the setpoint is the goal itself under position control;
// a direction outside the field of view gets no speed.
func TestGoalSnapAndBlindSide(t *testing.T) {
	p := newPlanner(t)
	goal := geom.Vec3{X: 0.5, Z: -10}
	sp := p.Setpoint(0, state(geom.Vec3{Z: -10}, geom.Vec3{}, 0), geom.Vec3{}, goal)
	if sp.Pos != goal {
		t.Errorf("near the goal: setpoint %v; want the goal %v", sp.Pos, goal)
	}
	p = newPlanner(t)
	// Goal straight behind: it turns but does not move backwards blind.
	for i := range 10 {
		sp = p.Setpoint(float64(i)*0.05, state(geom.Vec3{Z: -10}, geom.Vec3{}, 0), geom.Vec3{Z: -10}, geom.Vec3{X: -30, Z: -10})
	}
	if v := sp.Vel.XY().Norm(); v > 1e-9 {
		t.Errorf("goal behind: speed %.3f; want 0 until it faces the goal", v)
	}
	if sp.Yaw == 0 {
		t.Error("goal behind: the heading does not turn")
	}
}

func TestConfigValidate(t *testing.T) {
	bad := map[string]func(*Config){
		"NaN cruise":    func(c *Config) { c.CruiseMS = math.NaN() },
		"zero range":    func(c *Config) { c.MaxRangeM = 0 },
		"odd bins":      func(c *Config) { c.BinDeg = 7 },
		"no memory":     func(c *Config) { c.MaxPoints = 0 },
		"negative cost": func(c *Config) { c.YawCost = -1 },
	}
	for name, f := range bad {
		c := DefaultConfig()
		f(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func BenchmarkObservePlan(b *testing.B) {
	p, _ := New(DefaultConfig())
	r, d := fan(96, 7, 5, 18)
	at := geom.Vec3{Z: -10}
	b.ReportAllocs()
	var t float64
	for b.Loop() {
		t += 0.1
		_ = p.Observe(t, at, level, r, d, 18)
		p.planned = false
		p.Setpoint(t, state(at, geom.Vec3{X: 1}, 0), geom.Vec3{Z: -10}, geom.Vec3{X: 40, Z: -10})
	}
}
