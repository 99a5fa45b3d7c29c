package world

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// tol is the tolerance of the hand-computed answers: they are exact up to a
// few roundings of values of order 10 m, so 1e-9 m leaves a wide margin.
const tol = 1e-9

func near(got, want float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol
}

func TestBoxContains(t *testing.T) {
	square := Box{L: 2, W: 2, H: 10}
	wall := Box{L: 10, W: 4, H: 10, X: 0, Y: 20, R: 90} // L now runs along y
	tests := []struct {
		name string
		b    Box
		p    geom.Vec2
		want bool
	}{
		{"centre", square, geom.Vec2{}, true},
		{"on edge", square, geom.Vec2{X: 1, Y: 0}, true},
		{"on corner", square, geom.Vec2{X: 1, Y: -1}, true},
		{"just outside", square, geom.Vec2{X: 1.0001, Y: 0}, false},
		{"rotated along y", wall, geom.Vec2{X: 0, Y: 24.9}, true},
		{"rotated across x", wall, geom.Vec2{X: 1.9, Y: 20}, true},
		{"rotated beyond width", wall, geom.Vec2{X: 2.1, Y: 20}, false},
		{"rotated 45 beyond side", Box{L: 2, W: 2, R: 45}, geom.Vec2{X: 0.8, Y: 0.8}, false},
		{"rotated 45 inside tip", Box{L: 2, W: 2, R: 45}, geom.Vec2{X: 1.4, Y: 0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Contains(tt.p); got != tt.want {
				t.Errorf("Contains(%v) = %v; want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestBoxDistance(t *testing.T) {
	tests := []struct {
		name string
		b    Box
		p    geom.Vec2
		want float64
	}{
		{"inside", Box{L: 2, W: 2}, geom.Vec2{X: 0.5, Y: 0.5}, 0},
		{"on edge", Box{L: 2, W: 2}, geom.Vec2{X: 1, Y: 0.5}, 0},
		{"beside edge", Box{L: 10, W: 4, Y: 20}, geom.Vec2{X: 3, Y: 25}, 3},
		// Nearest point is the corner (1, 1): √(3² + 2²).
		{"beyond corner", Box{L: 2, W: 2}, geom.Vec2{X: 4, Y: 3}, math.Sqrt(13)},
		// The corner of a 2×2 square turned by 45° lies at (√2, 0).
		{"rotated corner", Box{L: 2, W: 2, R: 45}, geom.Vec2{X: 3, Y: 0}, 3 - math.Sqrt2},
		// Turned by 90°, L = 10 runs along y: the end face is at y = 25.
		{"rotated 90 end", Box{L: 10, W: 4, Y: 20, R: 90}, geom.Vec2{X: 0, Y: 27}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Distance(tt.p); !near(got, tt.want) {
				t.Errorf("Distance(%v) = %v; want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestBoxOverlaps(t *testing.T) {
	unit := Box{L: 2, W: 2, H: 10}
	diamond := Box{L: 2, W: 2, H: 10, R: 45} // tips at (±√2, 0), (0, ±√2)
	tests := []struct {
		name string
		a, b Box
		want bool
	}{
		{"same", unit, unit, true},
		{"touching edges", unit, Box{L: 2, W: 2, X: 2}, true},
		{"touching corners", unit, Box{L: 2, W: 2, X: 2, Y: 2}, true},
		{"separated", unit, Box{L: 2, W: 2, X: 2.5}, false},
		{"crossing", unit, Box{L: 2, W: 2, X: 1, Y: 1}, true},
		{"small inside big", Box{L: 10, W: 10}, Box{L: 1, W: 1, X: 1, Y: 1}, true},
		{"big around small", Box{L: 1, W: 1, X: 1, Y: 1}, Box{L: 10, W: 10}, true},
		{"rotated tip reaches", diamond, Box{L: 2, W: 2, X: 2.3}, true},
		{"rotated tip short", diamond, Box{L: 2, W: 2, X: 2.5}, false},
		{"cross shape", Box{L: 10, W: 1}, Box{L: 10, W: 1, R: 90}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Overlaps(tt.b); got != tt.want {
				t.Errorf("%v.Overlaps(%v) = %v; want %v", tt.a, tt.b, got, tt.want)
			}
			if got := tt.b.Overlaps(tt.a); got != tt.want {
				t.Errorf("%v.Overlaps(%v) = %v; want %v (reversed)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestAreaContainsBox(t *testing.T) {
	tests := []struct {
		name string
		b    Box
		want bool
	}{
		{"well inside", Box{L: 4, W: 4, H: 15, X: 0, Y: 25}, true},
		// Footprint x ∈ [28, 30], y ∈ [10, 14]: two corners on the boundary.
		{"r90 in corner", Box{L: 4, W: 2, H: 15, X: 29, Y: 12, R: 90}, true},
		// Footprint x ∈ [11.8, 30], y ∈ [10, 12.2]; the rotated corners
		// round to y = 9.999999999999998 and x = 11.799999999999999.
		{"r90 rounds outside", Box{L: 2.2, W: 18.2, H: 15, X: 20.9, Y: 11.1, R: 90}, true},
		// Footprint x ∈ [15, 30], y ∈ [10, 26]; one corner rounds below 10.
		{"r180 rounds outside", Box{L: 15, W: 16, H: 15, X: 22.5, Y: 18, R: 180}, true},
		{"unrotated sticks out", Box{L: 4, W: 2, H: 15, X: 29, Y: 12}, false},
		{"out by a micrometre", Box{L: 4, W: 2, H: 15, X: 29 + 1e-6, Y: 12, R: 90}, false},
		// A 2×2 square at 45° reaches √2 from its centre.
		{"rotated corner out", Box{L: 2, W: 2, H: 15, X: 29, Y: 25, R: 45}, false},
		{"rotated corner in", Box{L: 2, W: 2, H: 15, X: 28.5, Y: 25, R: 45}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultArea.ContainsBox(tt.b); got != tt.want {
				t.Errorf("DefaultArea.ContainsBox(%v) = %v; want %v", tt.b, got, tt.want)
			}
		})
	}
}
