package metric

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

// Progress-window bounds of the along-path projection: a sample projects
// onto the nearest segment that starts at most windowBackM behind and at
// most windowAheadM ahead of the previous sample's projection. The window
// keeps the projection on the part of the path being flown where the path
// overlaps itself (the Circle's out and back legs, the Figure8's crossing).
const (
	windowBackM  = 2.0
	windowAheadM = 5.0
)

// Tracking holds the metrics that mean what they say, over one capture
// (XY, metres).
type Tracking struct {
	// Distance of each sample to the nearest segment of the ideal polyline.
	SegMean, SegMax, SegRMSE float64
	// LateralMean is the mean signed distance to the path at the sample's
	// along-path projection, positive to the left of the direction of
	// travel (inside of the Circle's counter-clockwise turn).
	LateralMean float64
	// Lag is the nominal arc length (AirStack's time law since dispatch)
	// minus the arc length of the sample's along-path projection: how far
	// behind schedule the vehicle is. Mean is signed; Max is the largest.
	LagMean, LagMax float64
	// ArrivalErr is the XY distance of the last sample to the path's end.
	ArrivalErr float64
	N          int
	// Series are the per-sample values, for plots and CSV: time since
	// dispatch, segment distance, signed lateral error, lag.
	Series []Point
}

// Point is one sample of the error series: time since dispatch, distance
// to the nearest segment and to the nearest vertex (AirStack's), signed
// lateral error and lag, m.
type Point struct {
	T, Seg, Vertex, Lateral, Lag float64
}

// Path computes Tracking for samples (in order, from dispatch at t0 to
// completion) against the timed ideal path tr (world frame).
func Path(samples []Sample, tr *traj.Timed, t0 float64) Tracking {
	var m Tracking
	pts := tr.Points()
	n := len(pts)
	if len(samples) == 0 || n == 0 {
		return m
	}
	ideal := make([]geom.Vec3, n)
	arc := make([]float64, n) // XY arc length
	for i, p := range pts {
		ideal[i] = p.Pos
		if i > 0 {
			arc[i] = arc[i-1] + p.Pos.XY().Dist(pts[i-1].Pos.XY())
		}
	}
	m.N = len(samples)
	m.Series = make([]Point, 0, len(samples))
	m.LagMax = math.Inf(-1)
	k, prev := 0, 0.0 // segment and arc length of the previous projection
	var sum, sq, lat, lag float64
	for _, s := range samples {
		p := s.Pos.XY()
		d := SegmentDist(p, ideal)
		dv := math.Inf(1)
		for _, v := range ideal {
			dv = math.Min(dv, p.Dist(v.XY()))
		}
		var l, along float64
		if n == 1 {
			along = 0
		} else {
			k = project(p, ideal, arc, k, prev)
			a, b := ideal[k].XY(), ideal[k+1].XY()
			u := geom.SegmentParam(p, a, b)
			foot := a.Add(b.Sub(a).Scale(u))
			dir := b.Sub(a).Unit()
			// NED: x North, y East; left of travel is −(dir × rel).
			l = -dir.Cross(p.Sub(foot))
			if dir == (geom.Vec2{}) {
				l = 0
			}
			along = arc[k] + u*(arc[k+1]-arc[k])
			prev = along
		}
		g := tr.ArcAt(s.T-t0) - along
		sum += d
		sq += d * d
		m.SegMax = math.Max(m.SegMax, d)
		lat += l
		lag += g
		m.LagMax = math.Max(m.LagMax, g)
		m.Series = append(m.Series, Point{T: s.T - t0, Seg: d, Vertex: dv, Lateral: l, Lag: g})
	}
	c := float64(m.N)
	m.SegMean, m.SegRMSE = sum/c, math.Sqrt(sq/c)
	m.LateralMean, m.LagMean = lat/c, lag/c
	m.ArrivalErr = samples[len(samples)-1].Pos.XY().Dist(ideal[n-1].XY())
	return m
}

// project returns the segment nearest to p among those that overlap the
// progress window [along − windowBackM, along + windowAheadM] (along the
// previous projection's arc length, on segment k); ties go to the earlier
// segment.
func project(p geom.Vec2, ideal []geom.Vec3, arc []float64, k int, along float64) int {
	lo, hi := along-windowBackM, along+windowAheadM
	best, bestD := k, math.Inf(1)
	i := k
	for i > 0 && arc[i] > lo {
		i--
	}
	for ; i+1 < len(ideal) && arc[i] <= hi; i++ {
		if arc[i+1] < lo {
			continue
		}
		if d := geom.PointSegmentDist(p, ideal[i].XY(), ideal[i+1].XY()); d < bestD-1e-12 {
			best, bestD = i, d
		}
	}
	return best
}
