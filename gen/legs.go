package gen

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// AutoMinAreaM2 is the zone area a leg needs to be tested by default, m²:
// 10 m × 10 m, room for two small boxes (2–6 m) and a passage between
// them. A leg that only grazes the placement area has less, and the
// constrained generator would spend its draws failing to place a test.
const AutoMinAreaM2 = 100

// AutoLegs returns the frames of fs whose zone is at least AutoMinAreaM2,
// in leg order; the largest alone when none is.
func AutoLegs(fs []Frame) []Frame {
	var out []Frame
	for _, f := range fs {
		if f.AreaM2() >= AutoMinAreaM2 {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = append(out, Largest(fs))
	}
	return out
}

// Split divides total into len(weights) whole shares proportional to the
// weights by the largest-remainder method, equal remainders going to the
// earlier share, so that the split depends on the weights alone.
func Split(total int, weights []float64) []int {
	out := make([]int, len(weights))
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	if len(weights) == 0 || !(sum > 0) {
		return out
	}
	type rem struct {
		i int
		r float64
	}
	rs := make([]rem, len(weights))
	left := total
	for i, w := range weights {
		q := float64(total) * w / sum
		out[i] = int(math.Floor(q))
		left -= out[i]
		rs[i] = rem{i, q - math.Floor(q)}
	}
	slices.SortStableFunc(rs, func(a, b rem) int { return cmp.Compare(b.r, a.r) })
	for k := 0; k < left; k++ {
		out[rs[k%len(rs)].i]++
	}
	return out
}

// Legs spreads a budget over one strategy per leg: each gets its share
// (Split by Weights) of the max of the first Propose, and is asked for
// the rest of its share until it is spent or the strategy is done.
// Proposals carry their strategy's position in Subs in Proposal.Leg.
type Legs struct {
	Subs    []Strategy
	Weights []float64 // one per Subs, ≥ 0

	share, used []int
	last        []int // proposals of each sub in the last Propose
	started     bool
}

var _ Strategy = (*Legs)(nil)

// Propose asks each leg's strategy for what is left of its share.
func (m *Legs) Propose(max int) ([]Proposal, error) {
	if len(m.Subs) != len(m.Weights) {
		return nil, fmt.Errorf("gen: %d leg strategies, %d weights", len(m.Subs), len(m.Weights))
	}
	if !m.started {
		m.started = true
		m.share = Split(max, m.Weights)
		m.used = make([]int, len(m.Subs))
		m.last = make([]int, len(m.Subs))
	}
	var out []Proposal
	for k, s := range m.Subs {
		m.last[k] = 0
		n := min(m.share[k]-m.used[k], max-len(out))
		if n <= 0 {
			continue
		}
		ps, err := s.Propose(n)
		if err != nil {
			return nil, fmt.Errorf("leg strategy %d: %w", k, err)
		}
		if len(ps) > n {
			ps = ps[:n]
		}
		for i := range ps {
			ps[i].Leg = k
		}
		if len(ps) == 0 {
			m.share[k] = m.used[k] // done: its share is not spent elsewhere
		}
		m.used[k] += len(ps)
		m.last[k] = len(ps)
		out = append(out, ps...)
	}
	return out, nil
}

// Observe hands each leg's strategy the results of its proposals.
func (m *Legs) Observe(c []float64) error {
	n := 0
	for _, l := range m.last {
		n += l
	}
	if len(c) != n {
		return fmt.Errorf("%w: %d results for %d tests", ErrObserve, len(c), n)
	}
	at := 0
	for k, s := range m.Subs {
		if m.last[k] == 0 {
			continue
		}
		if err := s.Observe(c[at : at+m.last[k]]); err != nil {
			return err
		}
		at += m.last[k]
	}
	return nil
}
