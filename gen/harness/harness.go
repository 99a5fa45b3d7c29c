package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// Test is one simulated test of a generation.
type Test struct {
	Obstacles  []world.Box `json:"obstacles"`
	Canonical  []world.Box `json:"canonical,omitempty"`
	Predicted  *float64    `json:"predicted_m,omitempty"`
	ClearanceM float64     `json:"clearance_m"`
	Verdict    string      `json:"verdict"`
	Completed  bool        `json:"completed"`
	// TimedOut marks a flight stopped at the time limit: never critical
	// (the competition gives such runs no points, competition.md §3.4).
	TimedOut bool    `json:"timed_out"`
	FlightS  float64 `json:"flight_time_s"`
	Rank     int     `json:"rank"` // index in the output folder; −1 when not written
	Leg      int     `json:"leg"`  // the leg the test was generated for; 0 for a corner's and the random strategy's
	// Corner is the turn the test was generated for (LegOutcome.Corner);
	// 0 for a leg's.
	Corner int `json:"corner,omitempty"`
	// Repeats are the clearances of the repeated flights of a written test
	// (Config.Report).
	Repeats []float64 `json:"repeats_m,omitempty"`
	// CriticalLegs are the legs (1-based, mission order) beside which the
	// flight came closer than 1.5 m (gen.LegClearances); none for a flight
	// that timed out.
	CriticalLegs []int `json:"critical_legs,omitempty"`
	// DuplicateOf is, for a failure the search did not confirm nor write
	// because its first flight went as that of another failure
	// (gen.Search.Similar: the 2024 competition's similarity), the rank of
	// that failure's test; nil otherwise.
	DuplicateOf *int `json:"duplicate_of,omitempty"`
	// Flights are every flight of the test within the budget, the first
	// included, when a strategy re-flew it to confirm it (Proposal.Refly);
	// ClearanceM is then the mean distance of those that did not time out
	// (the competition's mean over runs), and TimedOut that all did. The
	// other fields are the first flight's. Such a test is critical (and
	// written) only when every flight was.
	Flights []Flight `json:"flights,omitempty"`

	result *run.Result // the flight; its trace is kept for the written tests only
}

// Flight is one flight of a test within the budget.
type Flight struct {
	ClearanceM float64 `json:"clearance_m"`
	TimedOut   bool    `json:"timed_out"`
}

// ConfirmRuns is how many flights within the budget confirm a test: the
// competition re-flies a test three times (precision: the mean distance of
// the re-flights < 1.5 m). A test is confirmed when it was flown at least
// this often, no flight timed out and every flight came closer than 1.5 m.
const ConfirmRuns = 3

// flights are the test's flights within the budget.
func (t *Test) flights() []Flight {
	if len(t.Flights) > 0 {
		return t.Flights
	}
	return []Flight{{ClearanceM: t.ClearanceM, TimedOut: t.TimedOut}}
}

// confirmed reports whether the test is confirmed (ConfirmRuns).
func (t *Test) confirmed() bool { return len(t.flights()) >= ConfirmRuns && t.critical() }

// worstM is the largest distance of the test's flights: how robust a
// confirmed failure is.
func (t *Test) worstM() float64 {
	w := math.Inf(-1)
	for _, f := range t.flights() {
		w = math.Max(w, f.ClearanceM)
	}
	return w
}

// addFlight records another flight of the test: ClearanceM becomes the
// mean of the flights that did not time out, TimedOut that all did.
func (t *Test) addFlight(f Flight) {
	if len(t.Flights) == 0 {
		t.Flights = t.flights()
	}
	t.Flights = append(t.Flights, f)
	sum, n := 0.0, 0
	for _, g := range t.Flights {
		if !g.TimedOut {
			sum += g.ClearanceM
			n++
		}
	}
	t.TimedOut = n == 0
	if n > 0 {
		t.ClearanceM = sum / float64(n)
	}
}

// Report are the measures of one generation, as the paper (§VI) and the
// competition (competition.md §4) take them.
type Report struct {
	// HitRate is critical flights over simulations, a strategy's
	// confirmation flights included; a timed-out flight is never critical.
	// For a strategy that flies each test once it is the critical tests
	// over simulations.
	HitRate float64 `json:"hit_rate"`
	// ConfirmedRate is the distinct tests confirmed within the budget
	// (ConfirmRuns) over simulations.
	ConfirmedRate float64 `json:"confirmed_rate"`
	Runs          int     `json:"runs"` // re-flights per evaluated test
	// The two populations the competition evaluates, each test re-flown
	// Runs times and confirmed when the mean distance of its re-flights
	// that did not time out is under 1.5 m (score.Evaluate's critical):
	// the first 20 written tests in output order (2025's rule), and the 20
	// written tests with the best test score (Eq. 2) on their generation
	// flight. Precision is the confirmed share; NaN when none was written.
	First20 Population `json:"first20"`
	Best20  Population `json:"best20"`
	// RepeatsTimedOut counts the re-flights that hit the time limit.
	RepeatsTimedOut int `json:"repeats_timed_out"`
	// SurrogatePrecision is the share of flown tests predicted ≤ 1.5 m
	// that the flight confirmed; NaN without predictions.
	SurrogatePrecision OptFloat `json:"surrogate_precision"`
	RMSE               OptFloat `json:"rmse_m"`            // surrogate on the flown tests; NaN without
	ValidationRMSE     OptFloat `json:"validation_rmse_m"` // of the model's own split; NaN without
	// InputDiversity is Eq. 9 over the written tests' obstacles (exact
	// polygon unions); InputDiversityAll over every flown test's.
	InputDiversity    float64 `json:"input_diversity"`
	InputDiversityAll float64 `json:"input_diversity_all"`
	// MultiLeg counts the critical flights that came closer than 1.5 m
	// beside more than one leg (Test.CriticalLegs).
	MultiLeg int `json:"critical_on_several_legs"`
}

// Population is one evaluated population of a generation's written tests.
type Population struct {
	Tests     []int    `json:"tests"` // ranks (test_N) of its members, in output order
	Confirmed int      `json:"confirmed"`
	Precision OptFloat `json:"precision"`
	// InputDiversity is Eq. 9–11 and OutputDiversity Eq. 12–13 (DTW
	// between the average trajectories of the re-flights, 2026's scale)
	// of the members, as score.Evaluate computes them for 2026.
	InputDiversity  float64 `json:"input_diversity"`
	OutputDiversity float64 `json:"output_diversity"`
}

// Outcome is the result of one generation; its JSON form is the output
// folder's generation.json.
type Outcome struct {
	Mission     string  `json:"mission"`
	Strategy    string  `json:"strategy"`
	Margin      float64 `json:"margin_m,omitempty"`
	Budget      int     `json:"budget"`
	Seed        uint64  `json:"seed"`
	Simulations int     `json:"simulations"`
	// Critical counts the critical tests that are written: distinct
	// tests, each flown once or, re-flown by the strategy, critical on
	// every flight; the search's duplicates are not among them.
	Critical int `json:"critical"`
	// CriticalFlights counts the flights closer than 1.5 m that did not
	// time out, re-flights included: the hit rate's numerator.
	CriticalFlights int `json:"critical_flights"`
	// Confirmed counts the distinct tests confirmed within the budget
	// (ConfirmRuns).
	Confirmed int `json:"confirmed"`
	// Duplicates counts the failures not written because they repeat a
	// written one (Test.DuplicateOf).
	Duplicates int              `json:"duplicates,omitempty"`
	TimedOut   int              `json:"timed_out"` // flights stopped at the time limit, none of them critical
	BestM      OptFloat         `json:"best_distance_m"`
	Local      *gen.LocalStats  `json:"local_search,omitempty"`
	Search     *gen.SearchStats `json:"search,omitempty"`
	// FlightModel describes the search's flight model, when it had one.
	FlightModel *FlightModelOutcome `json:"flight_model,omitempty"`
	// Legs are the legs tested, in mission order: none for the random
	// strategy, which draws over the whole area.
	Legs         []LegOutcome `json:"legs"`
	TrainingSims int          `json:"training_simulations"` // simulations of the datasets the model was trained on
	Tests        []Test       `json:"tests"`
	Report       *Report      `json:"report,omitempty"`
	Folder       string       `json:"output_folder,omitempty"` // set by whoever writes the folder
	// Wall times, s (informational; not in the files).
	ModelS, GenerateS, SimulateS float64 `json:"-"`

	cs    *scenario.CaseStudy
	order []int // indices of the written tests, best first
}

// Written returns the indices into Tests of the written tests, closest
// first: test_0.yaml is Tests[Written()[0]].
func (o *Outcome) Written() []int { return slices.Clone(o.order) }

// LegOutcome is what a generation did on one leg, or on one corner of the
// mission (Corner > 0, Leg 0).
type LegOutcome struct {
	Leg int `json:"leg"` // 1 for the leg from the take-off point to the first item
	// Corner is the turn's point in the mission path (gen.Corner.Index:
	// the turn between leg Corner and leg Corner+1); its Zone runs from
	// leg_from (CornerLegM before the turn) to leg_to (after it), through
	// CornerAt, and its area is the corner zone's.
	Corner   int         `json:"corner,omitempty"`
	CornerAt *[2]float64 `json:"corner_at,omitempty"`
	// CornerZone is the corner's zone, the rectangle its boxes are drawn
	// in: min x, max x, min y, max y (m); Zone's from_m, to_m,
	// half_width_m and shift_m, which describe a leg's canonical frame,
	// are 0 for a corner.
	CornerZone  *[4]float64        `json:"corner_zone,omitempty"`
	Share       int                `json:"share"` // simulations the leg was given (local: of the seeds; its mutants go where the failures are)
	Zone        Zone               `json:"zone"`
	Simulations int                `json:"simulations"`
	Critical    int                `json:"critical"`
	TimedOut    int                `json:"timed_out"`
	Pipeline    *gen.PipelineStats `json:"pipeline,omitempty"`
}

// has reports whether test t was generated for l.
func (l *LegOutcome) has(t *Test) bool { return l.Leg == t.Leg && l.Corner == t.Corner }

// Name is "leg N" or "corner N".
func (l *LegOutcome) Name() string {
	if l.Corner > 0 {
		return fmt.Sprintf("corner %d", l.Corner)
	}
	return fmt.Sprintf("leg %d", l.Leg)
}

// Zone describes the canonical frame used.
type Zone struct {
	LegA       [2]float64 `json:"leg_from"`
	LegB       [2]float64 `json:"leg_to"`
	S0         float64    `json:"from_m"` // along the leg from leg_from
	S1         float64    `json:"to_m"`
	HalfWidthM float64    `json:"half_width_m"`
	AreaM2     float64    `json:"area_m2"`
	ShiftM     float64    `json:"shift_m"`
}

// OptFloat is a number that JSON writes as null when it is NaN or infinite
// (no value).
type OptFloat float64

// MarshalJSON implements json.Marshaler.
func (v OptFloat) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// since is the wall time since t0 by cfg's clock, s.
func (e *env) since(t0 float64) float64 { return e.seconds() - t0 }

// phase reports the start of a phase to Config.Phase; call what it returns
// at the end.
func (e *env) phase(name string) func() {
	if e.cfg.Phase == nil {
		return func() {}
	}
	return e.cfg.Phase(name)
}

func (e *env) seconds() float64 { return float64(e.cfg.Now().UnixNano()) / 1e9 }

// Run runs a generation: builds the strategy (training its surrogate on a
// cached dataset when it needs one and has none), spends the budget
// (propose, fly, observe), ranks the tests, and with Report flies the
// written ones again. It writes no file but the cache's.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	if cfg.CaseStudy == nil || cfg.Runner == nil {
		return nil, errors.New("harness: Run needs a CaseStudy and a Runner")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	cs := cfg.CaseStudy
	frames, err := gen.Frames(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cs.Name, err)
	}
	var corners []gen.Corner
	if frames, corners, err = cfg.Legs.pick(frames, gen.Corners(cs.Mission.Path(), world.DefaultArea)); err != nil {
		return nil, fmt.Errorf("%s: %w", cs.Name, err)
	}
	e := &env{ctx: ctx, cfg: cfg}
	o := &Outcome{Mission: cs.Name, Strategy: cfg.Strategy, Margin: cfg.MarginM, Budget: cfg.Budget, Seed: cfg.Seed, cs: cs, BestM: OptFloat(math.Inf(1))}
	rules := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	feasible := Feasible(cs)
	valid := func(b []world.Box) bool { return rules(b) && feasible(b) }

	t0 := e.seconds()
	var strat gen.Strategy
	var model *surrogate.Model
	var pipes []*gen.Pipeline
	if cfg.Strategy == StratRandom {
		// Uniform over the whole area: no leg of its own.
		g := gen.Generator{Area: world.DefaultArea, Valid: valid}
		strat = &gen.Baseline{Draw: g.Random, Rng: rand.New(rand.NewPCG(cfg.Seed, 0x6e7))}
	} else {
		weights := make([]float64, len(frames), len(frames)+len(corners))
		subs := make([]gen.Strategy, len(frames), len(frames)+len(corners))
		for k := range frames {
			weights[k] = frames[k].AreaM2()
		}
		for _, c := range corners {
			weights = append(weights, c.AreaM2)
		}
		spend := cfg.Budget
		switch cfg.Strategy {
		case StratLocal:
			spend = gen.LocalConfig{}.SeedCount(cfg.Budget) // the legs' split of the seeds; mutants follow the failures
		case StratSearch:
			spend = gen.SearchConfig{}.SeedCount(cfg.Budget)
		}
		shares := gen.Split(spend, weights)
		for k := range frames {
			f := frames[k]
			// Each leg draws from its own stream, so that adding a leg
			// leaves the others' tests as they were.
			rng := rand.New(rand.NewPCG(cfg.Seed, 0x6e7+uint64(f.Index)<<32))
			sub, pipe, m, sims, err := e.legStrategy(f, rules, feasible, valid, rng)
			if err != nil {
				return nil, err
			}
			if model == nil {
				model = m
			}
			subs[k] = sub
			pipes = append(pipes, pipe)
			o.TrainingSims += sims
			z := f.Zone
			o.Legs = append(o.Legs, LegOutcome{Leg: f.Index, Share: shares[k], Zone: Zone{LegA: [2]float64{z.Leg.A.X, z.Leg.A.Y}, LegB: [2]float64{z.Leg.B.X, z.Leg.B.Y},
				S0: z.S0, S1: z.S1, HalfWidthM: z.HalfWidth, AreaM2: f.AreaM2(), ShiftM: f.Shift}})
		}
		for k, c := range corners {
			// A corner has no canonical frame (the paper's is a straight
			// leg) and so no surrogate: every strategy draws its tests
			// there with the constrained generator against the legs into
			// and out of the turn; the search climbs from what they find.
			rng := rand.New(rand.NewPCG(cfg.Seed, 0xc0e+uint64(c.Index)<<32))
			subs = append(subs, &gen.Baseline{Draw: c.Draw(valid), Rng: rng})
			pipes = append(pipes, nil)
			at := [2]float64{c.At.X, c.At.Y}
			cz := [4]float64{c.Zone.MinX, c.Zone.MaxX, c.Zone.MinY, c.Zone.MaxY}
			o.Legs = append(o.Legs, LegOutcome{Corner: c.Index, CornerAt: &at, CornerZone: &cz, Share: shares[len(frames)+k],
				Zone: Zone{LegA: [2]float64{c.In.A.X, c.In.A.Y}, LegB: [2]float64{c.Out.B.X, c.Out.B.Y}, AreaM2: c.AreaM2}})
		}
		strat = &gen.Legs{Subs: subs, Weights: weights}
	}
	var local *gen.Local
	if cfg.Strategy == StratLocal {
		local = &gen.Local{Inner: strat, Valid: valid, Rng: rand.New(rand.NewPCG(cfg.Seed, 0x10ca1))}
		strat = local
	}
	var search *gen.Search
	if cfg.Strategy == StratSearch {
		prior, err := e.prior(frames, corners, o.Legs, valid)
		if err != nil {
			return nil, err
		}
		search = &gen.Search{Inner: strat, Prior: prior, Valid: valid, Similar: similarFlights(), Rng: rand.New(rand.NewPCG(cfg.Seed, 0x5ea4c))}
		switch cfg.FlightModel {
		case FlightModelContext:
			search.Model = &gen.FlightModel{Context: &gen.FlightContext{Path: cs.Mission.Path()}}
		case FlightModelPlain:
			search.Model = &gen.FlightModel{}
		}
		strat = search
	}
	o.ModelS = e.since(t0)

	// Spend the budget: propose, fly, observe. testOf maps every proposal
	// so far to its test in o.Tests (re-flights to the test they re-fly).
	var testOf []int
	for o.Simulations < cfg.Budget {
		t1 := e.seconds()
		end := e.phase("predicting candidates")
		props, err := strat.Propose(cfg.Budget - o.Simulations)
		end()
		o.GenerateS += e.since(t1)
		if err != nil {
			return nil, err
		}
		if len(props) == 0 {
			break
		}
		boxes := make([][]world.Box, len(props))
		for i, p := range props {
			// A re-flight names a proposal of an earlier batch.
			if p.Refly < 0 || p.Refly > len(testOf) {
				return nil, fmt.Errorf("harness: proposal %d re-flies proposal %d, which was not flown before", len(testOf)+i, p.Refly-1)
			}
			boxes[i] = p.Obstacles
		}
		if len(props) > cfg.Budget-o.Simulations {
			return nil, fmt.Errorf("harness: %d proposals for the %d simulations left", len(props), cfg.Budget-o.Simulations)
		}
		t2 := e.seconds()
		res, err := e.fly(cs, boxes, cfg.Seed, o.Simulations, true, "simulating")
		o.SimulateS += e.since(t2)
		if err != nil {
			return nil, err
		}
		dist := make([]float64, len(res))
		var paths [][]geom.Vec3
		if _, ok := strat.(gen.PathObserver); ok {
			paths = make([][]geom.Vec3, len(res))
		}
		for i, r := range res {
			dist[i] = clearanceOf(r)
			var pos []geom.Vec3 // a critical flight's 0.5-s positions
			if !r.TimedOut && dist[i] < run.CriticalM {
				pos = trace.Positions(resampled(r))
				if paths != nil {
					paths[i] = pos
				}
			}
			if r.TimedOut {
				// The strategy learns that the test found nothing.
				dist[i] = math.Max(dist[i], run.CriticalM)
			}
			if k := props[i].Refly; k > 0 {
				// A confirmation: another flight of an earlier test.
				j := testOf[k-1]
				if !slices.Equal(o.Tests[j].Obstacles, props[i].Obstacles) {
					return nil, fmt.Errorf("harness: proposal %d re-flies proposal %d with other obstacles", len(testOf), k-1)
				}
				o.Tests[j].addFlight(Flight{ClearanceM: clearanceOf(r), TimedOut: r.TimedOut})
				testOf = append(testOf, j)
				continue
			}
			testOf = append(testOf, len(o.Tests))
			t := Test{Obstacles: slices.Clone(props[i].Obstacles), Canonical: props[i].Canon, ClearanceM: clearanceOf(r), Verdict: r.Verdict,
				Completed: r.Completed, TimedOut: r.TimedOut, FlightS: r.FlightTimeS, Rank: -1, result: r}
			t.Leg, t.Corner = legOf(o, props[i])
			if t.critical() {
				t.CriticalLegs = gen.CriticalLegs(gen.LegClearances(cs.Mission.Path(), t.Obstacles, pos), run.CriticalM)
			}
			if !math.IsNaN(props[i].Pred) {
				v := math.Round(props[i].Pred*1e4) / 1e4
				t.Predicted = &v
			}
			if r.Verdict == run.VerdictPass {
				r.Trace, r.Resampled = nil, nil // only written tests are plotted
			}
			o.Tests = append(o.Tests, t)
		}
		o.Simulations += len(props)
		t3 := e.seconds()
		end = e.phase("learning from the flights")
		if po, ok := strat.(gen.PathObserver); ok {
			err = po.ObservePaths(paths)
		}
		if err == nil {
			err = strat.Observe(dist)
		}
		end()
		o.GenerateS += e.since(t3)
		if err != nil {
			return nil, err
		}
	}
	for k, p := range pipes {
		if p != nil {
			st := p.Stats
			o.Legs[k].Pipeline = &st
		}
	}
	rank(o)
	if local != nil {
		st := local.Stats
		o.Local = &st
		diverseOrder(o)
	}
	if search != nil {
		st := search.Stats
		o.Search = &st
		if search.Model != nil {
			fm := FlightModelOutcome{Name: cfg.FlightModel, FlightModelStats: search.Model.Stats}
			o.FlightModel = &fm
		}
		confirmedOrder(o, search.DuplicateOf)
	}
	if cfg.Report {
		if err := e.report(o, model); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// FlightModelOutcome is the search's flight model (Config.FlightModel) and
// its fits.
type FlightModelOutcome struct {
	Name string `json:"name"`
	gen.FlightModelStats
}

// legStrategy builds the strategy of cfg.Strategy (not random) for one
// leg's frame, training its surrogate when it needs one and has none, and
// returns it with its pipeline (nil for the constrained baseline), its
// model and the simulations its training data cost.
func (e *env) legStrategy(f gen.Frame, rules, feasible, valid func([]world.Box) bool, rng *rand.Rand) (gen.Strategy, *gen.Pipeline, *surrogate.Model, int, error) {
	cfg := e.cfg
	if cfg.Strategy == StratConstrained {
		return &gen.Baseline{Draw: f.Generator(valid).Constrained, Frame: &f, Rng: rng}, nil, nil, 0, nil
	}
	missionModel := cfg.Strategy == StratMission || cfg.Strategy == StratMissionActive
	refine := cfg.Strategy == StratActive || cfg.Strategy == StratMissionActive
	model, base := cfg.Model, cfg.Data
	sims := 0
	var err error
	if base.Len() == 0 && (model == nil || refine) {
		if missionModel {
			base, err = e.missionDataset(f)
		} else {
			base, err = e.canonicalDataset()
		}
		if err != nil {
			return nil, nil, nil, 0, err
		}
		if missionModel || !e.canonicalCounted {
			sims = cfg.DatasetN
			e.canonicalCounted = e.canonicalCounted || !missionModel
		}
	}
	if model == nil {
		end := e.phase("training the surrogate")
		model, err = cfg.Cache.Model(base)
		end()
		if err != nil {
			return nil, nil, nil, 0, err
		}
	}
	pipe := &gen.Pipeline{Config: gen.PipelineConfig{Batch: cfg.Batch, Margin: cfg.MarginM}, Frame: f, Gen: f.Generator(rules), Model: model, Rng: rng,
		Feasible: feasible}
	if refine {
		pipe.Config.Refine = &gen.Refine{Rounds: cfg.Rounds, Base: base, Train: surrogate.Config{Seed: cfg.Seed, ValFraction: -1}}
	}
	return pipe, pipe, model, sims, nil
}

// prior returns the search's first seeds: the tests of the training data
// (Config.Data, else the canonical dataset) that came closest, each mapped
// onto every leg tested by its canonical frame and kept when valid there,
// as many a leg as its share of the seeds, the legs taken in turn. The
// training data's flights are not the budget's (Outcome.TrainingSims
// counts them), and a test of it flown on the mission is a new flight.
func (e *env) prior(frames []gen.Frame, corners []gen.Corner, legs []LegOutcome, valid func([]world.Box) bool) ([]gen.Proposal, error) {
	d := e.cfg.Data
	if d.Len() == 0 {
		var err error
		if d, err = e.canonicalDataset(); err != nil {
			return nil, err
		}
	}
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(d.Y[a], d.Y[b]) })
	per := make([][]gen.Proposal, len(frames)+len(corners))
	for k, f := range frames {
		for _, i := range idx {
			if len(per[k]) == legs[k].Share || !(d.Y[i] < math.Inf(1)) {
				break
			}
			canon := gen.BoxesOf(d.X[i])
			b := f.MissionBoxes(canon)
			if valid(b) {
				per[k] = append(per[k], gen.Proposal{Obstacles: b, Canon: canon, Pred: math.NaN(), Leg: k})
			}
		}
	}
	// The training data has nothing for a turn: a corner's seeds are its
	// own constrained draws (the corner's strategy draws the same way).
	for kc, c := range corners {
		k := len(frames) + kc
		rng := rand.New(rand.NewPCG(e.cfg.Seed, 0x5eedc0e+uint64(c.Index)<<32))
		draw := c.Draw(valid)
		for len(per[k]) < legs[k].Share {
			t, err := draw(rng)
			if err != nil {
				return nil, fmt.Errorf("corner %d: %w", c.Index, err)
			}
			per[k] = append(per[k], gen.Proposal{Obstacles: t.Obstacles, Pred: math.NaN(), Leg: k})
		}
	}
	var out []gen.Proposal
	for j := 0; ; j++ {
		n := len(out)
		for k := range per {
			if j < len(per[k]) {
				out = append(out, per[k][j])
			}
		}
		if len(out) == n {
			return out, nil
		}
	}
}

// legOf is the leg (Frame.Index) and the corner (gen.Corner.Index) a
// proposal was generated for, one of them 0; both 0 for the random
// strategy, which has none.
func legOf(o *Outcome, p gen.Proposal) (leg, corner int) {
	if len(o.Legs) == 0 {
		return 0, 0
	}
	l := o.Legs[p.Leg]
	return l.Leg, l.Corner
}

// Feasible returns the feasibility every generated test must have on the
// mission of cs (competition.md §3.5: a mission that cannot be flown
// without a violation is invalid): scenario.Feasibility with the mission's
// NAV_ACC_RAD and the generators' waypoint margin,
// scenario.GenerationWaypointM. Tests that fail it are never flown,
// counted or written.
func Feasible(cs *scenario.CaseStudy) func([]world.Box) bool {
	f := scenario.Feasibility{AccRadM: cs.Params["NAV_ACC_RAD"], WaypointM: scenario.GenerationWaypointM}
	m := cs.Mission
	return func(b []world.Box) bool { return f.Feasible(m, b) }
}

// clearanceOf is the minimum clearance of a run; +Inf without obstacles.
func clearanceOf(r *run.Result) float64 {
	if r.MinClearanceM == nil {
		return math.Inf(1)
	}
	return *r.MinClearanceM
}

// critical reports whether a test found a failure: every flight of it
// within the budget came closer than 1.5 m and none was stopped at the
// time limit. A test re-flown by its strategy is thus written only if no
// re-flight disproved it.
func (t *Test) critical() bool {
	for _, f := range t.flights() {
		if f.TimedOut || !(f.ClearanceM < run.CriticalM) {
			return false
		}
	}
	return true
}

// rank orders the critical tests closest first (ties by the order they
// were flown) and counts them, the confirmed ones, the critical flights
// and the timed-out flights.
func rank(o *Outcome) {
	o.order = o.order[:0]
	o.TimedOut, o.Confirmed, o.CriticalFlights = 0, 0, 0
	for k := range o.Legs {
		l := &o.Legs[k]
		l.Simulations, l.Critical, l.TimedOut = 0, 0, 0
	}
	for i := range o.Tests {
		t := &o.Tests[i]
		t.Rank = -1
		if t.critical() {
			o.order = append(o.order, i)
		}
		if t.confirmed() {
			o.Confirmed++
		}
		fs := t.flights()
		timedOut := 0
		for _, f := range fs {
			if f.TimedOut {
				timedOut++
			} else if f.ClearanceM < run.CriticalM {
				o.CriticalFlights++
			}
		}
		o.TimedOut += timedOut
		for k := range o.Legs {
			if l := &o.Legs[k]; l.has(t) {
				l.Simulations += len(fs)
				if t.critical() {
					l.Critical++
				}
				l.TimedOut += timedOut
			}
		}
		o.BestM = OptFloat(math.Min(float64(o.BestM), t.ClearanceM))
	}
	slices.SortStableFunc(o.order, func(a, b int) int { return cmp.Compare(o.Tests[a].ClearanceM, o.Tests[b].ClearanceM) })
	for r, i := range o.order {
		o.Tests[i].Rank = r
	}
	o.Critical = len(o.order)
}

// env is one generation's context: the configuration and the runner.
type env struct {
	ctx context.Context
	cfg Config
	// canonicalCounted is set once the canonical dataset's simulations are
	// in Outcome.TrainingSims: the legs share it.
	canonicalCounted bool
	// fp and canon memoize fingerprint and canonicalDataset: every leg and
	// the search's seeds use them.
	fp    string
	canon *surrogate.Dataset
}

// fly flies the mission cs with each of boxes once, with the seeds of
// simulations first, first+1, … of base seed seed, through the runner.
func (e *env) fly(cs *scenario.CaseStudy, boxes [][]world.Box, seed uint64, first int, keepTrace bool, what string) ([]*run.Result, error) {
	wind, err := Wind(e.cfg.GustMS)
	if err != nil {
		return nil, err
	}
	jobs := make([]run.Job, len(boxes))
	for i, b := range boxes {
		c := *cs
		c.Obstacles = b
		jobs[i] = run.Job{Case: &c, Opt: run.Options{Seed: run.RunSeed(seed, first+i), TimeoutS: e.cfg.TimeoutS, Wind: wind, Autopilot: run.AutopilotAvoid, PreArmS: PreArmS}}
	}
	var onDone func(int)
	if e.cfg.Progress != nil {
		onDone = e.cfg.Progress(what, len(jobs))
	}
	return e.cfg.Runner.Batch(e.ctx, "generate "+e.cfg.CaseStudy.Name+" "+what, jobs, keepTrace, onDone)
}
