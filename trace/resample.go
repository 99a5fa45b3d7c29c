package trace

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// AerialistPeriodS is the resampling period Aerialist applies to every
// extracted trajectory: TRJ_SMPL_PRD = 500000 µs (competition.md §3.1).
const AerialistPeriodS = 0.5

// Resample returns s averaged over consecutive time bins of periodS seconds,
// as Aerialist's Trajectory.downsample_time does when RESAMPLE is on
// (aerialist/px4/trajectory.py; competition.md §3.1).
//
// The bins are aligned on the first sample's time t0 and closed on the right,
// exactly as in Aerialist's loop, which takes every not yet taken sample with
// timestamp <= t0 + (k+1)·periodS into bin k:
//
//	bin 0 = [t0, t0+P]
//	bin k = (t0+k·P, t0+(k+1)·P]   for k ≥ 1
//
// So with samples every 0.1 s from 0 to 1.2 s and P = 0.5 s the bins hold
// the samples at 0…0.5 (6), 0.6…1.0 (5) and 1.1…1.2 (2). Membership is decided
// on t − t0 rounded to whole microseconds, the resolution of the PX4 log
// timestamps Aerialist compares, so floating-point noise in T (0.1+0.2) cannot
// move a sample across a boundary; periodS is rounded to microseconds too.
//
// Each non-empty bin becomes one sample whose T, Pos and Heading are the
// plain arithmetic means of its members' (Aerialist's Position.average).
// Headings are averaged as numbers, not as angles, as Aerialist does, so a bin
// that straddles the ±π wrap gets a meaningless heading. Empty bins are
// skipped. Like Aerialist, Resample expects samples in time order: a sample
// whose time falls in an earlier bin than the current one (out of order, or a
// NaN time) joins the current bin.
//
// Resample panics if periodS is not at least one microsecond.
func Resample(s []Sample, periodS float64) []Sample {
	return AppendResampled(nil, s, periodS)
}

// AppendResampled appends Resample(s, periodS) to dst and returns the
// extended slice. It allocates nothing when dst has room for the result.
func AppendResampled(dst []Sample, s []Sample, periodS float64) []Sample {
	periodUs := math.Round(periodS * 1e6)
	if !(periodUs >= 1) || math.IsInf(periodUs, 0) {
		panic("trace: resampling period must be a finite number of at least 1 µs")
	}
	if len(s) == 0 {
		return dst
	}
	t0 := s[0].T
	// bound is the right edge of the current bin, t0 + (k+1)·P in µs. The
	// values involved are integers below 2^53, so the arithmetic is exact.
	bound := periodUs
	var acc binMean
	acc.start(s[0])
	for i := 1; i < len(s); i++ {
		off := math.Round((s[i].T - t0) * 1e6)
		if off > bound {
			dst = append(dst, acc.mean())
			// Jump over empty bins to the bin holding off: the smallest
			// k+1 with off <= (k+1)·P.
			bound = math.Ceil(off/periodUs) * periodUs
			acc.start(s[i])
			continue
		}
		acc.add(s[i])
	}
	return append(dst, acc.mean())
}

// binMean accumulates the members of one bin as offsets from the first, so
// that a bin of equal values averages to exactly that value and large
// absolute times lose no precision.
type binMean struct {
	first Sample
	sum   Sample
	n     float64
}

func (b *binMean) start(s Sample) {
	*b = binMean{first: s, n: 1}
}

func (b *binMean) add(s Sample) {
	b.sum.T += s.T - b.first.T
	b.sum.Pos = b.sum.Pos.Add(s.Pos.Sub(b.first.Pos))
	b.sum.Heading += s.Heading - b.first.Heading
	b.n++
}

func (b *binMean) mean() Sample {
	n := b.n
	return Sample{
		T:       b.first.T + b.sum.T/n,
		Pos:     b.first.Pos.Add(geom.Vec3{X: b.sum.Pos.X / n, Y: b.sum.Pos.Y / n, Z: b.sum.Pos.Z / n}),
		Heading: b.first.Heading + b.sum.Heading/n,
	}
}
