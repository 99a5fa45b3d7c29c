package robot

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
)

// Frame conversions between Shakedown's frames (world NED, body FRD, as
// PX4) and ROS's (REP 103: world ENU, body FLU). They happen here only.

// qENUfromNED rotates NED vectors into ENU: the swap of x and y with z
// negated is a half turn about (1, 1, 0)/√2.
var qENUfromNED = geom.Quat{W: 0, X: math.Sqrt2 / 2, Y: math.Sqrt2 / 2, Z: 0}

// qFRDfromFLU rotates FLU vectors into FRD: a half turn about x.
var qFRDfromFLU = geom.Quat{W: 0, X: 1, Y: 0, Z: 0}

// ENU returns a NED vector in ENU.
func ENU(ned geom.Vec3) geom.Vec3 { return geom.Vec3{X: ned.Y, Y: ned.X, Z: -ned.Z} }

// NED returns an ENU vector in NED (the same swap: it is its own inverse).
func NED(enu geom.Vec3) geom.Vec3 { return geom.Vec3{X: enu.Y, Y: enu.X, Z: -enu.Z} }

// FLU returns an FRD body vector in FLU.
func FLU(frd geom.Vec3) geom.Vec3 { return geom.Vec3{X: frd.X, Y: -frd.Y, Z: -frd.Z} }

// FRD returns an FLU body vector in FRD.
func FRD(flu geom.Vec3) geom.Vec3 { return geom.Vec3{X: flu.X, Y: -flu.Y, Z: -flu.Z} }

// AttENU returns the attitude FLU → ENU of an attitude FRD → NED.
func AttENU(frdToNED geom.Quat) geom.Quat {
	return qENUfromNED.Mul(frdToNED).Mul(qFRDfromFLU).Normalize()
}

// AttNED returns the attitude FRD → NED of an attitude FLU → ENU.
func AttNED(fluToENU geom.Quat) geom.Quat {
	return qENUfromNED.Conj().Mul(fluToENU).Mul(qFRDfromFLU.Conj()).Normalize()
}

// YawENU returns the ENU yaw (0 = East, counter-clockwise) of a NED yaw
// (0 = North, clockwise).
func YawENU(yawNED float64) float64 { return wrap(math.Pi/2 - yawNED) }

// YawNED returns the NED yaw of an ENU yaw.
func YawNED(yawENU float64) float64 { return wrap(math.Pi/2 - yawENU) }

func wrap(a float64) float64 {
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a < 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}

func vec(v geom.Vec3) ros.Vector3   { return ros.Vector3{X: v.X, Y: v.Y, Z: v.Z} }
func point(v geom.Vec3) ros.Point   { return ros.Point{X: v.X, Y: v.Y, Z: v.Z} }
func ofVec(v ros.Vector3) geom.Vec3 { return geom.Vec3{X: v.X, Y: v.Y, Z: v.Z} }
func ofPoint(p ros.Point) geom.Vec3 { return geom.Vec3{X: p.X, Y: p.Y, Z: p.Z} }
func quat(q geom.Quat) ros.Quaternion {
	return ros.Quaternion{X: q.X, Y: q.Y, Z: q.Z, W: q.W}
}
func ofQuat(q ros.Quaternion) geom.Quat { return geom.Quat{W: q.W, X: q.X, Y: q.Y, Z: q.Z} }
