package scenario

import (
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/geom"
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
	// The generators' margin: 1.1 m is too close, 1.6 m is not.
	gm := Feasibility{WaypointM: GenerationWaypointM}
	if gm.Feasible(m, []world.Box{beside(wp.X, wp.Y, 1.1)}) || !gm.Feasible(m, []world.Box{beside(wp.X, wp.Y, 1.6)}) {
		t.Errorf("generation margin: 1.1 m feasible %v, 1.6 m feasible %v; want false, true",
			gm.Feasible(m, []world.Box{beside(wp.X, wp.Y, 1.1)}), gm.Feasible(m, []world.Box{beside(wp.X, wp.Y, 1.6)}))
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

// BenchmarkFeasibility checks a typical generated test (two boxes on
// mission2's long leg) the way every generator does for each candidate.
func BenchmarkFeasibility(b *testing.B) {
	cs, err := Builtin("mission2")
	if err != nil {
		b.Fatal(err)
	}
	boxes := []world.Box{{L: 10, W: 4, H: 20, X: -5, Y: 25, R: 30}, {L: 4, W: 6, H: 20, X: 8, Y: 30, R: 10}}
	var f Feasibility
	b.ReportAllocs()
	for b.Loop() {
		if got := f.Check(cs.Mission, boxes); len(got) != 0 {
			b.Fatal(got)
		}
	}
}

// The fast wall search (box filter, straight-leg shortcut, best-first
// order) answers as the plain breadth-first search over every box does,
// on random tests across mission2's legs.
func TestOpenMatchesBreadthFirst(t *testing.T) {
	cs, err := Builtin("mission2")
	if err != nil {
		t.Fatal(err)
	}
	path := cs.Mission.Path()
	f := Feasibility{}.withDefaults()
	rng := rand.New(rand.NewPCG(7, 7))
	closed := 0
	for n := range 300 {
		var boxes []world.Box
		for range 2 + n%2 {
			boxes = append(boxes, world.Box{L: 2 + 18*rng.Float64(), W: 2 + 18*rng.Float64(), H: 20,
				X: -40 + 70*rng.Float64(), Y: 10 + 30*rng.Float64(), R: 90 * rng.Float64()})
		}
		for k := 1; k < len(path); k++ {
			a, b := path[k-1].XY(), path[k].XY()
			if a.Dist(b) < f.CellM {
				continue
			}
			got, want := f.open(a, b, boxes), f.openReference(a, b, boxes)
			if got != want {
				t.Fatalf("test %d leg %d %v: open %v; breadth-first %v", n, k, boxes, got, want)
			}
			if !want {
				closed++
			}
		}
	}
	if closed == 0 {
		t.Error("no random test closed a leg: the comparison saw only open legs")
	}
}

func (f Feasibility) openReference(a, b geom.Vec2, boxes []world.Box) bool {
	d := geom.Vec2{X: b.X - a.X, Y: b.Y - a.Y}
	length := d.Norm()
	u := geom.Vec2{X: d.X / length, Y: d.Y / length} // along the leg
	v := geom.Vec2{X: -u.Y, Y: u.X}                  // across it
	c := f.CorridorM
	nu := int(math.Ceil((length+2*c)/f.CellM)) + 1
	nv := int(math.Ceil(2*c/f.CellM)) + 1
	at := func(i, j int) geom.Vec2 {
		s, t := -c+float64(i)*f.CellM, -c+float64(j)*f.CellM
		return geom.Vec2{X: a.X + s*u.X + t*v.X, Y: a.Y + s*u.Y + t*v.Y}
	}
	cell := func(p geom.Vec2) (int, int) {
		q := geom.Vec2{X: p.X - a.X, Y: p.Y - a.Y}
		s, t := q.X*u.X+q.Y*u.Y, q.X*v.X+q.Y*v.Y
		return int(math.Round((s + c) / f.CellM)), int(math.Round((t + c) / f.CellM))
	}
	free := func(p geom.Vec2) bool {
		for _, bx := range boxes {
			if bx.Distance(p) < f.SafetyM {
				return false
			}
		}
		return true
	}
	inside := func(p geom.Vec2) bool { return segDist(p, a, b, u, length) <= c }
	si, sj := cell(a)
	ti, tj := cell(b)
	if !free(at(si, sj)) || !free(at(ti, tj)) {
		return true
	}
	seen := make([]bool, nu*nv)
	queue := []int{si*nv + sj}
	seen[si*nv+sj] = true
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		i, j := k/nv, k%nv
		if i == ti && j == tj {
			return true
		}
		for _, n := range [4][2]int{{i + 1, j}, {i - 1, j}, {i, j + 1}, {i, j - 1}} {
			if n[0] < 0 || n[0] >= nu || n[1] < 0 || n[1] >= nv || seen[n[0]*nv+n[1]] {
				continue
			}
			seen[n[0]*nv+n[1]] = true
			if p := at(n[0], n[1]); inside(p) && free(p) {
				queue = append(queue, n[0]*nv+n[1])
			}
		}
	}
	return false
}
