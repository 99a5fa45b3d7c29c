package gen

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/shakedown-robotics/shakedown/world"
)

// LocalConfig configures the local search. Zero values mean the defaults
// named.
type LocalConfig struct {
	// SeedShare is the share of the budget spent on the inner strategy
	// before the search turns to mutants; 0 = DefaultSeedShare.
	SeedShare float64
	// Round is how many mutants are proposed between observations; 0 =
	// a tenth of the budget, at least 5.
	Round int
	// CriticalM is the clearance under which a flown test is a failure to
	// search around; 0 = 1.5 m.
	CriticalM float64
	MutantConfig
}

// MutantConfig bounds the mutants of a search around failures (Local's
// and Search's). Zero values mean the defaults named.
type MutantConfig struct {
	// MaxIoU is the diversity constraint: a mutant whose footprint union
	// overlaps that of any test already proposed by more than this (IoU)
	// is discarded; 0 = 0.5. The 2025 competition drops tests with IoU 1
	// and scores 1 − the mean IoU.
	MaxIoU float64
	// MaxChildren bounds the mutants of one parent, so that the search
	// spreads over the failures found; 0 = 4.
	MaxChildren int
	// Tries bounds the draws for one mutant; 0 = 200.
	Tries int
}

func (c MutantConfig) withDefaults() MutantConfig {
	if c.MaxIoU == 0 {
		c.MaxIoU = 0.5
	}
	if c.MaxChildren == 0 {
		c.MaxChildren = 4
	}
	if c.Tries == 0 {
		c.Tries = 200
	}
	return c
}

// DefaultSeedShare is the share of the budget the local search spends on
// its inner strategy: enough tests of the pipeline to find failures on
// every leg, the rest kept for the search around them.
const DefaultSeedShare = 0.3

// SeedCount is how many of budget tests the search takes from its inner
// strategy.
func (c LocalConfig) SeedCount(budget int) int {
	return int(math.Round(c.withDefaults(budget).SeedShare * float64(budget)))
}

func (c LocalConfig) withDefaults(budget int) LocalConfig {
	if c.SeedShare == 0 {
		c.SeedShare = DefaultSeedShare
	}
	if c.Round == 0 {
		c.Round = max(5, budget/10)
	}
	if c.CriticalM == 0 {
		c.CriticalM = 1.5
	}
	c.MutantConfig = c.MutantConfig.withDefaults()
	return c
}

// Local is a search beyond the paper that spends the simulator's
// cheapness where the surrogate cannot help: it seeds with the inner
// strategy (the paper's pipeline, say) and then, round by round, flies
// mutants of the failures found so far, every mutant a small change of a
// parent's boxes (position, size, rotation) that keeps the rules
// (Valid) and is not too like any test already flown (MaxIoU), with at
// most MaxChildren mutants a parent, the closest parents first. While no
// failure is known it climbs from the closest tests flown. Mutants keep
// their parent's Leg, so legs where failures are found get more of the
// budget.
type Local struct {
	Config LocalConfig
	Inner  Strategy
	// Valid must accept a mutant's boxes (mission frame): the rules and the
	// mission's feasibility.
	Valid func([]world.Box) bool
	// IoU returns the IoU of the footprint unions of two tests; nil =
	// RasterIoU on 0.2-m cells (score.BoxIoU is exact and far slower).
	IoU func(a, b []world.Box) (float64, error)
	Rng *rand.Rand

	// Stats of the search.
	Stats LocalStats

	cfg       LocalConfig
	budget    int
	seeded    bool
	innerDone bool
	flown     []localTest
	last      []Proposal
	lastInner int // how many of last came from Inner
}

// LocalStats describe a local search.
type LocalStats struct {
	Seeds    int `json:"seeds"`    // tests of the inner strategy
	Mutants  int `json:"mutants"`  // mutants proposed
	Rejected int `json:"rejected"` // mutant draws refused by the rules, feasibility or the diversity constraint
}

type localTest struct {
	p          Proposal
	clearanceM float64
	children   int
}

var _ Strategy = (*Local)(nil)

// Propose seeds with the inner strategy, then proposes rounds of mutants.
func (l *Local) Propose(max int) ([]Proposal, error) {
	if l.budget == 0 {
		l.budget = max
		l.cfg = l.Config.withDefaults(max)
	}
	l.last, l.lastInner = nil, 0
	if !l.seeded {
		l.seeded = true
		if n := l.Config.SeedCount(max); n > 0 {
			ps, err := l.Inner.Propose(n)
			if err != nil {
				return nil, err
			}
			l.Stats.Seeds += len(ps)
			l.last, l.lastInner = ps, len(ps)
			return ps, nil
		}
	}
	n := min(max, l.cfg.Round)
	for len(l.last) < n {
		p, ok, err := l.mutant()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		l.last = append(l.last, p)
		l.Stats.Mutants++
	}
	if len(l.last) == 0 && !l.innerDone {
		// Nothing to mutate: the inner strategy spends the rest.
		ps, err := l.Inner.Propose(n)
		if err != nil {
			return nil, err
		}
		if len(ps) == 0 {
			l.innerDone = true
		}
		l.Stats.Seeds += len(ps)
		l.last, l.lastInner = ps, len(ps)
	}
	return l.last, nil
}

// Observe records the clearances and hands the inner strategy its own.
func (l *Local) Observe(c []float64) error {
	if len(c) != len(l.last) {
		return fmt.Errorf("%w: %d results for %d tests", ErrObserve, len(c), len(l.last))
	}
	if l.lastInner > 0 {
		if err := l.Inner.Observe(c[:l.lastInner]); err != nil {
			return err
		}
	}
	for i, p := range l.last {
		l.flown = append(l.flown, localTest{p: p, clearanceM: c[i]})
	}
	l.last, l.lastInner = nil, 0
	return nil
}

// parents returns the indices of the flown tests that may have another
// mutant, closest first (ties in the order flown): the failures, or while
// there are none the closest quarter of what was flown.
func (l *Local) parents() []int {
	var idx []int
	for i, t := range l.flown {
		if t.clearanceM < l.cfg.CriticalM && t.children < l.cfg.MaxChildren {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		for i, t := range l.flown {
			if t.children < l.cfg.MaxChildren && !math.IsInf(t.clearanceM, 1) {
				idx = append(idx, i)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(l.flown[a].clearanceM, l.flown[b].clearanceM) })
		return idx[:(len(idx)+3)/4]
	}
	// Fewest children first, then closest: the search spreads.
	slices.SortStableFunc(idx, func(a, b int) int {
		ta, tb := l.flown[a], l.flown[b]
		if ta.children != tb.children {
			return cmp.Compare(ta.children, tb.children)
		}
		return cmp.Compare(ta.clearanceM, tb.clearanceM)
	})
	return idx
}

// mutant draws one mutant of the first parent that yields one.
func (l *Local) mutant() (Proposal, bool, error) {
	return l.cfg.firstMutant(l.Rng, l.parents(), func(i int) (Proposal, *int) { return l.flown[i].p, &l.flown[i].children },
		l.Valid, l.diverse, &l.Stats.Rejected)
}

// firstMutant draws one mutant of the first of parents that yields one
// (Local's and Search's mutant): parent(i) is parent i's proposal and its
// count of children, which a mutant raises by one and a parent nothing
// near passes fills up (MaxChildren). rejected counts the refused draws.
func (c MutantConfig) firstMutant(rng *rand.Rand, parents []int, parent func(int) (Proposal, *int), valid func([]world.Box) bool,
	diverse func([]world.Box) (bool, error), rejected *int) (Proposal, bool, error) {
	for _, pi := range parents {
		p, children := parent(pi)
		boxes, r, err := drawMutant(rng, p.Obstacles, c.Tries, valid, diverse)
		*rejected += r
		if err != nil {
			return Proposal{}, false, err
		}
		if boxes == nil {
			*children = c.MaxChildren // nothing near it passes
			continue
		}
		*children++
		return Proposal{Obstacles: boxes, Pred: math.NaN(), Leg: p.Leg}, true, nil
	}
	return Proposal{}, false, nil
}

// drawMutant draws up to tries mutants of parent (Mutate) and returns the
// first that valid and diverse accept, nil when none is; rejected counts
// the others.
func drawMutant(rng *rand.Rand, parent []world.Box, tries int, valid func([]world.Box) bool, diverse func([]world.Box) (bool, error)) (boxes []world.Box, rejected int, err error) {
	for range tries {
		b := Mutate(rng, parent)
		if !valid(b) {
			rejected++
			continue
		}
		ok, err := diverse(b)
		if err != nil {
			return nil, rejected, err
		}
		if !ok {
			rejected++
			continue
		}
		return b, rejected, nil
	}
	return nil, rejected, nil
}

// Mutate changes each box a little: its centre by a normal step of 0.5,
// 1 or 2 m (1σ, picked at random), its sides by a factor of e^(±0.1σ)
// kept in the competition's 2–20 m, its rotation by 8° (1σ) kept in
// [0, 90).
func Mutate(rng *rand.Rand, src []world.Box) []world.Box {
	out := slices.Clone(src)
	step := [3]float64{0.5, 1, 2}[rng.IntN(3)]
	for i := range out {
		b := &out[i]
		b.X += step * rng.NormFloat64()
		b.Y += step * rng.NormFloat64()
		b.L = math.Min(20, math.Max(2, b.L*math.Exp(0.1*rng.NormFloat64())))
		b.W = math.Min(20, math.Max(2, b.W*math.Exp(0.1*rng.NormFloat64())))
		b.R = math.Mod(b.R+8*rng.NormFloat64(), 90)
		if b.R < 0 {
			b.R += 90
		}
	}
	return out
}

// diverse reports whether boxes keep the diversity constraint against
// every test proposed so far.
func (l *Local) diverse(boxes []world.Box) (bool, error) {
	others := make([][]world.Box, 0, len(l.flown)+len(l.last))
	for _, t := range l.flown {
		others = append(others, t.p.Obstacles)
	}
	for _, p := range l.last {
		others = append(others, p.Obstacles)
	}
	return Diverse(boxes, others, l.cfg.MaxIoU, l.IoU)
}

// Diverse reports whether the footprint union of boxes overlaps that of
// every test of others by at most maxIoU: iou's IoU (nil = RasterIoU on
// DefaultCellM cells), 0 for tests whose boxes are too far apart to meet.
func Diverse(boxes []world.Box, others [][]world.Box, maxIoU float64, iou func(a, b []world.Box) (float64, error)) (bool, error) {
	for _, o := range others {
		if !near(boxes, o) {
			continue
		}
		var v float64
		if iou == nil {
			v = RasterIoU(boxes, o, DefaultCellM)
		} else {
			var err error
			if v, err = iou(boxes, o); err != nil {
				return false, err
			}
		}
		if v > maxIoU {
			return false, nil
		}
	}
	return true, nil
}

// near reports whether the bounding circles of a box of a and a box of b
// meet: otherwise the footprints are disjoint and the IoU is 0.
func near(a, b []world.Box) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Center().Dist(y.Center()) < (math.Hypot(x.L, x.W)+math.Hypot(y.L, y.W))/2 {
				return true
			}
		}
	}
	return false
}
