package geom

import "math"

// SegmentParam returns the parameter t in [0, 1] of the point of segment
// a→b closest to p.
func SegmentParam(p, a, b Vec2) float64 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return 0
	}
	return Clamp(p.Sub(a).Dot(ab)/l2, 0, 1)
}

// PointSegmentDist returns the distance from p to the segment a→b.
func PointSegmentDist(p, a, b Vec2) float64 {
	t := SegmentParam(p, a, b)
	return p.Dist(a.Add(b.Sub(a).Scale(t)))
}

// SegmentsIntersect reports whether the closed segments p1→p2 and q1→q2
// share at least one point.
func SegmentsIntersect(p1, p2, q1, q2 Vec2) bool {
	d1 := orient(q1, q2, p1)
	d2 := orient(q1, q2, p2)
	d3 := orient(p1, p2, q1)
	d4 := orient(p1, p2, q2)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return (d1 == 0 && onSegment(q1, q2, p1)) || (d2 == 0 && onSegment(q1, q2, p2)) ||
		(d3 == 0 && onSegment(p1, p2, q1)) || (d4 == 0 && onSegment(p1, p2, q2))
}

func orient(a, b, c Vec2) float64 { return b.Sub(a).Cross(c.Sub(a)) }

func onSegment(a, b, p Vec2) bool {
	return math.Min(a.X, b.X) <= p.X && p.X <= math.Max(a.X, b.X) &&
		math.Min(a.Y, b.Y) <= p.Y && p.Y <= math.Max(a.Y, b.Y)
}

// SegmentSegmentDist returns the smallest distance between the segments
// p1→p2 and q1→q2 (0 when they intersect).
func SegmentSegmentDist(p1, p2, q1, q2 Vec2) float64 {
	if SegmentsIntersect(p1, p2, q1, q2) {
		return 0
	}
	return math.Min(
		math.Min(PointSegmentDist(p1, q1, q2), PointSegmentDist(p2, q1, q2)),
		math.Min(PointSegmentDist(q1, p1, p2), PointSegmentDist(q2, p1, p2)),
	)
}

// PolylineLength returns the summed length of the segments through pts.
func PolylineLength(pts []Vec2) float64 {
	var s float64
	for i := 1; i < len(pts); i++ {
		s += pts[i].Dist(pts[i-1])
	}
	return s
}
