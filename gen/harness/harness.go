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
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
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
	FlightS    float64     `json:"flight_time_s"`
	Rank       int         `json:"rank"` // index in the output folder; −1 when not written
	// Repeats are the clearances of the repeated flights of a written test
	// (Config.Report).
	Repeats []float64 `json:"repeats_m,omitempty"`

	result *run.Result // the flight; its trace is kept for the written tests only
}

// Report are the paper's measures (§VI) of one generation.
type Report struct {
	HitRate float64 `json:"hit_rate"` // critical simulations / budget
	// Precision is the share of written tests whose mean clearance over
	// Runs fresh flights is below 1.5 m (§VI); NaN when none was written.
	Precision OptFloat `json:"precision"`
	Runs      int      `json:"runs"`
	// SurrogatePrecision is the share of flown tests predicted ≤ 1.5 m
	// that the flight confirmed; NaN without predictions.
	SurrogatePrecision OptFloat `json:"surrogate_precision"`
	RMSE               OptFloat `json:"rmse_m"`            // surrogate on the flown tests; NaN without
	ValidationRMSE     OptFloat `json:"validation_rmse_m"` // of the model's own split; NaN without
	// InputDiversity is Eq. 9 over the written tests' obstacles (exact
	// polygon unions); InputDiversityAll over every flown test's.
	InputDiversity    float64 `json:"input_diversity"`
	InputDiversityAll float64 `json:"input_diversity_all"`
	// InputDiversity20 is Eq. 9 over the first 20 written tests, the
	// suite the 2025/2026 competitions score.
	InputDiversity20 float64 `json:"input_diversity_first20"`
}

// Outcome is the result of one generation; its JSON form is the output
// folder's generation.json.
type Outcome struct {
	Mission      string             `json:"mission"`
	Strategy     string             `json:"strategy"`
	Margin       float64            `json:"margin_m,omitempty"`
	Budget       int                `json:"budget"`
	Seed         uint64             `json:"seed"`
	Simulations  int                `json:"simulations"`
	Critical     int                `json:"critical"`
	BestM        OptFloat           `json:"best_distance_m"`
	Zone         *Zone              `json:"zone,omitempty"`
	Pipeline     *gen.PipelineStats `json:"pipeline,omitempty"`
	TrainingSims int                `json:"training_simulations"` // simulations of the datasets the model was trained on
	Tests        []Test             `json:"tests"`
	Report       *Report            `json:"report,omitempty"`
	Folder       string             `json:"output_folder,omitempty"` // set by whoever writes the folder
	// Wall times, s (informational; not in the files).
	ModelS, GenerateS, SimulateS float64 `json:"-"`

	cs    *scenario.CaseStudy
	order []int // indices of the written tests, best first
}

// Written returns the indices into Tests of the written tests, closest
// first: test_0.yaml is Tests[Written()[0]].
func (o *Outcome) Written() []int { return slices.Clone(o.order) }

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
	frame, err := gen.NewFrame(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cs.Name, err)
	}
	e := &env{ctx: ctx, cfg: cfg}
	o := &Outcome{Mission: cs.Name, Strategy: cfg.Strategy, Margin: cfg.MarginM, Budget: cfg.Budget, Seed: cfg.Seed, cs: cs, BestM: OptFloat(math.Inf(1))}
	z := frame.Zone
	o.Zone = &Zone{LegA: [2]float64{z.Leg.A.X, z.Leg.A.Y}, LegB: [2]float64{z.Leg.B.X, z.Leg.B.Y}, S0: z.S0, S1: z.S1,
		HalfWidthM: z.HalfWidth, AreaM2: z.Area(), ShiftM: frame.Shift}
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6e7))

	t0 := e.seconds()
	model, base := cfg.Model, cfg.Data
	var strat gen.Strategy
	var pipe *gen.Pipeline
	switch cfg.Strategy {
	case StratRandom:
		leg, err := gen.LongestLeg(cs.Mission.Path(), world.DefaultArea)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cs.Name, err)
		}
		g := gen.Generator{Leg: leg, Area: world.DefaultArea, Valid: valid}
		strat = &gen.Baseline{Draw: g.Random, Rng: rng}
	case StratConstrained:
		strat = &gen.Baseline{Draw: frame.Generator(valid).Constrained, Frame: &frame, Rng: rng}
	default:
		missionModel := cfg.Strategy == StratMission || cfg.Strategy == StratMissionActive
		refine := cfg.Strategy == StratActive || cfg.Strategy == StratMissionActive
		if base.Len() == 0 && (model == nil || refine) {
			if missionModel {
				base, err = e.missionDataset(frame)
			} else {
				base, err = e.canonicalDataset()
			}
			if err != nil {
				return nil, err
			}
			o.TrainingSims = cfg.DatasetN
		}
		if model == nil {
			end := e.phase("training the surrogate")
			model, err = cfg.Cache.Model(base)
			end()
			if err != nil {
				return nil, err
			}
		}
		pipe = &gen.Pipeline{Config: gen.PipelineConfig{Batch: cfg.Batch, Margin: cfg.MarginM}, Frame: frame, Gen: frame.Generator(valid), Model: model, Rng: rng}
		if refine {
			pipe.Config.Refine = &gen.Refine{Rounds: cfg.Rounds, Base: base, Train: surrogate.Config{Seed: cfg.Seed, ValFraction: -1}}
		}
		strat = pipe
	}
	o.ModelS = e.since(t0)

	// Spend the budget: propose, fly, observe.
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
			boxes[i] = p.Obstacles
		}
		t2 := e.seconds()
		res, err := e.fly(cs, boxes, cfg.Seed, o.Simulations, true, "simulating")
		o.SimulateS += e.since(t2)
		if err != nil {
			return nil, err
		}
		dist := make([]float64, len(res))
		for i, r := range res {
			dist[i] = clearanceOf(r)
			t := Test{Obstacles: slices.Clone(props[i].Obstacles), Canonical: props[i].Canon, ClearanceM: dist[i], Verdict: r.Verdict,
				Completed: r.Completed, FlightS: r.FlightTimeS, Rank: -1, result: r}
			if !math.IsNaN(props[i].Pred) {
				v := math.Round(props[i].Pred*1e4) / 1e4
				t.Predicted = &v
			}
			if r.Verdict == run.VerdictPass {
				r.Trace = nil // only written tests are plotted
			}
			o.Tests = append(o.Tests, t)
		}
		o.Simulations += len(props)
		t3 := e.seconds()
		end = e.phase("learning from the flights")
		err = strat.Observe(dist)
		end()
		o.GenerateS += e.since(t3)
		if err != nil {
			return nil, err
		}
	}
	if pipe != nil {
		st := pipe.Stats
		o.Pipeline = &st
	}
	rank(o)
	if cfg.Report {
		if err := e.report(o, model); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// clearanceOf is the minimum clearance of a run; +Inf without obstacles.
func clearanceOf(r *run.Result) float64 {
	if r.MinClearanceM == nil {
		return math.Inf(1)
	}
	return *r.MinClearanceM
}

// rank orders the critical tests closest first (ties by the order they
// were flown) and counts them.
func rank(o *Outcome) {
	o.order = o.order[:0]
	for i, t := range o.Tests {
		if t.ClearanceM < run.CriticalM {
			o.order = append(o.order, i)
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
		jobs[i] = run.Job{Case: &c, Opt: run.Options{Seed: run.RunSeed(seed, first+i), TimeoutS: e.cfg.TimeoutS, Wind: wind, Autopilot: run.AutopilotAvoid}}
	}
	var onDone func(int)
	if e.cfg.Progress != nil {
		onDone = e.cfg.Progress(what, len(jobs))
	}
	return e.cfg.Runner.Batch(e.ctx, "generate "+e.cfg.CaseStudy.Name+" "+what, jobs, keepTrace, onDone)
}
