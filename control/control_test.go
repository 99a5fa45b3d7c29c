package control_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
)

// dt is the simulator's 200 Hz step, the rate Update runs at.
const dt = quad.DefaultStepS

const g = 9.80665

func deg(d float64) float64 { return d * math.Pi / 180 }

// tilt is the angle between the body z axis and the world's down axis.
func tilt(q geom.Quat) float64 {
	return math.Acos(geom.Clamp(q.Rotate(geom.Vec3{Z: 1}).Z, -1, 1))
}

// decode inverts Mix for the unsaturated case: PX4 quad-X with the SIH torque
// signs (px4.md §1.2; 0 front-right, 1 rear-left, 2 front-left, 3 rear-right),
// undoing the 1/√2 roll/pitch column scaling.
func decode(u [4]float64) (thrust float64, tq geom.Vec3) {
	thrust = (u[0] + u[1] + u[2] + u[3]) / 4
	k := 4 / math.Sqrt2
	tq.X = (-u[0] + u[1] + u[2] - u[3]) / k
	tq.Y = (u[0] - u[1] + u[2] - u[3]) / k
	tq.Z = (u[0] + u[1] - u[2] - u[3]) / 4
	return thrust, tq
}

func TestMixUnsaturated(t *testing.T) {
	k := 1 / math.Sqrt2
	tests := []struct {
		name   string
		thrust float64
		tq     geom.Vec3
		want   [4]float64
	}{
		{"zero torque hover", 0.5, geom.Vec3{}, [4]float64{0.5, 0.5, 0.5, 0.5}},
		{"zero torque low", 0.12, geom.Vec3{}, [4]float64{0.12, 0.12, 0.12, 0.12}},
		{"zero torque off", 0, geom.Vec3{}, [4]float64{0, 0, 0, 0}},
		{"zero torque full", 1, geom.Vec3{}, [4]float64{1, 1, 1, 1}},
		// Roll right (positive): the left motors 1 and 2 speed up.
		{"roll +0.2", 0.5, geom.Vec3{X: 0.2}, [4]float64{0.5 - 0.2*k, 0.5 + 0.2*k, 0.5 + 0.2*k, 0.5 - 0.2*k}},
		{"roll -0.2", 0.5, geom.Vec3{X: -0.2}, [4]float64{0.5 + 0.2*k, 0.5 - 0.2*k, 0.5 - 0.2*k, 0.5 + 0.2*k}},
		// Nose up (positive pitch): the front motors 0 and 2 speed up.
		{"pitch +0.2", 0.5, geom.Vec3{Y: 0.2}, [4]float64{0.5 + 0.2*k, 0.5 - 0.2*k, 0.5 + 0.2*k, 0.5 - 0.2*k}},
		{"pitch -0.2", 0.5, geom.Vec3{Y: -0.2}, [4]float64{0.5 - 0.2*k, 0.5 + 0.2*k, 0.5 - 0.2*k, 0.5 + 0.2*k}},
		// Yaw right (positive): motors 0 and 1, whose reaction torque yaws
		// the body positively, speed up; yaw is not scaled.
		{"yaw +0.2", 0.5, geom.Vec3{Z: 0.2}, [4]float64{0.7, 0.7, 0.3, 0.3}},
		{"yaw -0.2", 0.5, geom.Vec3{Z: -0.2}, [4]float64{0.3, 0.3, 0.7, 0.7}},
		{"all axes", 0.4, geom.Vec3{X: 0.1, Y: -0.05, Z: 0.05}, [4]float64{
			0.4 + k*(-0.1-0.05) + 0.05, 0.4 + k*(0.1+0.05) + 0.05, 0.4 + k*(0.1-0.05) - 0.05, 0.4 + k*(-0.1+0.05) - 0.05}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, sat := control.Mix(tt.thrust, tt.tq)
			for i := range u {
				if math.Abs(u[i]-tt.want[i]) > 1e-12 {
					t.Errorf("motor %d: got %.15f; want %.15f", i, u[i], tt.want[i])
				}
			}
			if sat {
				t.Errorf("saturated: got true; want false")
			}
			// The motors reproduce the demanded thrust and torques.
			th, tq := decode(u)
			if math.Abs(th-tt.thrust) > 1e-12 || tq.Sub(tt.tq).Norm() > 1e-12 {
				t.Errorf("decoded thrust %v torque %v; want %v %v", th, tq, tt.thrust, tt.tq)
			}
		})
	}
}

func TestMixSaturation(t *testing.T) {
	k := 1 / math.Sqrt2
	tests := []struct {
		name       string
		thrust     float64
		tq         geom.Vec3
		wantThrust float64   // decoded collective
		wantTq     geom.Vec3 // decoded torque
	}{
		// Roll 0.3 uses ±0.212 of the range around 0.5; yaw gets the
		// 0.288 left before motors 1 (high) and 3 (low) clip.
		{"yaw reduced first", 0.5, geom.Vec3{X: 0.3, Z: 1}, 0.5, geom.Vec3{X: 0.3, Z: 0.5 - 0.3*k}},
		{"negative yaw reduced first", 0.5, geom.Vec3{Y: -0.3, Z: -1}, 0.5, geom.Vec3{Y: -0.3, Z: -(0.5 - 0.3*k)}},
		// Roll/pitch alone span 2√2 > 1: scaled to fit, ratio kept, no yaw room.
		{"roll and pitch scaled", 0.5, geom.Vec3{X: 1, Y: 1, Z: 0.5}, 0.5, geom.Vec3{X: 1 / (2 * math.Sqrt2), Y: 1 / (2 * math.Sqrt2)}},
		// Near full thrust the collective gives way to roll.
		{"collective lowered for roll", 0.95, geom.Vec3{X: 0.2}, 1 - 0.2*k, geom.Vec3{X: 0.2}},
		// Near zero thrust the collective rises for pitch.
		{"collective raised for pitch", 0.05, geom.Vec3{Y: 0.2}, 0.2 * k, geom.Vec3{Y: 0.2}},
		{"thrust above one", 1.5, geom.Vec3{}, 1, geom.Vec3{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, sat := control.Mix(tt.thrust, tt.tq)
			if !sat {
				t.Errorf("saturated: got false; want true")
			}
			th, tq := decode(u)
			if math.Abs(th-tt.wantThrust) > 1e-12 {
				t.Errorf("collective: got %.15f; want %.15f", th, tt.wantThrust)
			}
			if tq.Sub(tt.wantTq).Norm() > 1e-12 {
				t.Errorf("torque: got %+v; want %+v", tq, tt.wantTq)
			}
			for i, v := range u {
				if v < 0 || v > 1 {
					t.Errorf("motor %d: got %v; want within [0, 1]", i, v)
				}
			}
		})
	}
}

// Whatever the demand, the motors stay in [0, 1], roll and pitch keep their
// sign and ratio, and the saturated flag is set exactly when the demand could
// not be met.
func TestMixRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		thrust := rng.Float64()*1.2 - 0.1
		tq := geom.Vec3{X: rng.Float64()*2 - 1, Y: rng.Float64()*2 - 1, Z: rng.Float64()*2 - 1}
		u, sat := control.Mix(thrust, tq)
		for i, v := range u {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("Mix(%v, %+v): motor %d = %v; want within [0, 1]", thrust, tq, i, v)
			}
		}
		th, got := decode(u)
		met := math.Abs(th-thrust) < 1e-9 && got.Sub(tq).Norm() < 1e-9
		if met == sat {
			t.Fatalf("Mix(%v, %+v): saturated %v but demand met %v (got %v %+v)", thrust, tq, sat, met, th, got)
		}
		// Roll and pitch are scaled together or not at all.
		if got.X*tq.X < -1e-12 || got.Y*tq.Y < -1e-12 {
			t.Fatalf("Mix(%v, %+v): roll/pitch sign flipped: %+v", thrust, tq, got)
		}
		if math.Abs(got.X*tq.Y-got.Y*tq.X) > 1e-9 {
			t.Fatalf("Mix(%v, %+v): roll/pitch ratio changed: %+v", thrust, tq, got)
		}
		if math.Abs(got.Z) > math.Abs(tq.Z)+1e-12 || got.Z*tq.Z < -1e-12 {
			t.Fatalf("Mix(%v, %+v): yaw %v grew or flipped", thrust, tq, got.Z)
		}
	}
}

func TestGainsValidate(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*control.Gains)
		wantErr string // "" = valid
	}{
		{"defaults", func(*control.Gains) {}, ""},
		{"NaN position gain", func(g *control.Gains) { g.XYP = math.NaN() }, "finite number"},
		{"infinite velocity limit", func(g *control.Gains) { g.XYVelMaxMS = math.Inf(1) }, "finite number"},
		{"negative rate gain", func(g *control.Gains) { g.RateP[1] = -0.15 }, "finite number"},
		{"NaN integrator limit", func(g *control.Gains) { g.RateIntLim[2] = math.NaN() }, "finite number"},
		{"zero gains allowed", func(g *control.Gains) { g.XYVelI, g.RateD = 0, [3]float64{} }, ""},
		{"min above hover", func(g *control.Gains) { g.ThrMin = 0.6 }, "thrust limits"},
		{"min equals hover", func(g *control.Gains) { g.ThrMin = 0.5 }, "thrust limits"},
		{"hover above max", func(g *control.Gains) { g.ThrMax = 0.4 }, "thrust limits"},
		{"max above one", func(g *control.Gains) { g.ThrMax = 1.1 }, "thrust limits"},
		{"zero tilt", func(g *control.Gains) { g.TiltMaxRad = 0 }, "tilt"},
		{"tilt 90°", func(g *control.Gains) { g.TiltMaxRad = math.Pi / 2 }, "tilt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gn := control.DefaultGains()
			tt.mod(&gn)
			err := gn.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate: got %v; want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Validate: got nil; want an error about %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Validate: got %q; want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

// hoverState is a level vehicle at rest 10 m up, facing yaw.
func hoverState(yaw float64) control.State {
	return control.State{Pos: geom.Vec3{X: 3, Y: -4, Z: -10}, Att: geom.QuatEuler(0, 0, yaw)}
}

// At rest on its setpoint the cascade asks for MPC_THR_HOVER, level, at the
// requested heading; with the heading already right, no torque at all.
func TestUpdateHoverEquilibrium(t *testing.T) {
	for _, tt := range []struct {
		name        string
		yaw, yawReq float64
	}{
		{"north", 0, 0},
		{"east", math.Pi / 2, math.Pi / 2},
		{"south-west", deg(-135), deg(-135)},
		{"turn requested", 0, deg(60)},
		{"turn through ±180°", deg(170), deg(-170)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			st := hoverState(tt.yaw)
			out := c.Update(st, control.Setpoint{Pos: st.Pos, Yaw: tt.yawReq}, dt)
			if math.Abs(out.Thrust-0.5) > 1e-12 {
				t.Errorf("thrust: got %.15f; want MPC_THR_HOVER 0.5", out.Thrust)
			}
			if got := tilt(out.AttSp); got > 1e-12 {
				t.Errorf("attitude setpoint tilt: got %v rad; want 0", got)
			}
			if got := out.AttSp.Yaw(); math.Abs(geom.WrapPi(got-tt.yawReq)) > 1e-12 {
				t.Errorf("attitude setpoint yaw: got %v; want %v", got, tt.yawReq)
			}
			if out.VelSp != (geom.Vec3{}) || out.AccSp != (geom.Vec3{}) {
				t.Errorf("velocity/acceleration setpoints: got %+v %+v; want zero", out.VelSp, out.AccSp)
			}
			if tt.yaw != tt.yawReq {
				// The yaw-rate setpoint turns the short way.
				if want := math.Copysign(1, geom.WrapPi(tt.yawReq-tt.yaw)); out.RateSp.Z*want <= 0 {
					t.Errorf("yaw rate setpoint: got %v; want sign %v", out.RateSp.Z, want)
				}
				return
			}
			for i, u := range out.Motor {
				if math.Abs(u-0.5) > 1e-12 {
					t.Errorf("motor %d: got %v; want 0.5", i, u)
				}
			}
			if out.Saturated {
				t.Errorf("saturated at hover")
			}
		})
	}
}

// A 1 m position error asks for MPC_XY_P·1 m/s and MPC_XY_VEL_P_ACC times
// that as acceleration; the thrust vector tilts by atan(a/g) toward the
// error, and the collective grows by 1/cos(tilt) to hold altitude.
func TestUpdatePositionErrorTilts(t *testing.T) {
	a := 1.8 * 0.95 // MPC_XY_VEL_P_ACC · MPC_XY_P · 1 m
	want := math.Atan2(a, g)
	tests := []struct {
		name             string
		yaw              float64
		err              geom.Vec3
		wantRoll, wantPi float64
	}{
		{"+x facing north: nose down", 0, geom.Vec3{X: 1}, 0, -want},
		{"-x facing north: nose up", 0, geom.Vec3{X: -1}, 0, want},
		{"+y facing north: right side down", 0, geom.Vec3{Y: 1}, want, 0},
		{"-y facing north: left side down", 0, geom.Vec3{Y: -1}, -want, 0},
		{"+x facing east: left side down", math.Pi / 2, geom.Vec3{X: 1}, -want, 0},
		{"+x facing south: nose up", math.Pi, geom.Vec3{X: 1}, 0, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			st := hoverState(tt.yaw)
			out := c.Update(st, control.Setpoint{Pos: st.Pos.Add(tt.err), Yaw: tt.yaw}, dt)
			if got, w := out.VelSp, tt.err.Scale(0.95); got.Sub(w).Norm() > 1e-12 {
				t.Errorf("velocity setpoint: got %+v; want %+v", got, w)
			}
			roll, pitch, yaw := out.AttSp.Euler()
			if math.Abs(roll-tt.wantRoll) > 1e-9 || math.Abs(pitch-tt.wantPi) > 1e-9 {
				t.Errorf("attitude setpoint roll, pitch: got %.6f, %.6f; want %.6f, %.6f", roll, pitch, tt.wantRoll, tt.wantPi)
			}
			if math.Abs(geom.WrapPi(yaw-tt.yaw)) > 1e-9 {
				t.Errorf("attitude setpoint yaw: got %v; want %v", yaw, tt.yaw)
			}
			if w := 0.5 / math.Cos(want); math.Abs(out.Thrust-w) > 1e-9 {
				t.Errorf("thrust: got %.9f; want 0.5/cos(tilt) = %.9f", out.Thrust, w)
			}
		})
	}
}

// A huge horizontal error saturates the velocity at MPC_XY_VEL_MAX and the
// tilt at MPC_TILTMAX_AIR, toward the error.
func TestUpdateTiltLimit(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  geom.Vec2
	}{
		{"north", geom.Vec2{X: 1000}},
		{"east", geom.Vec2{Y: 1000}},
		{"south-west", geom.Vec2{X: -700, Y: -700}},
		{"slightly west of south", geom.Vec2{X: -1e4, Y: -10}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			st := hoverState(0.3)
			out := c.Update(st, control.Setpoint{Pos: st.Pos.Add(geom.Vec3{X: tt.err.X, Y: tt.err.Y}), Yaw: 0.3}, dt)
			if got := out.VelSp.XY().Norm(); math.Abs(got-12) > 1e-9 {
				t.Errorf("horizontal speed setpoint: got %v; want MPC_XY_VEL_MAX 12", got)
			}
			if got := tilt(out.AttSp); math.Abs(got-deg(45)) > 1e-9 {
				t.Errorf("tilt: got %.6f°; want MPC_TILTMAX_AIR 45°", got*180/math.Pi)
			}
			// The thrust (−body z) points horizontally along the error.
			th := out.AttSp.Rotate(geom.Vec3{Z: -1}).XY()
			if c := th.Unit().Dot(tt.err.Unit()); c < 1-1e-9 {
				t.Errorf("thrust direction %+v not along the error %+v (cos %v)", th, tt.err, c)
			}
			// Altitude is held: vertical thrust stays at hover.
			if w := 0.5 / math.Cos(deg(45)); math.Abs(out.Thrust-w) > 1e-9 {
				t.Errorf("thrust: got %v; want %v", out.Thrust, w)
			}
		})
	}
}

// Velocity setpoints are clamped to MPC_XY_VEL_MAX horizontally and to
// −MPC_Z_VEL_MAX_UP (3 m/s up, NED negative) … MPC_Z_VEL_MAX_DN (1.5 m/s
// down) vertically; NaN position components leave the velocity feed-forward
// alone.
func TestUpdateVelocityClamp(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		dPos geom.Vec3 // setpoint position minus state position
		vel  geom.Vec3
		want geom.Vec3
	}{
		{"1 m up", geom.Vec3{Z: -1}, geom.Vec3{}, geom.Vec3{Z: -1}},
		{"1 m down", geom.Vec3{Z: 1}, geom.Vec3{}, geom.Vec3{Z: 1}},
		{"100 m up", geom.Vec3{Z: -100}, geom.Vec3{}, geom.Vec3{Z: -3}},
		{"100 m down", geom.Vec3{Z: 100}, geom.Vec3{}, geom.Vec3{Z: 1.5}},
		{"climb feed-forward too fast", geom.Vec3{X: nan, Y: nan, Z: nan}, geom.Vec3{Z: -10}, geom.Vec3{Z: -3}},
		{"sink feed-forward too fast", geom.Vec3{X: nan, Y: nan, Z: nan}, geom.Vec3{Z: 10}, geom.Vec3{Z: 1.5}},
		{"feed-forward only", geom.Vec3{X: nan, Y: nan, Z: nan}, geom.Vec3{X: 2, Y: -1, Z: 0.5}, geom.Vec3{X: 2, Y: -1, Z: 0.5}},
		{"position plus feed-forward", geom.Vec3{X: 1, Y: nan, Z: -1}, geom.Vec3{X: 2, Y: 1}, geom.Vec3{X: 2.95, Y: 1, Z: -1}},
		{"horizontal within limit", geom.Vec3{X: 3, Y: 4}, geom.Vec3{}, geom.Vec3{X: 2.85, Y: 3.8}},
		{"horizontal feed-forward too fast", geom.Vec3{X: nan, Y: nan}, geom.Vec3{X: 30, Y: 40}, geom.Vec3{X: 7.2, Y: 9.6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			st := hoverState(0)
			out := c.Update(st, control.Setpoint{Pos: st.Pos.Add(tt.dPos), Vel: tt.vel}, dt)
			if out.VelSp.Sub(tt.want).Norm() > 1e-12 {
				t.Errorf("velocity setpoint: got %+v; want %+v", out.VelSp, tt.want)
			}
		})
	}
}

// The collective stays within [MPC_THR_MIN, MPC_THR_MAX].
func TestUpdateThrustLimits(t *testing.T) {
	nan := math.NaN()
	free := geom.Vec3{X: nan, Y: nan, Z: nan}
	tests := []struct {
		name string
		vel  geom.Vec3 // vehicle velocity; the setpoint is zero velocity
		want float64
	}{
		{"climbing at 5 m/s: minimum", geom.Vec3{Z: -5}, 0.12},
		{"sinking at 5 m/s: maximum", geom.Vec3{Z: 5}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			st := hoverState(0)
			st.Vel = tt.vel
			out := c.Update(st, control.Setpoint{Pos: free}, dt)
			if math.Abs(out.Thrust-tt.want) > 1e-12 {
				t.Errorf("thrust: got %v; want %v", out.Thrust, tt.want)
			}
		})
	}
}

// A NaN yaw setpoint keeps the current heading.
func TestUpdateNaNYawKeepsHeading(t *testing.T) {
	c := control.New(control.DefaultGains())
	st := hoverState(1.2)
	out := c.Update(st, control.Setpoint{Pos: st.Pos, Yaw: math.NaN()}, dt)
	if got := out.AttSp.Yaw(); math.Abs(got-1.2) > 1e-12 {
		t.Errorf("attitude setpoint yaw: got %v; want the current 1.2", got)
	}
	if math.Abs(out.RateSp.Z) > 1e-9 {
		t.Errorf("yaw rate setpoint: got %v; want 0", out.RateSp.Z)
	}
}

// The velocity integrator accumulates a persistent error (MPC_XY_VEL_I_ACC);
// Freeze stops it and Reset clears it. The vehicle drifts backward at a
// steady 1 m/s against a zero-velocity setpoint, so the D term (on the
// measured acceleration) stays zero and the acceleration setpoint is
// MPC_XY_VEL_P_ACC·1 plus the integrator.
func TestUpdateIntegratorFreezeReset(t *testing.T) {
	st := hoverState(0)
	st.Vel = geom.Vec3{X: -1}
	sp := control.Setpoint{Pos: geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: st.Pos.Z}}
	const p, i = 1.8, 0.4
	// after returns the acceleration setpoint of the call after n steps.
	after := func(c *control.Controller, n int) float64 {
		for range n {
			c.Update(st, sp, dt)
		}
		return c.Update(st, sp, dt).AccSp.X
	}
	tests := []struct {
		name  string
		setup func(c *control.Controller)
		n     int
		want  float64
	}{
		{"first call: P only", func(*control.Controller) {}, 0, p},
		{"after 1 s: P + I·1 s", func(*control.Controller) {}, 200, p + i*200*dt},
		{"frozen", func(c *control.Controller) { c.Freeze(true) }, 200, p},
		{"reset", func(c *control.Controller) { after(c, 200); c.Reset() }, 0, p},
		{"unfrozen again", func(c *control.Controller) { c.Freeze(true); after(c, 100); c.Freeze(false) }, 100, p + i*100*dt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			tt.setup(c)
			if got := after(c, tt.n); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("AccSp.X: got %.12f; want %.12f", got, tt.want)
			}
		})
	}
}

func TestUpdateAllocatesNothing(t *testing.T) {
	c := control.New(control.DefaultGains())
	st := hoverState(0.1)
	sp := control.Setpoint{Pos: st.Pos.Add(geom.Vec3{X: 2, Y: -1, Z: -1}), Yaw: 1}
	if n := testing.AllocsPerRun(100, func() { c.Update(st, sp, dt) }); n != 0 {
		t.Errorf("Update allocates %v times per call; want 0", n)
	}
}

// loop flies a NoNoise SIH quadrotor with the cascade, using the true state.
type loop struct {
	q   *quad.Quad
	c   *control.Controller
	out control.Output
}

func newLoop(t testing.TB, start geom.Vec3, yaw float64) *loop {
	t.Helper()
	q, err := quad.New(quad.Config{NoNoise: true, StartPos: start, StartYawRad: yaw}, nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return &loop{q: q, c: control.New(control.DefaultGains())}
}

func (l *loop) state() control.State {
	s := l.q.Truth()
	return control.State{Pos: s.Pos, Vel: s.Vel, Att: s.Att, Rate: s.Rate}
}

// run steps for d seconds, calling each (if not nil) after every step.
func (l *loop) run(sp control.Setpoint, d float64, each func(quad.State)) {
	for n := int(math.Round(d / l.q.StepS())); n > 0; n-- {
		l.out = l.c.Update(l.state(), sp, l.q.StepS())
		l.q.SetMotors(l.out.Motor)
		l.q.Step()
		if each != nil {
			each(l.q.Truth())
		}
	}
}

// Held still in the air, the integrators find the true hover command
// m·g/(4·T_max) ≈ 0.4903 although MPC_THR_HOVER says 0.5.
func TestClosedLoopHover(t *testing.T) {
	start := geom.Vec3{Z: -10}
	l := newLoop(t, start, 0)
	sp := control.Setpoint{Pos: start}
	l.run(sp, 10, nil)
	s := l.q.Truth()
	if d := s.Pos.Sub(start).Norm(); d > 0.01 {
		t.Errorf("position error after 10 s: got %.4f m; want < 0.01", d)
	}
	want := quad.DefaultParams().HoverCommand()
	if math.Abs(l.out.Thrust-want) > 1e-3 {
		t.Errorf("hover thrust: got %.5f; want %.5f ± 0.001", l.out.Thrust, want)
	}
	if tl := tilt(s.Att); tl > 1e-3 {
		t.Errorf("tilt at hover: got %v rad; want < 1e-3", tl)
	}
}

// A 5 m step in x from hover settles within 0.2 m in 10 s; the horizontal
// speed stays under MPC_XY_VEL_MAX and the altitude is held.
func TestClosedLoopStepX(t *testing.T) {
	start := geom.Vec3{Z: -10}
	l := newLoop(t, start, 0)
	l.run(control.Setpoint{Pos: start}, 5, nil)
	target := start.Add(geom.Vec3{X: 5})
	var maxV, maxDz, peakX float64
	settled := math.NaN()
	tt := 0.0
	l.run(control.Setpoint{Pos: target}, 15, func(s quad.State) {
		tt += dt
		maxV = math.Max(maxV, s.Vel.XY().Norm())
		maxDz = math.Max(maxDz, math.Abs(s.Pos.Z-start.Z))
		peakX = math.Max(peakX, s.Pos.X)
		if s.Pos.Sub(target).Norm() > 0.2 {
			settled = math.NaN()
		} else if math.IsNaN(settled) {
			settled = tt
		}
	})
	t.Logf("settled %.2f s, peak speed %.2f m/s, overshoot %.3f m, max altitude error %.3f m", settled, maxV, peakX-5, maxDz)
	if math.IsNaN(settled) || settled > 10 {
		t.Errorf("settling time within 0.2 m: got %v s; want ≤ 10", settled)
	}
	if maxV > 12 {
		t.Errorf("peak horizontal speed: got %.2f m/s; want ≤ MPC_XY_VEL_MAX 12", maxV)
	}
	if maxDz > 0.5 {
		t.Errorf("altitude error during the step: got %.3f m; want < 0.5", maxDz)
	}
}

// A 90° yaw step converges within 3° in 5 s without moving the vehicle.
func TestClosedLoopYawStep(t *testing.T) {
	start := geom.Vec3{Z: -10}
	l := newLoop(t, start, 0)
	l.run(control.Setpoint{Pos: start}, 5, nil)
	var maxDrift, peakYaw float64
	settled := math.NaN()
	tt := 0.0
	l.run(control.Setpoint{Pos: start, Yaw: math.Pi / 2}, 8, func(s quad.State) {
		tt += dt
		maxDrift = math.Max(maxDrift, s.Pos.Sub(start).Norm())
		peakYaw = math.Max(peakYaw, s.Att.Yaw())
		if math.Abs(geom.WrapPi(s.Att.Yaw()-math.Pi/2)) > deg(3) {
			settled = math.NaN()
		} else if math.IsNaN(settled) {
			settled = tt
		}
	})
	t.Logf("yaw within 3° from %.2f s, overshoot %.2f°, drift %.3f m", settled, (peakYaw-math.Pi/2)*180/math.Pi, maxDrift)
	if math.IsNaN(settled) || settled > 5 {
		t.Errorf("yaw settling time within 3°: got %v s; want ≤ 5", settled)
	}
	if maxDrift > 0.1 {
		t.Errorf("position drift during the turn: got %.3f m; want < 0.1", maxDrift)
	}
}

// PX4 stops the vertical velocity integrator while the collective is
// saturated in the error's direction, judging saturation on the thrust
// before the vertical-priority clamp (PositionControl::_velocityControl).
// Sinking at 5 m/s with MPC_THR_MAX reached, the integrator must not wind,
// whether or not the vehicle also accelerates horizontally.
func TestUpdateVerticalAntiWindupAtMaxThrust(t *testing.T) {
	for _, tt := range []struct {
		name string
		dx   float64 // horizontal position error, m
	}{
		{"vertical only", 0},
		{"with a horizontal error", 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := control.New(control.DefaultGains())
			st := hoverState(0)
			sinking := st
			sinking.Vel = geom.Vec3{Z: 5}
			sp := control.Setpoint{Pos: st.Pos.Add(geom.Vec3{X: tt.dx}), Vel: geom.Vec3{Z: 0}}
			sp.Pos.Z = math.NaN()
			for range 200 {
				c.Update(sinking, sp, dt)
			}
			// MPC_Z_VEL_D_ACC is 0, so at zero vertical speed AccSp.Z is the integrator.
			got := c.Update(st, sp, dt).AccSp.Z
			if math.Abs(got) > 1e-9 {
				if tt.dx != 0 {
					t.Errorf("vertical integrator wound to %.3f m/s² at maximum thrust; want 0", got)
				}
				t.Errorf("vertical integrator after 1 s at max thrust: got %.3f m/s²; want 0", got)
			}
		})
	}
}

// PX4 clamps the horizontal velocity setpoint to MPC_XY_VEL_MAX keeping the
// part from the position error and shortening the feed-forward
// (ControlMath::constrainXY; px4.md §2.1).
func TestUpdateHorizontalClampKeepsPositionPart(t *testing.T) {
	c := control.New(control.DefaultGains())
	st := hoverState(0)
	// Position part (0, 9.5) m/s, feed-forward (10, 0) m/s: the sum is
	// 13.8 m/s; PX4 keeps (·, 9.5) and scales the feed-forward to
	// √(12² − 9.5²) = 7.33 m/s.
	sp := control.Setpoint{Pos: st.Pos.Add(geom.Vec3{Y: 10}), Vel: geom.Vec3{X: 10}}
	got := c.Update(st, sp, dt).VelSp
	want := geom.Vec3{X: math.Sqrt(144 - 9.5*9.5), Y: 9.5}
	if got.Sub(want).Norm() > 1e-9 {
		t.Errorf("horizontal clamp must keep the position part: VelSp got %+v; want %+v", got, want)
	}
}

func BenchmarkUpdate(b *testing.B) {
	c := control.New(control.DefaultGains())
	st := hoverState(0.1)
	sp := control.Setpoint{Pos: st.Pos.Add(geom.Vec3{X: 2, Y: -1, Z: -1}), Yaw: 1}
	b.ReportAllocs()
	for b.Loop() {
		c.Update(st, sp, dt)
	}
}

func BenchmarkMix(b *testing.B) {
	tq := geom.Vec3{X: 0.3, Y: -0.2, Z: 0.8}
	b.ReportAllocs()
	for b.Loop() {
		control.Mix(0.6, tq)
	}
}
