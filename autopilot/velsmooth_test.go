package autopilot

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// From rest to 3 m/s with MPC_JERK_AUTO 4 and MPC_ACC_HOR 3: the jerk phase
// is capped at a/j = 0.75 s (3 m/s²), each jerk phase gives 1.125 m/s, the
// constant phase the remaining 0.75 m/s in 0.25 s.
func TestVelSmoothKnownPlan(t *testing.T) {
	s := velSmooth{jerk: 4, accel: 3, velMax: 12}
	s.plan(3)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"t1", s.t1, 0.75}, {"t2", s.t2, 0.25}, {"t3", s.t3, 0.75}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.6f s, want %.6f", c.name, c.got, c.want)
		}
	}
	s.advance(0.75)
	if math.Abs(s.a-3) > 1e-9 || math.Abs(s.v-1.125) > 1e-9 || math.Abs(s.x-4*0.75*0.75*0.75/6) > 1e-9 {
		t.Errorf("after t1: a %.4f v %.4f x %.4f, want 3, 1.125, %.4f", s.a, s.v, s.x, 4*0.75*0.75*0.75/6)
	}
	s.advance(1)
	if math.Abs(s.v-3) > 1e-9 || s.a != 0 {
		t.Errorf("at the end: v %.6f a %.6f, want 3 and 0", s.v, s.a)
	}
}

// Whatever the start, the plan ends at the target with no acceleration,
// within the acceleration limit (or the start's, if larger).
func TestVelSmoothReachesTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		a0, v0, tgt := rng.Float64()*6-3, rng.Float64()*8-4, rng.Float64()*8-4
		s := velSmooth{jerk: 4, accel: 3, velMax: 12}
		s.reset(a0, v0, 0)
		s.plan(tgt)
		lim := math.Max(3, math.Abs(a0)) + 1e-9
		const dt = 0.01
		for t0 := 0.0; t0 < s.total(); t0 += dt {
			s.advance(dt)
			if math.Abs(s.a) > lim {
				t.Fatalf("a0 %.3f v0 %.3f → %.3f: acceleration %.3f over the limit", a0, v0, tgt, s.a)
			}
		}
		s.advance(dt)
		if math.Abs(s.v-tgt) > 1e-6 || math.Abs(s.a) > 1e-9 {
			t.Fatalf("a0 %.3f v0 %.3f → %.3f: ends at v %.6f a %.6f", a0, v0, tgt, s.v, s.a)
		}
	}
}

// Axes starting without acceleration, synchronised, end their changes
// together at their own targets: a diagonal from rest keeps its direction.
func TestVelSmoothSyncArrivesTogether(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		var ax [3]velSmooth
		var tg [3]float64
		for i := range ax {
			ax[i] = velSmooth{jerk: 4, accel: 3, velMax: 12}
			ax[i].reset(0, rng.Float64()*6-3, 0)
			tg[i] = rng.Float64()*6 - 3
			ax[i].plan(tg[i])
		}
		syncAxes(ax[:])
		T := max(ax[0].total(), ax[1].total(), ax[2].total())
		for i := range ax {
			if ax[i].dir != 0 && math.Abs(ax[i].total()-T) > 1e-6 {
				t.Fatalf("axis %d takes %.6f s, the longest %.6f s", i, ax[i].total(), T)
			}
			ax[i].advance(T)
			if math.Abs(ax[i].v-tg[i]) > 1e-6 {
				t.Fatalf("axis %d ends at %.6f, want %.6f", i, ax[i].v, tg[i])
			}
		}
	}
	// From rest toward (2, 1): x takes √2 s at full jerk (t1 = t3 = √½);
	// y, given the same time, jerks for (2√2 − 2)/4 s and holds its
	// acceleration for 1 s, so its velocity is not x's halved: PX4's time
	// synchronisation bends a diagonal start toward 45°.
	xy := []velSmooth{{jerk: 4, accel: 3, velMax: 12}, {jerk: 4, accel: 3, velMax: 12}}
	x, y := &xy[0], &xy[1]
	x.plan(2)
	y.plan(1)
	syncAxes(xy)
	if want := (2*math.Sqrt2 - 2) / 4; math.Abs(y.t1-want) > 1e-9 || math.Abs(y.t2-1) > 1e-9 {
		t.Errorf("y: t1 %.6f t2 %.6f, want %.6f and 1", y.t1, y.t2, want)
	}
	x.advance(0.2)
	y.advance(0.2)
	if math.Abs(x.v-y.v) > 1e-9 {
		t.Errorf("at 0.2 s (both jerking): vx %.4f vy %.4f, want equal", x.v, y.v)
	}
}

// PX4's clamps of the velocity target (clampToXYNorm / clampToZNorm with
// accuracy 0.5) scale the whole vector, so that a climb slows with the
// horizontal speed, unless both the norm and the limit are under 0.5 m/s,
// when only the clamped part shrinks.
func TestClampNormsKnownAnswers(t *testing.T) {
	near := func(a, b geom.Vec3) bool { return a.Sub(b).Norm() < 1e-12 }
	cases := []struct {
		name      string
		got, want geom.Vec3
	}{
		{"xy over the limit scales all", clampXYNorm(geom.Vec3{X: 0.8, Y: 0.6, Z: -0.5}, 0.5), geom.Vec3{X: 0.4, Y: 0.3, Z: -0.25}},
		{"xy small scales xy only", clampXYNorm(geom.Vec3{X: 0.24, Y: 0.32, Z: -2}, 0.2), geom.Vec3{X: 0.12, Y: 0.16, Z: -2}},
		{"xy within the limit", clampXYNorm(geom.Vec3{X: 0.3, Y: 0.4, Z: 1}, 0.5), geom.Vec3{X: 0.3, Y: 0.4, Z: 1}},
		{"z over the limit scales all", clampZNorm(geom.Vec3{X: 1, Y: 0, Z: -2}, 1), geom.Vec3{X: 0.5, Y: 0, Z: -1}},
		{"z small scales z only", clampZNorm(geom.Vec3{X: 3, Y: 0, Z: 0.4}, 0.1), geom.Vec3{X: 3, Y: 0, Z: 0.1}},
		{"no horizontal part", clampXYNorm(geom.Vec3{Z: 5}, 0), geom.Vec3{Z: 5}},
	}
	for _, c := range cases {
		if !near(c.got, c.want) {
			t.Errorf("%s: %v; want %v", c.name, c.got, c.want)
		}
	}
}
