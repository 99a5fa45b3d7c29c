package world

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// ned returns the NED point at (x, y) and altM metres above the ground.
func ned(x, y, altM float64) geom.Vec3 { return geom.Vec3{X: x, Y: y, Z: -altM} }

func TestClearance(t *testing.T) {
	// wall: x ∈ [−5, 5], y ∈ [18, 22], 15 m tall.
	wall := Box{L: 10, W: 4, H: 15, X: 0, Y: 20}
	// low: the same footprint, 10 m tall.
	low := Box{L: 10, W: 4, H: 10, X: 0, Y: 20}
	// diamond: 2×2 at the origin turned 45°, corners at (±√2, 0), (0, ±√2).
	diamond := Box{L: 2, W: 2, H: 10, R: 45}
	// square: x, y ∈ [−1, 1].
	square := Box{L: 2, W: 2, H: 10}
	tests := []struct {
		name string
		b    Box
		path []geom.Vec3
		want float64
	}{
		{"empty path", wall, nil, math.Inf(1)},
		{"inside", wall, []geom.Vec3{ned(-2, 20, 5), ned(2, 20, 5)}, 0},
		{"single point inside", wall, []geom.Vec3{ned(0, 20, 5)}, 0},
		{"parallel offset line", wall, []geom.Vec3{ned(-20, 25, 10), ned(20, 25, 10)}, 3},
		// z is ignored outside the footprint: far above, still 3 m.
		{"parallel line high up", wall, []geom.Vec3{ned(-20, 25, 100), ned(20, 25, 100)}, 3},
		{"rotated corner point", diamond, []geom.Vec3{ned(3, 0, 10)}, 3 - math.Sqrt2},
		// Both vertices are 49 m from the square, the segment passes 2 m
		// from its top edge y = 1.
		{"segment between far vertices", square, []geom.Vec3{ned(-50, 3, 10), ned(50, 3, 10)}, 2},
		// The line x + y = 4 passes the corner (1, 1) at |1+1−4|/√2 = √2,
		// while both ends are 3 m from the square.
		{"corner to segment", square, []geom.Vec3{ned(4, 0, 10), ned(0, 4, 10)}, math.Sqrt2},
		// Polyline: the second leg is the closest.
		{"closest leg", square, []geom.Vec3{ned(-50, 50, 10), ned(-50, 5, 10), ned(50, 5, 10), ned(50, 50, 10)}, 4},
		{"fly over", low, []geom.Vec3{ned(-20, 20, 12), ned(20, 20, 12)}, 2},
		{"fly through below top", low, []geom.Vec3{ned(-20, 20, 8), ned(20, 20, 8)}, 0},
		{"fly exactly at top", low, []geom.Vec3{ned(-20, 20, 10), ned(20, 20, 10)}, 0},
		// Descending from 20 m at x = −10 to 10 m at x = 10: the footprint
		// x ∈ [−5, 5] is crossed at t = 0.25 (17.5 m) and t = 0.75 (12.5 m),
		// so min_z = 12.5 although the lowest vertex is at 10 m.
		{"fly over interpolated", low, []geom.Vec3{ned(-10, 20, 20), ned(10, 20, 10)}, 2.5},
		// Climbing: the vertex inside is the lowest point in the footprint.
		{"fly over vertex inside", low, []geom.Vec3{ned(-10, 20, 30), ned(0, 20, 11), ned(10, 20, 30)}, 1},
		// One crossing high, one low: the low one decides.
		{"two crossings", low, []geom.Vec3{ned(-10, 20, 15), ned(10, 20, 15), ned(10, 30, 5), ned(0, 20, 5)}, 0},
		// Touching the edge y = 22 counts as entering; fly-over applies.
		{"touch edge above", low, []geom.Vec3{ned(-20, 22, 13), ned(20, 22, 13)}, 3},
		{"single point above", low, []geom.Vec3{ned(1, 19, 10.5)}, 0.5},
		// A raised box: top at Z + H = 12.
		{"raised box top", Box{L: 10, W: 4, H: 10, X: 0, Y: 20, Z: 2}, []geom.Vec3{ned(-20, 20, 13), ned(20, 20, 13)}, 1},
		// Repeated points (a hover) are degenerate segments.
		{"hover outside", square, []geom.Vec3{ned(0, 4, 10), ned(0, 4, 10), ned(0, 4, 10)}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clearance(tt.b, tt.path); !near(got, tt.want) {
				t.Errorf("Clearance(%v, %v) = %v; want %v", tt.b, tt.path, got, tt.want)
			}
		})
	}
}

// TestClearanceMatchesDistance checks Clearance of single points against
// Box.Distance, an independent formula, on a grid around a rotated box.
func TestClearanceMatchesDistance(t *testing.T) {
	b := Box{L: 7, W: 3, H: 20, X: -4, Y: 22, R: 30}
	for x := -15.0; x <= 7; x += 0.5 {
		for y := 12.0; y <= 32; y += 0.5 {
			got := Clearance(b, []geom.Vec3{ned(x, y, 5)})
			want := b.Distance(geom.Vec2{X: x, Y: y})
			if !near(got, want) {
				t.Fatalf("Clearance(%v, (%g, %g)) = %v; want %v", b, x, y, got, want)
			}
		}
	}
}

func TestMinClearance(t *testing.T) {
	boxes := []Box{
		{L: 10, W: 4, H: 15, X: 0, Y: 20},   // y ∈ [18, 22]: 3 m from y = 25
		{L: 10, W: 4, H: 15, X: 0, Y: 30},   // y ∈ [28, 32]: 3 m from y = 25
		{L: 2, W: 2, H: 15, X: 10, Y: 26.5}, // y ∈ [25.5, 27.5]: 0.5 m
	}
	path := []geom.Vec3{ned(-20, 25, 10), ned(20, 25, 10)}
	per := make([]float64, len(boxes))
	got := MinClearance(boxes, path, per)
	if want := 0.5; !near(got, want) {
		t.Errorf("MinClearance = %v; want %v", got, want)
	}
	for i, want := range []float64{3, 3, 0.5} {
		if !near(per[i], want) {
			t.Errorf("per[%d] = %v; want %v", i, per[i], want)
		}
	}
	if got := MinClearance(boxes, path, nil); !near(got, 0.5) {
		t.Errorf("MinClearance(per = nil) = %v; want 0.5", got)
	}
	if got := MinClearance(nil, path, nil); !math.IsInf(got, 1) {
		t.Errorf("MinClearance(no boxes) = %v; want +Inf", got)
	}
}
