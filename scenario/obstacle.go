package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/world"
)

// obstacleFields are the fields of the obstacle flag, in order.
var obstacleFields = [7]string{"l", "w", "h", "x", "y", "z", "r"}

// ParseObstacle reads an obstacle given as the command-line flag
// "l,w,h,x,y,z,r": seven comma-separated finite numbers in the
// competition's model and units (metres, degrees), the order of Aerialist's
// --obstacle and of world.Box.String. Errors name the field.
func ParseObstacle(s string) (world.Box, error) {
	f := strings.Split(s, ",")
	if len(f) != len(obstacleFields) {
		return world.Box{}, fmt.Errorf("obstacle %q: want 7 comma-separated numbers l,w,h,x,y,z,r, got %d", s, len(f))
	}
	var v [7]float64
	for i, t := range f {
		t = strings.TrimSpace(t)
		x, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return world.Box{}, fmt.Errorf("obstacle %q: %w", s, &ParseError{Field: obstacleFields[i], Err: fmt.Errorf("%q is not a number", t)})
		}
		if !finite(x) {
			return world.Box{}, fmt.Errorf("obstacle %q: %w", s, &ParseError{Field: obstacleFields[i], Err: fmt.Errorf("%s is not a finite number", t)})
		}
		v[i] = x + 0
	}
	return world.Box{L: v[0], W: v[1], H: v[2], X: v[3], Y: v[4], Z: v[5], R: v[6]}, nil
}
