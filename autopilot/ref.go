package autopilot

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// ref is the reference generator of the auto modes: a point that moves
// toward a target with a trapezoidal speed profile.
type ref struct {
	pos, vel geom.Vec3
}

type limits struct {
	vXY, vUp, vDn float64 // m/s
	aXY, aUp, aDn float64 // m/s²
}

// brakeShare is the part of the acceleration limit the braking profile
// plans with; the rest is margin so that the step-limited velocity can
// follow the profile exactly and arrive at rest.
const brakeShare = 0.9

// axisSpeed is the largest speed that can still stop within dist at
// deceleration a, capped at vmax.
func axisSpeed(dist, vmax, a float64) float64 {
	return math.Min(vmax, math.Sqrt(2*brakeShare*a*dist))
}

// stopPoint is where the reference comes to rest if it brakes now at the
// horizontal limit aXY and the vertical limits; Hold and heading alignment
// aim here instead of stopping dead.
func (r *ref) stopPoint(lim limits) geom.Vec3 {
	p := r.pos
	if v := r.vel.XY().Norm(); v > 0 {
		d := v * v / (2 * brakeShare * lim.aXY)
		p.X += r.vel.X / v * d
		p.Y += r.vel.Y / v * d
	}
	if vz := r.vel.Z; vz != 0 {
		a := lim.aDn // a descent brakes within MPC_ACC_DOWN_MAX
		if vz < 0 {
			a = lim.aUp
		}
		p.Z += math.Copysign(vz*vz/(2*brakeShare*a), vz)
	}
	return p
}

// step moves the reference toward target for dt seconds. lag is the distance
// of the vehicle behind the reference; the reference slows as lag nears
// errMax and stops beyond it (MPC_XY_ERR_MAX; PX4 starts slowing at 0 lag,
// this generator at half of errMax).
func (r *ref) step(target geom.Vec3, lim limits, dt, lag, errMax float64) {
	slow := 1.0
	if errMax > 0 && lag > errMax/2 {
		slow = math.Max(0, 1-(lag-errMax/2)/(errMax/2))
	}
	// Horizontal.
	d := target.XY().Sub(r.pos.XY())
	dist := d.Norm()
	want := geom.Vec2{}
	if dist > 1e-9 {
		want = d.Scale(axisSpeed(dist, lim.vXY*slow, lim.aXY) / dist)
	}
	dv := want.Sub(r.vel.XY())
	if n := dv.Norm(); n > lim.aXY*dt {
		dv = dv.Scale(lim.aXY * dt / n)
	}
	vxy := r.vel.XY().Add(dv)
	if v := vxy.Norm(); dist <= v*dt+1e-9 && v <= 2*lim.aXY*dt {
		r.pos.X, r.pos.Y = target.X, target.Y
		vxy = geom.Vec2{}
	} else {
		r.pos.X += vxy.X * dt
		r.pos.Y += vxy.Y * dt
	}
	r.vel.X, r.vel.Y = vxy.X, vxy.Y

	// Vertical (NED: negative is up). As PX4's FlightTaskAuto, the limit
	// follows the direction of motion: MPC_ACC_UP_MAX while climbing,
	// MPC_ACC_DOWN_MAX while descending, speeding up and braking alike.
	dz := target.Z - r.pos.Z
	vmax, a := lim.vDn, lim.aDn
	if dz < 0 {
		vmax, a = lim.vUp, lim.aUp
	}
	wz := math.Copysign(axisSpeed(math.Abs(dz), vmax, a), dz)
	vz := r.vel.Z + geom.Clamp(wz-r.vel.Z, -a*dt, a*dt)
	if math.Abs(dz) <= math.Abs(vz)*dt+1e-9 && math.Abs(vz) <= 2*a*dt {
		r.pos.Z, vz = target.Z, 0
	} else {
		r.pos.Z += vz * dt
	}
	r.vel.Z = vz
}
