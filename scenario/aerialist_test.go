package scenario

import (
	"math"
	"strconv"
	"testing"

	"github.com/shakedown-robotics/shakedown/world"
)

// pyStr is Python's str() of a float as far as the notation goes: repr
// switches to exponent notation below 1e-4 (and at 1e16 and above).
func pyStr(v float64) string {
	a := math.Abs(v)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(v, 'e', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func TestAerialistSpawns(t *testing.T) {
	for _, c := range []struct {
		rDeg  float64
		spawn bool
	}{
		{0, true}, {0.00357, false}, {-0.00357, false}, {1e-9, false},
		{0.0057, false}, {0.0058, true}, {0.006, true}, {2.79, true}, {47.57, true}, {90, true},
	} {
		b := world.Box{L: 5, W: 5, H: 25, X: -10, Y: 20, R: c.rDeg}
		if got := AerialistSpawns(b); got != c.spawn {
			t.Errorf("r = %v°: spawns %v; want %v", c.rDeg, got, c.spawn)
		}
		// The rule is exactly "Python prints the yaw without an exponent".
		rad := -c.rDeg * math.Pi / 180
		noExp := true
		for _, ch := range pyStr(rad) {
			if ch == 'e' {
				noExp = false
			}
		}
		if noExp != c.spawn {
			t.Errorf("r = %v°: yaw prints %s; rule says spawns %v", c.rDeg, pyStr(rad), c.spawn)
		}
	}
}
