// Package metric computes the path-tracker benchmark's numbers from odometry
// samples: AirStack's metrics exactly as its test module computes them
// (airstack.md §2.4–2.5, §6), and the tracking metrics that mean what they
// say, which AirStack's do not.
//
// AirStack's cross-track error is the XY distance of each odometry sample to
// the nearest ideal *vertex*, not to the path: a perfect tracker scores a
// 0.934 m mean and a 5.000 m maximum on the Circle, whose 10-m radial legs
// have vertices only at their ends (§2.4). Path measures the distance to the
// nearest ideal *segment* instead, with a signed lateral error, the lag
// behind the nominal time law and the arrival error.
//
// Altitudes are heights above the ground (−z in NED, the ground at z = 0),
// as AirStack's odometry z is. The package is pure.
package metric

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Sample is one odometry sample: time (s) and position in NED (m).
type Sample struct {
	T   float64
	Pos geom.Vec3
}

// Alt returns the height above the ground.
func (s Sample) Alt() float64 { return -s.Pos.Z }

// Round3 rounds to 3 decimals, as AirStack rounds every metric.
func Round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// CrossTrack is AirStack's cross-track error over a capture
// (_cross_track_metrics): for each sample, d = XY distance to the nearest
// ideal vertex; Mean = mean(d), Max = max(d), RMSE = √mean(d²). N is the
// number of samples; with none, the fields are 0.
type CrossTrack struct {
	Mean, Max, RMSE float64
	N               int
}

// VertexError is AirStack's rule: distances to the nearest *vertex* of ideal
// (any frame, compared in XY). Not rounded.
func VertexError(samples []Sample, ideal []geom.Vec3) CrossTrack {
	var c CrossTrack
	if len(ideal) == 0 {
		return c
	}
	var sum, sq float64
	for _, s := range samples {
		p := s.Pos.XY()
		d := math.Inf(1)
		for _, v := range ideal {
			d = math.Min(d, p.Dist(v.XY()))
		}
		sum += d
		sq += d * d
		c.Max = math.Max(c.Max, d)
	}
	if c.N = len(samples); c.N > 0 {
		c.Mean = sum / float64(c.N)
		c.RMSE = math.Sqrt(sq / float64(c.N))
	}
	return c
}

// SegmentDist returns the XY distance from p to the nearest segment of the
// polyline through ideal (to the point for a single vertex).
func SegmentDist(p geom.Vec2, ideal []geom.Vec3) float64 {
	if len(ideal) == 1 {
		return p.Dist(ideal[0].XY())
	}
	d := math.Inf(1)
	for i := 1; i < len(ideal); i++ {
		d = math.Min(d, geom.PointSegmentDist(p, ideal[i-1].XY(), ideal[i].XY()))
	}
	return d
}
