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

// axisSpeed is the largest speed that can still stop within dist at
// deceleration a, capped at vmax.
func axisSpeed(dist, vmax, a float64) float64 {
	return math.Min(vmax, math.Sqrt(2*a*dist))
}

// step moves the reference toward target for dt seconds. lag is the distance
// of the vehicle behind the reference; the reference slows as lag nears
// errMax and stops beyond it (MPC_XY_ERR_MAX).
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
	if step := vxy.Norm() * dt; dist <= step || (dist < 1e-3 && vxy.Norm() < 0.05) {
		r.pos.X, r.pos.Y = target.X, target.Y
		vxy = geom.Vec2{}
	} else {
		r.pos.X += vxy.X * dt
		r.pos.Y += vxy.Y * dt
	}
	r.vel.X, r.vel.Y = vxy.X, vxy.Y

	// Vertical (NED: negative is up).
	dz := target.Z - r.pos.Z
	vmax, a := lim.vDn, lim.aDn
	if dz < 0 {
		vmax, a = lim.vUp, lim.aUp
	}
	wz := math.Copysign(axisSpeed(math.Abs(dz), vmax, a), dz)
	amax := math.Max(lim.aUp, lim.aDn)
	vz := r.vel.Z + geom.Clamp(wz-r.vel.Z, -amax*dt, amax*dt)
	if math.Abs(dz) <= math.Abs(vz)*dt || (math.Abs(dz) < 1e-3 && math.Abs(vz) < 0.05) {
		r.pos.Z, vz = target.Z, 0
	} else {
		r.pos.Z += vz * dt
	}
	r.vel.Z = vz
}
