package harness

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/score/dtw"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// PopulationSize is how many tests the competition evaluates of a suite
// (2025: the first 20 in output order).
const PopulationSize = 20

// populations returns the indices into o.Tests of the two evaluated
// populations: the first PopulationSize written tests in output order, and
// the PopulationSize written tests with the best test score (Eq. 2) on
// their generation flight, ties in output order, listed in output order.
func populations(o *Outcome) (first, best []int) {
	first = slices.Clone(o.order[:min(PopulationSize, len(o.order))])
	byScore := slices.Clone(o.order)
	sc := func(i int) float64 {
		t := &o.Tests[i]
		return score.TestScore(score.Points(t.ClearanceM), len(t.Obstacles), t.FlightS/60)
	}
	slices.SortStableFunc(byScore, func(a, b int) int { return cmp.Compare(sc(b), sc(a)) })
	best = byScore[:min(PopulationSize, len(byScore))]
	slices.SortFunc(best, func(a, b int) int { return cmp.Compare(o.Tests[a].Rank, o.Tests[b].Rank) })
	return first, best
}

// reflyChunk bounds the flights whose full traces are held at once while
// the populations are re-flown; each is cut to its 0.5-s path at once.
const reflyChunk = 24

// report re-flies the tests of both evaluated populations cfg.Runs times
// and computes the measures into o.Report.
func (e *env) report(o *Outcome, model *surrogate.Model) error {
	runs := e.cfg.Runs
	first, best := populations(o)
	var members []int
	for _, i := range append(slices.Clone(first), best...) {
		if !slices.Contains(members, i) {
			members = append(members, i)
		}
	}
	var boxes [][]world.Box
	for _, i := range members {
		for range runs {
			boxes = append(boxes, o.Tests[i].Obstacles)
		}
	}
	repeats := map[int][]score.Run{}
	for at := 0; at < len(boxes); at += reflyChunk {
		n := min(reflyChunk, len(boxes)-at)
		res, err := e.fly(o.cs, boxes[at:at+n], e.cfg.Seed, o.Budget+at, true, "confirming")
		if err != nil {
			return err
		}
		for k, r := range res {
			i := members[(at+k)/runs]
			repeats[i] = append(repeats[i], scoredRun(r))
		}
	}
	r, err := Measures(o, model, runs, repeats)
	if err != nil {
		return err
	}
	o.Report = r
	return nil
}

// scoredRun is a flight as package score takes it: the path in Aerialist's
// 0.5-s bins.
func scoredRun(r *run.Result) score.Run {
	return score.Run{ClearanceM: clearanceOf(r), FlightTimeS: r.FlightTimeS, TimedOut: r.TimedOut,
		Path: trace.Positions(resampled(r))}
}

// resampled is r's trajectory in Aerialist's 0.5-s bins: the judge's
// (Result.Resampled), resampled here only for a result that lacks it (one
// read back from a store or another process).
func resampled(r *run.Result) []trace.Sample {
	if r.Resampled != nil {
		return r.Resampled
	}
	return trace.Resample(r.Trace, run.ResamplePeriodS)
}

// Measures computes the measures of a ranked generation: repeats holds the
// re-flights of the members of both evaluated populations (see
// populations), keyed by index into o.Tests; their clearances are also
// recorded in the tests' Repeats. model (nil without one) gives the
// validation RMSE.
func Measures(o *Outcome, model *surrogate.Model, runs int, repeats map[int][]score.Run) (*Report, error) {
	nan := OptFloat(math.NaN())
	r := &Report{Runs: runs, SurrogatePrecision: nan, RMSE: nan, ValidationRMSE: nan}
	if o.Simulations > 0 {
		r.HitRate = float64(o.CriticalFlights) / float64(o.Simulations)
		r.ConfirmedRate = float64(o.Confirmed) / float64(o.Simulations)
	}
	if model != nil {
		r.ValidationRMSE = OptFloat(model.Info.ValRMSE)
	}
	for _, i := range slices.Sorted(maps.Keys(repeats)) {
		o.Tests[i].Repeats = o.Tests[i].Repeats[:0]
		for _, x := range repeats[i] {
			o.Tests[i].Repeats = append(o.Tests[i].Repeats, x.ClearanceM)
			if x.TimedOut {
				r.RepeatsTimedOut++
			}
		}
	}
	first, best := populations(o)
	var err error
	if r.First20, err = evaluate(o, first, repeats); err != nil {
		return nil, err
	}
	if r.Best20, err = evaluate(o, best, repeats); err != nil {
		return nil, err
	}
	var predCrit, predConf, n int
	var se float64
	for _, t := range o.Tests {
		if t.Predicted == nil {
			continue
		}
		if e := *t.Predicted - t.ClearanceM; !math.IsInf(e, 0) { // +Inf: no obstacle in reach
			n++
			se += e * e
		}
		if *t.Predicted <= run.CriticalM {
			predCrit++
			if t.critical() {
				predConf++
			}
		}
	}
	if n > 0 {
		r.RMSE = OptFloat(math.Sqrt(se / float64(n)))
	}
	if predCrit > 0 {
		r.SurrogatePrecision = OptFloat(float64(predConf) / float64(predCrit))
	}
	var written, all [][]world.Box
	for _, t := range o.Tests {
		if len(t.CriticalLegs) > 1 {
			r.MultiLeg++
		}
		all = append(all, t.Obstacles)
		if t.Rank >= 0 {
			written = append(written, t.Obstacles)
		}
	}
	if r.InputDiversity, err = gen.InputDiversity(written); err != nil {
		return nil, err
	}
	if r.InputDiversityAll, err = gen.InputDiversity(all); err != nil {
		return nil, err
	}
	return r, nil
}

// evaluate scores the population members (indices into o.Tests, in output
// order) with their re-flights as the 2026 evaluation does (score.Evaluate):
// how many it confirms critical, and the input and output diversity.
func evaluate(o *Outcome, members []int, repeats map[int][]score.Run) (Population, error) {
	p := Population{Tests: []int{}, Precision: OptFloat(math.NaN())}
	if len(members) == 0 {
		return p, nil
	}
	tests := make([]score.Test, len(members))
	planned := make([]int, len(members))
	for k, i := range members {
		t := &o.Tests[i]
		p.Tests = append(p.Tests, t.Rank)
		tests[k] = score.Test{Name: fmt.Sprintf("test_%d", t.Rank), Obstacles: t.Obstacles, Runs: repeats[i]}
		if len(repeats[i]) == 0 {
			return p, fmt.Errorf("harness: %s of the evaluated population was not re-flown", tests[k].Name)
		}
		planned[k] = k
	}
	c, err := score.Config{Edition: score.Edition2026, Select: score.SelectFirst, SampleSize: len(members)}.Validate()
	if err != nil {
		return p, err
	}
	res, err := score.Evaluate(c, tests, planned)
	if err != nil {
		return p, err
	}
	for _, d := range res.Details {
		if d.Critical {
			p.Confirmed++
		}
	}
	p.Precision = OptFloat(float64(p.Confirmed) / float64(len(members)))
	p.InputDiversity, p.OutputDiversity = res.InputDiversity, res.OutputDiversity
	return p, nil
}

// DiverseBelowM is the distance under which the local strategy orders its
// written tests for output diversity: failures this close confirm on
// re-flights nearly always, so the first 20 can be picked for how their
// trajectories differ without costing precision. Tests between it and
// 1.5 m follow, closest first.
const DiverseBelowM = 1.0

// dtwBand is the Sakoe–Chiba band of the ordering's DTW distances, in
// 0.5-s points (20 s): enough for flights of one mission, and it keeps
// the ordering to a fraction of a second.
const dtwBand = 40

// diverseOrder reorders o's written tests (beyond the paper): of those
// closer than DiverseBelowM, the closest first, then greedily the one
// whose flight path is farthest (DTW, the smallest distance to a test
// already picked) from those before it, up to PopulationSize; then the
// rest closest first. Ties go to the earlier test in the closest-first
// order.
func diverseOrder(o *Outcome) {
	var close, rest []int
	for _, i := range o.order {
		if o.Tests[i].ClearanceM < DiverseBelowM {
			close = append(close, i)
		} else {
			rest = append(rest, i)
		}
	}
	diversePick(o, close, rest)
}

// confirmedOrder reorders o's written tests for the search strategy: the
// tests confirmed within the budget (Test.confirmed) first, the most
// robust (the smallest largest distance of their flights) first and then
// picked for output diversity as diverseOrder does, then the rest closest
// first (by the mean of their flights). The failures that dup (the index
// of the test whose failure a test repeats, −1 for none) names are not
// written: each gets DuplicateOf, the rank of the test it repeats.
func confirmedOrder(o *Outcome, dup func(int) int) {
	var conf, rest, dups []int
	for _, i := range o.order {
		if dup(i) >= 0 {
			dups = append(dups, i)
			o.Tests[i].Rank = -1
			for k := range o.Legs {
				if l := &o.Legs[k]; l.has(&o.Tests[i]) {
					l.Critical--
				}
			}
			continue
		}
		if o.Tests[i].confirmed() {
			conf = append(conf, i)
		} else {
			rest = append(rest, i)
		}
	}
	slices.SortStableFunc(conf, func(a, b int) int { return cmp.Compare(o.Tests[a].worstM(), o.Tests[b].worstM()) })
	o.order = append(conf, rest...)
	for r, i := range o.order {
		o.Tests[i].Rank = r
	}
	diversePick(o, conf, rest)
	o.Critical, o.Duplicates = len(o.order), len(dups)
	for _, i := range dups {
		// The test a duplicate repeats fails on every flight and repeats
		// none: it is written (gen.Search.DuplicateOf).
		if r := o.Tests[dup(i)].Rank; r >= 0 {
			o.Tests[i].DuplicateOf = &r
		}
	}
}

// similarFlights tells whether two flights' paths (0.5-s positions) are
// similar as the 2024 competition defines it: a DTW distance (the sum, as
// Aerialist's) under score.SimilarDTW, 75 m. The flights of one test
// differ by 22–54 m on missions 2 and 5 (6 flights each of two written
// tests), so a pair under 75 m flies as one test does.
func similarFlights() func(a, b []geom.Vec3) bool {
	var ws dtw.Workspace
	return func(a, b []geom.Vec3) bool { return ws.Distance(a, b, dtw.Exact) < score.SimilarDTW }
}

// diversePick orders o's written tests as close (in its order, the first
// kept first) picked greedily for output diversity up to PopulationSize,
// the rest of close, then rest; fewer than 3 close leave o as it is.
func diversePick(o *Outcome, close, rest []int) {
	if len(close) < 3 {
		return
	}
	paths := make([][]geom.Vec3, len(close))
	for k, i := range close {
		if r := o.Tests[i].result; r != nil {
			paths[k] = trace.Positions(resampled(r))
		}
	}
	var ws dtw.Workspace
	minD := make([]float64, len(close))
	for k := range minD {
		minD[k] = math.Inf(1)
	}
	picked := make([]bool, len(close))
	order := []int{close[0]}
	picked[0] = true
	last := 0
	for len(order) < min(PopulationSize, len(close)) {
		best := -1
		for k := range close {
			if picked[k] {
				continue
			}
			if len(paths[k]) > 0 && len(paths[last]) > 0 {
				minD[k] = math.Min(minD[k], ws.Distance(paths[k], paths[last], dtwBand))
			}
			if best < 0 || minD[k] > minD[best] {
				best = k
			}
		}
		picked[best] = true
		order = append(order, close[best])
		last = best
	}
	for k, i := range close {
		if !picked[k] {
			order = append(order, i)
		}
	}
	o.order = append(order, rest...)
	for r, i := range o.order {
		o.Tests[i].Rank = r
	}
}
