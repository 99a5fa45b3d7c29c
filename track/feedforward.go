package track

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

// FeedforwardConfig configures the default tracker. Zero fields mean the
// values named.
type FeedforwardConfig struct {
	// AccMS2 bounds the reference's acceleration along the path; 0 = 2 m/s²
	// (PX4's MPC_ACC_HOR is 3; the margin leaves the position loop room).
	AccMS2 float64
	// CornerTolM is how far a corner may be cut at the speed the reference
	// slows to there; 0 = 0.05 m. A corner of deflection α is taken at
	// √(AccMS2·R) with R the radius of the arc that stays within CornerTolM
	// of the vertex, R = tol / (1/cos(α/2) − 1): 0.55 m/s at 90°, and no
	// slow-down at the Circle's 10°.
	CornerTolM float64
	// ArriveM is how close the vehicle must be to the end, once the
	// reference has reached it, for the tracker to be done; 0 = 0.3 m.
	ArriveM float64
	// LagSlowM and LagStopM govern progress: the reference's clock slows
	// when the vehicle is more than LagSlowM behind it and stops at
	// LagStopM, so that a vehicle that cannot keep up (a headwind) is
	// waited for instead of cut loose; 0 = 1 m and 3 m.
	LagSlowM, LagStopM float64
	// DragPerS feeds forward a linear drag of DragPerS × the reference
	// velocity (m/s² per m/s): the airframe's drag over its mass, which for
	// the simulated quad is SIH_KDV / SIH_MASS = 1.0. 0 = 1.0; negative =
	// none.
	DragPerS float64
	// PosGain, VelGain and IntGain stiffen the vehicle's position control
	// with the tracker's own feedback: the velocity setpoint gets
	// PosGain·e + IntGain·∫e (e = reference − position; the integral's
	// share bounded by IntMaxMS) and the acceleration setpoint
	// VelGain·(velocity setpoint − velocity), on top of the cascade's own
	// loops (PX4's MPC_XY_P 0.95 and MPC_XY_VEL_P_ACC 1.8, tuned
	// conservatively). 0 = 2.0 /s, 3.0 /s and 0.5 /s²; negative = off.
	// With these the closed loop rises in 0.5 s instead of 1.5 s to a
	// 1-m step, with about 12 % overshoot.
	PosGain, VelGain, IntGain float64
	// IntMaxMS bounds the integral's share of the velocity setpoint;
	// 0 = 1 m/s.
	IntMaxMS float64
}

func (c FeedforwardConfig) withDefaults() FeedforwardConfig {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.AccMS2, 2)
	def(&c.CornerTolM, 0.05)
	def(&c.ArriveM, 0.3)
	def(&c.LagSlowM, 1)
	def(&c.LagStopM, 3)
	if c.LagStopM <= c.LagSlowM {
		c.LagStopM = c.LagSlowM + 1
	}
	def(&c.DragPerS, 1)
	def(&c.PosGain, 2)
	def(&c.VelGain, 3)
	def(&c.IntGain, 0.5)
	def(&c.IntMaxMS, 1)
	for _, v := range []*float64{&c.DragPerS, &c.PosGain, &c.VelGain, &c.IntGain} {
		if *v < 0 {
			*v = 0
		}
	}
	return c
}

// Feedforward is the default tracker: time-parameterised tracking of the
// ideal polyline with velocity and acceleration feed-forward into the
// vehicle's own position controller (the PX4-like cascade), slowing at
// corners and stopping at the end of the path.
//
// At dispatch it plans a speed profile along the polyline (AirStack's
// waypoints, duplicates dropped): at each vertex no faster than the
// waypoint's speed and the corner speed (see CornerTolM), within a segment
// no faster than the faster of its two waypoints, starting and ending at
// rest, with |acceleration| ≤ AccMS2 (a forward and a backward pass, then
// a trapezoid per segment). Every step it sends the reference's position,
// velocity and tangential acceleration at the reference time; the
// reference time runs with the vehicle's clock unless the vehicle falls
// behind (LagSlowM, LagStopM). It holds the heading it had at dispatch:
// a multicopter need not face where it flies, and a constant yaw keeps the
// attitude loop out of the tracking error. It is done when the reference
// has reached the end and the vehicle is within ArriveM of it.
type Feedforward struct {
	cfg FeedforwardConfig

	started bool
	pts     []geom.Vec3 // vertices
	arc     []float64   // cumulative length at each vertex
	curv    []geom.Vec3 // curvature vector at each vertex (1/m, toward the inside of the turn)
	pieces  []piece     // the speed profile, in time order
	total   float64     // profile duration, s

	integ  geom.Vec3 // ∫e dt, m·s
	tau    float64   // reference time since dispatch
	lastT  float64
	k      int // current piece
	yaw    float64
	done   bool
	refPos geom.Vec3
}

// piece is a stretch of the profile with constant acceleration.
type piece struct {
	t0, s0, v0, a, dur float64
}

var _ Tracker = (*Feedforward)(nil)

// NewFeedforward returns the default tracker with cfg (zero fields =
// defaults).
func NewFeedforward(cfg FeedforwardConfig) *Feedforward {
	return &Feedforward{cfg: cfg.withDefaults()}
}

// Name returns "feedforward".
func (f *Feedforward) Name() string { return "feedforward" }

// Config returns the configuration in use, defaults filled in.
func (f *Feedforward) Config() FeedforwardConfig { return f.cfg }

// Duration returns the planned profile's duration, s.
func (f *Feedforward) Duration() float64 { return f.total }

// Start plans the speed profile along p.
func (f *Feedforward) Start(p traj.Path, o Odom) error {
	if p.Frame != traj.World {
		return ErrNotWorld
	}
	if len(p.Waypoints) == 0 {
		return traj.ErrEmpty
	}
	cfg := f.cfg
	*f = Feedforward{cfg: cfg, started: true, lastT: o.T, yaw: o.Yaw}
	var speeds []float64
	for i, w := range p.Waypoints {
		if i > 0 && w.Pos == f.pts[len(f.pts)-1] {
			continue
		}
		f.pts = append(f.pts, w.Pos)
		speeds = append(speeds, w.Speed)
	}
	n := len(f.pts)
	f.arc = make([]float64, n)
	for i := 1; i < n; i++ {
		f.arc[i] = f.arc[i-1] + f.pts[i].Sub(f.pts[i-1]).Norm()
	}
	f.curv = make([]geom.Vec3, n)
	for i := 1; i+1 < n; i++ {
		f.curv[i] = f.curvature(i)
	}
	f.plan(speeds)
	f.refPos = f.pts[0]
	return nil
}

// minCruiseMS keeps a segment whose waypoints both ask for 0 m/s moving.
const minCruiseMS = 0.1

// plan builds the speed profile.
func (f *Feedforward) plan(speeds []float64) {
	n := len(f.pts)
	if n < 2 {
		return
	}
	a := f.cfg.AccMS2
	v := make([]float64, n)
	for i := range v {
		v[i] = speeds[i]
		if i > 0 && i < n-1 {
			v[i] = math.Min(v[i], f.cornerSpeed(i))
		}
	}
	v[0], v[n-1] = 0, 0
	cruise := func(i int) float64 { return math.Max(minCruiseMS, math.Max(speeds[i], speeds[i+1])) }
	for i := 1; i < n; i++ {
		d := f.arc[i] - f.arc[i-1]
		v[i] = math.Min(v[i], math.Min(cruise(i-1), math.Sqrt(v[i-1]*v[i-1]+2*a*d)))
	}
	for i := n - 2; i >= 0; i-- {
		d := f.arc[i+1] - f.arc[i]
		v[i] = math.Min(v[i], math.Sqrt(v[i+1]*v[i+1]+2*a*d))
	}
	t := 0.0
	for i := 0; i+1 < n; i++ {
		d := f.arc[i+1] - f.arc[i]
		if d <= 0 {
			continue
		}
		va, vb := v[i], v[i+1]
		vp := math.Min(cruise(i), math.Sqrt((2*a*d+va*va+vb*vb)/2))
		vp = math.Max(vp, math.Max(va, vb))
		d1 := math.Max(0, (vp*vp-va*va)/(2*a))
		d3 := math.Max(0, (vp*vp-vb*vb)/(2*a))
		d2 := math.Max(0, d-d1-d3)
		s := f.arc[i]
		add := func(v0, acc, dur, ds float64) {
			if dur <= 0 {
				return
			}
			f.pieces = append(f.pieces, piece{t0: t, s0: s, v0: v0, a: acc, dur: dur})
			t += dur
			s += ds
		}
		add(va, a, (vp-va)/a, d1)
		if vp > 0 {
			add(vp, 0, d2/vp, d2)
		}
		add(vp, -a, (vp-vb)/a, d3)
	}
	f.total = t
}

// cornerSpeed is the speed at interior vertex i (see CornerTolM).
func (f *Feedforward) cornerSpeed(i int) float64 {
	u1 := f.pts[i].Sub(f.pts[i-1]).Unit()
	u2 := f.pts[i+1].Sub(f.pts[i]).Unit()
	c := geom.Clamp(u1.Dot(u2), -1, 1)
	alpha := math.Acos(c)
	if alpha < 1e-6 {
		return math.Inf(1)
	}
	k := 1/math.Cos(alpha/2) - 1
	if math.IsInf(k, 0) || k > 1e9 {
		return 0
	}
	r := f.cfg.CornerTolM / k
	return math.Sqrt(f.cfg.AccMS2 * r)
}

// maxSmoothRad is the largest deflection treated as a sampled curve rather
// than a corner: below it a vertex carries curvature (fed forward as
// centripetal acceleration), above it the reference slows instead.
const maxSmoothRad = 30 * math.Pi / 180

// curvature returns the discrete curvature vector at interior vertex i: the
// deflection over the mean of the adjacent segment lengths, toward the
// inside of the turn; zero at corners (see maxSmoothRad).
func (f *Feedforward) curvature(i int) geom.Vec3 {
	u1 := f.pts[i].Sub(f.pts[i-1]).Unit()
	u2 := f.pts[i+1].Sub(f.pts[i]).Unit()
	alpha := math.Acos(geom.Clamp(u1.Dot(u2), -1, 1))
	l := (f.arc[i+1] - f.arc[i-1]) / 2
	if alpha < 1e-9 || alpha > maxSmoothRad || l <= 0 {
		return geom.Vec3{}
	}
	return u2.Sub(u1).Unit().Scale(alpha / l)
}

// Progress returns the reference time over the profile's duration.
func (f *Feedforward) Progress() float64 {
	if !f.started || f.total <= 0 {
		return 0
	}
	return math.Min(1, f.tau/f.total)
}

// Done reports whether the reference has reached the end and the vehicle
// is within ArriveM of it.
func (f *Feedforward) Done() bool { return f.done }

// Update advances the reference time and returns the setpoint.
func (f *Feedforward) Update(o Odom) Command {
	if !f.started {
		return Command{Pos: o.Pos, Vel: nan3, Acc: nan3, Yaw: math.NaN()}
	}
	dt := math.Max(0, o.T-f.lastT)
	f.lastT = o.T
	lag := o.Pos.Sub(f.refPos).Norm()
	rate := 1 - geom.Clamp((lag-f.cfg.LagSlowM)/(f.cfg.LagStopM-f.cfg.LagSlowM), 0, 1)
	f.tau = math.Min(f.total, f.tau+dt*rate)
	s, v, a := f.eval(f.tau)
	if f.tau >= f.total {
		v, a = 0, 0
	}
	pos, dir, k := f.at(s)
	f.refPos = pos
	vr := v * rate
	vref := dir.Scale(vr)
	acc := dir.Scale(a * rate * rate).Add(k.Scale(vr * vr)).Add(vref.Scale(f.cfg.DragPerS))
	// The tracker's own feedback (see PosGain).
	e := pos.Sub(o.Pos)
	c := &f.cfg
	if c.IntGain > 0 {
		f.integ = f.integ.Add(e.Scale(dt))
		lim := c.IntMaxMS / c.IntGain
		f.integ = geom.Vec3{X: geom.Clamp(f.integ.X, -lim, lim), Y: geom.Clamp(f.integ.Y, -lim, lim), Z: geom.Clamp(f.integ.Z, -lim, lim)}
	}
	vel := vref.Add(e.Scale(c.PosGain)).Add(f.integ.Scale(c.IntGain))
	acc = acc.Add(vel.Sub(o.Vel).Scale(c.VelGain))
	if f.tau >= f.total && o.Pos.Sub(f.pts[len(f.pts)-1]).Norm() <= f.cfg.ArriveM {
		f.done = true
	}
	return Command{Pos: pos, Vel: vel, Acc: acc, Yaw: f.yaw}
}

// eval returns arc length, speed and acceleration at profile time t.
func (f *Feedforward) eval(t float64) (s, v, a float64) {
	if len(f.pieces) == 0 {
		return 0, 0, 0
	}
	for f.k+1 < len(f.pieces) && t >= f.pieces[f.k+1].t0 {
		f.k++
	}
	for f.k > 0 && t < f.pieces[f.k].t0 {
		f.k--
	}
	p := f.pieces[f.k]
	tt := geom.Clamp(t-p.t0, 0, p.dur)
	return p.s0 + p.v0*tt + p.a*tt*tt/2, math.Max(0, p.v0+p.a*tt), p.a
}

// at returns the point at arc length s, the unit direction of its segment
// and the curvature vector, interpolated between the segment's vertices.
func (f *Feedforward) at(s float64) (pos, dir, curv geom.Vec3) {
	n := len(f.pts)
	if n == 1 {
		return f.pts[0], geom.Vec3{}, geom.Vec3{}
	}
	// The segment containing s: arc[i] ≤ s < arc[i+1], searched from the
	// end of the previous search would be faster; paths are short.
	lo, hi := 0, n-2
	for lo < hi {
		m := (lo + hi + 1) / 2
		if f.arc[m] <= s {
			lo = m
		} else {
			hi = m - 1
		}
	}
	i := lo
	l := f.arc[i+1] - f.arc[i]
	d := f.pts[i+1].Sub(f.pts[i])
	if l <= 0 {
		return f.pts[i], geom.Vec3{}, geom.Vec3{}
	}
	u := geom.Clamp((s-f.arc[i])/l, 0, 1)
	return f.pts[i].Add(d.Scale(u)), d.Scale(1 / l), f.curv[i].Add(f.curv[i+1].Sub(f.curv[i]).Scale(u))
}
