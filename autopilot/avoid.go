package autopilot

import (
	"math"

	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
)

// Avoider is a companion obstacle-avoidance planner on PX4's path-planning
// interface (COM_OBS_AVOID = 1, PX4 ≤ 1.14; px4.md §4.5). PX4 sends it the
// desired path, the current and previous waypoint with the kind of mission
// item (TRAJECTORY_REPRESENTATION_WAYPOINTS at 5 Hz), and flies the
// setpoint it sends back. The avoider runs at its own rate and returns its
// latest setpoint on every call.
type Avoider interface {
	Avoid(req AvoidRequest) AvoidSetpoint
}

// AvoidPhase is the kind of the current mission item as PX4 reports it to
// the companion (the waypoint type of point 0).
type AvoidPhase int

// Mission item kinds seen by the avoider.
const (
	AvoidPosition AvoidPhase = iota // a waypoint, or the move to a land point
	AvoidTakeoff                    // climbing to the take-off altitude
	AvoidLand                       // descending at the land point
	AvoidLoiter                     // holding position
)

// AvoidRequest is what PX4 tells the companion on one cycle.
type AvoidRequest struct {
	T        float64
	Est      control.State // the estimate (position, velocity, attitude)
	Goal     geom.Vec3     // current waypoint, NED
	PrevGoal geom.Vec3     // previous waypoint, NED
	Phase    AvoidPhase
	// DesiredVel is PX4's own velocity setpoint for the item (NaN parts
	// unused), which the planner mirrors while it changes altitude.
	DesiredVel geom.Vec3
	Airborne   bool
	// CruiseMS is the mission item's speed (a DO_CHANGE_SPEED before it),
	// which PX4-Avoidance reads from the mission as mission_item_speed_;
	// 0 leaves the planner at MPC_XY_CRUISE.
	CruiseMS float64
}

// AvoidSetpoint is the companion's answer (point 0 of its
// TRAJECTORY_REPRESENTATION_WAYPOINTS): a position and a velocity setpoint,
// NaN components unused, and the heading. Valid is false while the planner
// has nothing to say (PX4 then loiters).
type AvoidSetpoint struct {
	Pos     geom.Vec3
	Vel     geom.Vec3
	Yaw     float64 // rad; NaN = keep
	YawRate float64 // rad/s feed-forward; NaN = none
	Valid   bool
}

// trajState is PX4's jerk-limited trajectory on legs flown with the
// avoider (FlightTaskAutoLineSmoothVel): the position, velocity and
// acceleration setpoints handed to the position controller.
type trajState struct {
	pos, vel, acc geom.Vec3
	init          bool
	holdPos       geom.Vec3 // failsafe hover point while the avoider is silent
	holding       bool
	// speedPrev is the horizontal speed limit of the last cycle that was
	// not a turn (_max_speed_prev): while the trajectory turns, its speed
	// is locked at or below it.
	speedPrev float64
	// axes are the per-axis smoothings of x, y and z.
	axes [3]velSmooth
}

var nanVec3 = geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()}

// tellAvoider keeps the companion informed while PX4 flies an item itself
// (the descent of a land item: auto-land's z is velocity controlled, and
// the planner's ALTITUDE_CHANGE mirrors PX4's own setpoints there).
func (a *Autopilot) tellAvoider(phase AvoidPhase) {
	if a.avoider == nil {
		return
	}
	goal := a.target
	a.avoider.Avoid(AvoidRequest{T: a.t, Est: a.est, Goal: goal, PrevGoal: a.legStart, Phase: phase,
		DesiredVel: geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: a.r.vel.Z}, Airborne: !a.landed})
}

// pastTarget reports whether the vehicle's projection on the leg lies
// beyond the target (ObstacleAvoidance::checkAvoidanceProgress widens the
// acceptance radius then, so that the navigator moves on).
func (a *Autopilot) pastTarget() bool {
	l := a.target.XY().Sub(a.legStart.XY())
	n := l.Norm()
	if n < 1e-6 {
		return false
	}
	return a.est.Pos.XY().Sub(a.legStart.XY()).Dot(l)/(n*n) > 1
}

// maxSpeedFromDistance is the largest speed from which a jerk-limited stop
// (jerk j, acceleration a) ends at speed vf within d (PX4
// math::trajectory::computeMaxSpeedFromDistance).
func maxSpeedFromDistance(j, a, d, vf float64) float64 {
	b := 4 * a * a / j
	c := -2*a*d - vf*vf
	return 0.5 * (-b + math.Sqrt(b*b-4*c))
}

// clampXYNorm scales v so that its horizontal norm is at most max
// (math::trajectory::clampToXYNorm with accuracy 0.5): the whole vector,
// unless both the norm and the limit are under 0.5 m/s, when only the
// horizontal part is scaled.
func clampXYNorm(v geom.Vec3, max float64) geom.Vec3 {
	n := v.XY().Norm()
	if !(n > 1e-7) || n <= max {
		return v
	}
	s := max / n
	if max < 0.5 && n < 0.5 {
		v.X, v.Y = v.X*s, v.Y*s
		return v
	}
	return v.Scale(s)
}

// clampZNorm is clampXYNorm for the vertical part (clampToZNorm).
func clampZNorm(v geom.Vec3, max float64) geom.Vec3 {
	n := math.Abs(v.Z)
	if !(n > 1e-7) || n <= max {
		return v
	}
	s := max / n
	if max < 0.5 && n < 0.5 {
		v.Z *= s
		return v
	}
	return v.Scale(s)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// lineTarget is the horizontal point PX4's flight task steers its turn
// check at (FlightTaskAuto::_getCurrentState and _updateInternalWaypoints):
// not always the mission's target, but
//   - the closest point on the previous → target line while the vehicle is
//     more than the acceptance radius off it ("offtrack"),
//   - the previous waypoint while the vehicle is more than the radius behind
//     it ("previous in front"),
//   - the mission's target once the vehicle has passed it, or when the leg
//     has no length.
//
// The triplet carries NAV_ACC_RAD unless the item sets its own radius
// (PX4 PR #10632), the same radius as acceptRadius. The avoider does not
// return to the line, so a leg that starts off it keeps this target beside
// the vehicle for most of its length.
func (a *Autopilot) lineTarget() geom.Vec2 {
	tgt, prev, pos := a.target.XY(), a.legStart.XY(), a.est.Pos.XY()
	l := tgt.Sub(prev)
	n := l.Norm()
	if !(n > 1e-6) {
		return tgt
	}
	u := l.Scale(1 / n)
	along := u.Dot(pos.Sub(prev))
	r := a.acceptRadius()
	switch {
	case u.Dot(tgt.Sub(pos)) < 0:
		return tgt
	case along < 0 && pos.Sub(prev).Norm() > r:
		return prev
	}
	if cp := prev.Add(u.Scale(along)); pos.Sub(cp).Norm() > r {
		return cp
	}
	return tgt
}

// trajTurning reports whether PX4's trajectory is turning
// (FlightTaskAutoLineSmoothVel::_updateTurningCheck): moving faster than
// 0.2 m/s in a direction more than acos(0.98) ≈ 11.5° off the direction to
// the flight task's internal target (lineTarget), outside the acceptance
// radius. A detour around an obstacle is a turn for as long as it lasts,
// and so is most of a leg that begins off the line.
func (a *Autopilot) trajTurning() bool {
	tr := &a.traj
	v := tr.vel.XY()
	toTarget := a.lineTarget().Sub(tr.pos.XY())
	vn, tn := v.Norm(), toTarget.Norm()
	if !(vn > 0.2) || !(tn > a.acceptRadius()) {
		return false
	}
	return v.Dot(toTarget)/(vn*tn) < 0.98
}

// avoidLeg flies a mission leg with the avoider, as PX4 v1.12 does with
// COM_OBS_AVOID = 1: the companion's setpoint replaces the mission's
// (ObstacleAvoidance::injectAvoidanceSetpoints); FlightTaskAutoLineSmoothVel
// turns its position into a velocity target toward it, no faster than a
// jerk-limited stop at that position allows (so the vehicle never outruns
// the planner's goto point, and while the trajectory turns away from the
// mission's target no faster than before the turn: PX4 locks the speed
// during a turn, and a detour is one) and within the planner's velocity
// where one is given; a jerk-limited velocity smoothing (MPC_ACC_HOR, MPC_JERK_AUTO)
// makes the trajectory, slowed while the vehicle lags it. The heading is
// the planner's, rate-limited by MPC_YAWRAUTO_MAX. Without an answer the
// vehicle hovers where it was.
func (a *Autopilot) avoidLeg(dt float64) control.Setpoint { return a.avoidTask(dt, AvoidPosition) }

// avoidTakeoff flies a mission's take-off item with the avoider, as PX4
// v1.12 does in mission mode with COM_OBS_AVOID = 1: the same flight task
// as a leg (FlightTaskAutoLineSmoothVel; the companion's setpoints are
// injected in every navigation state but AUTO_TAKEOFF), toward the
// planner's ALTITUDE_CHANGE setpoint, with PX4's own velocity setpoint for
// the item (none for a take-off) as the desired velocity. Below
// MPC_LAND_ALT1 the climb is limited to MPC_TKO_SPEED and
// MPC_TKO_SPEED / MPC_TKO_RAMP_T, and the trajectory's altitude is held at
// the vehicle's (_updateTrajConstraints), so the climb ramps up and slows
// down as the planner's setpoint closes on the take-off altitude. The
// trajectory then carries on into the first leg.
func (a *Autopilot) avoidTakeoff(dt float64) control.Setpoint { return a.avoidTask(dt, AvoidTakeoff) }

// takeoffClimb reports whether the trajectory's climb has PX4's take-off
// limits: a take-off item below MPC_LAND_ALT1.
func (a *Autopilot) takeoffClimb(phase AvoidPhase) bool {
	return phase == AvoidTakeoff && a.home.Z-a.est.Pos.Z < a.cfg.LandAlt1M
}

// zLimits are the trajectory's vertical limits, acceleration and speed,
// climbing (up) or descending.
func (a *Autopilot) zLimits(phase AvoidPhase, up bool) (acc, vel float64) {
	switch {
	case !up:
		return a.cfg.AccDnMS2, a.cfg.ZVelDnMS
	case a.takeoffClimb(phase):
		return math.Min(a.cfg.AccUpMS2, a.cfg.TakeoffMS/a.cfg.TakeoffRampS), a.cfg.TakeoffMS
	}
	return a.cfg.AccUpMS2, a.cfg.ZVelUpMS
}

// avoidTask is the flight task of avoidLeg and avoidTakeoff for the given
// kind of item.
func (a *Autopilot) avoidTask(dt float64, phase AvoidPhase) control.Setpoint {
	a.avoidUsed = true
	tr := &a.traj
	if !tr.init {
		tr.pos, tr.vel, tr.acc, tr.init, tr.holding, tr.speedPrev = a.est.Pos, a.est.Vel, geom.Vec3{}, true, false, 0
		tr.axes[0].reset(0, a.est.Vel.X, a.est.Pos.X)
		tr.axes[1].reset(0, a.est.Vel.Y, a.est.Pos.Y)
		tr.axes[2].reset(0, a.est.Vel.Z, a.est.Pos.Z)
	}
	sp := a.avoider.Avoid(AvoidRequest{T: a.t, Est: a.est, Goal: a.target, PrevGoal: a.legStart,
		Phase: phase, DesiredVel: nanVec3, Airborne: true, CruiseMS: a.itemSpeed()})
	pos, vel := sp.Pos, sp.Vel
	if !sp.Valid {
		if !tr.holding {
			tr.holdPos, tr.holding = a.est.Pos, true
		}
		pos, vel = tr.holdPos, nanVec3
	} else {
		tr.holding = false
	}
	cruise := a.cfg.CruiseMS
	if v := a.itemSpeed(); v > 0 {
		cruise = v
	}
	j := a.cfg.JerkAutoMS3
	var want geom.Vec3
	xyOK := finite(pos.X) && finite(pos.Y)
	zOK := finite(pos.Z)
	switch {
	case xyOK && zOK:
		d := pos.Sub(tr.pos)
		n := d.Norm()
		u := geom.Vec3{}
		if n > 1e-9 {
			u = d.Scale(1 / n)
		}
		xy := math.Min(cruise, maxSpeedFromDistance(j, a.cfg.AccHorMS2, d.XY().Norm(), 0))
		if a.trajTurning() {
			xy = math.Min(tr.speedPrev, xy)
		} else {
			tr.speedPrev = xy
		}
		az, vz := a.zLimits(phase, d.Z < 0)
		z := math.Min(vz, maxSpeedFromDistance(j, az, math.Abs(d.Z), 0))
		want = clampZNorm(clampXYNorm(u.Scale(math.Hypot(xy, z)), xy), z)
	case zOK:
		dz := pos.Z - tr.pos.Z
		az, vz := a.zLimits(phase, dz < 0)
		want = geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.Copysign(math.Min(vz, maxSpeedFromDistance(j, az, math.Abs(dz), 0)), dz)}
	}
	// The companion's velocity, where it gives one, is a feed-forward on
	// the velocity toward its position (v1.12 adds it); alone, it is the
	// target.
	for i, w := range [3]*float64{&want.X, &want.Y, &want.Z} {
		c := [3]float64{vel.X, vel.Y, vel.Z}[i]
		switch {
		case finite(*w) && finite(c):
			*w += c
		case finite(c):
			*w = c
		case !finite(*w):
			*w = 0
		}
	}
	// Slow the trajectory down while the vehicle lags it (time stretch).
	lagV := tr.pos.XY().Sub(a.est.Pos.XY())
	stretch := 1 - geom.Clamp(lagV.Norm()/a.cfg.XYErrMaxM, 0, 1)
	if lagV.Dot(tr.vel.XY()) < 0 {
		stretch = 1
	}
	// Follow the plan of the last cycle, then plan toward this cycle's
	// target: one jerk-limited smoothing per axis, the three made to arrive
	// together (_generateTrajectory).
	for i := range tr.axes {
		tr.axes[i].advance(dt * stretch)
	}
	x, y, z := &tr.axes[0], &tr.axes[1], &tr.axes[2]
	if a.takeoffClimb(phase) && want.Z < 0 {
		z.x = a.est.Pos.Z
	}
	tr.pos = geom.Vec3{X: x.x, Y: y.x, Z: z.x}
	tr.vel = geom.Vec3{X: x.v, Y: y.v, Z: z.v}
	tr.acc = geom.Vec3{X: x.a, Y: y.a, Z: z.a}
	x.accel, x.jerk, x.velMax = a.cfg.AccHorMS2, j, a.cfg.Gains.XYVelMaxMS
	y.accel, y.jerk, y.velMax = x.accel, j, x.velMax
	z.jerk = j
	z.accel, z.velMax = a.zLimits(phase, want.Z < 0)
	x.plan(want.X)
	y.plan(want.Y)
	z.plan(want.Z)
	syncAxes(tr.axes[:])
	// Keep the mission reference with the trajectory for the hand-back.
	a.r = ref{pos: tr.pos, vel: tr.vel}
	if finite(sp.Yaw) {
		step := a.cfg.YawRateMax * dt
		y := a.yaw()
		a.yawSp = geom.WrapPi(y + geom.Clamp(geom.WrapPi(sp.Yaw-y), -step, step))
		a.haveYaw = true
	}
	return control.Setpoint{Pos: tr.pos, Vel: tr.vel, Acc: tr.acc, Yaw: a.yaw()}
}
