package gen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// The square's four turns lie in the placement area: zones of 30 m × 20 m
// (the squares of half side 15 m cut at y = 10 and y = 40), the legs into
// and out of each turn its last and first 15 m; the take-off's vertical
// climb and the landing are no corners. The hairpin turns 10 m beyond the
// area: no corner.
func TestCornersSquare(t *testing.T) {
	cs := Corners(testPath(t, "square"), world.DefaultArea)
	want := []geom.Vec2{{X: 5, Y: 15}, {X: 5, Y: 35}, {X: -15, Y: 35}, {X: -15, Y: 15}}
	if len(cs) != len(want) {
		t.Fatalf("%d corners %+v; want 4", len(cs), cs)
	}
	for i, c := range cs {
		if c.Index != i+2 || c.At.Dist(want[i]) > 1e-6 || c.AreaM2 != 600 {
			t.Errorf("corner %d: index %d at %v, zone %v m²; want index %d at %v, 600 m²", i, c.Index, c.At, c.AreaM2, i+2, want[i])
		}
		if c.In.B != c.At || c.Out.A != c.At || math.Abs(c.In.A.Dist(c.At)-CornerLegM) > 1e-9 || math.Abs(c.Out.B.Dist(c.At)-CornerLegM) > 1e-9 {
			t.Errorf("corner %d: legs %+v, %+v", i, c.In, c.Out)
		}
	}
	if got := len(AutoCorners(cs)); got != 4 {
		t.Errorf("auto corners %d; want 4", got)
	}
	if h := Corners(testPath(t, "hairpin"), world.DefaultArea); len(h) != 0 {
		t.Errorf("hairpin corners %+v: its turns lie 10 m beyond the area", h)
	}
}

// Every test drawn for a corner lies in its zone, obeys valid, and has its
// first box intruding into (or beside) one of the two legs within the
// zone: its footprint comes within 15 m of the turn; both legs are used.
func TestCornerDraw(t *testing.T) {
	c := Corners(testPath(t, "square"), world.DefaultArea)[1]
	calls := 0
	valid := func(b []world.Box) bool { calls++; return len(b) == 2 }
	draw := c.Draw(valid)
	rng := rand.New(rand.NewPCG(1, 2))
	var near [2]int
	for range 200 {
		tst, err := draw(rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range tst.Obstacles {
			if !c.Zone.ContainsBox(b) {
				t.Fatalf("box %+v leaves the zone %+v", b, c.Zone)
			}
		}
		b := tst.Obstacles[0]
		dIn := segDistBox(b, c.In)
		dOut := segDistBox(b, c.Out)
		if math.Min(dIn, dOut) > 15 {
			t.Fatalf("first box %+v is %.1f m from the legs", b, math.Min(dIn, dOut))
		}
		if dIn < dOut {
			near[0]++
		} else {
			near[1]++
		}
	}
	if calls == 0 || near[0] < 40 || near[1] < 40 {
		t.Errorf("valid called %d times; first boxes nearer the leg in %d, out %d of 200", calls, near[0], near[1])
	}
}

// segDistBox is the distance from the centre of b to leg l.
func segDistBox(b world.Box, l Leg) float64 {
	p := geom.Vec2{X: b.X, Y: b.Y}
	d := l.B.Sub(l.A)
	s := geom.Clamp(p.Sub(l.A).Dot(d)/d.Dot(d), 0, 1)
	return p.Dist(l.A.Add(d.Scale(s)))
}
