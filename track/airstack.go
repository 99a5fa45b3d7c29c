package track

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

// AirStackConfig holds the trajectory_controller parameters and the
// pid_controller gains of AirStack's launch files (airstack.md §3.3, §4).
// Zero fields mean those values.
type AirStackConfig struct {
	RateHz float64 // tracker timer; 0 = 20 Hz (the PID runs once per tracking point)
	// LookAheadTimeS bounds the projection window: [vt, previous tracking
	// point time + look_ahead_time]; 0 = 1.0 s.
	LookAheadTimeS float64
	// MinVirtualTrackingMS is min_virtual_tracking_velocity: at or below it
	// the tracker advances virtual time instead of intersecting the sphere,
	// and zeroes the tracking point's derivatives; 0 = 0.5 m/s.
	MinVirtualTrackingMS float64
	// SphereRadiusMultiplier is velocity_sphere_radius_multiplier: the
	// sphere radius is the trajectory speed at the projection times it;
	// 0 = 1.0 s. Negative uses SphereRadiusM.
	SphereRadiusMultiplier float64
	// SphereRadiusM is sphere_radius, used when the multiplier is
	// negative; 0 = 1.0 m.
	SphereRadiusM float64
	// Gains of the six PIDs; a zero struct means AirStack's.
	Gains AirStackGains
}

// PIDGains are one pid_controller PID's parameters (p / i / d / ff / d_alpha
// / min / max / constant).
type PIDGains struct {
	P, I, D, FF, DAlpha, Min, Max, Constant float64
}

// AirStackGains are the pid_controller gains: the position loop outputs a
// velocity (m/s), the velocity loop a pitch or roll angle (rad) or the
// normalised thrust with its 0.5 hover baseline.
type AirStackGains struct {
	X, Y, Z, VX, VY, VZ PIDGains
}

// DefaultAirStackGains returns local.launch.xml's gains at AirStack HEAD
// (= pid_controller.yaml @ 018ad326), airstack.md §4.
func DefaultAirStackGains() AirStackGains {
	pos := PIDGains{P: 1, Min: -3, Max: 3}
	vel := PIDGains{P: 0.2, I: 0.025, DAlpha: 0.9, Min: -0.34, Max: 0.34}
	return AirStackGains{
		X: pos, Y: pos,
		Z:  PIDGains{P: 1, Min: -1, Max: 1},
		VX: vel, VY: vel,
		VZ: PIDGains{P: 0.2, I: 0.1, Min: -0.5, Max: 1, Constant: hoverThrust},
	}
}

// hoverThrust is the vz PID's constant: AirStack's normalised hover thrust.
// The replica maps it to the vehicle's hover (Command.Thrust = 1).
const hoverThrust = 0.5

func (c AirStackConfig) withDefaults() AirStackConfig {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.RateHz, 20)
	def(&c.LookAheadTimeS, 1)
	def(&c.MinVirtualTrackingMS, 0.5)
	def(&c.SphereRadiusMultiplier, 1)
	def(&c.SphereRadiusM, 1)
	if c.Gains == (AirStackGains{}) {
		c.Gains = DefaultAirStackGains()
	}
	return c
}

// AirStack replicates AirStack's trajectory_controller + pid_controller as
// merged in PR #365 (airstack.md §3.1–3.2, §4), tick by tick at 20 Hz:
//
//  1. Sphere mode, when the previous tracking point's speed exceeds
//     min_virtual_tracking_velocity: virtual time vt jumps to the time of
//     the robot's closest point on the trajectory within [vt, previous
//     tracking time + look_ahead_time]; the sphere of radius r = speed at
//     that point × 1 s, centred on the robot (not on the projection, as
//     the README says), is intersected with the trajectory from vt on, and
//     the tracking point goes to the larger root on the first segment that
//     has one. Not found: the point r ahead along the path (PR #365);
//     projection invalid: vt advances by the elapsed time (PR #365).
//  2. Time-advance mode otherwise: vt += elapsed, up to the duration.
//  3. A tracking point at or below the minimum speed moves vt to it, and
//     its derivatives are zeroed; so are they past the end.
//  4. Completion is vt / duration: the action succeeds when it reaches 1,
//     that is when the tracking point has reached the end, not the drone.
//
// The PID stage then runs once per tracking point, in the yaw-aligned
// frame (base_link_stabilized): per-axis position P (1.0, ±3 m/s, z ±1)
// → velocity PI (0.2 / 0.025 → ±0.34 rad of pitch and −roll; z 0.2 / 0.1
// → thrust with a 0.5 baseline), with no velocity or acceleration
// feed-forward, and the tracking point's yaw as an absolute yaw.
//
// Quirks kept: the projection and sphere use the robot's position; the
// clamp is per axis, so a diagonal error asks for up to 3√2 m/s; the
// velocity integrators live in the body-yaw frame and do not turn with
// it; the attitude uses the trajectory's yaw (tangent on the Figure8 and
// the Racetrack turns, tangent + π on the Racetrack's second turn) while
// the angles were computed in the vehicle's current yaw frame;
// search_ahead_factor, virtual_tracking_ahead_time and the rest of the
// unused parameters have no effect, as in AirStack.
//
// Departures, forced by running it here: the PID is warm-started at
// dispatch (AirStack's runs from boot; its first call returns 0) with
// empty integrators, and the 0.5 thrust baseline is the vehicle's hover.
type AirStack struct {
	cfg AirStackConfig
	tr  *traj.Timed

	started   bool
	nextTick  float64
	lastTick  float64
	vt        float64
	prevTPT   float64 // prev_vtp_time
	prevSpeed float64 // speed of the previous tracking point as published
	tp        traj.Point

	pids [6]pid // x, y, z, vx, vy, vz
	cmd  Command
}

var _ Tracker = (*AirStack)(nil)

// NewAirStack returns the AirStack replica with cfg (zero fields = AirStack's
// values).
func NewAirStack(cfg AirStackConfig) *AirStack {
	a := &AirStack{cfg: cfg.withDefaults()}
	g := a.cfg.Gains
	for i, pg := range [6]PIDGains{g.X, g.Y, g.Z, g.VX, g.VY, g.VZ} {
		a.pids[i] = pid{g: pg}
	}
	return a
}

// Name returns "airstack".
func (a *AirStack) Name() string { return "airstack" }

// Config returns the configuration in use, defaults filled in.
func (a *AirStack) Config() AirStackConfig { return a.cfg }

// Start takes the trajectory override: vt = 0, and the previous tracking
// point is the hovering robot's (ROBOT_POSE: zero velocity), so the first
// tick advances time.
func (a *AirStack) Start(p traj.Path, o Odom) error {
	tr, err := timed(p)
	if err != nil {
		return err
	}
	cfg := a.cfg
	*a = *NewAirStack(cfg)
	a.tr, a.started = tr, true
	a.nextTick = o.T
	a.lastTick = o.T - 1/a.cfg.RateHz
	a.tp = traj.Point{Pos: o.Pos, Yaw: o.Yaw}
	a.cmd = Command{Attitude: true, Att: geom.QuatEuler(0, 0, o.Yaw), Thrust: 1, Yaw: o.Yaw}
	return nil
}

// Progress returns vt / duration (trajectory_completion_percentage / 100).
func (a *AirStack) Progress() float64 {
	if !a.started {
		return 0
	}
	d := a.tr.Duration()
	if d <= 0 {
		return 1
	}
	return math.Min(1, a.vt/d)
}

// Done reports completion ≥ 100 %.
func (a *AirStack) Done() bool {
	if !a.started {
		return false
	}
	return a.vt >= a.tr.Duration()
}

// TrackingPoint returns the current tracking point.
func (a *AirStack) TrackingPoint() traj.Point { return a.tp }

// Update runs the 20-Hz tick when it is due and returns the attitude
// setpoint of the last tick (held in between, as PX4 holds it).
func (a *AirStack) Update(o Odom) Command {
	if !a.started {
		return Command{Pos: o.Pos, Vel: nan3, Acc: nan3, Yaw: math.NaN()}
	}
	if o.T+1e-9 >= a.nextTick {
		elapsed := o.T - a.lastTick
		a.lastTick = o.T
		a.nextTick += 1 / a.cfg.RateHz
		if a.nextTick <= o.T {
			a.nextTick = o.T + 1/a.cfg.RateHz
		}
		a.tick(o, elapsed)
		a.control(o, elapsed)
	}
	return a.cmd
}

var nan3 = geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()}

// tick is one trajectory_controller timer callback in TRACK mode with
// time_multiplier 1.
func (a *AirStack) tick(o Odom, elapsed float64) {
	c := &a.cfg
	dur := a.tr.Duration()
	ahead := 0.0
	if a.prevSpeed > c.MinVirtualTrackingMS {
		proj, ok := closest(a.tr, o.Pos, a.vt, a.prevTPT+c.LookAheadTimeS)
		if ok {
			a.vt = proj.T
			r := c.SphereRadiusM
			if c.SphereRadiusMultiplier > 0 {
				r = proj.Vel.Norm() * c.SphereRadiusMultiplier
			}
			if t, found := sphereIntersection(a.tr, a.vt, o.Pos, r); found {
				ahead = t - a.vt
			} else {
				ahead = distanceAhead(a.tr, a.vt, r) - a.vt
			}
		} else {
			a.vt += elapsed
		}
	} else {
		a.vt = math.Min(dur, a.vt+elapsed)
	}
	tp := a.tr.At(a.vt + ahead)
	speed := tp.Vel.Norm()
	if speed <= c.MinVirtualTrackingMS {
		a.vt += ahead // "prevent oscillating"
	}
	a.prevTPT = tp.T
	if a.tr.Len() <= 3 {
		tp.Vel = geom.Vec3{} // takeoff and landing paths: no speed feed-forward
	}
	if speed <= c.MinVirtualTrackingMS || tp.T >= dur {
		tp.Vel, tp.Acc = geom.Vec3{}, geom.Vec3{}
	}
	a.prevSpeed = tp.Vel.Norm()
	a.tp = tp
}

// control is one pid_controller callback on the new tracking point.
func (a *AirStack) control(o Odom, dt float64) {
	// Into base_link_stabilized (FLU, yaw-aligned with the vehicle).
	e := flu(a.tp.Pos.Sub(o.Pos), o.Yaw)
	v := flu(o.Vel, o.Yaw)
	vdx := a.pids[0].update(e.X, dt)
	vdy := a.pids[1].update(e.Y, dt)
	vdz := a.pids[2].update(e.Z, dt)
	pitch := a.pids[3].update(vdx-v.X, dt)
	roll := -a.pids[4].update(vdy-v.Y, dt)
	thrust := a.pids[5].update(vdz-v.Z, dt)
	// FLU roll/pitch to FRD (pitch changes sign: + is nose down in FLU),
	// with the tracking point's yaw as an absolute heading.
	a.cmd = Command{
		Attitude: true,
		Att:      geom.QuatEuler(roll, -pitch, a.tp.Yaw),
		Thrust:   math.Max(0, thrust/hoverThrust),
		Yaw:      a.tp.Yaw,
		Pos:      a.tp.Pos,
		Vel:      a.tp.Vel,
	}
}

// flu expresses the NED vector v in the yaw-aligned FLU frame of heading yaw.
func flu(v geom.Vec3, yaw float64) geom.Vec3 {
	s, c := math.Sincos(yaw)
	return geom.Vec3{X: c*v.X + s*v.Y, Y: -(-s*v.X + c*v.Y), Z: -v.Z}
}

// pid is pid_controller's PID element (airstack.md §4, HEAD).
type pid struct {
	g        PIDGains
	integral float64
	prevErr  float64
	der      float64
	primed   bool
}

// update returns the output for error e over dt. The first call primes the
// derivative (AirStack's first call returns 0; see AirStack).
func (p *pid) update(e, dt float64) float64 {
	g := &p.g
	if !p.primed {
		p.prevErr, p.primed = e, true
	}
	if dt > 0 {
		p.integral += e * dt
		p.der = g.DAlpha*p.der + (1-g.DAlpha)*(e-p.prevErr)/dt
	}
	if g.I == 0 {
		p.integral = 0
	} else if ii := g.I * p.integral; ii > g.Max {
		p.integral = g.Max / g.I
	} else if ii < g.Min {
		p.integral = g.Min / g.I
	}
	p.prevErr = e
	u := g.P*e + g.I*p.integral + g.D*p.der + g.Constant
	return geom.Clamp(u, g.Min, g.Max)
}

// closest is get_closest_waypoint(point, t0, t1): the closest point to p on
// the segments clipped to [t0, t1] (3-D, the parameter clamped to each
// segment), with its interpolated state and time. ok is false when the
// window is empty.
func closest(tr *traj.Timed, p geom.Vec3, t0, t1 float64) (traj.Point, bool) {
	pts := tr.Points()
	if len(pts) == 1 {
		return pts[0], true
	}
	t0 = math.Max(t0, 0)
	t1 = math.Min(t1, tr.Duration())
	if t1 < t0 {
		return traj.Point{}, false
	}
	best, bestD := traj.Point{}, math.Inf(1)
	for i := tr.Segment(t0); i < len(pts)-1 && pts[i].T <= t1; i++ {
		ta, tb := math.Max(pts[i].T, t0), math.Min(pts[i+1].T, t1)
		if tb < ta {
			continue
		}
		A, B := segAt(pts, i, ta), segAt(pts, i, tb)
		d := B.Pos.Sub(A.Pos)
		s := 0.0
		if l2 := d.Dot(d); l2 > 0 {
			s = geom.Clamp(p.Sub(A.Pos).Dot(d)/l2, 0, 1)
		}
		q := segAt(pts, i, ta+s*(tb-ta))
		if dist := q.Pos.Sub(p).Norm(); dist < bestD {
			best, bestD = q, dist
		}
	}
	return best, !math.IsInf(bestD, 1)
}

// segAt interpolates segment i of pts at time t.
func segAt(pts []traj.Point, i int, t float64) traj.Point {
	a, b := pts[i], pts[i+1]
	s := 0.0
	if dt := b.T - a.T; dt > 0 {
		s = (t - a.T) / dt
	}
	return traj.Point{
		T:   t,
		Pos: a.Pos.Add(b.Pos.Sub(a.Pos).Scale(s)),
		Vel: a.Vel.Add(b.Vel.Sub(a.Vel).Scale(s)),
		Acc: a.Acc.Add(b.Acc.Sub(a.Acc).Scale(s)),
		Yaw: geom.WrapPi(a.Yaw + s*geom.WrapPi(b.Yaw-a.Yaw)),
	}
}

// sphereIntersection is get_waypoint_sphere_intersection as used: walk the
// segments from t0 (the first cut at t0) and return the time of the larger
// in-range root of |P(s) − c| = r on the first segment that has one; else
// the final waypoint if it lies inside the sphere; else not found. When the
// walk starts on the trajectory's first segment and its start (at t0, PR
// #365) lies outside the sphere, it is not found either.
func sphereIntersection(tr *traj.Timed, t0 float64, c geom.Vec3, r float64) (float64, bool) {
	pts := tr.Points()
	n := len(pts)
	if n == 1 {
		return 0, pts[0].Pos.Sub(c).Norm() <= r
	}
	i := tr.Segment(t0)
	for first := true; i < n-1; i, first = i+1, false {
		A, ta := pts[i].Pos, pts[i].T
		if first {
			A, ta = segAt(pts, i, t0).Pos, t0
			if i == 0 && A.Sub(c).Norm() > r {
				return 0, false
			}
		}
		B, tb := pts[i+1].Pos, pts[i+1].T
		d := B.Sub(A)
		qa := d.Dot(d)
		if qa == 0 {
			continue
		}
		f := A.Sub(c)
		qb := 2 * d.Dot(f)
		qc := f.Dot(f) - r*r
		disc := qb*qb - 4*qa*qc
		if disc < 0 {
			continue
		}
		sq := math.Sqrt(disc)
		s1, s2 := (-qb-sq)/(2*qa), (-qb+sq)/(2*qa)
		switch {
		case s2 >= 0 && s2 <= 1:
			return ta + s2*(tb-ta), true
		case s1 >= 0 && s1 <= 1:
			return ta + s1*(tb-ta), true
		}
	}
	if pts[n-1].Pos.Sub(c).Norm() <= r {
		return pts[n-1].T, true
	}
	return 0, false
}

// distanceAhead is get_waypoint_distance_ahead: the time of the point at arc
// length dist ahead of t0, or of the final waypoint.
func distanceAhead(tr *traj.Timed, t0, dist float64) float64 {
	pts := tr.Points()
	n := len(pts)
	if n == 1 {
		return 0
	}
	i := tr.Segment(t0)
	A, ta := segAt(pts, i, t0).Pos, t0
	for ; i < n-1; i++ {
		if i > tr.Segment(t0) {
			A, ta = pts[i].Pos, pts[i].T
		}
		l := pts[i+1].Pos.Sub(A).Norm()
		if l >= dist && l > 0 {
			return ta + dist/l*(pts[i+1].T-ta)
		}
		dist -= l
	}
	return pts[n-1].T
}
