package gen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// Proposal is a test a strategy asks to have simulated.
type Proposal struct {
	Obstacles []world.Box // mission frame: what is simulated
	Canon     []world.Box // canonical frame; nil when the strategy has none
	Pred      float64     // predicted minimum clearance, m; NaN when not predicted
	Leg       int         // which of Legs.Subs proposed it; 0 outside Legs
	// Refly, when > 0, makes the proposal a confirmation: another flight
	// of the test first proposed as proposal number Refly−1 of the
	// generation (counting every proposal, re-flights included, from 0),
	// with the same Obstacles and a simulation seed of its own. It is
	// counted against the budget like any flight and recorded as another
	// flight of that test, not as a new test.
	Refly int
}

// Strategy generates tests by reverse communication: it proposes tests,
// the harness simulates them (or not) and hands back the minimum clearance
// of each, and the strategy learns from them before proposing more.
type Strategy interface {
	// Propose returns at most max tests to simulate next; none means the
	// strategy is done.
	Propose(max int) ([]Proposal, error)
	// Observe receives the simulated minimum clearance of each test of
	// the last Propose, in order.
	Observe(clearanceM []float64) error
}

// PathObserver is a Strategy that also learns where the flights went:
// ObservePaths gets, before Observe and in the same order, the path of
// each flight of the last Propose that came closer than 1.5 m and did not
// time out (positions on the competition's 0.5-s grid), nil for the
// others.
type PathObserver interface {
	ObservePaths(paths [][]geom.Vec3) error
}

// ErrObserve is returned when Observe gets a number of results that does
// not match the last proposal.
var ErrObserve = errors.New("gen: results do not match the proposals")

// Sampler draws a test: Generator.Random or Generator.Constrained.
type Sampler func(*rand.Rand) (Test, error)

// Baseline proposes tests drawn one at a time with no model: the random
// or the constrained-random generator. When Frame is set, tests are drawn
// in the canonical frame and mapped back.
type Baseline struct {
	Draw  Sampler
	Frame *Frame
	Rng   *rand.Rand
	last  int
}

var _ Strategy = (*Baseline)(nil)

// baselineRetries is how many more times a baseline draws after the
// generator gave up on a test (ErrNoTest) before it fails.
const baselineRetries = 10

// Propose draws max tests.
func (s *Baseline) Propose(max int) ([]Proposal, error) {
	out := make([]Proposal, 0, max)
	for range max {
		t, err := s.Draw(s.Rng)
		for k := 0; errors.Is(err, ErrNoTest) && k < baselineRetries; k++ {
			t, err = s.Draw(s.Rng)
		}
		if err != nil {
			return nil, err
		}
		p := Proposal{Obstacles: t.Obstacles, Pred: math.NaN()}
		if s.Frame != nil {
			p.Canon, p.Obstacles = t.Obstacles, s.Frame.MissionBoxes(t.Obstacles)
		}
		out = append(out, p)
	}
	s.last = len(out)
	return out, nil
}

// Observe checks the count; a baseline learns nothing.
func (s *Baseline) Observe(c []float64) error {
	if len(c) != s.last {
		return fmt.Errorf("%w: %d results for %d tests", ErrObserve, len(c), s.last)
	}
	s.last = 0
	return nil
}

// Refine configures active refinement (in the spirit of ARIsTEO, the
// paper's [19]): the budget is spent in Rounds rounds, and after each the
// surrogate is retrained on Base plus every test simulated so far.
type Refine struct {
	Rounds int               // ≥ 2 to refine
	Base   surrogate.Dataset // the surrogate's original training data
	// Weight repeats each simulated test this many times in the training
	// data, so that a few hundred mission tests count against thousands of
	// canonical ones; 0 means 5.
	Weight int
	Train  surrogate.Config
}

// PipelineConfig configures the surrogate-guided pipeline. Zero values mean
// the paper's settings (§IV-E, §V-A2) or Shakedown's, as named.
type PipelineConfig struct {
	// Size is the leaderboard size; 0 means the budget, the max of the
	// first Propose (the paper sets it to the simulation budget).
	Size    int
	Rounds1 int // phase-1 rounds; 0 = 100
	Rounds2 int // phase-2 rounds; 0 = 100
	// Batch is the number of candidates generated per round; 0 means 500
	// (the paper does not give it).
	Batch     int
	CriticalM float64 // predicted clearance a phase-2 candidate must not exceed; 0 = 1.5
	// Margin lowers that bound by this much, m, so that phase 2 swaps in
	// only candidates predicted critical by more than the surrogate's
	// typical error (a strategy beyond the paper; 0 = the paper's bound).
	Margin float64
	CellM  float64 // raster cell of phase 2; 0 = DefaultCellM
	// NoDiversity skips phase 2.
	NoDiversity bool
	// Refine, when set, spends the budget in rounds and retrains the
	// surrogate after each (a strategy beyond the paper).
	Refine *Refine
}

// Pipeline is the paper's surrogate-assisted generator (§IV-E): phase 1
// keeps the tests with the smallest predicted clearances out of rounds of
// constrained-random batches, phase 2 swaps in critical candidates that
// raise input diversity, and the leaderboard is proposed for simulation
// (phase 3).
type Pipeline struct {
	Config PipelineConfig
	Frame  Frame
	Gen    Generator // draws in the canonical frame (Frame.Generator)
	Model  Predictor
	Rng    *rand.Rand
	// Feasible, if not nil, must accept a test's obstacles in the mission
	// frame (scenario.Feasibility) before it may enter the leaderboard. It
	// is asked only about candidates predicted close enough to enter, the
	// few of each batch, since it costs far more than a prediction.
	Feasible func([]world.Box) bool

	// Stats of the last leaderboard built.
	Stats PipelineStats

	roundsLeft int
	last       []Proposal
	extra      surrogate.Dataset
	proposed   int
	started    bool
}

// PipelineStats describe the last leaderboard built.
type PipelineStats struct {
	Candidates   int     // generated and predicted
	Replacements int     // phase-2 replacements
	Diversity1   float64 // raster input diversity after phase 1
	Diversity2   float64 // after phase 2
	Retrains     int
	// Infeasible counts the candidates that would have entered the
	// leaderboard but fail Feasible.
	Infeasible int
	// NoTest counts the draws the generator gave up (ErrNoTest).
	NoTest int
}

var _ Strategy = (*Pipeline)(nil)

func (p *Pipeline) defaults() PipelineConfig {
	c := p.Config
	if c.Rounds1 == 0 {
		c.Rounds1 = 100
	}
	if c.Rounds2 == 0 {
		c.Rounds2 = 100
	}
	if c.Batch == 0 {
		c.Batch = 500
	}
	if c.CriticalM == 0 {
		c.CriticalM = 1.5
	}
	return c
}

// batch draws n candidates and predicts them; those predicted below
// enter that Feasible rejects get +Inf, so that no phase keeps them.
func (p *Pipeline) batch(n int, xs []surrogate.Features, preds []float64, enter float64) ([]Candidate, error) {
	out := make([]Candidate, n)
	xs = xs[:n]
	failed := make([]bool, n)
	for i := range out {
		t, err := p.Gen.Constrained(p.Rng)
		switch {
		case errors.Is(err, ErrNoTest):
			// A zone that hardly holds a test (a leg grazing the area)
			// gives up now and then: the candidate is lost, not the run.
			failed[i] = true
			continue
		case err != nil:
			return nil, err
		}
		out[i].Canon = t.Obstacles
		xs[i] = Features(t.Obstacles)
	}
	p.Model.PredictBatch(preds[:n], xs)
	for i := range out {
		if failed[i] {
			out[i].Pred = math.Inf(1)
			p.Stats.NoTest++
			continue
		}
		out[i].Pred = preds[i]
		if p.Feasible != nil && out[i].Pred < enter && !p.Feasible(p.Frame.MissionBoxes(out[i].Canon)) {
			out[i].Pred = math.Inf(1)
			p.Stats.Infeasible++
		}
	}
	p.Stats.Candidates += n
	return out, nil
}

// Leaderboard runs phases 1 and 2 for a leaderboard of size tests.
func (p *Pipeline) Leaderboard(size int) ([]Candidate, error) {
	c := p.defaults()
	if size <= 0 {
		return nil, nil
	}
	if p.Model == nil {
		return nil, errors.New("gen: pipeline without a model")
	}
	xs := make([]surrogate.Features, c.Batch)
	preds := make([]float64, c.Batch)
	// When refining, each round builds its share of the leaderboard from
	// its share of the rounds, so that the selection is as strict as the
	// paper's and the cost the same.
	if r := c.Refine; r != nil && r.Rounds > 1 {
		c.Rounds1 = max(1, (c.Rounds1+r.Rounds-1)/r.Rounds)
		c.Rounds2 = max(1, (c.Rounds2+r.Rounds-1)/r.Rounds)
	}
	var lb []Candidate
	for range c.Rounds1 {
		enter := math.Inf(1)
		if len(lb) == size {
			enter = lb[size-1].Pred
		}
		cands, err := p.batch(c.Batch, xs, preds, enter)
		if err != nil {
			return nil, err
		}
		lb = KeepClosest(lb, cands, size)
	}
	// Too few feasible candidates leave rejected ones at the end.
	for len(lb) > 0 && math.IsInf(lb[len(lb)-1].Pred, 1) {
		lb = lb[:len(lb)-1]
	}
	d := NewDiversifier(lb, p.Frame.Canon, c.CellM)
	p.Stats.Diversity1 = d.Diversity()
	if !c.NoDiversity {
		for range c.Rounds2 {
			cands, err := p.batch(c.Batch, xs, preds, math.Nextafter(c.CriticalM-c.Margin, math.Inf(1)))
			if err != nil {
				return nil, err
			}
			if d.Offer(cands, c.CriticalM-c.Margin) {
				p.Stats.Replacements++
			}
		}
	}
	p.Stats.Diversity2 = d.Diversity()
	return d.Tests, nil
}

// Propose builds the leaderboard and proposes it: all of it at once, or,
// when refining, the next round's share of what is left of it.
func (p *Pipeline) Propose(max int) ([]Proposal, error) {
	if !p.started {
		p.started = true
		if p.Config.Size == 0 {
			p.Config.Size = max
		}
		p.roundsLeft = 1
		if r := p.Config.Refine; r != nil && r.Rounds > 1 {
			p.roundsLeft = r.Rounds
		}
	}
	n := min(max, p.Config.Size-p.proposed)
	if p.roundsLeft == 0 || n <= 0 {
		return nil, nil
	}
	n = (n + p.roundsLeft - 1) / p.roundsLeft
	p.roundsLeft--
	lb, err := p.Leaderboard(n)
	if err != nil {
		return nil, err
	}
	p.last = p.last[:0]
	for _, t := range lb {
		p.last = append(p.last, Proposal{Obstacles: p.Frame.MissionBoxes(t.Canon), Canon: t.Canon, Pred: t.Pred})
	}
	p.proposed += len(p.last)
	return p.last, nil
}

// Observe records the results and, when refining with rounds left,
// retrains the surrogate on them.
func (p *Pipeline) Observe(clearanceM []float64) error {
	if len(clearanceM) != len(p.last) {
		return fmt.Errorf("%w: %d results for %d tests", ErrObserve, len(clearanceM), len(p.last))
	}
	r := p.Config.Refine
	if r == nil || p.roundsLeft == 0 {
		return nil
	}
	w := r.Weight
	if w == 0 {
		w = 5
	}
	for i, pr := range p.last {
		for range w {
			p.extra.X = append(p.extra.X, Features(pr.Canon))
			p.extra.Y = append(p.extra.Y, clearanceM[i])
		}
	}
	m, err := surrogate.Train(r.Base.Append(p.extra), r.Train)
	if err != nil {
		return fmt.Errorf("gen: retraining: %w", err)
	}
	p.Model = m
	p.Stats.Retrains++
	return nil
}
