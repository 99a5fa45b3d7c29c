package gen

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// HeightM is the height of generated obstacles: above the 10 m flight
// altitude and within the competition's 10–25 m, so the vehicle can never
// fly over them (the paper's ten features leave the height out).
const HeightM = 20

// Span is a closed range of values a category samples from.
type Span struct{ Lo, Hi float64 }

func (s Span) sample(rng *rand.Rand) float64 { return s.Lo + (s.Hi-s.Lo)*rng.Float64() }

// Category is one discrete value of a scenario feature, with the range its
// geometric value is sampled from.
type Category struct {
	Name string
	Span Span
}

// The features and their categories (paper §IV-C names the features and
// the rotation split; the ranges are Shakedown's).
var (
	// Intrusion of obstacle 1 into the flight path, as the lateral offset
	// of its footprint from the leg in units of its half-extent across the
	// leg (0 = centred on the leg, 1 = the leg touches its edge), or, for
	// "beside", the free gap between footprint and leg in metres.
	Intrusions = []Category{
		{"blocking", Span{0, 0.5}},
		{"partial", Span{0.5, 1}},
		{"beside", Span{0, 3}},
	}
	// Sizes by the longer side of a footprint, m.
	Sizes = []Category{{"small", Span{2, 6}}, {"medium", Span{6, 12}}, {"large", Span{12, 20}}}
	// Aspect ratios, longer over shorter side.
	Aspects = []Category{{"square", Span{1, 1.5}}, {"oblong", Span{1.5, 3}}, {"slender", Span{3, 10}}}
	// Rotations, degrees (the paper's low and high).
	Rotations = []Category{{"low", Span{0, 45}}, {"high", Span{45, 90}}}
	// Directions from obstacle 1 to obstacle 2 relative to the direction of
	// flight: eight 45° sectors, degrees counter-clockwise in the (x, y)
	// plane (toward +y) from "ahead".
	Sectors = []Category{
		{"ahead", Span{-22.5, 22.5}}, {"ahead-left", Span{22.5, 67.5}}, {"left", Span{67.5, 112.5}},
		{"behind-left", Span{112.5, 157.5}}, {"behind", Span{157.5, 202.5}}, {"behind-right", Span{202.5, 247.5}},
		{"right", Span{247.5, 292.5}}, {"ahead-right", Span{292.5, 337.5}},
	}
	// Passage widths: the free gap between the two footprints, m.
	Passages = []Category{{"narrow", Span{0.5, 3}}, {"medium", Span{3, 8}}, {"wide", Span{8, 15}}}
)

// Labels are the categories a constrained-random test was drawn from.
type Labels struct {
	Intrusion       string
	Size, Aspect    [2]string
	Rotation        [2]string
	Sector, Passage string
}

// Test is one generated test: its obstacles and how they were drawn.
type Test struct {
	Obstacles []world.Box
	Labels    *Labels // nil for the random generator
}

// Leg is a straight flight segment, in the competition's x/y.
type Leg struct{ A, B geom.Vec2 }

// LongestLeg returns the leg of the mission path (home, then each item's
// position, as scenario.Mission.Path gives it) whose part inside area is
// longest: the segment the constrained generator places obstacles on.
func LongestLeg(path []geom.Vec3, area world.Area) (Leg, error) {
	best, bestLen := Leg{}, 0.0
	for i := 1; i < len(path); i++ {
		l := Leg{A: path[i-1].XY(), B: path[i].XY()}
		if n := insideLength(l, area); n > bestLen {
			best, bestLen = l, n
		}
	}
	if bestLen == 0 {
		return Leg{}, errors.New("gen: no leg of the mission crosses the placement area")
	}
	return best, nil
}

// insideLength is the length of the part of l inside area.
func insideLength(l Leg, a world.Area) float64 {
	d := l.B.Sub(l.A)
	t0, t1 := 0.0, 1.0
	for _, c := range [4][2]float64{{-d.X, l.A.X - a.MinX}, {d.X, a.MaxX - l.A.X}, {-d.Y, l.A.Y - a.MinY}, {d.Y, a.MaxY - l.A.Y}} {
		p, q := c[0], c[1]
		switch {
		case p == 0:
			if q < 0 {
				return 0
			}
		case p < 0:
			t0 = math.Max(t0, q/p)
		default:
			t1 = math.Min(t1, q/p)
		}
	}
	if t1 <= t0 {
		return 0
	}
	return (t1 - t0) * d.Norm()
}

// Generator draws tests for one leg inside a placement area.
type Generator struct {
	Leg  Leg
	Area world.Area
	// Valid reports whether a test obeys the rules in force, for example
	// scenario.DefaultRules.Check with Area as the placement area; nil
	// accepts every test whose footprints lie in Area without overlapping.
	Valid func([]world.Box) bool
	// MaxTries bounds the rejection sampling of one test; 0 means 10000.
	MaxTries int
}

// ErrNoTest is returned when no valid test was found within MaxTries draws.
var ErrNoTest = errors.New("gen: no valid test found")

func pick(rng *rand.Rand, cs []Category) Category { return cs[rng.IntN(len(cs))] }

// footprint returns the length along x and width along y of a box whose
// longer side is long and whose aspect ratio is aspect, the longer side
// along x or y at random; the shorter side is at least 2 m.
func footprint(rng *rand.Rand, long, aspect float64) (l, w float64) {
	short := math.Max(2, long/aspect)
	if rng.IntN(2) == 0 {
		return long, short
	}
	return short, long
}

// valueTries is how many times Constrained redraws the values of one
// combination of categories before it gives the combination up.
const valueTries = 50

// Constrained draws one test by semantic sampling: one category of each
// feature uniformly, then values uniformly within the categories' ranges.
// Values that break the rules (outside the area, overlapping) are redrawn
// within the same categories; a combination that yields no valid test in
// valueTries draws is replaced, so combinations that hardly fit the area
// (large boxes, wide passages) are somewhat rarer than the rest.
func (g Generator) Constrained(rng *rand.Rand) (Test, error) {
	tries := g.MaxTries
	if tries == 0 {
		tries = 10000
	}
	dir := g.Leg.B.Sub(g.Leg.A)
	legLen := dir.Norm()
	if legLen == 0 {
		return Test{}, errors.New("gen: the leg has no length")
	}
	u := dir.Scale(1 / legLen)
	n := geom.Vec2{X: -u.Y, Y: u.X} // left of the direction of flight
	heading := math.Atan2(u.Y, u.X)
	for range tries / valueTries {
		// One category of each feature, uniformly...
		lab := &Labels{}
		var sz, as, ro [2]Category
		for k := range 2 {
			sz[k], as[k], ro[k] = pick(rng, Sizes), pick(rng, Aspects), pick(rng, Rotations)
			lab.Size[k], lab.Aspect[k], lab.Rotation[k] = sz[k].Name, as[k].Name, ro[k].Name
		}
		in, sec, pas := pick(rng, Intrusions), pick(rng, Sectors), pick(rng, Passages)
		lab.Intrusion, lab.Sector, lab.Passage = in.Name, sec.Name, pas.Name
		// ...then values within them, redrawn (keeping the categories)
		// until the test is valid, so that rejections do not skew the
		// balance of categories.
		for range valueTries {
			var boxes [2]world.Box
			for k := range 2 {
				l, w := footprint(rng, sz[k].Span.sample(rng), as[k].Span.sample(rng))
				boxes[k] = world.Box{L: l, W: w, H: HeightM, R: ro[k].Span.sample(rng)}
			}
			// Obstacle 1 on the leg.
			s := rng.Float64() * legLen
			b1 := boxes[0]
			half := halfExtent(b1, n)
			var off float64
			if in.Name == "beside" {
				off = half + in.Span.sample(rng)
			} else {
				off = half * in.Span.sample(rng)
			}
			if rng.IntN(2) == 0 {
				off = -off
			}
			c1 := g.Leg.A.Add(u.Scale(s)).Add(n.Scale(off))
			b1.X, b1.Y = c1.X, c1.Y
			// Obstacle 2 in a sector of obstacle 1, a passage away.
			ang := heading + sec.Span.sample(rng)*math.Pi/180
			gap := pas.Span.sample(rng)
			if !g.Area.ContainsBox(b1) {
				continue // the same draws as below, without the search
			}
			b2, ok := placeAtGap(b1, boxes[1], geom.Vec2{X: math.Cos(ang), Y: math.Sin(ang)}, gap)
			if !ok {
				continue
			}
			obs := []world.Box{b1, b2}
			if g.valid(obs) {
				return Test{Obstacles: obs, Labels: lab}, nil
			}
		}
	}
	return Test{}, ErrNoTest
}

// Random draws one test with two boxes of uniformly random size (2–20 m),
// rotation (0–90°) and position in the area, redrawing invalid ones.
func (g Generator) Random(rng *rand.Rand) (Test, error) {
	tries := g.MaxTries
	if tries == 0 {
		tries = 10000
	}
	a := g.Area
	for range tries {
		obs := make([]world.Box, 2)
		for k := range obs {
			obs[k] = world.Box{
				L: 2 + 18*rng.Float64(), W: 2 + 18*rng.Float64(), H: HeightM, R: 90 * rng.Float64(),
				X: a.MinX + (a.MaxX-a.MinX)*rng.Float64(), Y: a.MinY + (a.MaxY-a.MinY)*rng.Float64(),
			}
		}
		if g.valid(obs) {
			return Test{Obstacles: obs}, nil
		}
	}
	return Test{}, ErrNoTest
}

func (g Generator) valid(obs []world.Box) bool {
	if g.Valid != nil {
		return g.Valid(obs)
	}
	return defaultValid(g.Area, obs)
}

// defaultValid reports whether every footprint lies in area and none
// overlaps another.
func defaultValid(area world.Area, obs []world.Box) bool {
	for i, b := range obs {
		if !area.ContainsBox(b) {
			return false
		}
		for _, c := range obs[:i] {
			if b.Overlaps(c) {
				return false
			}
		}
	}
	return true
}

// halfExtent is half the width of b's footprint measured along the unit
// direction n.
func halfExtent(b world.Box, n geom.Vec2) float64 {
	l := n.Rotate(-b.R * math.Pi / 180)
	return (math.Abs(l.X)*b.L + math.Abs(l.Y)*b.W) / 2
}

// placeAtGap centres b2 on the ray from b1's centre along unit dir so that
// the free gap between the two footprints is gap (to 1 cm), by bisection on
// the distance; ok is false when no distance within 100 m gives it.
func placeAtGap(b1, b2 world.Box, dir geom.Vec2, gap float64) (world.Box, bool) {
	p1 := b1.Corners()
	c1 := b1.Center()
	b2.X, b2.Y = 0, 0
	rel := b2.Corners()
	gapAt := func(t float64) float64 {
		var p2 [4]geom.Vec2
		o := c1.Add(dir.Scale(t))
		for k, r := range rel {
			p2[k] = r.Add(o)
		}
		return polygonGap(&p1, &p2)
	}
	lo, hi := 0.0, 100.0
	if gapAt(hi) < gap {
		return world.Box{}, false
	}
	for hi-lo > 0.005 {
		mid := (lo + hi) / 2
		if gapAt(mid) < gap {
			lo = mid
		} else {
			hi = mid
		}
	}
	b2.X, b2.Y = c1.X+dir.X*hi, c1.Y+dir.Y*hi
	return b2, true
}

// footprintGap is the distance between two footprints, 0 when they touch or
// overlap.
func footprintGap(a, b world.Box) float64 {
	pa, pb := a.Corners(), b.Corners()
	return polygonGap(&pa, &pb)
}

// polygonGap is the distance between two convex quadrilaterals given by
// their corners in order, 0 when they touch or overlap.
func polygonGap(a, b *[4]geom.Vec2) float64 {
	if !separated(a, b) {
		return 0
	}
	d := math.Inf(1)
	for i := range 4 {
		for j := range 4 {
			if v := geom.PointSegmentDist(a[i], b[j], b[(j+1)%4]); v < d {
				d = v
			}
			if v := geom.PointSegmentDist(b[i], a[j], a[(j+1)%4]); v < d {
				d = v
			}
		}
	}
	return d
}

// separated reports whether an edge normal of a or b strictly separates the
// two convex quadrilaterals (the separating-axis test; touching is not
// separated).
func separated(a, b *[4]geom.Vec2) bool {
	for _, p := range [2]*[4]geom.Vec2{a, b} {
		for i := range 2 {
			e := p[i+1].Sub(p[i])
			n := geom.Vec2{X: -e.Y, Y: e.X}
			amin, amax := span(a, n)
			bmin, bmax := span(b, n)
			if amax < bmin || bmax < amin {
				return true
			}
		}
	}
	return false
}

func span(p *[4]geom.Vec2, n geom.Vec2) (lo, hi float64) {
	lo = p[0].Dot(n)
	hi = lo
	for _, q := range p[1:] {
		switch v := q.Dot(n); {
		case v < lo:
			lo = v
		case v > hi:
			hi = v
		}
	}
	return lo, hi
}
