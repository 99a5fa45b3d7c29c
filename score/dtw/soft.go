package dtw

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// AerialistGamma is the smoothing of Aerialist's average trajectory:
// Trajectory.average calls tslearn's softdtw_barycenter with
// gamma = AVE_GAMMA = 200 (competition.md §4).
const AerialistGamma = 200

// SoftMaxIterations and SoftTol are tslearn's softdtw_barycenter defaults
// (max_iter = 50, tol = 1e-3), which Aerialist does not change.
const (
	SoftMaxIterations = 50
	SoftTol           = 1e-3
)

// SoftDistance returns the soft-DTW discrepancy between a and b (M. Cuturi,
// M. Blondel, "Soft-DTW: a differentiable loss function for time-series",
// ICML 2017, Algorithm 1): the DTW recurrence on the squared Euclidean
// cost with min replaced by the soft minimum −γ·log Σ exp(−x/γ). As γ → 0
// it tends to DTW under the squared cost; it is negative for large γ. It is
// +Inf when either trajectory is empty; gamma must be positive.
func SoftDistance(a, b []geom.Vec3, gamma float64) float64 {
	var s soft
	return s.value(a, b, gamma)
}

// soft holds the cost, R and E matrices of soft-DTW, (n+2)×(m+2).
type soft struct {
	d, r, e []float64
}

func (s *soft) grow(n, m int) {
	k := (n + 2) * (m + 2)
	if cap(s.r) < k {
		s.d, s.r, s.e = make([]float64, k), make([]float64, k), make([]float64, k)
	}
	s.d, s.r, s.e = s.d[:k], s.r[:k], s.e[:k]
}

// softmin3 is −γ·log(e^(−a/γ) + e^(−b/γ) + e^(−c/γ)), computed about the
// smallest argument so that nothing overflows.
func softmin3(a, b, c, gamma float64) float64 {
	lo := math.Min(a, math.Min(b, c))
	if math.IsInf(lo, 1) {
		return lo
	}
	sum := math.Exp(-(a-lo)/gamma) + math.Exp(-(b-lo)/gamma) + math.Exp(-(c-lo)/gamma)
	return lo - gamma*math.Log(sum)
}

// value runs the forward recurrence and returns R[n][m]. d holds the
// squared distances with row i, column j of the 1-based cell (i, j) at
// i*(m+2)+j; the padding row n+1 and column m+1 are 0.
func (s *soft) value(a, b []geom.Vec3, gamma float64) float64 {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return math.Inf(1)
	}
	s.grow(n, m)
	w := m + 2
	clear(s.d)
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			v := a[i-1].Sub(b[j-1])
			s.d[i*w+j] = v.Dot(v)
		}
	}
	r := s.r
	inf := math.Inf(1)
	for j := range w {
		r[j] = inf
	}
	r[0] = 0
	for i := 1; i <= n+1; i++ {
		r[i*w] = inf
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			r[i*w+j] = s.d[i*w+j] + softmin3(r[(i-1)*w+j-1], r[(i-1)*w+j], r[i*w+j-1], gamma)
		}
	}
	return r[n*w+m]
}

// gradient runs value, then the backward recurrence (Cuturi and Blondel,
// Algorithm 2) for E = ∂R[n][m]/∂d, and adds weight·∂R[n][m]/∂z_i =
// weight·Σ_j E[i][j]·2(z_i − x_j) to g[i]. It returns R[n][m].
func (s *soft) gradient(z, x []geom.Vec3, gamma, weight float64, g []geom.Vec3) float64 {
	v := s.value(z, x, gamma)
	n, m := len(z), len(x)
	if n == 0 || m == 0 {
		return v
	}
	w := m + 2
	r, e, d := s.r, s.e, s.d
	ninf := math.Inf(-1)
	for i := 1; i <= n; i++ {
		e[i*w+m+1], r[i*w+m+1] = 0, ninf
	}
	for j := 1; j <= m; j++ {
		e[(n+1)*w+j], r[(n+1)*w+j] = 0, ninf
	}
	e[(n+1)*w+m+1], r[(n+1)*w+m+1] = 1, r[n*w+m]
	for i := n; i >= 1; i-- {
		for j := m; j >= 1; j-- {
			rij := r[i*w+j]
			fa := math.Exp((r[(i+1)*w+j] - rij - d[(i+1)*w+j]) / gamma)
			fb := math.Exp((r[i*w+j+1] - rij - d[i*w+j+1]) / gamma)
			fc := math.Exp((r[(i+1)*w+j+1] - rij - d[(i+1)*w+j+1]) / gamma)
			e[i*w+j] = e[(i+1)*w+j]*fa + e[i*w+j+1]*fb + e[(i+1)*w+j+1]*fc
		}
	}
	for i := 1; i <= n; i++ {
		var acc geom.Vec3
		zi := z[i-1]
		for j := 1; j <= m; j++ {
			acc = acc.Add(zi.Sub(x[j-1]).Scale(2 * e[i*w+j]))
		}
		g[i-1] = g[i-1].Add(acc.Scale(weight))
	}
	return v
}

// Resample returns p linearly interpolated at n evenly spaced positions
// from its first point to its last, as tslearn's TimeSeriesResampler does
// (numpy.interp on [0, 1]). A single point is repeated.
func Resample(p []geom.Vec3, n int) []geom.Vec3 {
	if n <= 0 || len(p) == 0 {
		return nil
	}
	out := make([]geom.Vec3, n)
	if len(p) == 1 || n == 1 {
		for i := range out {
			out[i] = p[0]
		}
		return out
	}
	for i := range out {
		u := float64(i) * float64(len(p)-1) / float64(n-1)
		k := int(u)
		if k >= len(p)-1 {
			out[i] = p[len(p)-1]
			continue
		}
		f := u - float64(k)
		out[i] = p[k].Add(p[k+1].Sub(p[k]).Scale(f))
	}
	return out
}

// SoftBarycenter returns the soft-DTW barycenter of the runs as tslearn's
// softdtw_barycenter computes it with Aerialist's settings (gamma, at most
// maxIter iterations; AerialistGamma and SoftMaxIterations when ≤ 0):
//
//   - start from the Euclidean barycenter, the point-by-point mean, of the
//     runs each linearly resampled to the longest run's length (Resample);
//   - minimise (1/k)·Σ soft-DTW(Z, run) over Z by L-BFGS (10 corrections,
//     as scipy's L-BFGS-B), a first step of unit length, a backtracking
//     Armijo line search, and scipy's stopping rules with tol = SoftTol: a
//     relative decrease (f_k − f_k+1)/max(|f_k|, |f_k+1|, 1) ≤ tol, or every
//     gradient component ≤ tol.
//
// scipy's line search (Moré–Thuente) is not reproduced step for step; with
// γ = 200 the soft minimum sums over so many warping paths that |f| is
// about 10⁵ for 400-point flights and the relative-decrease rule stops
// after the first iteration, so the result stays within a metre of the
// Euclidean start either way (TestSoftBarycenterAerialistScale).
//
// It returns nil for no non-empty run. It does not modify its input.
func SoftBarycenter(runs [][]geom.Vec3, gamma float64, maxIter int) []geom.Vec3 {
	var rs [][]geom.Vec3
	n := 0
	for _, r := range runs {
		if len(r) > 0 {
			rs = append(rs, r)
			n = max(n, len(r))
		}
	}
	if len(rs) == 0 {
		return nil
	}
	if !(gamma > 0) {
		gamma = AerialistGamma
	}
	if maxIter <= 0 {
		maxIter = SoftMaxIterations
	}
	z := make([]geom.Vec3, n)
	for _, r := range rs {
		rr := r
		if len(r) != n {
			rr = Resample(r, n)
		}
		for i := range z {
			z[i] = z[i].Add(rr[i])
		}
	}
	for i := range z {
		z[i] = z[i].Scale(1 / float64(len(rs)))
	}
	var s soft
	weight := 1 / float64(len(rs))
	f := func(x []geom.Vec3, g []geom.Vec3) float64 {
		clear(g)
		v := 0.0
		for _, r := range rs {
			v += weight * s.gradient(x, r, gamma, weight, g)
		}
		return v
	}
	minimize(z, f, maxIter, SoftTol)
	return z
}

// minimize runs L-BFGS on x in place (see SoftBarycenter for the rules).
func minimize(x []geom.Vec3, f func(x, g []geom.Vec3) float64, maxIter int, tol float64) {
	const corrections = 10
	n := len(x)
	g := make([]geom.Vec3, n)
	fx := f(x, g)
	if math.IsInf(fx, 0) || math.IsNaN(fx) {
		return
	}
	type pair struct {
		s, y []geom.Vec3
		rho  float64
	}
	var hist []pair
	d := make([]geom.Vec3, n)
	xn := make([]geom.Vec3, n)
	gn := make([]geom.Vec3, n)
	alpha := make([]float64, corrections)
	for iter := range maxIter {
		if maxAbs(g) <= tol {
			return
		}
		// Two-loop recursion: d = −H·g.
		copy(d, g)
		for k := len(hist) - 1; k >= 0; k-- {
			alpha[k] = hist[k].rho * dot(hist[k].s, d)
			axpy(d, -alpha[k], hist[k].y)
		}
		if k := len(hist); k > 0 {
			last := hist[k-1]
			scale(d, dot(last.s, last.y)/dot(last.y, last.y))
		}
		for k := range hist {
			beta := hist[k].rho * dot(hist[k].y, d)
			axpy(d, alpha[k]-beta, hist[k].s)
		}
		scale(d, -1)
		slope := dot(g, d)
		if !(slope < 0) { // not a descent direction: restart on −g
			hist = hist[:0]
			copy(d, g)
			scale(d, -1)
			slope = dot(g, d)
		}
		step := 1.0
		if iter == 0 {
			step = 1 / math.Sqrt(dot(d, d))
		}
		var fn float64
		ok := false
		for range 30 {
			copy(xn, x)
			axpy(xn, step, d)
			fn = f(xn, gn)
			if fn <= fx+1e-3*step*slope {
				ok = true
				break
			}
			step /= 2
		}
		if !ok {
			return
		}
		s, y := make([]geom.Vec3, n), make([]geom.Vec3, n)
		for i := range x {
			s[i], y[i] = xn[i].Sub(x[i]), gn[i].Sub(g[i])
		}
		if sy := dot(s, y); sy > 1e-12 {
			if len(hist) == corrections {
				hist = hist[1:]
			}
			hist = append(hist, pair{s, y, 1 / sy})
		}
		copy(x, xn)
		copy(g, gn)
		rel := (fx - fn) / math.Max(math.Max(math.Abs(fx), math.Abs(fn)), 1)
		fx = fn
		if rel <= tol {
			return
		}
	}
}

func dot(a, b []geom.Vec3) float64 {
	s := 0.0
	for i := range a {
		s += a[i].Dot(b[i])
	}
	return s
}

func axpy(y []geom.Vec3, a float64, x []geom.Vec3) {
	for i := range y {
		y[i] = y[i].Add(x[i].Scale(a))
	}
}

func scale(v []geom.Vec3, a float64) {
	for i := range v {
		v[i] = v[i].Scale(a)
	}
}

func maxAbs(v []geom.Vec3) float64 {
	m := 0.0
	for _, p := range v {
		m = math.Max(m, math.Max(math.Abs(p.X), math.Max(math.Abs(p.Y), math.Abs(p.Z))))
	}
	return m
}
