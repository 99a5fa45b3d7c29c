package geom

import "math"

// Quat is a quaternion w + xi + yj + zk. Attitudes are unit quaternions that
// rotate vectors from the body frame into the world frame (Hamilton
// convention, as PX4's matrix::Quaternion).
type Quat struct{ W, X, Y, Z float64 }

// QuatIdentity is the rotation that changes nothing.
var QuatIdentity = Quat{W: 1}

// Mul returns the Hamilton product p⊗q (apply q first, then p).
func (p Quat) Mul(q Quat) Quat {
	return Quat{
		W: p.W*q.W - p.X*q.X - p.Y*q.Y - p.Z*q.Z,
		X: p.W*q.X + p.X*q.W + p.Y*q.Z - p.Z*q.Y,
		Y: p.W*q.Y - p.X*q.Z + p.Y*q.W + p.Z*q.X,
		Z: p.W*q.Z + p.X*q.Y - p.Y*q.X + p.Z*q.W,
	}
}

// Conj returns the conjugate, the inverse of a unit quaternion.
func (q Quat) Conj() Quat { return Quat{q.W, -q.X, -q.Y, -q.Z} }

// Norm returns |q|.
func (q Quat) Norm() float64 { return math.Sqrt(q.W*q.W + q.X*q.X + q.Y*q.Y + q.Z*q.Z) }

// Normalize returns q/|q|, or the identity when q is zero.
func (q Quat) Normalize() Quat {
	n := q.Norm()
	if n == 0 {
		return QuatIdentity
	}
	return Quat{q.W / n, q.X / n, q.Y / n, q.Z / n}
}

// Rotate returns v rotated by the unit quaternion q (q v q*).
func (q Quat) Rotate(v Vec3) Vec3 {
	// t = 2 q_v × v; v' = v + w t + q_v × t
	u := Vec3{q.X, q.Y, q.Z}
	t := u.Cross(v).Scale(2)
	return v.Add(t.Scale(q.W)).Add(u.Cross(t))
}

// RotateInv returns v rotated by the inverse of the unit quaternion q.
func (q Quat) RotateInv(v Vec3) Vec3 { return q.Conj().Rotate(v) }

// QuatAxisAngle returns the rotation by angle rad about the axis given by
// the vector rotvec = axis·angle.
func QuatAxisAngle(rotvec Vec3) Quat {
	a := rotvec.Norm()
	if a < 1e-12 {
		// First-order expansion, normalised.
		return Quat{1, rotvec.X / 2, rotvec.Y / 2, rotvec.Z / 2}.Normalize()
	}
	s, c := math.Sincos(a / 2)
	k := s / a
	return Quat{c, rotvec.X * k, rotvec.Y * k, rotvec.Z * k}
}

// QuatEuler returns the attitude for roll φ, pitch θ and yaw ψ applied in
// the aerospace z-y-x order (yaw first), as PX4's Eulerf.
func QuatEuler(roll, pitch, yaw float64) Quat {
	sr, cr := math.Sincos(roll / 2)
	sp, cp := math.Sincos(pitch / 2)
	sy, cy := math.Sincos(yaw / 2)
	return Quat{
		W: cr*cp*cy + sr*sp*sy,
		X: sr*cp*cy - cr*sp*sy,
		Y: cr*sp*cy + sr*cp*sy,
		Z: cr*cp*sy - sr*sp*cy,
	}
}

// Euler returns roll, pitch and yaw (z-y-x order) of the unit quaternion q.
func (q Quat) Euler() (roll, pitch, yaw float64) {
	roll = math.Atan2(2*(q.W*q.X+q.Y*q.Z), 1-2*(q.X*q.X+q.Y*q.Y))
	pitch = math.Asin(Clamp(2*(q.W*q.Y-q.Z*q.X), -1, 1))
	yaw = math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
	return roll, pitch, yaw
}

// Yaw returns the heading of the body x axis in the world (x, y) plane.
func (q Quat) Yaw() float64 {
	return math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
}

// Integrate returns q advanced by the body rate w (rad/s) over dt seconds,
// q ⊗ exp(w·dt), normalised: the attitude update of PX4 SIH.
func (q Quat) Integrate(w Vec3, dt float64) Quat {
	return q.Mul(QuatAxisAngle(w.Scale(dt))).Normalize()
}

// QuatBetween returns the shortest rotation that turns unit vector a onto
// unit vector b.
func QuatBetween(a, b Vec3) Quat {
	c := a.Cross(b)
	d := a.Dot(b)
	if d < -1+1e-12 {
		// Opposite: rotate by π about any axis orthogonal to a.
		ax := Vec3{1, 0, 0}.Cross(a)
		if ax.Norm() < 1e-6 {
			ax = Vec3{0, 1, 0}.Cross(a)
		}
		ax = ax.Unit()
		return Quat{0, ax.X, ax.Y, ax.Z}
	}
	return Quat{1 + d, c.X, c.Y, c.Z}.Normalize()
}

// QuatFromAxes returns the attitude whose body x, y and z axes, expressed in
// the world frame, are x, y and z (the columns of the rotation matrix). The
// axes must be orthonormal and right-handed.
func QuatFromAxes(x, y, z Vec3) Quat {
	// Shepperd's method: pick the largest of w, x, y, z to divide by.
	m00, m11, m22 := x.X, y.Y, z.Z
	tr := m00 + m11 + m22
	var q Quat
	switch {
	case tr > 0:
		s := math.Sqrt(tr+1) * 2
		q = Quat{W: s / 4, X: (y.Z - z.Y) / s, Y: (z.X - x.Z) / s, Z: (x.Y - y.X) / s}
	case m00 > m11 && m00 > m22:
		s := math.Sqrt(1+m00-m11-m22) * 2
		q = Quat{W: (y.Z - z.Y) / s, X: s / 4, Y: (y.X + x.Y) / s, Z: (z.X + x.Z) / s}
	case m11 > m22:
		s := math.Sqrt(1+m11-m00-m22) * 2
		q = Quat{W: (z.X - x.Z) / s, X: (y.X + x.Y) / s, Y: s / 4, Z: (z.Y + y.Z) / s}
	default:
		s := math.Sqrt(1+m22-m00-m11) * 2
		q = Quat{W: (x.Y - y.X) / s, X: (z.X + x.Z) / s, Y: (z.Y + y.Z) / s, Z: s / 4}
	}
	return q.Normalize()
}
