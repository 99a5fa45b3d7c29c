package dtw

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// DefaultIterations is the number of refinement rounds Barycenter runs at
// most; DBA converges in a handful on repeated flights of one test.
const DefaultIterations = 30

// Barycenter returns the DTW barycenter of the trajectories by DTW
// barycenter averaging (DBA: F. Petitjean, A. Ketterlin, P. Gançarski, "A
// global averaging method for dynamic time warping, with applications to
// clustering", Pattern Recognition 44(3), 2011).
//
// It starts from the medoid (the trajectory with the least summed DTW
// distance to the others; the first on a tie) and repeats, at most iters
// times (DefaultIterations when iters ≤ 0): align every trajectory to the
// current average with DTW under the squared Euclidean cost, then move each
// point of the average to the mean of the points aligned to it. It stops
// early when the summed squared alignment cost no longer decreases. The
// result has the medoid's length. DBA's cost never increases from one
// round to the next, so the result is at least as close to the runs, in
// summed squared DTW cost, as the medoid itself.
//
// This stands in for Aerialist's average, tslearn's soft-DTW barycenter with
// γ = 200 (competition.md §4): both minimise an alignment cost to every
// run; soft-DTW smooths the alignment, DBA takes the single best one.
//
// Barycenter returns nil for no trajectories and a copy of the only one for
// one; empty trajectories are ignored. It does not modify its input.
func Barycenter(runs [][]geom.Vec3, iters int) []geom.Vec3 {
	var rs [][]geom.Vec3
	for _, r := range runs {
		if len(r) > 0 {
			rs = append(rs, r)
		}
	}
	switch len(rs) {
	case 0:
		return nil
	case 1:
		return append([]geom.Vec3(nil), rs[0]...)
	}
	if iters <= 0 {
		iters = DefaultIterations
	}
	avg := append([]geom.Vec3(nil), rs[medoid(rs)]...)
	n := len(avg)
	maxM := 0
	for _, r := range rs {
		maxM = max(maxM, len(r))
	}
	al := aligner{cost: make([]float64, (n+1)*(maxM+1))}
	sum := make([]geom.Vec3, n)
	cnt := make([]float64, n)
	best := math.Inf(1)
	for range iters {
		clear(sum)
		clear(cnt)
		total := 0.0
		for _, r := range rs {
			total += al.accumulate(avg, r, sum, cnt)
		}
		if !(total < best) {
			break // no progress: avg is the last improvement
		}
		best = total
		moved := false
		for i := range avg {
			// Every point of the average is on every warping path at least
			// once, so cnt[i] ≥ len(rs).
			p := sum[i].Scale(1 / cnt[i])
			if p != avg[i] {
				moved = true
			}
			avg[i] = p
		}
		if !moved {
			break
		}
	}
	return avg
}

// medoid returns the index of the trajectory with the least summed DTW
// distance to the others.
func medoid(rs [][]geom.Vec3) int {
	var w Workspace
	sums := make([]float64, len(rs))
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			d := w.Distance(rs[i], rs[j], Exact)
			sums[i] += d
			sums[j] += d
		}
	}
	best := 0
	for i, s := range sums {
		if s < sums[best] {
			best = i
		}
	}
	return best
}

// aligner holds the full cost matrix needed to trace a warping path back.
type aligner struct {
	cost []float64
}

// accumulate aligns r to avg with DTW under the squared Euclidean cost,
// adds each point of r to the sum of every average point it is matched
// with, counts the matches, and returns the path's total cost.
func (al *aligner) accumulate(avg, r []geom.Vec3, sum []geom.Vec3, cnt []float64) float64 {
	n, m := len(avg), len(r)
	w := m + 1
	c := al.cost[:(n+1)*w]
	inf := math.Inf(1)
	for j := range w {
		c[j] = inf
	}
	c[0] = 0
	for i := 1; i <= n; i++ {
		row, up := c[i*w:(i+1)*w], c[(i-1)*w:i*w]
		row[0] = inf
		p := avg[i-1]
		for j := 1; j <= m; j++ {
			d := p.Sub(r[j-1])
			best := up[j-1]
			if up[j] < best {
				best = up[j]
			}
			if row[j-1] < best {
				best = row[j-1]
			}
			row[j] = d.Dot(d) + best
		}
	}
	// Trace back from (n, m), preferring the diagonal, then i−1, then j−1.
	i, j := n, m
	for {
		sum[i-1] = sum[i-1].Add(r[j-1])
		cnt[i-1]++
		if i == 1 && j == 1 {
			break
		}
		diag, up, left := inf, inf, inf
		if i > 1 && j > 1 {
			diag = c[(i-1)*w+j-1]
		}
		if i > 1 {
			up = c[(i-1)*w+j]
		}
		if j > 1 {
			left = c[i*w+j-1]
		}
		switch {
		case diag <= up && diag <= left:
			i, j = i-1, j-1
		case up <= left:
			i--
		default:
			j--
		}
	}
	return c[n*w+m]
}
