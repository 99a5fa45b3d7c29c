package scenario

import (
	"math"

	"github.com/shakedown-robotics/shakedown/world"
)

// AerialistSpawns reports whether Aerialist's Gazebo bench creates the box.
// Aerialist hands each box's yaw to Gazebo's spawn command as Python's
// str() of the angle in radians; Python writes a float in exponent notation
// when its magnitude is below 1e-4 (repr switches to scientific notation
// for exponents below −4), and the spawn command cannot parse "-6.23e-05",
// so a box with 0 < |r| < 1e-4 rad (about 0.0057°) is never spawned: PX4
// flies through its footprint, and Aerialist still scores the distance to
// it (px4-reference/README.md, class unspawned-box).
func AerialistSpawns(b world.Box) bool {
	r := math.Abs(b.R * math.Pi / 180)
	return r == 0 || r >= 1e-4
}
