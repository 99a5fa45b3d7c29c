package harness

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/score"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

func mission(t *testing.T, name string) *scenario.CaseStudy {
	t.Helper()
	cs, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func runner(workers int) *campaign.Runner {
	return &campaign.Runner{Exec: &campaign.Local{Workers: workers}}
}

// fixedClock is a clock that moves one second per reading, so that the
// wall times are known.
func fixedClock() func() time.Time {
	t := time.Unix(1e9, 0)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// A generation's flights are Aerialist's: the log, and so the flight time
// the test scores divide by, starts PreArmS before arming.
func TestFlightsStartBeforeArming(t *testing.T) {
	cs := mission(t, "mission2")
	e := &env{ctx: context.Background(), cfg: Config{CaseStudy: cs, Runner: runner(1)}}
	res, err := e.fly(cs, [][]world.Box{nil}, 1, 0, false, "simulating")
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if !r.Completed || r.FlightTimeS-r.AirborneS < PreArmS {
		t.Errorf("completed %v, flight time %v s, airborne %v s; want %v s on the ground before take-off in the log", r.Completed, r.FlightTimeS, r.AirborneS, PreArmS)
	}
}

// The default path of `shakedown generate` without a model, for the
// default strategy (the search) and for the paper's pipeline: the
// canonical dataset is simulated (a small one here), cached, the surrogate
// trained on it and cached, the budget spent (the search's seeds drawn
// from the dataset), and the written tests are flown again for the
// measures. A second run reads both from the cache and writes the same
// files.
func TestRunDefaultPath(t *testing.T) {
	for _, strategy := range []string{"", StratSurrogate} {
		t.Run(cmp.Or(strategy, "default"), func(t *testing.T) { testRunDefaultPath(t, strategy) })
	}
}

func testRunDefaultPath(t *testing.T, strategy string) {
	dir := t.TempDir()
	var log bytes.Buffer
	var progress []string
	cfg := Config{CaseStudy: mission(t, "mission2"), Budget: 6, Strategy: strategy, Seed: 1, GustMS: DefaultGustMS, Batch: 20, DatasetN: 20,
		Report: true, Runs: 2, Runner: runner(2), Cache: &Cache{Dir: dir}, Log: &log, Now: fixedClock(),
		Progress: func(what string, total int) func(int) {
			progress = append(progress, what)
			return func(done int) {
				if done > total {
					t.Errorf("%s: %d done of %d", what, done, total)
				}
			}
		}}
	o, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	flights := 0
	for _, tc := range o.Tests {
		flights += len(tc.flights())
	}
	if o.Simulations != 6 || flights != 6 || o.TrainingSims != 20 {
		t.Errorf("%d simulations, %d flights over the tests, %d training; want 6, 6, 20", o.Simulations, flights, o.TrainingSims)
	}
	if len(o.Legs) != 2 || o.Legs[0].Leg != 2 || o.Legs[1].Leg != 3 {
		t.Fatalf("legs %+v; want mission2's legs 2 and 3", o.Legs)
	}
	switch strategy {
	case "":
		if o.Strategy != StratSearch || o.Search == nil || o.Search.Prior != (gen.SearchConfig{}).SeedCount(6) {
			t.Errorf("strategy %s, search %+v; want the search, its seeds from the dataset", o.Strategy, o.Search)
		}
	case StratSurrogate:
		if o.Strategy != StratSurrogate || len(o.Tests) != 6 || o.Legs[0].Share+o.Legs[1].Share != 6 {
			t.Errorf("strategy %s, %d tests, legs %+v; want surrogate, 6 tests, the legs sharing the budget", o.Strategy, len(o.Tests), o.Legs)
		}
		for _, l := range o.Legs {
			if l.Pipeline == nil || l.Pipeline.Candidates == 0 || l.Simulations != l.Share {
				t.Errorf("leg %d: pipeline stats %+v, %d simulations of %d; want the candidates predicted and the share spent", l.Leg, l.Pipeline, l.Simulations, l.Share)
			}
		}
		for i, tc := range o.Tests {
			if tc.Predicted == nil || len(tc.Obstacles) != 2 {
				t.Errorf("test %d: prediction %v, %d obstacles; want a prediction and 2", i, tc.Predicted, len(tc.Obstacles))
			}
		}
	}
	if !strings.Contains(log.String(), "building the canonical training dataset (20 flights, cached in "+dir) ||
		!strings.Contains(log.String(), "canonical: 20 tests") {
		t.Errorf("log %q; want the dataset being built and its summary", log.String())
	}
	if !slices.Contains(progress, "simulating") || (o.Critical > 0 && !slices.Contains(progress, "confirming")) {
		t.Errorf("progress reports %v", progress)
	}
	if o.ModelS <= 0 || o.SimulateS <= 0 {
		t.Errorf("wall times %v, %v; want them measured by the clock", o.ModelS, o.SimulateS)
	}
	datasets, _ := filepath.Glob(filepath.Join(dir, "datasets", fmt.Sprintf("canonical-n20-seed1-gust%g-t500-sim*-v%d.csv", DefaultGustMS, cacheVersion)))
	models, _ := filepath.Glob(filepath.Join(dir, "models", fmt.Sprintf("model-*-seed1-v%d.json", cacheVersion)))
	if len(datasets) != 1 || len(models) != 1 {
		t.Fatalf("cache holds datasets %v and models %v; want one of each", datasets, models)
	}
	r := o.Report
	if r == nil || r.Runs != 2 || math.IsNaN(float64(r.ValidationRMSE)) {
		t.Fatalf("report %+v; want 2 runs and the validation RMSE", r)
	}
	// The RMSE on generated tests is over the tests the surrogate predicted:
	// all of the pipeline's, those the search's inner pipeline proposed.
	predicted := slices.ContainsFunc(o.Tests, func(tc Test) bool { return tc.Predicted != nil })
	if strategy == StratSurrogate && !predicted {
		t.Errorf("no test of the pipeline carries a prediction")
	}
	if math.IsNaN(float64(r.RMSE)) == predicted {
		t.Errorf("RMSE %v with predictions %v; want it measured exactly when a test was predicted", r.RMSE, predicted)
	}
	if want := float64(o.Critical) / 6; r.HitRate != want {
		t.Errorf("hit rate %v; want %v", r.HitRate, want)
	}
	for _, i := range o.Written() { // 6 tests: every written one is in both populations
		if len(o.Tests[i].Repeats) != 2 {
			t.Errorf("written test %d has %d repeats; want 2", i, len(o.Tests[i].Repeats))
		}
	}
	files := fileMap(t, o)

	log.Reset()
	cfg.Now = fixedClock()
	again, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "building") {
		t.Errorf("second run built a dataset again: %q", log.String())
	}
	if diff := diffFiles(files, fileMap(t, again)); diff != "" {
		t.Errorf("a second run from the cache wrote other files: %s", diff)
	}
}

// fileMap renders o's folder and checks its layout.
func fileMap(t *testing.T, o *Outcome) map[string][]byte {
	t.Helper()
	fs, err := o.Files()
	if err != nil {
		t.Fatal(err)
	}
	feasible := Feasible(o.cs)
	for i, tc := range o.Tests {
		if !feasible(tc.Obstacles) {
			t.Errorf("test %d %v flown: infeasible", i, tc.Obstacles)
		}
	}
	m := map[string][]byte{}
	for _, f := range fs {
		m[f.Name] = f.Data
	}
	if len(fs) != 2+2*o.Critical+len(o.Legs) || m["generation.json"] == nil || m[SafeName(o.Mission)+".plan"] == nil {
		t.Errorf("%d files for %d critical tests and %d legs; want the plan, generation.json, a YAML and a PNG each, a generation.json per leg",
			len(fs), o.Critical, len(o.Legs))
	}
	perLeg := 0
	for _, l := range o.Legs {
		var lg struct {
			Leg         int    `json:"leg"`
			Simulations int    `json:"simulations"`
			Tests       []Test `json:"tests"`
		}
		if err := json.Unmarshal(m[fmt.Sprintf("leg_%d/generation.json", l.Leg)], &lg); err != nil {
			t.Fatalf("leg_%d/generation.json: %v", l.Leg, err)
		}
		flights := 0
		for _, tc := range lg.Tests {
			if tc.Leg != l.Leg {
				t.Errorf("leg_%d/generation.json holds a test of leg %d", l.Leg, tc.Leg)
			}
			flights += len(tc.flights()) // a re-flight is a simulation of its test
		}
		if lg.Leg != l.Leg || flights != l.Simulations {
			t.Errorf("leg_%d/generation.json: leg %d, %d flights of its tests; want %d", l.Leg, lg.Leg, flights, l.Simulations)
		}
		perLeg += len(lg.Tests)
	}
	if len(o.Legs) > 0 && perLeg != len(o.Tests) {
		t.Errorf("the legs' files hold %d tests of %d", perLeg, len(o.Tests))
	}
	prev := -1.0
	for r, i := range o.Written() {
		tc := o.Tests[i]
		if o.Strategy == StratLocal || o.Strategy == StratSearch {
			prev = -1 // ordered for output diversity (the search: confirmed first)
		}
		if tc.Rank != r || tc.ClearanceM < prev || tc.ClearanceM >= run.CriticalM {
			t.Errorf("test_%d: rank %d, %.3f m after %.3f m; want critical tests closest first", r, tc.Rank, tc.ClearanceM, prev)
		}
		prev = tc.ClearanceM
	}
	return m
}

func diffFiles(a, b map[string][]byte) string {
	var d []string
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			d = append(d, k)
		}
	}
	for k := range b {
		if a[k] == nil {
			d = append(d, k)
		}
	}
	slices.Sort(d)
	return strings.Join(d, ", ")
}

// The mission strategies train on tests of the mission itself, and the
// active ones retrain after each round; the budget is spent exactly.
func TestRunMissionActive(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	o, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission4"), Budget: 5, Strategy: StratMissionActive, Seed: 2,
		Batch: 10, Rounds: 2, DatasetN: 12, MarginM: 0.3, Legs: LegChoice{List: []int{4}}, Runner: runner(2), Cache: &Cache{Dir: dir}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if o.Simulations != 5 || o.TrainingSims != 12 || o.Margin != 0.3 {
		t.Errorf("%d simulations, %d training, margin %v; want 5, 12, 0.3", o.Simulations, o.TrainingSims, o.Margin)
	}
	if len(o.Legs) != 1 || o.Legs[0].Pipeline == nil || o.Legs[0].Pipeline.Retrains == 0 {
		t.Errorf("legs %+v; want leg 4 alone, with retrainings", o.Legs)
	}
	if !strings.Contains(log.String(), "building the mission4 leg 4 training dataset (12 flights") {
		t.Errorf("log %q", log.String())
	}
	if ds, _ := filepath.Glob(filepath.Join(dir, "datasets", "mission-mission4-*-leg4-n12-seed1-*.csv")); len(ds) != 1 {
		t.Errorf("cached mission datasets %v; want one", ds)
	}
	fileMap(t, o)
}

// The baselines need no model and no cache; their tests have no
// prediction, and the report has no surrogate measures.
func TestRunBaselines(t *testing.T) {
	for _, s := range []string{StratRandom, StratConstrained} {
		t.Run(s, func(t *testing.T) {
			o, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission5"), Budget: 4, Strategy: s, Report: true, Runs: 1, Runner: runner(1)})
			if err != nil {
				t.Fatal(err)
			}
			if o.Simulations != 4 || o.Report == nil || (s == StratRandom) != (len(o.Legs) == 0) {
				t.Fatalf("%d simulations, legs %v, report %v", o.Simulations, o.Legs, o.Report)
			}
			for _, l := range o.Legs {
				if l.Pipeline != nil {
					t.Errorf("leg %d has pipeline stats", l.Leg)
				}
			}
			for i, tc := range o.Tests {
				if tc.Predicted != nil {
					t.Errorf("test %d predicted", i)
				}
				if tc.critical() != (len(tc.CriticalLegs) > 0) {
					t.Errorf("test %d: critical %v, critical legs %v", i, tc.critical(), tc.CriticalLegs)
				}
			}
			if !math.IsNaN(float64(o.Report.RMSE)) || !math.IsNaN(float64(o.Report.ValidationRMSE)) {
				t.Errorf("RMSE %v, %v; want none", o.Report.RMSE, o.Report.ValidationRMSE)
			}
			fileMap(t, o)
		})
	}
}

// A given model and dataset are used as they are: nothing is simulated
// for training and nothing is cached.
func TestRunGivenModel(t *testing.T) {
	d := syntheticDataset(60)
	m, err := surrogate.Train(d, surrogate.Config{Seed: 1, Epochs: 5})
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission2"), Budget: 3, Strategy: StratActive, Model: m, Data: d,
		Batch: 10, Rounds: 1, Runner: runner(1)})
	if err != nil {
		t.Fatal(err)
	}
	if o.TrainingSims != 0 || o.Simulations != 3 {
		t.Errorf("%d training simulations, %d simulations; want 0 and 3", o.TrainingSims, o.Simulations)
	}
}

func syntheticDataset(n int) surrogate.Dataset {
	var d surrogate.Dataset
	for i := range n {
		x := float64(i%10) - 5
		d.X = append(d.X, surrogate.Features{4, 5, x, 20, 10, 6, 3, 10, 30, 45})
		d.Y = append(d.Y, math.Abs(x)/2)
	}
	return d
}

func TestConfigValidate(t *testing.T) {
	good := Config{Budget: 10}
	if err := good.Validate(); err != nil {
		t.Fatalf("zero values with a budget: %v", err)
	}
	for _, c := range []struct {
		field string
		edit  func(*Config)
	}{
		{"budget", func(c *Config) { c.Budget = 0 }},
		{"budget", func(c *Config) { c.Budget = 2_000_000 }},
		{"strategy", func(c *Config) { c.Strategy = "genius" }},
		{"timeout", func(c *Config) { c.TimeoutS = math.Inf(1) }},
		{"batch", func(c *Config) { c.Batch = -1 }},
		{"margin", func(c *Config) { c.MarginM = 1.5 }},
		{"margin", func(c *Config) { c.MarginM = math.NaN() }},
		{"rounds", func(c *Config) { c.Rounds = 101 }},
		{"runs", func(c *Config) { c.Runs = -1 }},
		{"dataset-n", func(c *Config) { c.DatasetN = 9 }},
		{"gust", func(c *Config) { c.GustMS = 11 }},
	} {
		cfg := good
		c.edit(&cfg)
		var ce *ConfigError
		if err := cfg.Validate(); !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: got %v; want a ConfigError on %s", cfg, err, c.field)
		}
	}
	if _, err := Run(context.Background(), Config{Budget: 1}); err == nil {
		t.Error("Run without a case study and a runner: no error")
	}
	if _, err := Run(context.Background(), Config{Budget: 0, CaseStudy: mission(t, "mission2"), Runner: runner(1)}); err == nil {
		t.Error("Run with budget 0: no error")
	}
}

// The dataset is the same bytes whatever the number of workers, has the
// frame line, the header and one row per test, and counts its critical
// tests.
func TestBuildDataset(t *testing.T) {
	cfg := DatasetConfig{CaseStudy: mission(t, "mission3"), N: 5, Seed: 4, GustMS: 0.3, Runner: runner(1)}
	a, err := BuildDataset(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Runner = runner(2)
	b, err := BuildDataset(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.CSV, b.CSV) {
		t.Error("1 and 2 workers wrote different datasets")
	}
	lines := strings.Split(strings.TrimSpace(string(a.CSV)), "\n")
	if len(lines) != 7 || lines[0] != "# frame: mission3" || lines[1] != strings.Join(DatasetHeader, ",") {
		t.Fatalf("%d lines, frame %q, header %q", len(lines), lines[0], lines[1])
	}
	critical := 0
	for _, l := range lines[2:] {
		f := strings.Split(l, ",")
		if len(f) != len(DatasetHeader) || f[16] == "" {
			t.Errorf("row %q: want %d fields and the generator's categories", l, len(DatasetHeader))
		}
		if f[14] != run.VerdictPass {
			critical++
		}
	}
	if a.Critical != critical || a.N != 5 {
		t.Errorf("counted %d critical of %d; want %d of 5", a.Critical, a.N, critical)
	}
	// The flight times are Aerialist's, from PreArmS before arming: no
	// flight of these five is shorter than the mission without boxes plus
	// the time on the ground.
	bare, _, err := run.FlySim(context.Background(), mission(t, "mission3"), run.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(DatasetHeader, "flight_time")
	for _, l := range lines[2:] {
		f := strings.Split(l, ",")[col]
		if ft, err := strconv.ParseFloat(f, 64); err != nil || ft < bare.FlightTimeS+PreArmS-2 {
			t.Errorf("flight time %q; want at least %.1f s (%.1f s without boxes, %v s before arming)", f, bare.FlightTimeS+PreArmS-2, bare.FlightTimeS, PreArmS)
		}
	}
	if s := a.Summary("mission3", "d.csv"); !strings.HasPrefix(s, "mission3: 5 tests, ") || !strings.HasSuffix(s, "wrote d.csv") {
		t.Errorf("summary %q", s)
	}
	cfg.Generator = GeneratorRandom
	r, err := BuildDataset(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(r.CSV, a.CSV) || !strings.Contains(string(r.CSV), ",,,,,,,,,\n") {
		t.Error("the random generator's rows: want other tests and no categories")
	}
	for _, bad := range []DatasetConfig{{N: 1, Runner: cfg.Runner}, {CaseStudy: cfg.CaseStudy, N: 0, Runner: cfg.Runner},
		{CaseStudy: cfg.CaseStudy, N: 1, Generator: "x", Runner: cfg.Runner}, {CaseStudy: cfg.CaseStudy, N: 1, Autopilot: "x", Runner: cfg.Runner},
		{CaseStudy: cfg.CaseStudy, N: 1, TimeoutS: -1, Runner: cfg.Runner}, {CaseStudy: cfg.CaseStudy, N: 1}} {
		if _, err := BuildDataset(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestCache(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	csv := []byte("test,l1,w1,x1,y1,r1,l2,w2,x2,y2,r2,min_distance\n0,4,5,1,20,10,6,3,10,30,45,1.5\n1,4,5,2,20,10,6,3,10,30,45,2\n")
	builds := 0
	build := func() ([]byte, error) { builds++; return csv, nil }
	for range 2 {
		d, err := c.Dataset("d.csv", build)
		if err != nil || d.Len() != 2 {
			t.Fatalf("dataset of %d rows, %v; want 2", d.Len(), err)
		}
	}
	if builds != 1 {
		t.Errorf("built %d times; want once, then read from the cache", builds)
	}
	if err := os.WriteFile(c.DatasetPath("bad.csv"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dataset("bad.csv", build); err == nil || !strings.Contains(err.Error(), "delete it to rebuild") {
		t.Errorf("unreadable cached dataset: %v; want an error saying how to rebuild", err)
	}
	var none *Cache
	if d, err := none.Dataset("x.csv", build); err != nil || d.Len() != 2 || builds != 2 {
		t.Errorf("nil cache: %d rows, %v, %d builds; want it built in memory", d.Len(), err, builds)
	}

	d := syntheticDataset(40)
	m1, err := c.Model(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.ModelPath(d)); err != nil {
		t.Fatalf("model not cached: %v", err)
	}
	m2, err := c.Model(d)
	if err != nil {
		t.Fatal(err)
	}
	if m1.Info != m2.Info {
		t.Errorf("cached model differs: %+v vs %+v", m1.Info, m2.Info)
	}
	other := syntheticDataset(41)
	if c.ModelPath(other) == c.ModelPath(d) {
		t.Error("two datasets share a model file")
	}
	if err := os.WriteFile(c.ModelPath(d), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m3, err := c.Model(d); err != nil || m3.Info != m1.Info {
		t.Errorf("corrupt cached model: %v; want it trained again", err)
	}
}

// The measures of a hand-made generation, worked out by hand: 25 critical
// tests (written closest first), 3 passes and a flight that timed out
// 0.05 m from a box, which is never critical. Ranks 0–4 flew 1000 s, so
// their test scores are the lowest: the first 20 are ranks 0–19, the best
// 20 by test score ranks 5–24. Re-flights: ranks 0–9 confirm (1 m), 10–19
// do not (2 m), 20–24 fly 2 m twice and time out 0 m from a box once,
// which must not make them critical.
func TestMeasures(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	box := func(k int) []world.Box {
		x := -38 + 2.5*float64(k)
		return []world.Box{{L: 2, W: 2, H: 25, X: x, Y: 12}, {L: 2, W: 3, H: 25, X: x, Y: 30}}
	}
	o := &Outcome{Budget: 29, Simulations: 29, BestM: OptFloat(math.Inf(1))}
	for k := range 25 {
		tc := Test{Obstacles: box(k), ClearanceM: 0.1 + 0.05*float64(k), FlightS: 100}
		if k < 5 {
			tc.FlightS = 1000
		}
		if k == 0 {
			tc.Predicted = p(0.3) // predicted critical, confirmed; error 0.2
		}
		switch k {
		case 3:
			tc.CriticalLegs = []int{2, 3} // critical beside two legs
		case 4:
			tc.CriticalLegs = []int{2}
		}
		o.Tests = append(o.Tests, tc)
	}
	o.Tests = append(o.Tests,
		Test{Obstacles: box(25), ClearanceM: 2.0, Predicted: p(1.0)}, // predicted critical, not; error −1
		Test{Obstacles: box(26), ClearanceM: 3.0, Predicted: p(5.0)}, // error 2
		Test{Obstacles: box(27), ClearanceM: 4.0},
		Test{Obstacles: box(28), ClearanceM: 0.05, TimedOut: true})
	rank(o)
	if o.Critical != 25 || o.TimedOut != 1 || o.Tests[28].Rank != -1 || o.Tests[24].Rank != 24 {
		t.Fatalf("critical %d, timed out %d, ranks %d and %d; want 25, 1, -1, 24", o.Critical, o.TimedOut, o.Tests[28].Rank, o.Tests[24].Rank)
	}
	first, best := populations(o)
	if !slices.Equal(first, seq(0, 20)) || !slices.Equal(best, seq(5, 25)) {
		t.Fatalf("populations %v and %v; want ranks 0–19 and 5–24", first, best)
	}
	repeats := map[int][]score.Run{}
	for k := range 25 {
		path := []geom.Vec3{{}, {X: float64(k), Y: 10}, {X: float64(k), Y: 20 + float64(k)}}
		run := func(d float64, to bool) score.Run {
			return score.Run{ClearanceM: d, FlightTimeS: 100, TimedOut: to, Path: path}
		}
		switch {
		case k < 10:
			repeats[k] = []score.Run{run(1, false), run(1, false), run(1, false)}
		case k < 20:
			repeats[k] = []score.Run{run(2, false), run(2, false), run(2, false)}
		default:
			repeats[k] = []score.Run{run(2, false), run(2, false), run(0, true)}
		}
	}
	r, err := Measures(o, nil, 3, repeats)
	if err != nil {
		t.Fatal(err)
	}
	if r.MultiLeg != 1 {
		t.Errorf("critical on several legs %d; want 1", r.MultiLeg)
	}
	if r.HitRate != 25.0/29 || r.RepeatsTimedOut != 5 {
		t.Errorf("hit rate %v, timed-out re-flights %d; want 25/29, 5", r.HitRate, r.RepeatsTimedOut)
	}
	if r.First20.Confirmed != 10 || r.First20.Precision != 0.5 || r.Best20.Confirmed != 5 || r.Best20.Precision != 0.25 {
		t.Errorf("first 20: %d confirmed, precision %v; best 20: %d, %v; want 10, 0.5, 5, 0.25",
			r.First20.Confirmed, r.First20.Precision, r.Best20.Confirmed, r.Best20.Precision)
	}
	if !slices.Equal(r.Best20.Tests, seq(5, 25)) {
		t.Errorf("best 20 lists ranks %v", r.Best20.Tests)
	}
	// RMSE over the predictions: errors 0.2, −1.0, 2.0.
	wantRMSE := math.Sqrt((0.04 + 1 + 4) / 3)
	if r.SurrogatePrecision != 0.5 || math.Abs(float64(r.RMSE)-wantRMSE) > 1e-12 {
		t.Errorf("surrogate precision %v, RMSE %v; want 0.5, %v", r.SurrogatePrecision, r.RMSE, wantRMSE)
	}
	if !math.IsNaN(float64(r.ValidationRMSE)) || !slices.Equal(o.Tests[21].Repeats, []float64{2, 2, 0}) {
		t.Errorf("validation RMSE %v, repeats %v", r.ValidationRMSE, o.Tests[21].Repeats)
	}
	if !(r.First20.InputDiversity > 0) || !(r.First20.OutputDiversity > 0) || !(r.InputDiversityAll >= r.InputDiversity) {
		t.Errorf("diversity: first 20 input %v output %v, all %v, written %v", r.First20.InputDiversity, r.First20.OutputDiversity,
			r.InputDiversityAll, r.InputDiversity)
	}
	delete(repeats, 3)
	if _, err := Measures(o, nil, 3, repeats); err == nil {
		t.Error("a population member without re-flights: no error")
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestOptFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.25, "1.25"}, {math.NaN(), "null"}, {math.Inf(1), "null"}, {0, "0"}} {
		b, _ := OptFloat(c.v).MarshalJSON()
		if string(b) != c.want {
			t.Errorf("%v: got %s; want %s", c.v, b, c.want)
		}
	}
}

// The local search seeds with the pipeline on every leg, spends the rest
// of the budget on mutants (no prediction, the leg of their parent), and
// writes only feasible critical tests.
func TestRunLocal(t *testing.T) {
	o, err := Run(context.Background(), Config{CaseStudy: mission(t, "mission2"), Budget: 10, Strategy: StratLocal, Seed: 2,
		Batch: 10, DatasetN: 12, Runner: runner(2), Cache: &Cache{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Simulations != 10 || o.Local == nil || o.Local.Seeds != 3 || o.Local.Seeds+o.Local.Mutants != 10 {
		t.Fatalf("%d simulations, local search %+v; want 10: 3 seeds and 7 mutants", o.Simulations, o.Local)
	}
	for i, tc := range o.Tests {
		if (tc.Predicted == nil) != (i >= 3) || tc.Leg != 2 && tc.Leg != 3 {
			t.Errorf("test %d: prediction %v, leg %d; want predictions on the 3 seeds alone, legs 2 or 3", i, tc.Predicted, tc.Leg)
		}
	}
	fileMap(t, o)
}
