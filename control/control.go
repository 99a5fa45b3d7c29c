package control

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

const g = 9.80665

// State is the vehicle state the controller acts on.
type State struct {
	Pos  geom.Vec3 // m, NED
	Vel  geom.Vec3 // m/s, NED
	Att  geom.Quat // body FRD → NED
	Rate geom.Vec3 // rad/s, body FRD
}

// Setpoint is what the cascade should achieve. A NaN position component
// leaves that axis to the velocity (and acceleration) feed-forward alone, as
// in PX4; NaN velocity and acceleration components count as zero. A NaN Yaw
// leaves the heading free.
type Setpoint struct {
	Pos     geom.Vec3 // m, NED
	Vel     geom.Vec3 // m/s, NED feed-forward
	Acc     geom.Vec3 // m/s², NED feed-forward
	Yaw     float64   // rad
	YawRate float64   // rad/s feed-forward
}

// Output is the result of one update, with the intermediate setpoints.
type Output struct {
	Motor     [4]float64 // 0..1, PX4 quad-X order
	Thrust    float64    // collective thrust 0..1
	VelSp     geom.Vec3
	AccSp     geom.Vec3
	AttSp     geom.Quat
	RateSp    geom.Vec3
	Torque    geom.Vec3 // normalised −1..1
	Saturated bool      // the mixer clipped
}

// Controller is the cascade's memory: integrators and filters. The zero value
// is not usable; call New.
type Controller struct {
	G Gains

	velInt    geom.Vec3
	rateInt   geom.Vec3
	prevVel   geom.Vec3
	velDeriv  geom.Vec3
	prevRate  geom.Vec3
	rateDeriv geom.Vec3
	yawTorque float64
	primed    bool
	frozen    bool
	// The three filters' lpAlpha, remembered for the cut-off and step
	// they were last worked out for.
	velA, rateA, yawA alphaMemo
}

// New returns a controller with gains gn (validated by the caller with
// Gains.Validate).
func New(gn Gains) *Controller { return &Controller{G: gn} }

// Reset clears integrators and filters, as when the vehicle is disarmed.
func (c *Controller) Reset() {
	gn := c.G
	*c = Controller{G: gn}
}

// Freeze stops the integrators from changing (PX4 freezes the rate
// integrators while landed).
func (c *Controller) Freeze(f bool) { c.frozen = f }

func lpAlpha(hz, dt float64) float64 { return 1 - math.Exp(-2*math.Pi*hz*dt) }

// alphaMemo is lpAlpha remembered for one (hz, dt): the gains and the step
// rarely change, and the exponential costs more than the rest of a filter.
// The zero value holds lpAlpha(+0, +0) = 1 − e^−0 = +0.
type alphaMemo struct{ hz, dt, a float64 }

// of returns lpAlpha(hz, dt), worked out again only when hz or dt differs
// in any bit from the last call's, so that it is always what lpAlpha
// returns (a NaN's payload and a zero's sign included).
func (m *alphaMemo) of(hz, dt float64) float64 {
	if math.Float64bits(hz) != math.Float64bits(m.hz) || math.Float64bits(dt) != math.Float64bits(m.dt) {
		m.hz, m.dt, m.a = hz, dt, lpAlpha(hz, dt)
	}
	return m.a
}

func nz(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// Update runs the whole cascade once for a step of dt seconds.
func (c *Controller) Update(st State, sp Setpoint, dt float64) Output {
	gn := &c.G
	var out Output
	if !c.primed {
		c.prevVel, c.prevRate, c.primed = st.Vel, st.Rate, true
	}

	// Position P (MPC_XY_P, MPC_Z_P) plus velocity feed-forward.
	vsp := geom.Vec3{X: nz(sp.Vel.X), Y: nz(sp.Vel.Y), Z: nz(sp.Vel.Z)}
	if !math.IsNaN(sp.Pos.X) {
		vsp.X += gn.XYP * (sp.Pos.X - st.Pos.X)
	}
	if !math.IsNaN(sp.Pos.Y) {
		vsp.Y += gn.XYP * (sp.Pos.Y - st.Pos.Y)
	}
	if !math.IsNaN(sp.Pos.Z) {
		vsp.Z += gn.ZP * (sp.Pos.Z - st.Pos.Z)
	}
	// Horizontal limit with priority for the position-error part over the
	// feed-forward (PX4 ControlMath::constrainXY).
	ff := geom.Vec2{X: nz(sp.Vel.X), Y: nz(sp.Vel.Y)}
	fb := geom.Vec2{X: vsp.X, Y: vsp.Y}.Sub(ff)
	xy := constrainXY(fb, ff, gn.XYVelMaxMS)
	vsp.X, vsp.Y = xy.X, xy.Y
	vsp.Z = geom.Clamp(vsp.Z, -gn.ZVelMaxUpMS, gn.ZVelMaxDnMS)
	out.VelSp = vsp

	// Velocity PID; D acts on the measured acceleration (low-passed, MPC_VELD_LP).
	a := c.velA.of(gn.VelDerivLPHz, dt)
	c.velDeriv = c.velDeriv.Add(st.Vel.Sub(c.prevVel).Scale(1 / dt).Sub(c.velDeriv).Scale(a))
	c.prevVel = st.Vel
	ve := vsp.Sub(st.Vel)
	kp := geom.Vec3{X: gn.XYVelP, Y: gn.XYVelP, Z: gn.ZVelP}
	kd := geom.Vec3{X: gn.XYVelD, Y: gn.XYVelD, Z: gn.ZVelD}
	acc := geom.Vec3{X: nz(sp.Acc.X), Y: nz(sp.Acc.Y), Z: nz(sp.Acc.Z)}.
		Add(ve.Mul(kp)).Add(c.velInt).Sub(c.velDeriv.Mul(kd))
	out.AccSp = acc

	// Acceleration → thrust vector (ControlMath): tilt-limited body z.
	bz := geom.Vec3{X: -acc.X, Y: -acc.Y, Z: g}.Unit()
	if tilt := math.Acos(geom.Clamp(bz.Z, -1, 1)); tilt > gn.TiltMaxRad {
		h := math.Hypot(bz.X, bz.Y)
		s, co := math.Sincos(gn.TiltMaxRad)
		bz = geom.Vec3{X: bz.X / h * s, Y: bz.Y / h * s, Z: co}
	}
	coll := (acc.Z*gn.ThrHover/g - gn.ThrHover) / bz.Z
	coll = math.Min(coll, -gn.ThrMin)
	thr := bz.Scale(coll) // NED, z negative = upward thrust
	// Saturation of the vertical thrust as the integrator sees it, before
	// the horizontal margin is reserved (PX4 _velocityControl).
	thrZRaw := math.Max(thr.Z, -gn.ThrMax)
	// Vertical priority, keeping a horizontal margin (MPC_THR_XY_MARG).
	thrXY := math.Hypot(thr.X, thr.Y)
	margin := math.Min(thrXY, gn.ThrXYMargin)
	thr.Z = math.Max(thr.Z, -math.Sqrt(gn.ThrMax*gn.ThrMax-margin*margin))
	maxXY := math.Sqrt(math.Max(gn.ThrMax*gn.ThrMax-thr.Z*thr.Z, 0))
	if thrXY > maxXY {
		thr.X *= maxXY / thrXY
		thr.Y *= maxXY / thrXY
	}

	// Integrators with PX4's anti-windup.
	if !c.frozen {
		// Horizontal: tracking anti-windup fed by unachieved acceleration.
		prod := geom.Vec2{X: thr.X, Y: thr.Y}.Scale(g / gn.ThrHover)
		want := geom.Vec2{X: acc.X, Y: acc.Y}
		veXY := geom.Vec2{X: ve.X, Y: ve.Y}
		if want.Dot(want) > prod.Dot(prod) && gn.XYVelP > 0 {
			veXY = veXY.Sub(want.Sub(prod).Scale(2 / gn.XYVelP))
		}
		c.velInt.X += veXY.X * gn.XYVelI * dt
		c.velInt.Y += veXY.Y * gn.XYVelI * dt
		// Vertical: stop integrating into saturation; clamp to |g|.
		satLow := thrZRaw >= -gn.ThrMin && ve.Z > 0
		satHigh := thrZRaw <= -gn.ThrMax+1e-9 && ve.Z < 0
		if !satLow && !satHigh {
			c.velInt.Z = geom.Clamp(c.velInt.Z+ve.Z*gn.ZVelI*dt, -g, g)
		}
	}
	out.Thrust = thr.Norm()

	// Attitude setpoint from the thrust direction and the yaw setpoint.
	zb := thr.Scale(-1 / out.Thrust)
	yaw := sp.Yaw
	if math.IsNaN(yaw) {
		yaw = st.Att.Yaw()
	}
	sy, cy := math.Sincos(yaw)
	yc := geom.Vec3{X: -sy, Y: cy}
	xb := yc.Cross(zb).Unit()
	yb := zb.Cross(xb)
	qd := geom.QuatFromAxes(xb, yb, zb)
	out.AttSp = qd

	// Attitude P on the quaternion error, yaw de-weighted (MC_YAW_WEIGHT).
	rsp := c.attitude(st.Att, qd, nz(sp.YawRate))
	out.RateSp = rsp

	// Body-rate PID.
	ar := c.rateA.of(gn.RateDerivLPHz, dt)
	c.rateDeriv = c.rateDeriv.Add(st.Rate.Sub(c.prevRate).Scale(1 / dt).Sub(c.rateDeriv).Scale(ar))
	c.prevRate = st.Rate
	re := rsp.Sub(st.Rate)
	rp := geom.Vec3{X: gn.RateP[0], Y: gn.RateP[1], Z: gn.RateP[2]}
	rd := geom.Vec3{X: gn.RateD[0], Y: gn.RateD[1], Z: gn.RateD[2]}
	tq := re.Mul(rp).Add(c.rateInt).Sub(c.rateDeriv.Mul(rd))
	c.yawTorque += (tq.Z - c.yawTorque) * c.yawA.of(gn.YawTorqueLPHz, dt)
	tq.Z = c.yawTorque
	tq.X = geom.Clamp(tq.X, -1, 1)
	tq.Y = geom.Clamp(tq.Y, -1, 1)
	tq.Z = geom.Clamp(tq.Z, -1, 1)
	out.Torque = tq

	out.Motor, out.Saturated = Mix(out.Thrust, tq)
	if !c.frozen && !out.Saturated {
		lim := 400 * math.Pi / 180
		for i, e := range [3]float64{re.X, re.Y, re.Z} {
			k := math.Max(0, 1-(e/lim)*(e/lim))
			v := [3]*float64{&c.rateInt.X, &c.rateInt.Y, &c.rateInt.Z}[i]
			*v = geom.Clamp(*v+gn.RateI[i]*k*e*dt, -gn.RateIntLim[i], gn.RateIntLim[i])
		}
	}
	return out
}

// constrainXY returns v0 + v1 limited to length max, keeping as much of v0
// as possible: all of it (and as much of v1 as fits) when |v0| < max.
func constrainXY(v0, v1 geom.Vec2, max float64) geom.Vec2 {
	sum := v0.Add(v1)
	if sum.Norm() <= max {
		return sum
	}
	if v0.Norm() >= max {
		return v0.Scale(max / v0.Norm())
	}
	// Solve |v0 + s·v1| = max for s in [0, 1].
	a := v1.Dot(v1)
	b := 2 * v0.Dot(v1)
	c := v0.Dot(v0) - max*max
	s := (-b + math.Sqrt(math.Max(b*b-4*a*c, 0))) / (2 * a)
	return v0.Add(v1.Scale(geom.Clamp(s, 0, 1)))
}

// attitude is PX4's reduced-attitude controller: it turns the thrust axis
// first and scales the remaining yaw error by the yaw weight.
func (c *Controller) attitude(q, qd geom.Quat, yawRateFF float64) geom.Vec3 {
	gn := &c.G
	ez := q.Rotate(geom.Vec3{Z: 1})
	ezd := qd.Rotate(geom.Vec3{Z: 1})
	red := geom.QuatBetween(ez, ezd).Mul(q)
	rpGain := (gn.RollP + gn.PitchP) / 2
	yawW := geom.Clamp(gn.YawWeight, 0, 1) // MC_YAW_WEIGHT
	mix := red.Conj().Mul(qd)
	if mix.W < 0 {
		mix = geom.Quat{W: -mix.W, X: -mix.X, Y: -mix.Y, Z: -mix.Z}
	}
	mw := geom.Clamp(mix.W, -1, 1)
	mz := geom.Clamp(mix.Z, -1, 1)
	qd = red.Mul(geom.Quat{W: math.Cos(yawW * math.Acos(mw)), Z: math.Sin(yawW * math.Asin(mz))})
	qe := q.Conj().Mul(qd)
	sgn := 1.0
	if qe.W < 0 {
		sgn = -1
	}
	e := geom.Vec3{X: qe.X, Y: qe.Y, Z: qe.Z}.Scale(2 * sgn)
	k := geom.Vec3{X: gn.RollP, Y: gn.PitchP, Z: rpGain}
	if yawW > 0 {
		k.Z = gn.YawP / yawW
	}
	w := e.Mul(k)
	// Yaw-rate feed-forward, world z into the body frame.
	w = w.Add(q.RotateInv(geom.Vec3{Z: yawRateFF}))
	w.X = geom.Clamp(w.X, -gn.RollRateMax, gn.RollRateMax)
	w.Y = geom.Clamp(w.Y, -gn.PitchRateMax, gn.PitchRateMax)
	w.Z = geom.Clamp(w.Z, -gn.YawRateMax, gn.YawRateMax)
	return w
}

// Mix turns collective thrust (0..1) and normalised torques (−1..1) into
// motor commands for PX4's quad-X, with the column scaling of PX4's
// pseudo-inverse allocation (roll and pitch 1/√2, yaw 1). Roll and pitch win
// over collective thrust, and both over yaw, when the motors saturate.
func Mix(thrust float64, tq geom.Vec3) (u [4]float64, saturated bool) {
	const k = 1 / math.Sqrt2
	rp := [4]float64{
		k * (-tq.X + tq.Y),
		k * (tq.X - tq.Y),
		k * (tq.X + tq.Y),
		k * (-tq.X - tq.Y),
	}
	yw := [4]float64{tq.Z, tq.Z, -tq.Z, -tq.Z}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range rp {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	// Roll/pitch alone must fit in [0, 1]; shrink them if not.
	if hi-lo > 1 {
		s := 1 / (hi - lo)
		for i := range rp {
			rp[i] *= s
		}
		lo, hi = lo*s, hi*s
		saturated = true
	}
	// Move the collective so that roll/pitch fit.
	t := thrust
	if t+hi > 1 {
		t = 1 - hi
		saturated = true
	}
	if t+lo < 0 {
		t = -lo
		saturated = true
	}
	// Yaw gets what room is left.
	ys := 1.0
	for i := range 4 {
		v := t + rp[i]
		y := yw[i]
		if y > 0 && v+y > 1 {
			ys = math.Min(ys, (1-v)/y)
		}
		if y < 0 && v+y < 0 {
			ys = math.Min(ys, -v/y)
		}
	}
	if ys < 1 {
		saturated = true
		ys = math.Max(ys, 0)
	}
	for i := range 4 {
		u[i] = geom.Clamp(t+rp[i]+ys*yw[i], 0, 1)
	}
	return u, saturated
}
