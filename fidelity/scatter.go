package fidelity

import (
	"math"
	"slices"
)

// Scatter is how far apart two flights of one layout land: the
// distribution of |Δ clearance| over pairs of flights.
type Scatter struct {
	What string  `json:"what"`
	N    int     `json:"pairs"`
	Mean float64 `json:"mean_m"`
	Q25  float64 `json:"q25_m"`
	Q50  float64 `json:"q50_m"`
	Q75  float64 `json:"q75_m"`
	Q90  float64 `json:"q90_m"`
}

// Band compares the clearances of the tests whose PX4 clearance lies in
// [LoM, HiM): where the simulator is too cautious or too bold.
type Band struct {
	LoM      float64 `json:"lo_m"`
	HiM      float64 `json:"hi_m"` // +Inf for the last band, written as null
	N        int     `json:"n"`
	PX4MeanM float64 `json:"px4_mean_m"`
	SimMeanM float64 `json:"sim_mean_m"`
	// SimCritical is the share of the band's tests whose simulated mean
	// clearance is below CriticalM.
	SimCritical float64 `json:"sim_critical"`
}

// bandEdges are the edges of the clearance bands, m: the competition's
// point bands, then the generator's near regime and beyond.
var bandEdges = []float64{0, 0.25, 1, 1.5, 2, 2.5, 3, 5, math.Inf(1)}

// bands groups ts by PX4's clearance.
func bands(ts []TestResult) []Band {
	var out []Band
	for i := 0; i+1 < len(bandEdges); i++ {
		b := Band{LoM: bandEdges[i], HiM: bandEdges[i+1]}
		g := tallyOf(ts, func(t TestResult) bool { return t.PX4M >= b.LoM && t.PX4M < b.HiM })
		if g.n == 0 {
			continue
		}
		b.N, b.PX4MeanM, b.SimMeanM, b.SimCritical = g.n, g.px4M, g.simM, g.simCrit
		out = append(out, b)
	}
	return out
}

// tally is a group of tests: how many, PX4's and the simulator's mean
// clearance, and the shares critical (< CriticalM) on PX4 and, by the mean
// clearance, in the simulator.
type tally struct {
	n                            int
	px4M, simM, px4Crit, simCrit float64
}

// tallyOf tallies the tests of ts that in selects.
func tallyOf(ts []TestResult, in func(TestResult) bool) tally {
	var g tally
	var pc, sc int
	for _, t := range ts {
		if !in(t) {
			continue
		}
		g.n++
		g.px4M += t.PX4M
		g.simM += t.MeanM
		if t.PX4M < CriticalM {
			pc++
		}
		if t.MeanM < CriticalM {
			sc++
		}
	}
	if g.n > 0 {
		n := float64(g.n)
		g.px4M, g.simM, g.px4Crit, g.simCrit = g.px4M/n, g.simM/n, float64(pc)/n, float64(sc)/n
	}
	return g
}

// repeats measures the repeat scatter: PX4's, between the tests a
// reference marks as flights of one layout (every pair within a layout);
// the simulator's on the same pairs, one flight each (its first run), as
// PX4 flew each once; and the simulator's between the first two runs of
// every test. A population with no pair is left out.
func repeats(ts []TestResult) []Scatter {
	var px4, sim, runs []float64
	for _, idx := range layoutsOf(ts) {
		for a := 0; a < len(idx); a++ {
			for b := a + 1; b < len(idx); b++ {
				ta, tb := ts[idx[a]], ts[idx[b]]
				px4 = append(px4, math.Abs(ta.PX4M-tb.PX4M))
				sim = append(sim, math.Abs(ta.SimM[0]-tb.SimM[0]))
			}
		}
	}
	for _, t := range ts {
		if len(t.SimM) >= 2 {
			runs = append(runs, math.Abs(t.SimM[0]-t.SimM[1]))
		}
	}
	var out []Scatter
	for _, s := range []struct {
		what string
		d    []float64
	}{
		{"PX4, flights of one layout", px4},
		{"simulator, the same pairs", sim},
		{"simulator, run 1 vs run 2", runs},
	} {
		if len(s.d) > 0 {
			out = append(out, scatterOf(s.what, s.d))
		}
	}
	return out
}

// floorStats compares PX4 with itself: on every layout the reference has
// flown more than once, each flight in turn is the measurement and each
// other flight of its layout the prediction, scored as compare scores the
// simulator (clearance, collision by the other flight's class, flight
// time), beside the simulator's statistics on the same flights. It is the
// floor of every figure of merit: a simulator can beat it only by the part
// of PX4's own flight-to-flight noise that its mean of runs does not share.
// Pooled,
// then per mission when there are several; nil without a repeated layout.
// The p-value is left out (NaN): the ordered pairs are not independent.
func floorStats(ts []TestResult) []Stats {
	var self, sim []TestResult
	for _, idx := range layoutsOf(ts) {
		if len(idx) < 2 {
			continue
		}
		for _, a := range idx {
			sim = append(sim, ts[a])
			for _, b := range idx {
				if a != b {
					self = append(self, px4Predicts(ts[a], ts[b]))
				}
			}
		}
	}
	if len(self) == 0 {
		return nil
	}
	out := []Stats{compare("PX4 repeat, pooled", self, 0, nil), compare("simulator, same flights", sim, 0, nil)}
	var missions []string
	for _, t := range sim {
		if t.Mission != "" && !slices.Contains(missions, t.Mission) {
			missions = append(missions, t.Mission)
		}
	}
	if len(missions) < 2 {
		return out
	}
	slices.Sort(missions)
	for _, m := range missions {
		in := func(t TestResult) bool { return t.Mission == m }
		out = append(out, compare("PX4 repeat, "+m, filter(self, in), 0, nil), compare("simulator, "+m, filter(sim, in), 0, nil))
	}
	return out
}

// px4Predicts is PX4's flight b of a layout standing in for the simulator's
// prediction of flight a.
func px4Predicts(a, b TestResult) TestResult {
	p := TestResult{Ref: a.Ref, Test: a.Test, Mission: a.Mission, Source: a.Source, PX4M: a.PX4M,
		SimM: []float64{b.PX4M}, MeanM: b.PX4M}
	if b.px4Collided() {
		p.Collided = 1
	}
	if a.PX4AirborneS != nil && b.PX4AirborneS != nil {
		p.PX4AirborneS, p.AirborneS = a.PX4AirborneS, *b.PX4AirborneS
	}
	return p
}

// filter returns the tests of ts that in selects.
func filter(ts []TestResult, in func(TestResult) bool) []TestResult {
	var out []TestResult
	for _, t := range ts {
		if in(t) {
			out = append(out, t)
		}
	}
	return out
}

// layoutsOf groups the indices of ts by the layout their reference names
// (tests without one are left out), in the order the layouts first appear.
func layoutsOf(ts []TestResult) [][]int {
	at := map[string]int{}
	var out [][]int
	for i, t := range ts {
		if t.Ref.Layout == "" {
			continue
		}
		k, ok := at[t.Ref.Layout]
		if !ok {
			k = len(out)
			at[t.Ref.Layout] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// scatterOf summarises the differences d (not empty).
func scatterOf(what string, d []float64) Scatter {
	d = slices.Clone(d)
	slices.Sort(d)
	s := Scatter{What: what, N: len(d)}
	for _, v := range d {
		s.Mean += v
	}
	s.Mean /= float64(len(d))
	s.Q25, s.Q50, s.Q75, s.Q90 = quantile(d, 0.25), quantile(d, 0.5), quantile(d, 0.75), quantile(d, 0.9)
	return s
}

// quantile is the q-quantile of sorted d by linear interpolation between
// order statistics (type 7, as numpy's default).
func quantile(d []float64, q float64) float64 {
	h := q * float64(len(d)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(d) {
		return d[len(d)-1]
	}
	return d[lo] + (h-float64(lo))*(d[lo+1]-d[lo])
}
