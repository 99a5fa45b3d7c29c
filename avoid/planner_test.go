package avoid

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/world"
)

func newPlanner(t *testing.T) *Planner {
	t.Helper()
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// cloudFrom returns what the iris depth camera sees of scene from pos with
// heading yaw (level).
func cloudFrom(t testing.TB, scene *world.Scene, pos geom.Vec3, yaw float64) quad.CloudScan {
	t.Helper()
	q, err := quad.New(quad.Config{Cloud: quad.IrisDepthCamera(), StartPos: pos, StartYawRad: yaw, NoNoise: true}, scene, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	c := q.Cloud()
	c.Points = append([]geom.Vec3(nil), c.Points...)
	return c
}

// treeFrom builds the planner's tree from one cloud of the scene seen from
// pos (at rest, heading North) toward goal, and returns the planner and
// its path.
func treeFrom(t *testing.T, scene *world.Scene, pos, goal geom.Vec3) (*Planner, []geom.Vec3) {
	t.Helper()
	c := cloudFrom(t, scene, pos, 0)
	if len(c.Points) == 0 {
		t.Fatal("the camera sees nothing")
	}
	p := newPlanner(t)
	if err := p.Observe(0, c.Points); err != nil {
		t.Fatal(err)
	}
	p.process(0, pos, c.Att)
	p.hist.build(p.mem, pos)
	p.buildTree(pos, geom.Vec3{}, goal, goal, true)
	return p, p.Path()
}

// The cost of a direction, worked by hand (costFunction): vehicle at rest
// at 10 m, goal 10 m due North at the same height, one obstacle cell 4 m
// away straight ahead (e ∈ [0°, 6°), z ∈ [0°, 6°)).
func TestCostFunctionByHand(t *testing.T) {
	var h histogram
	ahead := 15*GridZ + 30 // row e 0…6°, column z 0…6°
	h.set(ahead, 4)
	var m denseMatrix
	pos := geom.Vec3{Z: -10}
	goal := geom.Vec3{X: 10, Z: -10}
	cp := DefaultConfig()
	p := costParams{pitch: cp.PitchCost, yaw: cp.YawCost, velocity: cp.VelocityCost, obstacleM: cp.ObstacleCostM,
		obstacleWeight: cp.ObstacleWeight, smoothR: 7, minRangeM: cp.MinRangeM, maxRangeM: cp.MaxRangeM}
	m.compute(&h, goal, pos, geom.Vec3{}, goal, &p)
	// The obstacle lies within ±2 rows and ±5 columns of the goal's cell, so
	// the whole yaw weight goes to the goal: yaw 3·Δz², pitch 25·Δe² with
	// the cell centre at (3°, 3°) and the goal at (0°, 0°).
	if got, want := m.other[ahead], 3*3*3+25*3*3.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("other costs of the cell ahead: got %v; want %v", got, want)
	}
	// Sigmoid: 5000·(1 + D/√(1+D²)), D = 8.5 − 4.
	D := 4.5
	raw := 5000 * (1 + D/math.Sqrt(1+D*D))
	if got := m.dist[ahead]; math.Abs(got-raw) > 1e-9 {
		t.Errorf("raw obstacle cost: got %v; want %v", got, raw)
	}
	m.smooth(7)
	// The conic kernel of radius ceil(40/6) = 7: weight 1 at the centre,
	// (8−|i|)/8 per row and per column away.
	for _, c := range []struct {
		de, dz int
		w      float64
	}{{0, 0, 1}, {0, 1, 7.0 / 8}, {1, 1, 49.0 / 64}, {-3, 5, 5.0 / 8 * 3.0 / 8}, {0, 7, 1.0 / 8}, {0, 8, 0}, {8, 0, 0}} {
		k := (15+c.de)*GridZ + 30 + c.dz
		if got := m.dist[k]; math.Abs(got-raw*c.w) > 1e-6 {
			t.Errorf("smoothed cost %d rows, %d columns away: got %v; want %v", c.de, c.dz, got, raw*c.w)
		}
	}
}

// A box straight ahead, a little to the right of the track: the tree
// search goes round it on the left (West), and its path keeps clear of the
// box.
func TestTreeGoesRoundTheFreeSide(t *testing.T) {
	box := world.Box{L: 4, W: 8, H: 25, X: 10, Y: 1.5}
	scene := &world.Scene{Boxes: []world.Box{box}}
	pos := geom.Vec3{Z: -10}
	goal := geom.Vec3{X: 40, Z: -10}
	_, path := treeFrom(t, scene, pos, goal)
	if len(path) < 3 {
		t.Fatalf("path %v: want at least two nodes past the vehicle", path)
	}
	if y := path[1].Y; y >= 0 {
		t.Errorf("first node at y = %.2f; want the free side (y < 0)", y)
	}
	// The deepest open node after 40 expansions lies level with the box's
	// near face (x = 8) on the free side, more than 2 m out from its West
	// edge y = −2.5: the sigmoid saturates there and the conic inflation
	// keeps the path off.
	end := path[len(path)-1]
	if end.X < 7 || end.Y > -4.5 || len(path) < 5 {
		t.Errorf("path ends at %v after %d nodes; want level with the box at y < -4.5 after at least 4 nodes", end, len(path)-1)
	}
	for i, q := range path {
		if d := box.Distance(q.XY()); d < 0.5 {
			t.Errorf("node %d at %v is %.2f m from the box", i, q, d)
		}
		if i > 0 && math.Abs(q.Sub(path[i-1]).Norm()-2) > 1e-9 {
			t.Errorf("node %d is %.3f m from its parent; want tree_node_distance 2 m", i, q.Sub(path[i-1]).Norm())
		}
	}
	// Without obstacles the tree is not built and the generator flies
	// straight at the goal.
	// (LOITER, then TRY_PATH finds no path, then DIRECT.)
	q := newPlanner(t)
	var sp autopilot.AvoidSetpoint
	for i := range 3 {
		sp = q.Avoid(autopilot.AvoidRequest{T: float64(i) * 0.1, Est: control.State{Pos: pos, Att: geom.QuatIdentity}, Goal: goal, PrevGoal: pos, Airborne: true})
	}
	if q.State() != Direct || !(sp.Pos.X > 0) || math.Abs(sp.Pos.Y) > 1e-9 {
		t.Errorf("empty view: state %v, setpoint %v; want DIRECT toward +x", q.State(), sp.Pos)
	}
}

// rememberedWall is a planner at pos (10 m up, facing North) that has
// merged one view c of a wall 7 m ahead; seen is how many points it keeps.
func rememberedWall(t *testing.T) (p *Planner, pos geom.Vec3, c quad.CloudScan, seen int) {
	t.Helper()
	scene := &world.Scene{Boxes: []world.Box{{L: 2, W: 6, H: 25, X: 8}}}
	pos = geom.Vec3{Z: -10}
	c = cloudFrom(t, scene, pos, 0)
	p = newPlanner(t)
	_ = p.Observe(0, c.Points)
	p.process(0, pos, c.Att)
	seen = p.Points()
	if seen == 0 {
		t.Fatal("nothing remembered of a wall 7 m ahead")
	}
	return p, pos, c, seen
}

// The memory keeps a point while it is outside the field of view and
// younger than 20 s, and drops it when the camera looks that way again and
// sees nothing.
func TestMemory(t *testing.T) {
	p, pos, c, seen := rememberedWall(t)
	// The same view again replaces the points: no growth.
	_ = p.Observe(0.1, c.Points)
	p.process(0.1, pos, c.Att)
	if got := p.Points(); got != seen {
		t.Errorf("same view again: %d points; want %d", got, seen)
	}
	// Turned East, seeing nothing: the wall is outside the view and kept.
	east := geom.QuatEuler(0, 0, math.Pi/2)
	for ti := 1.0; ti <= 19; ti++ {
		_ = p.Observe(ti, nil)
		p.process(ti, pos, east)
	}
	if got := p.Points(); got != seen {
		t.Errorf("looking away for 18 s: %d points; want all %d kept", got, seen)
	}
	// A point is kept while its age before the cycle is under
	// max_point_age_s_ (20 s): at 20.5 s (age 19 before) it is kept, at
	// 21.5 s (20.5 before) it is gone.
	_ = p.Observe(20.5, nil)
	p.process(20.5, pos, east)
	if got := p.Points(); got != seen {
		t.Errorf("at 20.5 s: %d points; want %d", got, seen)
	}
	_ = p.Observe(21.5, nil)
	p.process(21.5, pos, east)
	if got := p.Points(); got != 0 {
		t.Errorf("at 21.5 s: %d points; want 0", got)
	}
	// Seen empty: a second planner remembers the wall, then looks North
	// again at an empty world; the points inside the view are dropped.
	p2 := newPlanner(t)
	_ = p2.Observe(0, c.Points)
	p2.process(0, pos, c.Att)
	_ = p2.Observe(1, nil)
	p2.process(1, pos, geom.QuatIdentity)
	if got := p2.Points(); got != 0 {
		t.Errorf("looking at the now empty place: %d points; want 0", got)
	}
}

// The memory's field of view is the vehicle's pose when the cycle runs, not
// the pose the cloud was taken from (runPlanner passes processPointcloud the
// newest pose): a cloud that saw nothing ahead, merged once the vehicle has
// turned East, keeps the wall ahead; an empty cloud merged after turning
// back North drops it.
func TestMemoryFieldOfViewAtCycle(t *testing.T) {
	p, pos, _, seen := rememberedWall(t)
	east := geom.QuatEuler(0, 0, math.Pi/2)
	_ = p.Observe(1, nil) // taken facing North, merged facing East
	p.process(1, pos, east)
	if got := p.Points(); got != seen {
		t.Errorf("empty cloud merged facing East: %d points; want all %d kept", got, seen)
	}
	_ = p.Observe(2, nil) // taken facing East, merged facing North
	p.process(2, pos, geom.QuatIdentity)
	if got := p.Points(); got != 0 {
		t.Errorf("empty cloud merged facing North: %d points; want 0", got)
	}
}

// ALTITUDE_CHANGE in an auto mode first brakes to below 0.5 m/s (zero
// horizontal velocity toward the vehicle's own position), then mirrors
// PX4's setpoint.
func TestAltitudeChangeBrakes(t *testing.T) {
	p := newPlanner(t)
	desired := geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: 0.7}
	req := autopilot.AvoidRequest{Est: control.State{Pos: geom.Vec3{X: 5, Z: -10}, Vel: geom.Vec3{X: 2}, Att: geom.QuatIdentity},
		Goal: geom.Vec3{X: 5, Z: 0}, PrevGoal: geom.Vec3{Z: -10}, Phase: autopilot.AvoidLand, DesiredVel: desired, Airborne: true}
	// LOITER → TRY_PATH → ALTITUDE_CHANGE over the first cycles.
	for i := range 4 {
		req.T = float64(i) * 0.1
		p.Avoid(req)
	}
	if p.State() != AltitudeChange {
		t.Fatalf("state %v; want ALTITUDE_CHANGE on a land item", p.State())
	}
	req.T = 0.5
	sp := p.Avoid(req)
	// The braking branch's NaN position is overwritten by getPathMsg with
	// the smoothed goto point, which on a land item is the vehicle itself.
	if sp.Vel.X != 0 || sp.Vel.Y != 0 || !math.IsNaN(sp.Vel.Z) || sp.Pos != (geom.Vec3{X: 5, Z: -10}) {
		t.Errorf("braking at 2 m/s: setpoint pos %v vel %v; want zero horizontal velocity at the vehicle's position", sp.Pos, sp.Vel)
	}
	req.T = 0.6
	req.Est.Vel = geom.Vec3{X: 0.3}
	req.Est.Pos = geom.Vec3{X: 5.5, Z: -10}
	sp = p.Avoid(req)
	if sp.Vel.Z != 0.7 || sp.Pos.X != 5 || sp.Pos.Z != 0 {
		t.Errorf("slow enough: setpoint pos %v vel %v; want the descent at the braking point x = 5 with PX4's velocity", sp.Pos, sp.Vel)
	}
}

// The speed factor is 0 when the goto point lies outside the horizontal
// field of view: no sideways or backward flight blind.
func TestNoBlindFlight(t *testing.T) {
	p := newPlanner(t)
	pos := geom.Vec3{Z: -10}
	req := autopilot.AvoidRequest{Est: control.State{Pos: pos, Att: geom.QuatIdentity}, Goal: geom.Vec3{X: -30, Z: -10}, PrevGoal: pos, Airborne: true}
	// The speed that the first cycles build up (while the goto point is the
	// vehicle itself) decays with the low-pass; the setpoint ends at rest.
	var sp autopilot.AvoidSetpoint
	for i := range 60 {
		req.T = float64(i) * 0.1
		_ = p.Observe(req.T, nil) // an empty view
		sp = p.Avoid(req)
	}
	if p.speed > 0.01 {
		t.Errorf("goal behind, heading North: speed %.3f m/s after 6 s; want 0", p.speed)
	}
	if d := sp.Pos.XY().Dist(pos.XY()); d > 0.5 {
		t.Errorf("goal behind, heading North: the setpoint moved %.3f m", d)
	}
	if p.yawSp == 0 {
		t.Errorf("goal behind: heading setpoint did not turn")
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Config){
		"nan range":     func(c *Config) { c.MaxRangeM = math.NaN() },
		"inf cruise":    func(c *Config) { c.CruiseMS = math.Inf(1) },
		"wide fov":      func(c *Config) { c.HFOVDeg = 200 },
		"no children":   func(c *Config) { c.Children = 0 },
		"empty range":   func(c *Config) { c.MinRangeM = 20 },
		"huge weight":   func(c *Config) { c.ObstacleWeight = 1e300 },
		"negative gap":  func(c *Config) { c.CloudGapS = -0.1 },
		"gap ≥ timeout": func(c *Config) { c.CloudGapS = 0.5 },
	} {
		c := DefaultConfig()
		mut(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// BenchmarkPlanCycle is one planning cycle (memory, histogram, 40-node tree
// search, waypoint generator) with a box 8 m ahead; with the default
// CloudGapS only one cycle in three plans.
func BenchmarkPlanCycle(b *testing.B) {
	scene := &world.Scene{Boxes: []world.Box{{L: 4, W: 8, H: 25, X: 10, Y: 1.5}}}
	pos := geom.Vec3{Z: -10}
	q, _ := quad.New(quad.Config{Cloud: quad.IrisDepthCamera(), StartPos: pos, NoNoise: true}, scene, rand.New(rand.NewPCG(1, 2)))
	c := q.Cloud()
	cfg := DefaultConfig()
	cfg.CloudGapS = 0 // every cycle takes the cloud and plans
	p, _ := New(cfg)
	req := autopilot.AvoidRequest{Est: control.State{Pos: pos, Vel: geom.Vec3{X: 1}, Att: geom.QuatIdentity}, Goal: geom.Vec3{X: 40, Z: -10}, PrevGoal: pos, Airborne: true}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req.T = float64(i) * 0.1
		_ = p.Observe(req.T, c.Points)
		p.Avoid(req)
	}
}

// No point cloud for timeout_critical_ (0.5 s) after one has come makes
// the planner hover where it is (LOITER); before the first cloud it waits
// timeout_startup_ (5 s).
func TestCloudTimeoutHovers(t *testing.T) {
	p := newPlanner(t)
	pos := geom.Vec3{X: 3, Z: -10}
	req := autopilot.AvoidRequest{Est: control.State{Pos: pos, Att: geom.QuatIdentity}, Goal: geom.Vec3{X: 40, Z: -10}, PrevGoal: geom.Vec3{Z: -10}, Airborne: true}
	for i := range 10 {
		req.T = float64(i) * 0.1
		_ = p.Observe(req.T, nil)
		p.Avoid(req)
	}
	if p.State() == Loiter {
		t.Fatal("hovering while clouds arrive")
	}
	// Clouds stop at t = 0.9 s.
	for i := 10; i < 20; i++ {
		req.T = float64(i) * 0.1
		p.Avoid(req)
	}
	p.Avoid(autopilot.AvoidRequest{T: 2.0, Est: req.Est, Goal: req.Goal, PrevGoal: req.PrevGoal, Airborne: true})
	if p.State() != Loiter {
		t.Errorf("1.1 s without a cloud: state %v; want LOITER", p.State())
	}
	// The smoothed setpoint settles on the hover point.
	var sp autopilot.AvoidSetpoint
	for i := 21; i < 40; i++ {
		sp = p.Avoid(autopilot.AvoidRequest{T: float64(i) * 0.1, Est: req.Est, Goal: req.Goal, PrevGoal: req.PrevGoal, Airborne: true})
	}
	if d := sp.Pos.XY().Dist(pos.XY()); d > 0.1 {
		t.Errorf("hover setpoint %v is %.2f m from the vehicle at %v", sp.Pos, d, pos)
	}
	// A fresh planner that never got a cloud flies for the start-up 5 s.
	q := newPlanner(t)
	for i := range 45 {
		req.T = float64(i) * 0.1
		q.Avoid(req)
	}
	if q.State() == Loiter {
		t.Errorf("within the 5-s start-up: state %v", q.State())
	}
	for i := 45; i < 60; i++ {
		req.T = float64(i) * 0.1
		q.Avoid(req)
	}
	if q.State() != Loiter {
		t.Errorf("after 6 s without any cloud: state %v; want LOITER", q.State())
	}
}

// A wide wall 4 m ahead with the goal behind it: the tree grows along the
// wall and its path ends at the deepest open node, not at the node chosen
// last; every child carries the 2-m step to it as its velocity
// (node_velocity in buildLookAheadTree).
func TestTreeGrowsAlongAWall(t *testing.T) {
	wall := world.Box{L: 1, W: 30, H: 25, X: 4.5, Y: 0}
	scene := &world.Scene{Boxes: []world.Box{wall}}
	pos := geom.Vec3{Z: -10}
	goal := geom.Vec3{X: 20, Z: -10}
	p, path := treeFrom(t, scene, pos, goal)
	if len(path) < 4 {
		t.Fatalf("path %v: want at least three nodes past the vehicle", path)
	}
	deepest := 0
	for i, n := range p.tree {
		if !n.closed {
			deepest = max(deepest, n.depth)
		}
		if v := n.vel.Norm(); i > 0 && math.Abs(v-2) > 1e-9 {
			t.Errorf("node %d velocity %v (%.3f m/s); want the 2-m step from its parent", i, n.vel, v)
		}
	}
	if got := len(path) - 1; got != deepest {
		t.Errorf("path has %d nodes past the vehicle; the deepest open node is at depth %d", got, deepest)
	}
	if end := path[len(path)-1]; math.Abs(end.Y) < 2 {
		t.Errorf("path ends at %v; want it to run along the wall (|y| ≥ 2)", end)
	}
}

// PX4-Avoidance takes a camera cloud only when it is stamped 0.3 s or more
// after the last one it took (LocalPlannerNodelet::pointCloudCallback) and
// plans once per cloud taken (threadFunction), while the waypoint
// generator runs every 0.1 s. With CloudGapS 0 every cloud is taken and
// every cycle plans.
func TestCloudCadence(t *testing.T) {
	scene := &world.Scene{Boxes: []world.Box{{L: 1, W: 30, H: 25, X: 6, Y: 0}}}
	pos := geom.Vec3{Z: -10}
	c := cloudFrom(t, scene, pos, 0)
	req := autopilot.AvoidRequest{Est: control.State{Pos: pos, Att: geom.QuatIdentity}, Goal: geom.Vec3{X: 30, Z: -10},
		PrevGoal: geom.Vec3{Z: -10}, Phase: autopilot.AvoidPosition, Airborne: true}
	for _, tc := range []struct {
		gap  float64
		took []float64 // stamps of the clouds taken
	}{
		{0.3, []float64{0, 0.3, 0.6, 0.9}},
		{0, []float64{0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95}},
	} {
		cfg := DefaultConfig()
		cfg.CloudGapS = tc.gap
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var took, plans []float64
		for i := range 20 {
			ts := float64(i) * 0.05
			before := p.cloudT
			if err := p.Observe(ts, c.Points); err != nil {
				t.Fatal(err)
			}
			if p.cloudT != before {
				took = append(took, math.Round(ts*100)/100)
			}
			if i%2 == 0 { // the waypoint generator's 10 Hz
				req.T = ts
				planned := p.pathT
				p.Avoid(req)
				if p.pathT != planned {
					plans = append(plans, math.Round(ts*100)/100)
				}
			}
		}
		if !slices.Equal(took, tc.took) {
			t.Errorf("gap %v s: clouds taken at %v; want %v", tc.gap, took, tc.took)
		}
		want := tc.took
		if tc.gap == 0 {
			want = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
		}
		if !slices.Equal(plans, want) {
			t.Errorf("gap %v s: planned at %v; want %v", tc.gap, plans, want)
		}
	}
}
