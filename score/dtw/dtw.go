// Package dtw computes dynamic time warping (DTW) distances between 3-D
// trajectories and averages repeated trajectories with DTW barycenter
// averaging (DBA).
//
// The UAV Testing Competition compares flights by the DTW distance between
// their trajectories resampled into 0.5-s bins, on the columns x, y and z
// without time: Aerialist's Trajectory.distance calls
// similaritymeasures.dtw, whose local cost is the Euclidean distance between
// two points and whose distance is the sum of the local costs along the
// cheapest warping path (competition.md §4). Distance computes exactly that,
// so its values compare with the paper's threshold of 75 (surrogate-assisted
// UAV testing paper §V-A-3, Eq. 4 and 12).
//
// The package is pure: no clock, no files, no global random state.
package dtw

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Exact is the band that disables the Sakoe–Chiba constraint.
const Exact = -1

// Distance returns the DTW distance between a and b: the minimum, over all
// warping paths from (0, 0) to (len(a)−1, len(b)−1) that move by one step
// in i, in j or in both, of the sum of the Euclidean distances between the
// matched points. It is +Inf when either trajectory is empty.
//
// band < 0 (Exact) searches every path. band ≥ 0 restricts the path to the
// Sakoe–Chiba band |i − j| ≤ band, widened to |len(a) − len(b)| so that a
// path always exists; a band of at least max(len(a), len(b)) gives the exact
// distance. The result never falls below the exact distance.
//
// Memory is O(min(len(a), len(b))); time is O(len(a)·len(b)), or
// O(len(a)·band) with a band. Distance allocates two rows; use a Workspace
// to reuse them.
func Distance(a, b []geom.Vec3, band int) float64 {
	var w Workspace
	return w.Distance(a, b, band)
}

// Workspace holds the two rows of the DTW cost matrix between calls, so
// that repeated distances allocate nothing once the rows have grown. The
// zero Workspace is ready to use; it is not safe for concurrent use.
type Workspace struct {
	prev, cur, next, d []float64
}

func (w *Workspace) grow(m int) {
	if cap(w.prev) < m+1 {
		w.prev = make([]float64, m+1)
		w.cur = make([]float64, m+1)
		w.next = make([]float64, m+1)
		w.d = make([]float64, m+1)
	}
	w.prev, w.cur, w.next = w.prev[:m+1], w.cur[:m+1], w.next[:m+1]
	w.d = w.d[:m+1]
}

// costs writes the Euclidean distances from p to each point of bs into ds.
func costs(ds []float64, p geom.Vec3, bs []geom.Vec3) {
	ds = ds[:len(bs)]
	for k := range bs {
		q := bs[k]
		dx, dy, dz := p.X-q.X, p.Y-q.Y, p.Z-q.Z
		ds[k] = math.Sqrt(dx*dx + dy*dy + dz*dz)
	}
}

// full computes the unbanded distance two rows at a time: cell (i+1, j)
// needs (i, j−1), (i, j) and (i+1, j−1), so once row i has reached column
// j, row i+1 can take column j in the same step. The two recurrences then
// overlap in the processor instead of running one after the other, which
// nearly halves the time of this latency-bound loop.
func (w *Workspace) full(a, b []geom.Vec3) float64 {
	n, m := len(a), len(b)
	inf := math.Inf(1)
	prev, cur, next := w.prev, w.cur, w.next
	for j := range prev {
		prev[j] = inf
	}
	prev[0] = 0
	i := 0 // rows done
	for ; i+2 <= n; i += 2 {
		p1, p2 := a[i], a[i+1]
		pr := prev[:m+1]
		c1, c2 := cur[1:m+1], next[1:m+1]
		bs := b[:len(c1)]
		c2 = c2[:len(c1)]
		cur[0], next[0] = inf, inf
		l1, l2 := inf, inf // rows i+1 and i+2 at the previous column
		u1 := pr[0]        // row i at the previous column
		for k := range c1 {
			// The local costs do not depend on the recurrence, so the
			// processor computes them while the recurrence waits.
			q := bs[k]
			dx, dy, dz := p1.X-q.X, p1.Y-q.Y, p1.Z-q.Z
			d1 := math.Sqrt(dx*dx + dy*dy + dz*dz)
			dx, dy, dz = p2.X-q.X, p2.Y-q.Y, p2.Z-q.Z
			d2 := math.Sqrt(dx*dx + dy*dy + dz*dz)
			best := u1
			u := pr[k+1]
			if u < best {
				best = u
			}
			up1 := l1 // row i+1 at the previous column
			if l1 < best {
				best = l1
			}
			v1 := d1 + best
			c1[k] = v1
			l1, u1 = v1, u
			best = up1
			if v1 < best {
				best = v1
			}
			if l2 < best {
				best = l2
			}
			l2 = d2 + best
			c2[k] = l2
		}
		prev, next = next, prev
	}
	if i < n { // an odd row left
		costs(w.d[1:], a[i], b)
		d1 := w.d[1 : m+1]
		pr := prev[:m+1]
		c1 := cur[1 : m+1]
		l1 := inf
		for k := range c1 {
			best := pr[k]
			if u := pr[k+1]; u < best {
				best = u
			}
			if l1 < best {
				best = l1
			}
			l1 = d1[k] + best
			c1[k] = l1
		}
		return l1
	}
	return prev[m]
}

// Distance is the package-level Distance using w's memory.
func (w *Workspace) Distance(a, b []geom.Vec3, band int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.Inf(1)
	}
	if len(b) > len(a) { // keep the rows as short as possible
		a, b = b, a
	}
	n, m := len(a), len(b)
	if band >= 0 && band < n-m {
		band = n - m
	}
	if band < 0 || band >= n {
		band = n // covers the matrix
	}
	w.grow(m)
	if band >= n {
		return w.full(a, b)
	}
	inf := math.Inf(1)
	prev, cur, d := w.prev, w.cur, w.d
	for j := range prev {
		prev[j] = inf
	}
	prev[0] = 0
	// Column 0 of every row after the first is +Inf: no path reaches it.
	for i := 1; i <= n; i++ {
		lo, hi := max(1, i-band), min(m, i+band)
		p := a[i-1]
		// The local costs of the row do not depend on one another: compute
		// them first so that the recurrence below is a short dependency
		// chain (an add and a compare per cell).
		ds := d[lo : hi+1]
		costs(ds, p, b[lo-1:hi])
		cur[lo-1] = inf
		// cur[j] = d[j] + min(prev[j−1], prev[j], cur[j−1]) over the band,
		// written on slices that the compiler can check once.
		pr := prev[lo-1 : hi+1]
		cr := cur[lo : hi+1]
		ds = ds[:len(cr)]
		left := inf
		for k := range cr {
			best := pr[k]
			if u := pr[k+1]; u < best {
				best = u
			}
			if left < best {
				best = left
			}
			left = ds[k] + best
			cr[k] = left
		}
		// The next row reads this one only within [lo−1, hi+1]: the band
		// moves by at most one cell per row.
		if hi < m {
			cur[hi+1] = inf
		}
		prev, cur = cur, prev
	}
	return prev[m]
}
