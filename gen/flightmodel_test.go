package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// An L-shaped mission: (0, 0) → (0, 50) → (30, 50).
var lPath = []geom.Vec3{{X: 0, Y: 0, Z: -10}, {X: 0, Y: 50, Z: -10}, {X: 30, Y: 50, Z: -10}}

func TestFlightContextFeatures(t *testing.T) {
	c := &FlightContext{Path: lPath}
	for _, tc := range []struct {
		name      string
		b         world.Box
		dWP, dLeg float64
		near      int
	}{
		// x 2..4, y 24..26: 2 m beside leg 1, 24 m below leg 2.
		{"beside leg 1", world.Box{L: 2, W: 2, H: 20, X: 3, Y: 25}, math.Hypot(2, 24), 2, 1},
		// x 2..6, y 44..48: 2 m from both legs, near the turn.
		{"inside the turn", world.Box{L: 4, W: 4, H: 20, X: 4, Y: 46}, math.Hypot(2, 2), 2, 2},
		// Across leg 1.
		{"across leg 1", world.Box{L: 6, W: 2, H: 20, X: 0, Y: 20}, 19, 0, 1},
		// On the turn's waypoint.
		{"on the turn", world.Box{L: 2, W: 2, H: 20, X: 0, Y: 50}, 0, 0, 2},
		// Turned by 90°: the same footprint as L and W swapped.
		{"turned", world.Box{L: 2, W: 6, H: 20, X: 0, Y: 20, R: 90}, 19, 0, 1},
	} {
		dWP, dLeg, near := c.boxContext(tc.b)
		if math.Abs(dWP-tc.dWP) > 1e-9 || math.Abs(dLeg-tc.dLeg) > 1e-9 || near != tc.near {
			t.Errorf("%s: waypoint %.4f m, leg %.4f m, %d legs near; want %.4f, %.4f, %d", tc.name, dWP, dLeg, near, tc.dWP, tc.dLeg, tc.near)
		}
	}
}

// clearanceNear stands in for a simulator: a test comes as close as its
// first box's footprint is to the point (3, 25), but no closer than 0.2 m.
func clearanceNear(boxes []world.Box) float64 {
	return math.Max(0.2, boxes[0].Distance(geom.Vec2{X: 3, Y: 25}))
}

func randomPair(rng *rand.Rand) []world.Box {
	return []world.Box{
		{L: 2 + 6*rng.Float64(), W: 2 + 6*rng.Float64(), H: 20, X: 12*rng.Float64() - 3, Y: 15 + 20*rng.Float64(), R: 90 * rng.Float64()},
		{L: 2 + 6*rng.Float64(), W: 2 + 6*rng.Float64(), H: 20, X: -20 + 5*rng.Float64(), Y: 10 + 30*rng.Float64(), R: 90 * rng.Float64()},
	}
}

func TestFlightModelLearns(t *testing.T) {
	for _, ctx := range []*FlightContext{nil, {Path: lPath}} {
		m := &FlightModel{Context: ctx}
		rng := rand.New(rand.NewPCG(1, 2))
		var train [][]world.Box
		for range 7 {
			b := randomPair(rng)
			train = append(train, b)
			m.Observe(b, clearanceNear(b))
		}
		if err := m.Fit(); err != nil {
			t.Fatal(err)
		}
		if m.Ready() {
			t.Fatal("ready after 7 flights; want at least 8")
		}
		if mu, sd := m.Predict(train[0]); !math.IsNaN(mu) || !math.IsNaN(sd) {
			t.Fatalf("predicts %v ± %v before it is ready", mu, sd)
		}
		for range 113 {
			b := randomPair(rng)
			train = append(train, b)
			m.Observe(b, clearanceNear(b), math.NaN()) // a NaN flight is not learnt
		}
		if err := m.Fit(); err != nil {
			t.Fatal(err)
		}
		if !m.Ready() || m.Stats.Flights != 120 {
			t.Fatalf("ready %v on %d flights; want ready on 120", m.Ready(), m.Stats.Flights)
		}
		// Fresh tests: the model beats the flights' mean by far.
		var se, sv, mean float64
		var ys []float64
		for range 200 {
			ys = append(ys, clearanceNear(randomPair(rng)))
		}
		for _, y := range ys {
			mean += y / float64(len(ys))
		}
		for range 200 {
			b := randomPair(rng)
			mu, sd := m.Predict(b)
			if !(sd > 0) {
				t.Fatalf("sd %v", sd)
			}
			y := math.Min(clearanceNear(b), DefaultClipM)
			se += (mu - y) * (mu - y)
			sv += (mean - y) * (mean - y)
		}
		rmse, base := math.Sqrt(se/200), math.Sqrt(sv/200)
		if !(rmse < 0.6*base) {
			t.Errorf("context %v: RMSE %.2f m on fresh tests, the mean's %.2f m: the model learnt little", ctx != nil, rmse, base)
		}
		if !(m.Stats.LOORMSE > 0 && m.Stats.LOORMSE < base) {
			t.Errorf("context %v: leave-one-out RMSE %.2f m, the mean's %.2f m", ctx != nil, m.Stats.LOORMSE, base)
		}
		// The order of the boxes does not matter.
		b := train[5]
		mu1, sd1 := m.Predict(b)
		mu2, sd2 := m.Predict([]world.Box{b[1], b[0]})
		if math.Abs(mu1-mu2) > 1e-9 || math.Abs(sd1-sd2) > 1e-9 {
			t.Errorf("boxes swapped: %v ± %v against %v ± %v", mu2, sd2, mu1, sd1)
		}
		// A box turned by 180°, or with its sides swapped and turned by
		// 90°, is the same box.
		t1 := []world.Box{b[0], b[1]}
		t1[0].L, t1[0].W, t1[0].R = b[0].W, b[0].L, b[0].R+90
		if mu3, _ := m.Predict(t1); math.Abs(mu3-mu1) > 1e-9 {
			t.Errorf("sides swapped and turned by 90°: %v against %v", mu3, mu1)
		}
		// The standard score below 1.2 m (the search's ranking) follows the
		// prediction.
		near := []world.Box{{L: 2, W: 2, H: 20, X: 3, Y: 25}, b[1]}
		far := []world.Box{{L: 2, W: 2, H: 20, X: 9, Y: 38}, b[1]}
		mn, sn := m.Predict(near)
		mf, sf := m.Predict(far)
		pn, pf := (1.2-mn)/sn, (1.2-mf)/sf
		if !(pn > pf && mn < mf-1) {
			t.Errorf("context %v: box on the point: z %.2f (%.2f m); 14 m off: z %.2f (%.2f m)", ctx != nil, pn, mn, pf, mf)
		}
	}
}

// TestSearchScreensMutants: with its flight model the search's mutants
// come closer than without, on a simulator whose clearance is smooth in
// the boxes.
func TestSearchScreensMutants(t *testing.T) {
	f := canonicalFrame(t)
	valid := func([]world.Box) bool { return true }
	fly := func(b []world.Box) float64 { return math.Max(0.2, b[0].Distance(geom.Vec2{X: -3, Y: 26})) }
	mutantMean := func(model *FlightModel, seed uint64) (mean float64, preds int) {
		inner := &Baseline{Draw: f.Generator(valid).Constrained, Frame: &f, Rng: rand.New(rand.NewPCG(seed, 1))}
		s := &Search{Inner: inner, Valid: valid, Model: model, Rng: rand.New(rand.NewPCG(seed, 2))}
		n, sum, flown := 0, 0.0, 0
		for flown < 120 {
			ps, err := s.Propose(120 - flown)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) == 0 {
				break
			}
			d := make([]float64, len(ps))
			for i, p := range ps {
				d[i] = fly(p.Obstacles)
				if p.Refly == 0 && flown >= s.Config.SeedCount(120) {
					n++
					sum += d[i]
					if !math.IsNaN(p.Pred) {
						preds++
					}
				}
			}
			flown += len(ps)
			if err := s.Observe(d); err != nil {
				t.Fatal(err)
			}
		}
		return sum / float64(max(n, 1)), preds
	}
	var with, without float64
	for seed := uint64(1); seed <= 6; seed++ {
		m := &FlightModel{}
		a, preds := mutantMean(m, seed)
		b, none := mutantMean(nil, seed)
		if preds == 0 || none != 0 {
			t.Fatalf("seed %d: %d mutants predicted with the model, %d without", seed, preds, none)
		}
		if m.Stats.Scored == 0 || m.Stats.Fits == 0 {
			t.Fatalf("seed %d: the model was fitted %d times and scored %d mutants", seed, m.Stats.Fits, m.Stats.Scored)
		}
		t.Logf("seed %d: %.2f m with, %.2f m without", seed, a, b)
		with += a / 6
		without += b / 6
	}
	if !(with < 0.9*without) {
		t.Errorf("mutants' mean clearance %.2f m with the flight model, %.2f m without", with, without)
	}
}

// BenchmarkFlightModelPredict: one mutant scored by a context model fitted
// on 150 flights (a search's at budget 200); candidates/s is reported.
func BenchmarkFlightModelPredict(b *testing.B) {
	m := &FlightModel{Context: &FlightContext{Path: lPath}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 150 {
		t := randomPair(rng)
		m.Observe(t, clearanceNear(t))
	}
	if err := m.Fit(); err != nil {
		b.Fatal(err)
	}
	tests := make([][]world.Box, 64)
	for i := range tests {
		tests[i] = randomPair(rng)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.Predict(tests[i%len(tests)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "candidates/s")
}

// BenchmarkFlightModelFit: a refit on 150 flights with the choice of
// length scale and noise (the costliest fit of a search at budget 200).
func BenchmarkFlightModelFit(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tests [][]world.Box
	for range 150 {
		tests = append(tests, randomPair(rng))
	}
	b.ReportAllocs()
	for b.Loop() {
		m := &FlightModel{Context: &FlightContext{Path: lPath}}
		for _, t := range tests {
			m.Observe(t, clearanceNear(t))
		}
		if err := m.Fit(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFlightModelRows: the flights of one test are one row of the model,
// whose prediction there follows their mean; what is not a clearance is
// not learnt; a box turned by 180° is the same box; the same flights give
// the same bits.
func TestFlightModelRows(t *testing.T) {
	build := func() *FlightModel {
		m := &FlightModel{Context: &FlightContext{Path: lPath}}
		rng := rand.New(rand.NewPCG(3, 4))
		for range 30 {
			b := randomPair(rng)
			m.Observe(b, clearanceNear(b))
		}
		rep := []world.Box{{L: 2, W: 3, H: 20, X: 3, Y: 25, R: 10}, {L: 5, W: 4, H: 20, X: -18, Y: 30, R: 40}}
		m.Observe(rep, 0.4, 0.5)
		m.Observe(rep, 0.6, math.NaN(), math.Inf(-1))
		m.Observe(slices.Clone(rep), 0.5) // the same boxes in another slice
		if err := m.Fit(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := build()
	if m.Stats.Tests != 31 || m.Stats.Flights != 34 {
		t.Fatalf("%d tests, %d flights; want 31 and 34", m.Stats.Tests, m.Stats.Flights)
	}
	rep := []world.Box{{L: 2, W: 3, H: 20, X: 3, Y: 25, R: 10}, {L: 5, W: 4, H: 20, X: -18, Y: 30, R: 40}}
	mu, sd := m.Predict(rep)
	if math.Abs(mu-0.5) > 0.3 {
		t.Errorf("a test flown 4 times at 0.4–0.6 m predicted at %.2f m", mu)
	}
	turned := slices.Clone(rep)
	turned[0].R += 180
	mu2, sd2 := m.Predict(turned)
	if math.Abs(mu2-mu) > 1e-9 || math.Abs(sd2-sd) > 1e-9 {
		t.Errorf("turned by 180°: %v ± %v against %v ± %v", mu2, sd2, mu, sd)
	}
	again := build()
	if a, b := again.Predict(rep); a != mu || b != sd {
		t.Errorf("the same flights: %v ± %v, then %v ± %v", mu, sd, a, b)
	}
}

// TestFlightModelLeaveOneOut: the closed-form leave-one-out residuals are
// those of refitting without each test.
func TestFlightModelLeaveOneOut(t *testing.T) {
	m := &FlightModel{}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		b := randomPair(rng)
		m.Observe(b, clearanceNear(b), clearanceNear(b)+0.1)
	}
	if err := m.Fit(); err != nil {
		t.Fatal(err)
	}
	n := len(m.xs)
	closed, err := m.loo(n, m.ell, m.noise)
	if err != nil {
		t.Fatal(err)
	}
	se := 0.0
	for i := range n {
		o := &FlightModel{mean: m.mean, sf2: m.sf2, ell: m.ell, noise: m.noise, ok: true}
		for j := range n {
			if j != i {
				o.xs, o.ns, o.cnt = append(o.xs, m.xs[j]), append(o.ns, m.ns[j]), append(o.cnt, m.cnt[j])
				o.ys = append(o.ys, m.ys[j])
			}
		}
		if err := o.factor(n-1, o.ell, o.noise); err != nil {
			t.Fatal(err)
		}
		// Predict without the features step: the row's own features.
		self := kern(m.xs[i], m.ns[i], m.xs[i], m.ns[i], o.ell)
		mu := o.mean
		for j := range n - 1 {
			mu += o.sf2 * kern(m.xs[i], m.ns[i], o.xs[j], o.ns[j], o.ell) / math.Sqrt(self*o.self[j]) * o.alpha[j]
		}
		se += (mu - m.ys[i]) * (mu - m.ys[i])
	}
	if explicit := math.Sqrt(se / float64(n)); math.Abs(explicit-closed) > 1e-6 {
		t.Errorf("leave-one-out RMSE %.6f m closed form, %.6f m refitted", closed, explicit)
	}
}
