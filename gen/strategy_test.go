package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// fakeModel predicts obstacle 1's lateral distance from the canonical leg
// (x = −5) minus its half size: small for tests that block the path.
type fakeModel struct{}

func (fakeModel) PredictBatch(dst []float64, xs []surrogate.Features) {
	for i, x := range xs {
		dst[i] = math.Abs(x[2]+5) - math.Max(x[0], x[1])/2 + 1
	}
}

func drawTests(t *testing.T, n int, seed uint64) [][]world.Box {
	t.Helper()
	g := newGen()
	rng := rand.New(rand.NewPCG(seed, 1))
	var out [][]world.Box
	for range n {
		tc, err := g.Constrained(rng)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tc.Obstacles)
	}
	return out
}

// The raster's input diversity agrees with the exact polygon one.
func TestDiversityRaster(t *testing.T) {
	tests := drawTests(t, 40, 3)
	var lb []Candidate
	for _, b := range tests {
		lb = append(lb, Candidate{Canon: b})
	}
	d := NewDiversifier(lb, world.DefaultArea, 0)
	exact, err := InputDiversity(tests)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Diversity(); math.Abs(got-exact) > 0.02*exact {
		t.Errorf("raster diversity %.3f; want %.3f (exact) within 2 %%", got, exact)
	}
}

// Every replacement Offer makes raises the diversity, its incremental
// bookkeeping matches a diversifier rebuilt from scratch, and candidates
// predicted above the bound are never taken.
func TestDiversifierOffer(t *testing.T) {
	tests := drawTests(t, 200, 4)
	var lb []Candidate
	for _, b := range tests[:30] {
		lb = append(lb, Candidate{Canon: b, Pred: 0.5})
	}
	d := NewDiversifier(lb, world.DefaultArea, 0.25)
	replaced := 0
	for r := range 17 {
		var cands []Candidate
		for k, b := range tests[30+10*r : 40+10*r] {
			cands = append(cands, Candidate{Canon: b, Pred: float64(k) * 0.3}) // half above 1.5
		}
		before := d.Diversity()
		if d.Offer(cands, 1.5) {
			replaced++
			if after := d.Diversity(); !(after > before) {
				t.Fatalf("round %d: diversity %.4f → %.4f; want a rise", r, before, after)
			}
		}
		for _, c := range d.Tests {
			if c.Pred > 1.5 {
				t.Fatalf("round %d: a candidate predicted %.1f m was taken", r, c.Pred)
			}
		}
		fresh := NewDiversifier(d.Tests, world.DefaultArea, 0.25)
		if got, want := d.Diversity(), fresh.Diversity(); math.Abs(got-want) > 1e-9*want {
			t.Fatalf("round %d: incremental diversity %.6f; want %.6f (rebuilt)", r, got, want)
		}
		if !slices.Equal(d.cov.uniq, fresh.cov.uniq) || d.cov.union != fresh.cov.union {
			t.Fatalf("round %d: coverage bookkeeping differs from a rebuild", r)
		}
	}
	if replaced == 0 {
		t.Error("no replacement in 17 rounds")
	}
}

func TestKeepClosest(t *testing.T) {
	lb := KeepClosest(nil, []Candidate{{Pred: 3}, {Pred: 1}, {Pred: 2}}, 2)
	lb = KeepClosest(lb, []Candidate{{Pred: 1.5}, {Pred: 0.5}}, 2)
	got := []float64{lb[0].Pred, lb[1].Pred}
	if !slices.Equal(got, []float64{0.5, 1}) {
		t.Errorf("got %v; want [0.5 1]", got)
	}
}

func canonicalFrame(t *testing.T) Frame {
	t.Helper()
	cs, _ := scenario.Builtin("mission2")
	f, err := NewFrame(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The pipeline proposes a leaderboard of the budget's size, of valid
// tests predicted critical, the same for the same seed.
func TestPipeline(t *testing.T) {
	f := canonicalFrame(t)
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	mk := func(seed uint64) *Pipeline {
		return &Pipeline{Config: PipelineConfig{Rounds1: 10, Rounds2: 10, Batch: 50}, Frame: f, Gen: f.Generator(valid),
			Model: fakeModel{}, Rng: rand.New(rand.NewPCG(seed, 2))}
	}
	p := mk(1)
	props, err := p.Propose(20)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 20 {
		t.Fatalf("got %d proposals; want 20", len(props))
	}
	for i, pr := range props {
		if err := scenario.DefaultRules.Check(pr.Obstacles); err != nil {
			t.Errorf("proposal %d: %v", i, err)
		}
		if pr.Pred > 1.5 {
			t.Errorf("proposal %d predicted %.2f m; want critical", i, pr.Pred)
		}
	}
	if p.Stats.Candidates != 1000 {
		t.Errorf("got %d candidates; want 20 rounds × 50", p.Stats.Candidates)
	}
	if err := p.Observe(make([]float64, 3)); err == nil {
		t.Error("Observe with the wrong count: no error")
	}
	if err := p.Observe(make([]float64, 20)); err != nil {
		t.Fatal(err)
	}
	if more, _ := p.Propose(20); len(more) != 0 {
		t.Errorf("a second Propose returned %d tests; want none", len(more))
	}
	again, _ := mk(1).Propose(20)
	for i := range props {
		if !slices.Equal(props[i].Obstacles, again[i].Obstacles) {
			t.Fatalf("proposal %d differs for the same seed", i)
		}
	}
}

// Refinement spends the budget in rounds and retrains after each.
func TestPipelineRefine(t *testing.T) {
	f := canonicalFrame(t)
	base := surrogate.Dataset{}
	rng := rand.New(rand.NewPCG(3, 3))
	g := f.Generator(nil)
	for range 60 {
		tc, _ := g.Constrained(rng)
		x := Features(tc.Obstacles)
		base.X = append(base.X, x)
		base.Y = append(base.Y, math.Abs(x[2]+5))
	}
	m, err := surrogate.Train(base, surrogate.Config{Seed: 1, Epochs: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{Config: PipelineConfig{Rounds1: 4, Rounds2: 4, Batch: 30, Refine: &Refine{Rounds: 3, Base: base, Train: surrogate.Config{Seed: 1, Epochs: 2}}},
		Frame: f, Gen: g, Model: m, Rng: rand.New(rand.NewPCG(4, 4))}
	var sizes []int
	left := 10
	for left > 0 {
		props, err := p.Propose(left)
		if err != nil {
			t.Fatal(err)
		}
		if len(props) == 0 {
			break
		}
		sizes = append(sizes, len(props))
		left -= len(props)
		if err := p.Observe(make([]float64, len(props))); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(sizes, []int{4, 3, 3}) {
		t.Errorf("round sizes %v; want [4 3 3]", sizes)
	}
	if p.Stats.Retrains != 2 {
		t.Errorf("%d retrainings; want 2 (none after the last round)", p.Stats.Retrains)
	}
}

func TestBaseline(t *testing.T) {
	f := canonicalFrame(t)
	b := &Baseline{Draw: f.Generator(nil).Constrained, Frame: &f, Rng: rand.New(rand.NewPCG(1, 1))}
	props, err := b.Propose(5)
	if err != nil || len(props) != 5 {
		t.Fatalf("got %d proposals, %v; want 5", len(props), err)
	}
	for _, p := range props {
		if !math.IsNaN(p.Pred) || p.Canon == nil {
			t.Errorf("proposal %+v: want no prediction and canonical boxes", p)
		}
		if err := scenario.DefaultRules.Check(p.Obstacles); err != nil {
			t.Error(err)
		}
	}
	if err := b.Observe(make([]float64, 5)); err != nil {
		t.Error(err)
	}
}

// BenchmarkLeaderboard measures phases 1 and 2 of the paper's pipeline
// (100 + 100 rounds of 500 candidates, leaderboard 100) with a stand-in
// model on mission2.
func BenchmarkLeaderboard(b *testing.B) {
	cs, _ := scenario.Builtin("mission2")
	f, _ := NewFrame(cs.Mission.Path(), world.DefaultArea)
	valid := func(bs []world.Box) bool { return scenario.DefaultRules.Check(bs) == nil }
	b.ReportAllocs()
	for b.Loop() {
		p := &Pipeline{Frame: f, Gen: f.Generator(valid), Model: fakeModel{}, Rng: rand.New(rand.NewPCG(1, 2))}
		if _, err := p.Leaderboard(100); err != nil {
			b.Fatal(err)
		}
	}
}

// Phase 2 swaps in only candidates predicted below CriticalM − Margin: the
// tests of the final leaderboard that phase 1 did not choose are all
// predicted below the lowered bound.
func TestPipelineMargin(t *testing.T) {
	f := canonicalFrame(t)
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	leaderboard := func(margin float64, noDiversity bool) ([]Candidate, PipelineStats) {
		p := &Pipeline{Config: PipelineConfig{Rounds1: 2, Rounds2: 40, Batch: 50, Margin: margin, NoDiversity: noDiversity},
			Frame: f, Gen: f.Generator(valid), Model: fakeModel{}, Rng: rand.New(rand.NewPCG(3, 4))}
		lb, err := p.Leaderboard(20)
		if err != nil {
			t.Fatal(err)
		}
		return lb, p.Stats
	}
	phase1, _ := leaderboard(0, true)
	key := func(c Candidate) [2]world.Box { return [2]world.Box{c.Canon[0], c.Canon[1]} }
	chosen := map[[2]world.Box]bool{}
	for _, c := range phase1 {
		chosen[key(c)] = true
	}
	for _, margin := range []float64{0, 0.6, 1.2} {
		lb, st := leaderboard(margin, false)
		swapped := 0
		for _, c := range lb {
			if chosen[key(c)] {
				continue
			}
			swapped++
			if c.Pred > 1.5-margin {
				t.Errorf("margin %v: swapped in a test predicted %.3f m; want at most %.3f", margin, c.Pred, 1.5-margin)
			}
		}
		if margin == 0 && (swapped == 0 || st.Replacements == 0) {
			t.Errorf("margin 0: %d tests swapped in, %d replacements; want some (the test would prove nothing)", swapped, st.Replacements)
		}
		t.Logf("margin %v: %d replacements, %d new tests", margin, st.Replacements, swapped)
	}
}

// Candidates Feasible rejects never reach the leaderboard, in either
// phase, and are counted.
func TestPipelineFeasible(t *testing.T) {
	f := canonicalFrame(t)
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	feasible := func(b []world.Box) bool { return b[0].Y >= 25 } // a stand-in rule: half the zone
	p := &Pipeline{Config: PipelineConfig{Rounds1: 10, Rounds2: 10, Batch: 50}, Frame: f, Gen: f.Generator(valid),
		Model: fakeModel{}, Rng: rand.New(rand.NewPCG(1, 2)), Feasible: feasible}
	props, err := p.Propose(20)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 20 {
		t.Fatalf("got %d proposals; want 20", len(props))
	}
	for i, pr := range props {
		if !feasible(pr.Obstacles) {
			t.Errorf("proposal %d %v: rejected by Feasible", i, pr.Obstacles)
		}
	}
	if p.Stats.Infeasible == 0 {
		t.Error("no candidate counted infeasible")
	}
}

// BenchmarkPipelineCandidates measures the pipeline's search: candidates
// drawn, checked against the rules and predicted (the paper's surrogate
// architecture, trained briefly), the feasibility of those that would
// enter the leaderboard checked, per second.
func BenchmarkPipelineCandidates(b *testing.B) {
	cs, _ := scenario.Builtin("mission2")
	f, err := NewFrame(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		b.Fatal(err)
	}
	g := f.Generator(nil)
	rng := rand.New(rand.NewPCG(1, 1))
	var d surrogate.Dataset
	for range 300 {
		tc, _ := g.Constrained(rng)
		x := Features(tc.Obstacles)
		d.X = append(d.X, x)
		d.Y = append(d.Y, math.Abs(x[2]+5))
	}
	m, err := surrogate.Train(d, surrogate.Config{Seed: 1, Epochs: 2})
	if err != nil {
		b.Fatal(err)
	}
	valid := func(bx []world.Box) bool { return scenario.DefaultRules.Check(bx) == nil }
	feas := scenario.Feasibility{WaypointM: scenario.GenerationWaypointM}
	b.ReportAllocs()
	cands := 0
	for b.Loop() {
		p := &Pipeline{Config: PipelineConfig{Rounds1: 5, Rounds2: 5, Batch: 500}, Frame: f, Gen: f.Generator(valid), Model: m,
			Rng: rand.New(rand.NewPCG(1, 2)), Feasible: func(bx []world.Box) bool { return feas.Feasible(cs.Mission, bx) }}
		if _, err := p.Leaderboard(100); err != nil {
			b.Fatal(err)
		}
		cands += p.Stats.Candidates
	}
	b.ReportMetric(float64(cands)/b.Elapsed().Seconds(), "candidates/s")
}

// A zone the generator can hardly place a test in (8 m × 8 m: two boxes
// and a passage rarely fit) loses candidates, not the run: the pipeline
// still proposes tests, all of them drawn.
func TestPipelineNoTest(t *testing.T) {
	f := canonicalFrame(t)
	f.Canon = world.Area{MinX: -9, MaxX: -1, MinY: 20, MaxY: 28}
	g := f.Generator(nil)
	g.MaxTries = 100
	p := &Pipeline{Config: PipelineConfig{Rounds1: 4, Rounds2: 2, Batch: 50}, Frame: f, Gen: g, Model: fakeModel{}, Rng: rand.New(rand.NewPCG(1, 2))}
	props, err := p.Propose(5)
	if err != nil {
		t.Fatal(err)
	}
	if p.Stats.NoTest == 0 || len(props) == 0 {
		t.Fatalf("%d draws given up, %d proposals; want some of each", p.Stats.NoTest, len(props))
	}
	for i, pr := range props {
		if len(pr.Canon) != 2 || math.IsInf(pr.Pred, 1) {
			t.Errorf("proposal %d: %v predicted %v; want a drawn test", i, pr.Canon, pr.Pred)
		}
	}
}
