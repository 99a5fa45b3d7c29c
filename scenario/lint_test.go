package scenario

import (
	"math"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/world"
)

func kinds(fs []LintFinding) []LintKind {
	var out []LintKind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestRuleFindings(t *testing.T) {
	ok := world.Box{L: 5, W: 5, H: 20, X: -10, Y: 25}
	for _, c := range []struct {
		name  string
		rules Rules
		boxes []world.Box
		want  []LintKind
	}{
		{"valid", DefaultRules, []world.Box{ok}, nil},
		{"centre outside", DefaultRules, []world.Box{{L: 5, W: 5, H: 20, X: -10, Y: 41}}, []LintKind{LintCentre}},
		{"footprint only", DefaultRules, []world.Box{{L: 5, W: 5, H: 20, X: -10, Y: 39}}, []LintKind{LintFootprint}},
		{"overlap", DefaultRules, []world.Box{ok, {L: 5, W: 5, H: 20, X: -8, Y: 25}}, []LintKind{LintOverlap}},
		{"size and rotation in 2025", DefaultRules, []world.Box{{L: 25, W: 3, H: 20, X: -10, Y: 25, R: 95}}, []LintKind{LintSize, LintRotation}},
		{"the same in 2024", Rules2024, []world.Box{{L: 25, W: 3, H: 20, X: -10, Y: 25, R: 95}}, nil},
		{"four boxes: 2024 yes, 2025 no", DefaultRules, []world.Box{
			{L: 3, W: 3, H: 20, X: -30, Y: 25}, {L: 3, W: 3, H: 20, X: -20, Y: 25}, {L: 3, W: 3, H: 20, X: -10, Y: 25}, {L: 3, W: 3, H: 20, X: 0, Y: 25}}, []LintKind{LintCount}},
		{"not a number", DefaultRules, []world.Box{{L: math.NaN(), W: 5, H: 20, X: -10, Y: 25}}, []LintKind{LintNumber}},
		{"off the ground", DefaultRules, []world.Box{{L: 5, W: 5, H: 20, X: -10, Y: 25, Z: 1}}, []LintKind{LintGround}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := kinds(RuleFindings(c.rules, c.boxes))
			slices.Sort(got)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %v; want %v", got, want)
			}
		})
	}
}

func TestFeasibility(t *testing.T) {
	cs, err := Builtin("mission2")
	if err != nil {
		t.Fatal(err)
	}
	m := cs.Mission
	path := m.Path()
	wp, land := path[2], path[len(path)-1] // (−6.84, 53.97) and (−12.36, 0.13)
	// A 4×4 box with its near face d metres along +x from the point.
	beside := func(x, y, d float64) world.Box { return world.Box{L: 4, W: 4, H: 20, X: x + d + 2, Y: y} }
	wall := func(gap float64) []world.Box {
		// Three 14-m boxes along x at y = 25, gap m apart: across both
		// legs, which cross y = 25 near x = −3 and x = −10.
		return []world.Box{{L: 14, W: 2, H: 20, X: -14 - gap, Y: 25}, {L: 14, W: 2, H: 20, X: 0, Y: 25}, {L: 14, W: 2, H: 20, X: 14 + gap, Y: 25}}
	}
	for _, c := range []struct {
		name  string
		boxes []world.Box
		want  []LintKind
	}{
		{"clear", []world.Box{{L: 5, W: 5, H: 20, X: 10, Y: 25}}, nil},
		{"on the landing point", []world.Box{{L: 4, W: 4, H: 20, X: land.X, Y: land.Y}}, []LintKind{LintWaypoint}},
		{"0.9 m from a waypoint", []world.Box{beside(wp.X, wp.Y, 0.9)}, []LintKind{LintWaypoint}},
		{"1.1 m from a waypoint", []world.Box{beside(wp.X, wp.Y, 1.1)}, nil},
		{"0.5 m from the take-off point", []world.Box{beside(0, 0, 0.5)}, []LintKind{LintWaypoint}},
		// Leg 2 crosses y = 25 at x ≈ −3: the wall spans −22 to 22, past
		// both sides of its 15-m corridor. Leg 3 crosses at x ≈ −9.5 and
		// can pass west of x = −22 inside its corridor.
		{"a wall with 1-m gaps", wall(1), []LintKind{LintWall}},
		{"a wall with 4-m gaps", wall(4), nil},
		{"one 14-m box across", wall(1)[1:2], nil},
		{"a low wall the vehicle clears", []world.Box{{L: 40, W: 2, H: 5, X: -5, Y: 25}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := kinds(Feasibility{}.Check(m, c.boxes))
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v; want %v (%v)", got, c.want, Feasibility{}.Check(m, c.boxes))
			}
		})
	}
	// A wider acceptance radius makes 1.1 m infeasible: 1.5 − 0.5 < 1.1 < 1.5 − 0.3.
	if got := kinds(Feasibility{AccRadM: 0.3}.Check(m, []world.Box{beside(wp.X, wp.Y, 1.1)})); !slices.Equal(got, []LintKind{LintWaypoint}) {
		t.Errorf("NAV_ACC_RAD 0.3, 1.1 m: got %v; want near-waypoint", got)
	}
}

func TestUnspawnedAndDuplicates(t *testing.T) {
	a := world.Box{L: 5, W: 5, H: 20, X: -10, Y: 25}
	b := a
	b.R = 0.00357
	if got := kinds(UnspawnedFindings([]world.Box{a, b})); !slices.Equal(got, []LintKind{LintUnspawned}) {
		t.Errorf("unspawned: got %v; want one", got)
	}
	if f := UnspawnedFindings([]world.Box{b}); f[0].Obstacle != 1 {
		t.Errorf("obstacle %d; want 1", f[0].Obstacle)
	}
	same := func(x, y []world.Box) (float64, error) {
		if slices.Equal(x, y) {
			return 1, nil
		}
		return 0.5, nil
	}
	c := a
	c.X = 0
	got, err := Duplicates([][]world.Box{{a}, {c}, nil, {a}, {c}}, same)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{-1, -1, -1, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("duplicates %v; want %v", got, want)
	}
}

func TestLintKinds(t *testing.T) {
	for _, k := range LintKinds {
		if k.Effect() == "" {
			t.Errorf("%s: no effect", k)
		}
	}
	if LintUnspawned.Invalidates() || LintDuplicate.Invalidates() || !LintWall.Invalidates() || !LintCentre.Invalidates() {
		t.Error("Invalidates: unspawned and duplicates are valid; the rest invalid")
	}
}

// FuzzFeasibility: any boxes, finite or not, never panic, and every
// finding names an obstacle of the test or none.
func FuzzFeasibility(f *testing.F) {
	f.Add(14.0, 2.0, 20.0, 0.0, 25.0, 0.0, 3.0, 3.0)
	f.Add(4.0, 4.0, 20.0, -12.36, 0.13, 30.0, 1e-3, -1.0)
	f.Add(math.Inf(1), 1.0, 1.0, math.NaN(), 1.0, 0.0, 0.0, 0.0)
	cs, err := Builtin("mission2")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, l, w, h, x, y, r, dx, dy float64) {
		if math.Abs(l) > 1e3 || math.Abs(w) > 1e3 || math.Abs(x) > 1e3 || math.Abs(y) > 1e3 || math.Abs(dx) > 1e3 || math.Abs(dy) > 1e3 {
			return // the grid grows with the boxes' reach: inputs this large are outside the fuzzed domain
		}
		boxes := []world.Box{{L: l, W: w, H: h, X: x, Y: y, R: r}, {L: w, W: l, H: h, X: x + dx, Y: y + dy, R: -r}}
		for _, fd := range append(Feasibility{}.Check(cs.Mission, boxes), UnspawnedFindings(boxes)...) {
			if fd.Obstacle < 0 || fd.Obstacle > len(boxes) || fd.Msg == "" {
				t.Fatalf("finding %+v", fd)
			}
		}
		for _, e := range LintEditions {
			for _, fd := range RuleFindings(e.Rules, boxes) {
				if fd.Obstacle < 0 || fd.Obstacle > len(boxes) || !slices.Contains(LintKinds, fd.Kind) {
					t.Fatalf("%s: finding %+v", e.Name, fd)
				}
			}
		}
	})
}
