package gen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// canonicalLeg is the canonical mission's leg through the area.
var canonicalLeg = Leg{A: geom.Vec2{X: -5, Y: 0}, B: geom.Vec2{X: -5, Y: 50}}

func newGen() Generator { return Generator{Leg: canonicalLeg, Area: world.DefaultArea} }

func TestLongestLeg(t *testing.T) {
	path := []geom.Vec3{{}, {X: -5, Z: -10}, {X: -5, Y: 50}}
	got, err := LongestLeg(path, world.DefaultArea)
	if err != nil {
		t.Fatal(err)
	}
	if got != canonicalLeg {
		t.Errorf("got %+v; want %+v", got, canonicalLeg)
	}
	if n := insideLength(canonicalLeg, world.DefaultArea); math.Abs(n-30) > 1e-9 {
		t.Errorf("inside length: got %v; want 30 (y from 10 to 40)", n)
	}
	if _, err := LongestLeg([]geom.Vec3{{}, {X: 100, Y: -100}}, world.DefaultArea); err == nil {
		t.Error("a mission outside the area: no error")
	}
}

// Every constrained test is valid, honours the categories it names, and
// every category is drawn about equally often.
func TestConstrained(t *testing.T) {
	g := newGen()
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1500
	counts := map[string]int{}
	u := geom.Vec2{Y: 1} // direction of flight
	for i := range n {
		tc, err := g.Constrained(rng)
		if err != nil {
			t.Fatal(err)
		}
		b1, b2 := tc.Obstacles[0], tc.Obstacles[1]
		if !g.valid(tc.Obstacles) {
			t.Fatalf("test %d invalid: %+v", i, tc.Obstacles)
		}
		l := tc.Labels
		for _, c := range []string{"i:" + l.Intrusion, "s:" + l.Size[0], "s:" + l.Size[1], "a:" + l.Aspect[0], "r:" + l.Rotation[0], "r:" + l.Rotation[1], "sec:" + l.Sector, "p:" + l.Passage} {
			counts[c]++
		}
		// Intrusion: distance from the leg's line to obstacle 1.
		leg := []geom.Vec3{{X: -5, Y: -100}, {X: -5, Y: 200}}
		d := world.Clearance(b1, leg)
		switch l.Intrusion {
		case "blocking", "partial":
			if d != 0 {
				t.Errorf("test %d: %s obstacle %.2f m from the leg; want crossing it", i, l.Intrusion, d)
			}
		case "beside":
			if d <= 0 || d > 3+1e-9 {
				t.Errorf("test %d: beside obstacle %.2f m from the leg; want (0, 3]", i, d)
			}
		}
		// Passage: the gap between the footprints lies in its category.
		gap := footprintGap(b1, b2)
		for _, c := range Passages {
			if c.Name == l.Passage && (gap < c.Span.Lo-0.01 || gap > c.Span.Hi+0.01) {
				t.Errorf("test %d: %s passage %.3f m; want %v", i, l.Passage, gap, c.Span)
			}
		}
		// Sector: the bearing from obstacle 1 to obstacle 2 relative to the
		// direction of flight.
		v := b2.Center().Sub(b1.Center())
		rel := math.Mod(math.Atan2(v.Cross(u)*-1, v.Dot(u))*180/math.Pi+360+22.5, 360) - 22.5
		for _, c := range Sectors {
			if c.Name == l.Sector && (rel < c.Span.Lo-1e-6 || rel > c.Span.Hi+1e-6) {
				t.Errorf("test %d: sector %s at %.1f°; want %v", i, l.Sector, rel, c.Span)
			}
		}
		// Size and aspect of obstacle 1.
		long, short := math.Max(b1.L, b1.W), math.Min(b1.L, b1.W)
		for _, c := range Sizes {
			if c.Name == l.Size[0] && (long < c.Span.Lo || long > c.Span.Hi) {
				t.Errorf("test %d: %s obstacle with a %.2f m long side", i, c.Name, long)
			}
		}
		if short < 2 {
			t.Errorf("test %d: short side %.2f m < 2", i, short)
		}
	}
	expect := func(prefix string, cats []Category, per float64) {
		for _, c := range cats {
			want := per / float64(len(cats))
			if got := float64(counts[prefix+c.Name]); math.Abs(got-want) > 0.25*want {
				t.Errorf("category %s%s drawn %v times; want about %.0f", prefix, c.Name, got, want)
			}
		}
	}
	expect("i:", Intrusions, n)
	expect("s:", Sizes, 2*n)
	expect("r:", Rotations, 2*n)
	expect("sec:", Sectors, n)
	expect("p:", Passages, n)
}

func TestRandomValidAndDeterministic(t *testing.T) {
	g := newGen()
	a, b := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
	for i := range 200 {
		x, err := g.Random(a)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := g.Random(b)
		if x.Obstacles[0] != y.Obstacles[0] || x.Obstacles[1] != y.Obstacles[1] {
			t.Fatalf("test %d differs between two generators with the same seed", i)
		}
		if !g.valid(x.Obstacles) || x.Labels != nil {
			t.Fatalf("test %d: invalid or labelled: %+v", i, x)
		}
	}
}

func TestPlaceAtGap(t *testing.T) {
	b1 := world.Box{L: 4, W: 4, H: 20}
	b2 := world.Box{L: 2, W: 2, H: 20}
	got, ok := placeAtGap(b1, b2, geom.Vec2{X: 1}, 5)
	if !ok || math.Abs(got.X-8) > 0.01 || got.Y != 0 {
		t.Errorf("got %+v, %v; want centred at x = 2 + 5 + 1 = 8", got, ok)
	}
}

func BenchmarkConstrained(b *testing.B) {
	g := newGen()
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Constrained(rng); err != nil {
			b.Fatal(err)
		}
	}
}
