package world

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

func TestClosestApproach(t *testing.T) {
	box := Box{L: 10, W: 4, H: 20, X: 0, Y: 20}
	rot := Box{L: 2, W: 2, H: 20, R: 45} // corner at (√2, 0)
	cases := []struct {
		name          string
		b             Box
		path          []geom.Vec3
		onPath, onBox geom.Vec2
		wantD         float64
	}{
		{"parallel line", box, []geom.Vec3{{X: -20, Y: 25}, {X: 20, Y: 25}}, geom.Vec2{X: -5, Y: 25}, geom.Vec2{X: -5, Y: 22}, 3},
		{"rotated corner", rot, []geom.Vec3{{X: 3, Y: -5}, {X: 3, Y: 5}}, geom.Vec2{X: 3}, geom.Vec2{X: math.Sqrt2}, 3 - math.Sqrt2},
		{"entering", box, []geom.Vec3{{X: 0, Y: 0}, {X: 0, Y: 40}}, geom.Vec2{X: 0, Y: 18}, geom.Vec2{X: 0, Y: 18}, 0},
		{"vertex inside", box, []geom.Vec3{{X: 1, Y: 20}}, geom.Vec2{X: 1, Y: 20}, geom.Vec2{X: 1, Y: 20}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ClosestApproach(c.b, c.path)
			if math.Abs(got.DistM-c.wantD) > 1e-9 {
				t.Errorf("distance: got %v; want %v", got.DistM, c.wantD)
			}
			if math.Abs(got.DistM-Clearance(c.b, c.path)) > 1e-9 {
				t.Errorf("distance %v differs from Clearance %v", got.DistM, Clearance(c.b, c.path))
			}
			if d := got.OnPath.Dist(got.OnBox); math.Abs(d-got.DistM) > 1e-9 {
				t.Errorf("the two points are %v apart; want the distance %v", d, got.DistM)
			}
			if c.name == "parallel line" {
				// Every point above the long side is as close.
				if got.OnBox.Y != 22 || got.OnPath.Y != 25 {
					t.Errorf("parallel line: got %v → %v; want the side y = 22 and the line y = 25", got.OnPath, got.OnBox)
				}
				return
			}
			if got.OnBox.Dist(c.onBox) > 1e-9 {
				t.Errorf("on box: got %v; want %v", got.OnBox, c.onBox)
			}
			if got.OnPath.Dist(c.onPath) > 1e-9 {
				t.Errorf("on path: got %v; want %v", got.OnPath, c.onPath)
			}
		})
	}
	if got := ClosestApproach(box, nil); !math.IsInf(got.DistM, 1) {
		t.Errorf("empty path: got %v; want +Inf", got.DistM)
	}
}
