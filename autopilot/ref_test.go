package autopilot

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// refDt is the simulator's 200 Hz step.
const refDt = 0.005

// defaultLimits are the auto-mode limits of DefaultConfig: MPC_XY_CRUISE 5,
// MPC_ACC_HOR 3, MPC_Z_V_AUTO_UP/DN 3/1.5, MPC_ACC_UP_MAX/DOWN_MAX 4/3.
func defaultLimits() limits {
	a, err := New(DefaultConfig())
	if err != nil {
		panic(err)
	}
	return a.lim(0)
}

// refRun records a reference moving from rest at from to target.
type refRun struct {
	pos, vel []geom.Vec3 // after each step
	arrived  int         // steps until pos == target exactly; −1 if never
}

func runRef(from, target geom.Vec3, lim limits, maxSteps int) refRun {
	r := ref{pos: from}
	run := refRun{arrived: -1}
	for i := range maxSteps {
		r.step(target, lim, refDt, 0, 0)
		run.pos = append(run.pos, r.pos)
		run.vel = append(run.vel, r.vel)
		if r.pos == target && run.arrived < 0 {
			run.arrived = i + 1
		}
	}
	return run
}

// profile returns the peak speed and duration of a move of d metres from
// rest to rest, accelerating at a, braking at b (the generator plans its
// braking at brakeShare of the limit), capped at vmax.
func profile(d, vmax, a, b float64) (peak, dur float64) {
	peak = math.Min(vmax, math.Sqrt(2*d/(1/a+1/b)))
	return peak, peak/(2*a) + peak/(2*b) + d/peak
}

func profilePeak(d, vmax, a, b float64) float64 { p, _ := profile(d, vmax, a, b); return p }

func profileTime(d, vmax, a, b float64) float64 { _, t := profile(d, vmax, a, b); return t }

// A horizontal move from rest follows a trapezoid (or, if short, a triangle):
// its speed never exceeds the cruise speed, its acceleration never exceeds
// MPC_ACC_HOR, it never overshoots, and it stops exactly on the target with
// zero velocity at the time the continuous profile predicts.
func TestRefHorizontalProfile(t *testing.T) {
	lim := defaultLimits()
	tests := []struct {
		name      string
		target    geom.Vec3
		wantPeak  float64 // m/s
		wantTimeS float64 // continuous-time duration
	}{
		// d = 20 m: accelerate at 3 m/s² to 5 m/s, cruise, brake at 0.9·3.
		{"20 m north: trapezoid", geom.Vec3{X: 20}, 5, profileTime(20, 5, 3, 2.7)},
		{"20 m south-west: trapezoid", geom.Vec3{X: -20 / math.Sqrt2, Y: -20 / math.Sqrt2}, 5, profileTime(20, 5, 3, 2.7)},
		// d = 1 m and 8 m: triangles, too short to reach cruise speed.
		{"1 m east: triangle", geom.Vec3{Y: 1}, profilePeak(1, 5, 3, 2.7), profileTime(1, 5, 3, 2.7)},
		// d = 8 m, just short of cruise.
		{"8 m: triangle", geom.Vec3{X: 8}, profilePeak(8, 5, 3, 2.7), profileTime(8, 5, 3, 2.7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runRef(geom.Vec3{}, tt.target, lim, 4000)
			dir := tt.target.Unit()
			var peak, maxAcc float64
			prev := geom.Vec3{}
			for i, v := range run.vel {
				peak = math.Max(peak, v.Norm())
				if i+1 < run.arrived {
					// The snap onto the target drops the last ≤ 2·a·dt of speed
					// in one step; every other step respects the limit.
					maxAcc = math.Max(maxAcc, v.Sub(prev).Norm()/refDt)
				}
				prev = v
				if along := run.pos[i].Dot(dir); along > tt.target.Norm()+1e-12 {
					t.Fatalf("step %d: overshoot, %.6f m along a %.1f m move", i, along, tt.target.Norm())
				}
				if off := run.pos[i].Sub(dir.Scale(run.pos[i].Dot(dir))).Norm(); off > 1e-9 {
					t.Fatalf("step %d: %.3g m off the straight line", i, off)
				}
			}
			if peak > lim.vXY+1e-12 {
				t.Errorf("peak speed: got %.6f m/s; want ≤ MPC_XY_CRUISE %v", peak, lim.vXY)
			}
			// The discrete profile reaches within a·dt of the continuous peak.
			if math.Abs(peak-tt.wantPeak) > lim.aXY*refDt*2 {
				t.Errorf("peak speed: got %.4f m/s; want %.4f", peak, tt.wantPeak)
			}
			if maxAcc > lim.aXY+1e-9 {
				t.Errorf("peak acceleration: got %.6f m/s²; want ≤ MPC_ACC_HOR %v", maxAcc, lim.aXY)
			}
			if run.arrived < 0 {
				t.Fatalf("never reached the target; ended at %+v", run.pos[len(run.pos)-1])
			}
			// ± 0.1 s: the discrete profile reaches the target with up to
			// 0.3 m/s left (see TestRefArrivesAtRest), 0.1 s of braking at 3 m/s².
			if got := float64(run.arrived) * refDt; math.Abs(got-tt.wantTimeS) > 0.1 {
				t.Errorf("arrival time: got %.3f s; want %.3f ± 0.1", got, tt.wantTimeS)
			}
			last := len(run.pos) - 1
			if run.pos[last] != tt.target || run.vel[last] != (geom.Vec3{}) {
				t.Errorf("at rest: got pos %+v vel %+v; want exactly %+v at zero velocity", run.pos[last], run.vel[last], tt.target)
			}
		})
	}
}

// Vertical moves respect MPC_Z_V_AUTO_UP (3 m/s) and MPC_Z_V_AUTO_DN
// (1.5 m/s), NED negative being up, and stop exactly on the target.
func TestRefVerticalProfile(t *testing.T) {
	lim := defaultLimits()
	tests := []struct {
		name     string
		target   geom.Vec3
		wantPeak float64 // signed NED speed
		wantT    float64
	}{
		// Up 10 m: 3 m/s, accelerating at MPC_ACC_UP_MAX 4 m/s².
		{"climb 10 m", geom.Vec3{Z: -10}, -3, profileTime(10, 3, 4, 0.9*4)},
		// Down 10 m: 1.5 m/s at MPC_ACC_DOWN_MAX 3 m/s² (the acceleration
		// phase actually uses 4 m/s², 0.06 s sooner; see
		// TestRefVerticalAcceleration).
		{"descend 10 m", geom.Vec3{Z: 10}, 1.5, profileTime(10, 1.5, 3, 0.9*3)},
		// Up 0.5 m: triangle, peak √(a·d) = √2 m/s.
		{"climb 0.5 m", geom.Vec3{Z: -0.5}, -profilePeak(0.5, 3, 4, 0.9*4), profileTime(0.5, 3, 4, 0.9*4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runRef(geom.Vec3{}, tt.target, lim, 4000)
			var up, down float64
			for i, v := range run.vel {
				up = math.Max(up, -v.Z)
				down = math.Max(down, v.Z)
				if v.XY().Norm() != 0 || run.pos[i].XY().Norm() != 0 {
					t.Fatalf("step %d: horizontal motion %+v in a vertical move", i, v)
				}
			}
			if up > lim.vUp+1e-12 || down > lim.vDn+1e-12 {
				t.Errorf("peak speeds: got %.4f up, %.4f down; want ≤ %v up, ≤ %v down", up, down, lim.vUp, lim.vDn)
			}
			peak := down
			if tt.wantPeak < 0 {
				peak = -up
			}
			if math.Abs(peak-tt.wantPeak) > 4*refDt*2 {
				t.Errorf("peak vertical speed: got %.4f; want %.4f", peak, tt.wantPeak)
			}
			if run.arrived < 0 {
				t.Fatalf("never reached the target; ended at %+v", run.pos[len(run.pos)-1])
			}
			if got := float64(run.arrived) * refDt; math.Abs(got-tt.wantT) > 0.1 {
				t.Errorf("arrival time: got %.3f s; want %.3f ± 0.1", got, tt.wantT)
			}
			last := len(run.pos) - 1
			if run.pos[last] != tt.target || run.vel[last] != (geom.Vec3{}) {
				t.Errorf("at rest: got pos %+v vel %+v; want exactly %+v at zero velocity", run.pos[last], run.vel[last], tt.target)
			}
		})
	}
}

// The last step lands the reference on the target and zeroes its velocity.
// Braking at a, the speed left one step before arriving should be at most
// about 3·a·dt (0.045 m/s at 3 m/s²), so that the velocity feed-forward does
// not jump (it used to arrive at up to 0.3 m/s).
func TestRefArrivesAtRest(t *testing.T) {
	lim := defaultLimits()
	for _, tt := range []struct {
		name   string
		target geom.Vec3
		a      float64
	}{
		{"20 m north", geom.Vec3{X: 20}, lim.aXY},
		{"1 m east", geom.Vec3{Y: 1}, lim.aXY},
		{"climb 10 m", geom.Vec3{Z: -10}, lim.aUp},
		{"descend 10 m", geom.Vec3{Z: 10}, lim.aDn},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := runRef(geom.Vec3{}, tt.target, lim, 4000)
			if run.arrived < 2 {
				t.Fatalf("arrived after %d steps", run.arrived)
			}
			if v := run.vel[run.arrived-2].Norm(); v > 3*tt.a*refDt+1e-9 {
				t.Errorf("the reference reaches the target still at %.3f m/s and drops it in one step; want ≤ %.3f", v, 3*tt.a*refDt)
			}
		})
	}
}

// maxAccel is the largest |Δv|/dt over the steps of run before it arrived
// (the final snap onto the target excluded), split by direction: upward
// (NED −z) and downward vertical, and horizontal.
func maxAccel(run refRun, upTo int) (up, down, xy float64) {
	prev := geom.Vec3{}
	for _, v := range run.vel[:upTo] {
		a := v.Sub(prev).Scale(1 / refDt)
		up, down = math.Max(up, -a.Z), math.Max(down, a.Z)
		xy = math.Max(xy, a.XY().Norm())
		prev = v
	}
	return up, down, xy
}

// As PX4's FlightTaskAuto, a climb is limited by MPC_ACC_UP_MAX (4 m/s²) and
// a descent by MPC_ACC_DOWN_MAX (3 m/s²), both speeding up and slowing down.
func TestRefVerticalAcceleration(t *testing.T) {
	lim := defaultLimits()
	for _, tt := range []struct {
		name   string
		target geom.Vec3
		want   float64
	}{
		{"climb 10 m", geom.Vec3{Z: -10}, lim.aUp},
		{"descend 10 m", geom.Vec3{Z: 10}, lim.aDn},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := runRef(geom.Vec3{}, tt.target, lim, 4000)
			up, down, _ := maxAccel(run, run.arrived-1)
			if got := math.Max(up, down); got > tt.want+1e-6 {
				t.Errorf("peak vertical acceleration: got %.3f m/s² (up %.3f, down %.3f); want ≤ %v", got, up, down, tt.want)
			}
		})
	}
}

// Asked to stop where it is while cruising (Hold, and the heading alignment
// of a mission leg, step the reference toward its own position), the
// reference should brake within MPC_ACC_HOR as PX4's loiter does toward its
// stopping point.
func TestRefStopWhileMoving(t *testing.T) {
	lim := defaultLimits()
	r := ref{pos: geom.Vec3{Z: -10}}
	for range 1000 { // 5 s: at cruise speed
		r.step(geom.Vec3{X: 100, Z: -10}, lim, refDt, 0, 0)
	}
	if v := r.vel.Norm(); math.Abs(v-lim.vXY) > 1e-9 {
		t.Fatalf("before the stop: got %.3f m/s; want cruise %v", v, lim.vXY)
	}
	hold := r.stopPoint(lim) // where Hold aims
	var maxA, snap float64
	for range 1000 {
		prev := r.vel
		r.step(hold, lim, refDt, 0, 0)
		if r.pos == hold && prev != (geom.Vec3{}) {
			// The arrival step drops the last few cm/s at once.
			snap = prev.Norm()
			continue
		}
		maxA = math.Max(maxA, r.vel.Sub(prev).Norm()/refDt)
	}
	if snap > 3*lim.aXY*refDt {
		t.Errorf("arrived at the stopping point still at %.3f m/s; want ≤ %.3f", snap, 3*lim.aXY*refDt)
	}
	if r.vel != (geom.Vec3{}) {
		t.Errorf("after 5 s: still moving at %+v", r.vel)
	}
	if maxA > lim.aXY+1e-6 {
		t.Errorf("stopping from %v m/s took a %.2f m/s² step; want ≤ MPC_ACC_HOR %v", lim.vXY, maxA, lim.aXY)
	}
	if d := r.pos.Sub(hold).Norm(); d != 0 {
		t.Errorf("stopped %.3f m from the stopping point", d)
	}
}

// The reference waits for a vehicle that falls behind (MPC_XY_ERR_MAX): full
// speed up to half the limit, slowing linearly to a stop at the limit.
func TestRefWaitsForLaggingVehicle(t *testing.T) {
	lim := defaultLimits()
	const errMax = 2.0
	for _, tt := range []struct {
		name string
		lag  float64
		want float64 // steady speed
	}{
		{"no lag", 0, 5},
		{"half the limit", 1, 5},
		{"three quarters", 1.5, 2.5},
		{"at the limit", 2, 0},
		{"beyond", 5, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ref{}
			for range 1000 { // 5 s, far from a 100 m target
				r.step(geom.Vec3{X: 100}, lim, refDt, tt.lag, errMax)
			}
			if got := r.vel.Norm(); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("speed: got %.6f m/s; want %v", got, tt.want)
			}
		})
	}
}
