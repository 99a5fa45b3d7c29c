package harness

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// fakeSim is an executor that flies nothing: a test whose obstacle 1
// covers robustAt (on mission2's leg 2) comes 1.0 m close on every flight;
// one whose obstacle 1 covers flukeAt (leg 3) comes 0.1 m close on its
// first flight and 1.6 m on every later one (a fluke that looks better
// than the robust failures, even by its mean over two flights); any other
// passes at 1.5 m plus the distance
// of obstacle 1 to the nearer point. It records the seed of every flight.
type fakeSim struct {
	mu      sync.Mutex
	flights map[string]int
	seeds   []uint64
}

var robustAt, flukeAt = geom.Vec2{X: -3.15, Y: 24.8}, geom.Vec2{X: -9.9, Y: 24.1}

func fakeKind(b []world.Box) string {
	switch {
	case b[0].Contains(robustAt):
		return "robust"
	case b[0].Contains(flukeAt):
		return "fluke"
	}
	return "pass"
}

func (f *fakeSim) Execute(ctx context.Context, c campaign.ID, jobs []campaign.Job, put func(campaign.Delivery) error) error {
	for _, j := range jobs {
		f.mu.Lock()
		if f.flights == nil {
			f.flights = map[string]int{}
		}
		obs := j.Scenario.Obstacles
		k, _ := json.Marshal(obs)
		n := f.flights[string(k)]
		f.flights[string(k)]++
		f.seeds = append(f.seeds, j.Seed)
		f.mu.Unlock()
		d := 1.5 + math.Min(obs[0].Distance(robustAt), obs[0].Distance(flukeAt))
		switch fakeKind(obs) {
		case "robust":
			d = 1.0
		case "fluke":
			d = 1.6
			if n == 0 {
				d = 0.1
			}
		}
		verdict := run.VerdictPass
		if d < run.CriticalM {
			verdict = run.VerdictSoftFail
		}
		// A straight flight up leg 2, shifted sideways by the first
		// obstacle's x: 100 points, so the DTW distance of two flights is
		// 100 |Δx|, and two tests whose obstacles are less than 0.75 m
		// apart in x fly similarly (score.SimilarDTW, 75 m).
		var path campaign.Samples
		for s := range 100 {
			path = append(path, trace.Sample{T: float64(s) / 2, Pos: geom.Vec3{X: obs[0].X, Y: float64(s) / 2, Z: -10}})
		}
		r := &run.Result{Completed: true, FlightTimeS: 90, MinClearanceM: &d, MinObstacle: 1, Verdict: verdict}
		if err := put(campaign.Delivery{Result: campaign.Result{Job: j.ID, Run: r, Trajectory: path}, Worker: "fake", Attempt: 1}); err != nil {
			return err
		}
	}
	return nil
}

// The search strategy on a simulator with a known answer: every test is
// feasible, the budget is spent exactly, re-flights are recorded as flights
// of their test, the fluke (0.1 m once, then 1.6 m) is never confirmed nor
// written, every written test is a confirmed robust one, a failure that
// flies as an earlier one (similar paths) is neither confirmed nor written
// but names the test it repeats, no two written tests fly similarly,
// the evaluation's re-flights use seeds no flight of the generation used,
// and the precision of both populations is 1.
func TestRunSearchConfirmed(t *testing.T) {
	m, err := surrogate.Train(syntheticDataset(60), surrogate.Config{Seed: 1, Epochs: 5})
	if err != nil {
		t.Fatal(err)
	}
	sim := &fakeSim{}
	const budget = 120
	o, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission2"), Budget: budget, Strategy: StratSearch, Seed: 3, Model: m,
		Batch: 10, DatasetN: 40, Report: true, Runs: 3, Runner: &campaign.Runner{Exec: sim}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Simulations != budget || o.Search == nil || o.Search.Prior != (gen.SearchConfig{}).SeedCount(budget) {
		t.Fatalf("%d simulations, search %+v; want %d, all seeds from the dataset", o.Simulations, o.Search, budget)
	}
	flights, dups, robustDups, kinds := 0, 0, 0, map[string]int{}
	feasible := Feasible(o.cs)
	for i, tc := range o.Tests {
		flights += len(tc.flights())
		kinds[fakeKind(tc.Obstacles)]++
		if !feasible(tc.Obstacles) {
			t.Errorf("test %d is infeasible", i)
		}
		if tc.confirmed() != (fakeKind(tc.Obstacles) == "robust" && tc.DuplicateOf == nil) {
			t.Errorf("test %d (%s): confirmed %v, flights %v, duplicate of %v", i, fakeKind(tc.Obstacles), tc.confirmed(), tc.flights(), tc.DuplicateOf)
		}
		if tc.DuplicateOf != nil {
			dups++
			if fakeKind(tc.Obstacles) == "robust" {
				robustDups++
			}
			if fakeKind(tc.Obstacles) == "pass" || len(tc.flights()) != 1 || tc.Rank >= 0 {
				t.Errorf("test %d (%s, flights %v, rank %d) is a duplicate", i, fakeKind(tc.Obstacles), tc.flights(), tc.Rank)
			}
			w := o.Tests[o.order[*tc.DuplicateOf]]
			if dx := math.Abs(w.Obstacles[0].X - tc.Obstacles[0].X); dx >= 0.75 {
				t.Errorf("test %d repeats test_%d, whose first obstacle is %.2f m away in x", i, *tc.DuplicateOf, dx)
			}
		}
	}
	for a, i := range o.order {
		for _, j := range o.order[a+1:] {
			if dx := math.Abs(o.Tests[i].Obstacles[0].X - o.Tests[j].Obstacles[0].X); dx < 0.75 {
				t.Errorf("written tests %d and %d fly similarly (%.2f m apart in x)", i, j, dx)
			}
		}
	}
	if dups == 0 || o.Duplicates != dups || o.Search.Duplicates != dups {
		t.Errorf("%d duplicates, outcome %d, search %+v; want some, the same", dups, o.Duplicates, o.Search)
	}
	if flights != budget || kinds["robust"] == 0 || kinds["fluke"] == 0 {
		t.Fatalf("%d flights over the tests; kinds %v; want %d, robust tests and flukes", flights, kinds, budget)
	}
	if o.Confirmed != kinds["robust"]-robustDups || o.Confirmed != o.Search.Confirmed {
		t.Errorf("%d confirmed, %d robust (%d duplicates), search %+v", o.Confirmed, kinds["robust"], robustDups, o.Search)
	}
	if len(o.order) != o.Confirmed {
		t.Errorf("%d tests written, %d confirmed", len(o.order), o.Confirmed)
	}
	for r, i := range o.order {
		if k := fakeKind(o.Tests[i].Obstacles); k != "robust" {
			t.Errorf("test_%d is a %s test (flights %v); want the confirmed (robust) tests alone", r, k, o.Tests[i].flights())
		}
	}
	// The last flights are the evaluation's (3 of each member of the two
	// populations), after the budget's; the dataset's came first.
	members := map[int]bool{}
	for _, r := range append(slices.Clone(o.Report.First20.Tests), o.Report.Best20.Tests...) {
		members[r] = true
	}
	eval := sim.seeds[len(sim.seeds)-3*len(members):]
	genSeeds := sim.seeds[len(sim.seeds)-3*len(members)-budget : len(sim.seeds)-3*len(members)]
	for _, s := range eval {
		if slices.Contains(genSeeds, s) {
			t.Fatalf("an evaluation re-flight used seed %d, a seed of the generation", s)
		}
	}
	want := min(PopulationSize, o.Confirmed)
	if p := o.Report.First20; p.Confirmed != want || p.Precision != 1 {
		t.Errorf("first 20: %d confirmed, precision %v; want %d and 1", p.Confirmed, p.Precision, want)
	}
	if p := o.Report.Best20; p.Precision != 1 {
		t.Errorf("best 20: precision %v; want 1", p.Precision)
	}
	if r := o.Report; r.HitRate != float64(o.CriticalFlights)/budget || r.ConfirmedRate != float64(o.Confirmed)/budget {
		t.Errorf("hit rate %v, confirmed rate %v; want %d and %d over %d", r.HitRate, r.ConfirmedRate, o.CriticalFlights, o.Confirmed, budget)
	}
	again, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission2"), Budget: budget, Strategy: StratSearch, Seed: 3, Model: m,
		Batch: 10, DatasetN: 40, Report: true, Runs: 3, Runner: &campaign.Runner{Exec: &fakeSim{}}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(o)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Error("the same seed gave another generation.json")
	}
	// The default flight model, with the flight context, screened the
	// mutants and predicted each.
	if fm := o.FlightModel; fm == nil || fm.Name != FlightModelContext || fm.Fits == 0 || fm.Scored == 0 || fm.Flights == 0 {
		t.Errorf("flight model %+v; want the context model, fitted and scoring", fm)
	}
	predicted := 0
	for _, tc := range o.Tests {
		if tc.Predicted != nil {
			predicted++
		}
	}
	if predicted == 0 || predicted > o.Search.Mutants {
		t.Errorf("%d tests predicted, %d mutants", predicted, o.Search.Mutants)
	}
	off, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission2"), Budget: 40, Strategy: StratSearch, Seed: 3, Model: m,
		Batch: 10, DatasetN: 40, FlightModel: FlightModelOff, Runner: &campaign.Runner{Exec: &fakeSim{}}})
	if err != nil {
		t.Fatal(err)
	}
	if off.FlightModel != nil {
		t.Errorf("flight model off: %+v", off.FlightModel)
	}
	for _, tc := range off.Tests {
		if tc.Predicted != nil {
			t.Errorf("flight model off: a test predicted at %v m", *tc.Predicted)
		}
	}
	var ce *ConfigError
	if err := (Config{Budget: 1, FlightModel: "gp"}).Validate(); !errors.As(err, &ce) || ce.Field != "flight-model" {
		t.Errorf("flight model \"gp\": %v; want a flight-model error", err)
	}
	t.Logf("kinds %v, %d critical flights, %d critical tests, %d confirmed; search %+v", kinds, o.CriticalFlights, o.Critical, o.Confirmed, *o.Search)
}

// The confirmed tests are written first, the most robust (smallest
// largest distance) first, before a test flown once however close.
func TestConfirmedOrder(t *testing.T) {
	fl := func(d ...float64) []Flight {
		var out []Flight
		for _, x := range d {
			out = append(out, Flight{ClearanceM: x})
		}
		return out
	}
	o := &Outcome{Tests: []Test{
		{ClearanceM: 0.05}, // once, closest of all
		{ClearanceM: 0.9, Flights: fl(0.5, 0.8, 1.4)}, // confirmed, worst 1.4
		{ClearanceM: 0.9, Flights: fl(0.2, 2.0)},      // disproved: not written
		{ClearanceM: 1.0, Flights: fl(0.9, 1.0, 1.1)}, // confirmed, worst 1.1: before the closer mean
		{ClearanceM: 0.4, Flights: fl(0.4, 0.4)},      // two flights: not confirmed
	}}
	rank(o)
	confirmedOrder(o, func(int) int { return -1 })
	if want := []int{3, 1, 0, 4}; !slices.Equal(o.order, want) {
		t.Errorf("order %v; want %v", o.order, want)
	}
	if o.Confirmed != 2 || o.Critical != 4 || o.CriticalFlights != 10 {
		t.Errorf("%d confirmed, %d critical, %d critical flights; want 2, 4, 10", o.Confirmed, o.Critical, o.CriticalFlights)
	}
	// The same with test 0 a duplicate of test 3 and on leg 2: it is not
	// written, names test 3's rank, and leaves leg 2's count.
	o.Tests[0].Leg, o.Tests[3].Leg = 2, 2
	o.Legs = []LegOutcome{{Leg: 2}}
	rank(o)
	if o.Legs[0].Critical != 2 {
		t.Fatalf("leg 2: %d critical; want 2", o.Legs[0].Critical)
	}
	confirmedOrder(o, func(i int) int {
		if i == 0 {
			return 3
		}
		return -1
	})
	if want := []int{3, 1, 4}; !slices.Equal(o.order, want) {
		t.Errorf("order %v; want %v", o.order, want)
	}
	if d := o.Tests[0].DuplicateOf; d == nil || *d != o.Tests[3].Rank || o.Tests[0].Rank != -1 {
		t.Errorf("duplicate: rank %d, duplicate of %v; want -1 and test 3's rank %d", o.Tests[0].Rank, d, o.Tests[3].Rank)
	}
	if o.Critical != 3 || o.Duplicates != 1 || o.Legs[0].Critical != 1 {
		t.Errorf("%d critical, %d duplicates, leg 2 %d critical; want 3, 1, 1", o.Critical, o.Duplicates, o.Legs[0].Critical)
	}
}
