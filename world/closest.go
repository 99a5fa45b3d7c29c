package world

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Approach is where a path comes closest to a box footprint, in 2-D.
type Approach struct {
	OnPath geom.Vec2 // the path's point of closest approach
	OnBox  geom.Vec2 // the footprint's nearest point (OnPath itself when inside)
	DistM  float64   // their distance: 0 when the path enters the footprint
}

// ClosestApproach returns where the polyline path (NED) comes closest to the
// footprint of b, in 2-D: the point a plot marks. Its distance equals
// Clearance except over the fly-over rule, which it does not apply. An empty
// path gives an infinite distance.
func ClosestApproach(b Box, path []geom.Vec3) Approach {
	best := Approach{DistM: math.Inf(1)}
	corners := b.Corners()
	consider := func(p, q geom.Vec2) {
		if d := p.Dist(q); d < best.DistM {
			best = Approach{OnPath: p, OnBox: q, DistM: d}
		}
	}
	nearestOnBox := func(p geom.Vec2) geom.Vec2 {
		l := b.Local(p)
		l.X = geom.Clamp(l.X, -b.L/2, b.L/2)
		l.Y = geom.Clamp(l.Y, -b.W/2, b.W/2)
		return l.Rotate(b.R * math.Pi / 180).Add(b.Center())
	}
	for i := range path {
		a := path[i].XY()
		if b.Contains(a) {
			return Approach{OnPath: a, OnBox: a}
		}
		consider(a, nearestOnBox(a))
		if i == 0 {
			continue
		}
		p := path[i-1].XY()
		// Where the segment p→a enters the footprint, if it does.
		lp, la := b.Local(p), b.Local(a)
		t0, _, ok := b.frame().clip(lp.X, lp.Y, la.X, la.Y)
		if ok {
			e := p.Add(a.Sub(p).Scale(t0))
			return Approach{OnPath: e, OnBox: e}
		}
		for _, c := range corners {
			t := geom.SegmentParam(c, p, a)
			consider(p.Add(a.Sub(p).Scale(t)), c)
		}
	}
	return best
}
