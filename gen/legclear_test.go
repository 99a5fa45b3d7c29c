package gen

import (
	"math"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// A flight along mission2's plan, every 0.25 m, past a box 1 m beside
// leg 2 and one 1 m beside leg 3 (both at y = 25): each leg sees its own
// box, the climb (leg 1) neither, and the smallest leg clearance is the
// whole flight's.
func TestLegClearances(t *testing.T) {
	m2, err := scenario.Builtin("mission2")
	if err != nil {
		t.Fatal(err)
	}
	path := m2.Mission.Path()
	var traj []geom.Vec3
	for k := 0; k+1 < len(path); k++ {
		a, b := path[k], path[k+1]
		n := int(math.Ceil(b.Sub(a).Norm() / 0.25))
		for i := range n {
			traj = append(traj, a.Add(b.Sub(a).Scale(float64(i)/float64(n))))
		}
	}
	traj = append(traj, path[len(path)-1])
	// Leg 2 crosses y = 25 at x ≈ −3.17, leg 3 at x ≈ −9.87; the boxes'
	// faces are 1 m off along x there, and a leaning leg passes a corner
	// closer: the flight's clearance beside each leg is the box's distance
	// to that leg's straight segment.
	xAt := func(a, b geom.Vec3) float64 { return a.X + (b.X-a.X)*(25-a.Y)/(b.Y-a.Y) }
	boxA := world.Box{L: 4, W: 4, H: 20, X: xAt(path[1], path[2]) + 3, Y: 25}
	boxB := world.Box{L: 4, W: 4, H: 20, X: xAt(path[2], path[3]) - 3, Y: 25}

	per := LegClearances(path, []world.Box{boxA, boxB}, traj)
	if len(per) != 3 {
		t.Fatalf("%d legs; want 3", len(per))
	}
	wantA := world.Clearance(boxA, path[1:3])
	wantB := world.Clearance(boxB, path[2:4])
	if per[0] < 10 || math.Abs(per[1]-wantA) > 1e-9 || math.Abs(per[2]-wantB) > 1e-9 || wantA > 1 || wantB > 1 {
		t.Errorf("leg clearances %.3f; want > 10, %.3f, %.3f (both under 1 m)", per, wantA, wantB)
	}
	if got := CriticalLegs(per, 1.5); !slices.Equal(got, []int{2, 3}) {
		t.Errorf("critical legs %v; want [2 3]", got)
	}
	if whole := world.MinClearance([]world.Box{boxA, boxB}, traj, nil); slices.Min(per) != whole {
		t.Errorf("smallest leg clearance %v; the whole flight's is %v", slices.Min(per), whole)
	}
	// Box A alone: critical on leg 2 only; leg 3 passes it at ~7.7 m.
	per = LegClearances(path, []world.Box{boxA}, traj)
	if got := CriticalLegs(per, 1.5); !slices.Equal(got, []int{2}) || per[2] < 6 {
		t.Errorf("box A alone: critical legs %v (%.2f); want [2], leg 3 ≥ 6 m", got, per)
	}
	// No trajectory: nothing near any leg.
	for _, d := range LegClearances(path, []world.Box{boxA}, nil) {
		if !math.IsInf(d, 1) {
			t.Errorf("empty trajectory: %v; want +Inf", d)
		}
	}
}
