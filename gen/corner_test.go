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
// first box blocking, partly blocking or beside (a free gap of at most
// 3 m, the constrained generator's "beside") one of the two legs'
// stretches; both stretches are used.
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
		dIn := gapToLeg(b, c.In)
		dOut := gapToLeg(b, c.Out)
		if math.Min(dIn, dOut) > 3.05 {
			t.Fatalf("first box %+v leaves a gap of %.2f m to the legs", b, math.Min(dIn, dOut))
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

// gapToLeg is the free gap between b's footprint and the stretch l (0
// when they cross), from points every 1 cm along l.
func gapToLeg(b world.Box, l Leg) float64 {
	cs := b.Corners()
	best := math.Inf(1)
	n := int(l.B.Dist(l.A)/0.01) + 1
	for k := 0; k <= n; k++ {
		p := l.A.Add(l.B.Sub(l.A).Scale(float64(k) / float64(n)))
		if b.Contains(p) {
			return 0
		}
		for j := range cs {
			best = math.Min(best, geom.PointSegmentDist(p, cs[j], cs[(j+1)%4]))
		}
	}
	return best
}

// A turn whose waypoint is repeated is still a turn; one whose legs only
// touch the area's edge is none (no test could be drawn there); a turn
// just outside the area is none.
func TestCornersEdges(t *testing.T) {
	v := func(x, y float64) geom.Vec3 { return geom.Vec3{X: x, Y: y, Z: -10} }
	area := world.DefaultArea // x −40…30, y 10…40
	rep := Corners([]geom.Vec3{v(0, 0), v(0, 20), v(0, 20), v(20, 20), v(20, 0)}, area)
	if len(rep) != 2 || rep[0].Index != 1 || rep[0].Out.B.Dist(geom.Vec2{X: 15, Y: 20}) > 1e-9 || rep[1].Index != 3 {
		t.Errorf("repeated waypoint: %+v; want the turns at points 1 and 3", rep)
	}
	// Out to (0, 10) on the area's edge and straight back: both stretches
	// run along y < 10, outside the zone.
	if c := Corners([]geom.Vec3{v(-10, 0), v(0, 10), v(10, 0)}, area); len(c) != 0 {
		t.Errorf("tip on the edge: %+v; want no corner", c)
	}
	if c := Corners([]geom.Vec3{v(0, 0), v(0, 9.99), v(20, 0)}, area); len(c) != 0 {
		t.Errorf("turn 1 cm outside: %+v", c)
	}
	if l := insideLen(Leg{A: geom.Vec2{X: -50, Y: 20}, B: geom.Vec2{X: 50, Y: 20}}, area); math.Abs(l-70) > 1e-9 {
		t.Errorf("inside length %v; want 70", l)
	}
}
