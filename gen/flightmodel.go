package gen

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// FlightContext is what a box is placed among: the mission's path (take-off,
// waypoints, landing; mission frame), whose legs and turns decide how a box
// is flown past. A box placed for one leg may lie beside another, or near a
// waypoint the vehicle must reach: the paper's own explanation (RQ1) of its
// surrogate's errors, which sees one leg only.
type FlightContext struct {
	Path []geom.Vec3
}

// NearLegM is how close to a box's footprint a leg must pass to count as
// passing it (FlightContext features): the planner's tree nodes are 2 m
// apart and its obstacle cost reaches several metres, so a leg 5 m off is
// flown past the box.
const NearLegM = 5.0

// contextClipM bounds the distances among the features: beyond it a box is
// as far as it can be, for the flight.
const contextClipM = 12.0

// boxContext returns, for box b, the distance of its footprint to the
// nearest waypoint of the path (take-off and landing included), to the
// nearest leg, and how many legs pass within NearLegM of it.
func (c *FlightContext) boxContext(b world.Box) (dWP, dLeg float64, near int) {
	dWP, dLeg = math.Inf(1), math.Inf(1)
	for i, p := range c.Path {
		dWP = math.Min(dWP, b.Distance(p.XY()))
		if i == 0 || c.Path[i-1].XY().Dist(p.XY()) < 1e-6 {
			continue // no leg, or a vertical one (the climb)
		}
		d := footprintSegmentDist(b, c.Path[i-1].XY(), p.XY())
		dLeg = math.Min(dLeg, d)
		if d < NearLegM {
			near++
		}
	}
	return dWP, dLeg, near
}

// footprintSegmentDist is the distance between box b's footprint and the
// segment a→c, 0 when they meet.
func footprintSegmentDist(b world.Box, a, c geom.Vec2) float64 {
	if b.Contains(a) || b.Contains(c) {
		return 0
	}
	k := b.Corners()
	d := math.Inf(1)
	for i := range k {
		d = math.Min(d, geom.SegmentSegmentDist(k[i], k[(i+1)%4], a, c))
	}
	return d
}

// FlightModel is a Gaussian-process regression of the minimum clearance of
// the flights of one generation, learnt from those flights: the search's
// own surrogate, on the mission itself rather than on the canonical leg.
// A test is its boxes in the mission frame — each box its position, its
// long and short side and its orientation (a continuous encoding: a box and
// the same box turned by 180°, or with its sides swapped and turned by 90°,
// are one point) — and the gap between the boxes; with Context, also each
// box's distance to the nearest waypoint and to the nearest leg and the
// number of legs passing it (the flight-context features). The kernel is a
// squared exponential averaged over the orders of the boxes, so that the
// order in which a test lists its boxes does not matter; tests with other
// numbers of boxes are unrelated. The prior mean is the flights' mean and
// its variance theirs; the length scale and the noise are chosen by
// leave-one-out error (closed form) when the flights have doubled since the
// last choice.
type FlightModel struct {
	Context *FlightContext // nil: no flight-context features
	// ClipM bounds the clearances learnt from: above it a flight is as
	// safe as any; 0 = DefaultClipM.
	ClipM float64

	// One row per test: its features, box count, the sum and the number
	// of its flights; key finds a test's row by its boxes.
	xs    [][]float64
	ns    []int
	sums  []float64
	cnt   []int
	key   map[string]int
	ys    []float64 // each row's mean flight, at the last fit
	self  []float64 // each row's kernel with itself, at the last fit
	alpha []float64
	chol  mat.Cholesky
	mean  float64
	sf2   float64 // signal variance
	ell   float64 // length scale (standardised features)
	noise float64 // a flight's noise variance, as a ratio to sf2
	fitN  int     // rows at the last choice of ell and noise
	ok    bool

	// Stats describe the model's fits.
	Stats FlightModelStats
}

// FlightModelStats describe a FlightModel's fits.
type FlightModelStats struct {
	Fits int `json:"fits"`
	// Flights and Tests are how many flights, of how many tests, the last
	// fit learnt from.
	Flights int `json:"flights"`
	Tests   int `json:"tests"`
	// LOORMSE is the leave-one-out error (one test and all its flights
	// left out) of the mean flight of a test, m, at the last choice of
	// length scale and noise.
	LOORMSE float64 `json:"loo_rmse_m"`
	// LengthScale and NoiseSD are the last choice.
	LengthScale float64 `json:"length_scale"`
	NoiseSD     float64 `json:"noise_sd_m"`
	// Scored is how many candidates were predicted.
	Scored int `json:"candidates_scored"`
}

// DefaultClipM is the clearance above which a flight teaches the flight
// model only that it was safe: 4 m, well past the competition's 1.5 m.
const DefaultClipM = 4.0

// minFlightModelN is the fewest flights a FlightModel predicts from.
const minFlightModelN = 8

// The choices of length scale and noise variance ratio.
var (
	flightModelElls  = []float64{0.5, 0.75, 1, 1.5, 2, 3}
	flightModelNoise = []float64{0.03, 0.1, 0.3}
)

// errFlightModel is a fit that found no positive-definite kernel matrix.
var errFlightModel = errors.New("gen: flight model: kernel matrix not positive definite")

// features returns the standardised features of a test and its box count.
func (m *FlightModel) features(boxes []world.Box) ([]float64, int) {
	per := 6
	if m.Context != nil {
		per += 3
	}
	x := make([]float64, 0, 1+per*len(boxes))
	gap := contextClipM
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			gap = math.Min(gap, footprintGap(boxes[i], boxes[j]))
		}
	}
	x = append(x, gap/3)
	for _, b := range boxes {
		long, short, th := b.L, b.W, b.R
		if short > long {
			long, short, th = short, long, th+90
		}
		s, c := math.Sincos(2 * th * math.Pi / 180)
		x = append(x, b.X/4, b.Y/4, long/3, short/3, (long-short)*c/6, (long-short)*s/6)
		if m.Context != nil {
			dWP, dLeg, near := m.Context.boxContext(b)
			x = append(x, math.Min(dWP, contextClipM)/3, math.Min(dLeg, contextClipM)/3, float64(near)/2)
		}
	}
	return x, len(boxes)
}

// sqDist is the squared distance of two feature vectors of n boxes, the
// boxes of b taken in the order perm.
func sqDist(a, b []float64, n int, perm []int) float64 {
	d := a[0] - b[0]
	s := d * d
	per := (len(a) - 1) / max(n, 1)
	for i := range n {
		ai, bi := a[1+i*per:1+(i+1)*per], b[1+perm[i]*per:1+(perm[i]+1)*per]
		for k := range ai {
			d := ai[k] - bi[k]
			s += d * d
		}
	}
	return s
}

// maxPermBoxes is the most boxes whose orders are listed once (permsOf);
// the competition allows 4.
const maxPermBoxes = 4

// permTable lists the orders of 0 … maxPermBoxes boxes.
var permTable = func() [][][]int {
	t := make([][][]int, maxPermBoxes+1)
	for n := range t {
		t[n] = perms(n)
	}
	return t
}()

// permsOf returns the orders of n boxes.
func permsOf(n int) [][]int {
	if n <= maxPermBoxes {
		return permTable[n]
	}
	return perms(n)
}

// perms lists the orders of n boxes.
func perms(n int) [][]int {
	if n <= 1 {
		return [][]int{make([]int, n)}
	}
	var out [][]int
	for _, p := range perms(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := slices.Insert(slices.Clone(p), at, n-1)
			out = append(out, q)
		}
	}
	return out
}

// kern is the kernel of two tests before normalisation: the squared
// exponential averaged over the orders of b's boxes, 0 for tests with other
// numbers of boxes.
func kern(a []float64, na int, b []float64, nb int, ell float64) float64 {
	if na != nb || len(a) != len(b) {
		return 0
	}
	ps := permsOf(na)
	s := 0.0
	for _, p := range ps {
		s += math.Exp(-sqDist(a, b, na, p) / (2 * ell * ell))
	}
	// The mean over the orders; the model divides by the geometric mean of
	// the two tests' kernels with themselves, so that every test
	// correlates 1 with itself however alike its own boxes are.
	return s / float64(len(ps))
}

// Observe adds flights of a test: its boxes and each flight's minimum
// clearance (NaN and −Inf are not learnt; above ClipM counts as ClipM).
// Flights of boxes observed before join that test's. It does not refit
// (Fit).
func (m *FlightModel) Observe(boxes []world.Box, clearanceM ...float64) {
	clip := m.ClipM
	if clip == 0 {
		clip = DefaultClipM
	}
	k := fmt.Sprint(boxes)
	for _, y := range clearanceM {
		if math.IsNaN(y) || math.IsInf(y, -1) {
			continue
		}
		i, ok := m.key[k]
		if !ok {
			if m.key == nil {
				m.key = map[string]int{}
			}
			x, n := m.features(boxes)
			i = len(m.xs)
			m.key[k] = i
			m.xs, m.ns, m.sums, m.cnt = append(m.xs, x), append(m.ns, n), append(m.sums, 0), append(m.cnt, 0)
		}
		m.sums[i] += math.Min(y, clip)
		m.cnt[i]++
	}
}

// Fit refits the model on every flight observed; with fewer than a few
// flights the model predicts nothing (Ready is false), and when no kernel
// matrix can be factored it is not Ready and Fit returns the error.
func (m *FlightModel) Fit() error {
	m.ok = false
	flights := 0
	for _, c := range m.cnt {
		flights += c
	}
	n := len(m.xs)
	if flights < minFlightModelN || n < 2 {
		return nil
	}
	m.ys = make([]float64, n)
	m.mean = 0
	for i := range n {
		m.ys[i] = m.sums[i] / float64(m.cnt[i])
		m.mean += m.sums[i]
	}
	m.mean /= float64(flights)
	m.sf2 = 0
	for i, y := range m.ys {
		m.sf2 += float64(m.cnt[i]) * (y - m.mean) * (y - m.mean)
	}
	m.sf2 = math.Max(m.sf2/float64(flights), 0.01)
	if m.fitN == 0 || n >= 2*m.fitN {
		best := math.Inf(1)
		for _, ell := range flightModelElls {
			for _, nr := range flightModelNoise {
				if e, err := m.loo(n, ell, nr); err == nil && e < best {
					best, m.ell, m.noise = e, ell, nr
				}
			}
		}
		if math.IsInf(best, 1) {
			return errFlightModel
		}
		m.fitN = n
		m.Stats.LOORMSE = best
		m.Stats.LengthScale = m.ell
		m.Stats.NoiseSD = math.Sqrt(m.noise * m.sf2)
	}
	if err := m.factor(n, m.ell, m.noise); err != nil {
		return err
	}
	m.Stats.Fits++
	m.Stats.Flights, m.Stats.Tests = flights, n
	m.ok = true
	return nil
}

// factor builds and factors the kernel matrix and solves for alpha.
func (m *FlightModel) factor(n int, ell, noiseRatio float64) error {
	m.self = m.self[:0]
	for i := range n {
		m.self = append(m.self, kern(m.xs[i], m.ns[i], m.xs[i], m.ns[i], ell))
	}
	k := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := m.sf2 * kern(m.xs[i], m.ns[i], m.xs[j], m.ns[j], ell) / math.Sqrt(m.self[i]*m.self[j])
			if i == j {
				v += noiseRatio * m.sf2 / float64(m.cnt[i])
			}
			k.SetSym(i, j, v)
		}
	}
	if !m.chol.Factorize(k) {
		return errFlightModel
	}
	r := mat.NewVecDense(n, nil)
	for i, y := range m.ys {
		r.SetVec(i, y-m.mean)
	}
	var a mat.VecDense
	if err := m.chol.SolveVecTo(&a, r); err != nil {
		return err
	}
	m.alpha = slices.Clone(a.RawVector().Data)
	return nil
}

// loo is the leave-one-out RMSE of the model with length scale ell and
// noise ratio nr, a test (a row: all its flights) left out at a time:
// residual i is alpha_i / (K⁻¹)_ii.
func (m *FlightModel) loo(n int, ell, nr float64) (float64, error) {
	if err := m.factor(n, ell, nr); err != nil {
		return 0, err
	}
	var inv mat.SymDense
	if err := m.chol.InverseTo(&inv); err != nil {
		return 0, err
	}
	s := 0.0
	for i := range n {
		r := m.alpha[i] / inv.At(i, i)
		s += r * r
	}
	return math.Sqrt(s / float64(n)), nil
}

// Ready reports whether the model predicts (enough flights, fitted).
func (m *FlightModel) Ready() bool { return m.ok }

// Predict returns the predicted minimum clearance of a test and its
// standard deviation (the model's uncertainty and a flight's scatter).
func (m *FlightModel) Predict(boxes []world.Box) (mean, sd float64) {
	if !m.ok {
		return math.NaN(), math.NaN()
	}
	m.Stats.Scored++
	x, nb := m.features(boxes)
	n := len(m.ys)
	self := kern(x, nb, x, nb, m.ell)
	kv := mat.NewVecDense(n, nil)
	mean = m.mean
	for i := range n {
		v := m.sf2 * kern(x, nb, m.xs[i], m.ns[i], m.ell) / math.Sqrt(self*m.self[i])
		kv.SetVec(i, v)
		mean += v * m.alpha[i]
	}
	var w mat.VecDense
	if err := m.chol.SolveVecTo(&w, kv); err != nil {
		return mean, math.Sqrt(m.sf2 * (1 + m.noise))
	}
	v := m.sf2*(1+m.noise) - mat.Dot(kv, &w)
	return mean, math.Sqrt(math.Max(v, 1e-6))
}
