package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// Generators of a dataset's tests.
const (
	GeneratorConstrained = "constrained" // the paper's semantic sampler on the longest leg
	GeneratorRandom      = "random"      // sizes, rotations and positions uniformly in the area
)

// DatasetConfig is a training dataset: N tests drawn for a mission and
// flown once each (`shakedown dataset`).
type DatasetConfig struct {
	CaseStudy *scenario.CaseStudy // required
	N         int                 // tests, 1 to 1e6
	Generator string              // GeneratorConstrained ("" too) or GeneratorRandom
	Seed      uint64              // seeds the generator and the flights
	GustMS    float64             // wind gusts, m/s 1σ, 0 to 10
	Autopilot string              // run.AutopilotAvoid ("" too) or run.AutopilotPlain
	TimeoutS  float64             // simulated seconds per flight; 0 = run.DefaultTimeoutS
	Runner    *campaign.Runner    // required
	// Progress is as in Config.
	Progress func(what string, total int) func(done int)
}

// Dataset is a built dataset: its CSV and its counts.
type Dataset struct {
	CSV      []byte // the frame line (DatasetFrame), DatasetHeader, then one row per test
	N        int
	Critical int // soft and hard fails
	Hard     int // collisions
}

// Summary is the line `shakedown dataset` prints about d.
func (d *Dataset) Summary(mission, path string) string {
	return fmt.Sprintf("%s: %d tests, %d critical (%.1f %%), %d collisions, %d soft fails; wrote %s",
		mission, d.N, d.Critical, 100*float64(d.Critical)/float64(d.N), d.Hard, d.Critical-d.Hard, path)
}

// DatasetHeader names the dataset CSV's columns: the ten obstacle
// features, the flight's outcome, and the categories the constrained
// generator drew.
var DatasetHeader = []string{"test", "l1", "w1", "x1", "y1", "r1", "l2", "w2", "x2", "y2", "r2",
	"min_distance", "flight_time", "points", "verdict", "completed",
	"intrusion", "size1", "size2", "aspect1", "aspect2", "rotation1", "rotation2", "sector", "passage"}

// DatasetFrame is the frame of a dataset of cs (its obstacles as placed
// in the competition frame): surrogate.FrameCanonical for the canonical
// mission, whose competition frame is the canonical one, else what names
// cs to --mission, its file or its built-in name.
func DatasetFrame(cs *scenario.CaseStudy) string {
	switch {
	case cs.Source != "" && cs.Source != scenario.BuiltinSource:
		return cs.Source
	case cs.Name == scenario.CanonicalName:
		return surrogate.FrameCanonical
	}
	return cs.Name
}

// Validate checks the values of c, its zero values taken as their
// defaults; BuildDataset also needs a CaseStudy and a Runner.
func (c DatasetConfig) Validate() error {
	bad := func(field string, v any, want string) error { return &ConfigError{field, v, want} }
	switch {
	case c.N < 1 || c.N > 1_000_000:
		return bad("n", c.N, "1 to 1000000 tests")
	case c.Generator != "" && c.Generator != GeneratorConstrained && c.Generator != GeneratorRandom:
		return bad("generator", fmt.Sprintf("%q", c.Generator), "constrained or random")
	case c.Autopilot != "" && c.Autopilot != run.AutopilotAvoid && c.Autopilot != run.AutopilotPlain:
		return bad("autopilot", fmt.Sprintf("%q", c.Autopilot), run.AutopilotAvoid+" or "+run.AutopilotPlain)
	case c.TimeoutS != 0 && (!(c.TimeoutS > 0) || math.IsInf(c.TimeoutS, 0)):
		return bad("timeout", c.TimeoutS, "a finite number of seconds > 0")
	}
	_, err := Wind(c.GustMS)
	return err
}

// BuildDataset draws the tests in order from c.Seed, flies each once
// through the runner (with the seeds of `shakedown run`: run.RunSeed(seed,
// i)) and returns the CSV: the same bytes whatever the executor and the
// number of workers.
func BuildDataset(ctx context.Context, c DatasetConfig) (*Dataset, error) {
	if c.CaseStudy == nil || c.Runner == nil {
		return nil, errors.New("harness: BuildDataset needs a CaseStudy and a Runner")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Generator == "" {
		c.Generator = GeneratorConstrained
	}
	if c.Autopilot == "" {
		c.Autopilot = run.AutopilotAvoid
	}
	if c.TimeoutS == 0 {
		c.TimeoutS = run.DefaultTimeoutS
	}
	wind, _ := Wind(c.GustMS)
	cs := c.CaseStudy
	leg, err := gen.LongestLeg(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cs.Name, err)
	}
	feasible := Feasible(cs)
	g := gen.Generator{Leg: leg, Area: world.DefaultArea, Valid: func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil && feasible(b) }}
	rng := rand.New(rand.NewPCG(c.Seed, 0xda7a))
	tests := make([]gen.Test, c.N)
	jobs := make([]run.Job, c.N)
	for i := range tests {
		var t gen.Test
		if c.Generator == GeneratorRandom {
			t, err = g.Random(rng)
		} else {
			t, err = g.Constrained(rng)
		}
		if err != nil {
			return nil, fmt.Errorf("test %d: %w", i, err)
		}
		tests[i] = t
		tc := *cs
		tc.Obstacles = t.Obstacles
		jobs[i] = run.Job{Case: &tc, Opt: run.Options{Seed: run.RunSeed(c.Seed, i), TimeoutS: c.TimeoutS, Wind: wind, Autopilot: c.Autopilot, PreArmS: PreArmS}}
	}
	var onDone func(int)
	if c.Progress != nil {
		onDone = c.Progress("simulating", c.N)
	}
	name := fmt.Sprintf("dataset %s --n %d --generator %s --seed %d --gust %g --autopilot %s --timeout %g", cs.Name, c.N, c.Generator, c.Seed, c.GustMS, c.Autopilot, c.TimeoutS)
	results, err := c.Runner.Batch(ctx, name, jobs, false, onDone)
	if err != nil {
		return nil, err
	}
	d := &Dataset{N: c.N}
	var b bytes.Buffer
	b.WriteString(surrogate.FrameLine(DatasetFrame(cs)))
	b.WriteString(strings.Join(DatasetHeader, ","))
	b.WriteByte('\n')
	for i, r := range results {
		row := []string{strconv.Itoa(i)}
		for _, o := range tests[i].Obstacles {
			for _, v := range []float64{o.L, o.W, o.X, o.Y, o.R} {
				row = append(row, strconv.FormatFloat(v, 'f', 4, 64))
			}
		}
		md := "inf"
		if r.MinClearanceM != nil {
			md = strconv.FormatFloat(*r.MinClearanceM, 'f', 4, 64)
		}
		row = append(row, md, strconv.FormatFloat(r.FlightTimeS, 'f', 3, 64), strconv.Itoa(r.Points), r.Verdict, strconv.FormatBool(r.Completed))
		if l := tests[i].Labels; l != nil {
			row = append(row, l.Intrusion, l.Size[0], l.Size[1], l.Aspect[0], l.Aspect[1], l.Rotation[0], l.Rotation[1], l.Sector, l.Passage)
		} else {
			row = append(row, "", "", "", "", "", "", "", "", "")
		}
		b.WriteString(strings.Join(row, ","))
		b.WriteByte('\n')
		if r.Verdict != run.VerdictPass {
			d.Critical++
		}
		if r.Verdict == run.VerdictHardFail {
			d.Hard++
		}
	}
	d.CSV = b.Bytes()
	return d, nil
}

// canonicalDataset returns the paper's training dataset: DatasetN
// constrained-random tests of the canonical mission, each flown once, as
// `shakedown dataset canonical` makes it; cached.
func (e *env) canonicalDataset() (surrogate.Dataset, error) {
	if e.canon != nil {
		return *e.canon, nil
	}
	fp, err := e.fingerprint()
	if err != nil {
		return surrogate.Dataset{}, err
	}
	cfg := e.cfg
	name := canonicalName(cfg, fp)
	d, err := cfg.Cache.Dataset(name, func() ([]byte, error) {
		if data, ok, err := prebuiltDataset(name); ok || err != nil {
			if ok {
				fmt.Fprintf(cfg.Log, "using the canonical training dataset shipped with shakedown (%d flights, simulator %s)\n", cfg.DatasetN, fp)
			}
			return data, err
		}
		cs, err := scenario.Builtin(scenario.CanonicalName)
		if err != nil {
			return nil, err
		}
		where := e.cacheNote(name)
		fmt.Fprintf(cfg.Log, "building the canonical training dataset (%d flights%s)\n", cfg.DatasetN, where)
		d, err := BuildDataset(e.ctx, DatasetConfig{CaseStudy: cs, N: cfg.DatasetN, Generator: GeneratorConstrained, Seed: DefaultDatasetSeed,
			GustMS: cfg.GustMS, Autopilot: run.AutopilotAvoid, TimeoutS: cfg.TimeoutS, Runner: cfg.Runner, Progress: cfg.Progress})
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(cfg.Log, d.Summary(cs.Name, cfg.Cache.where(name)))
		return d.CSV, nil
	})
	if err == nil {
		e.canon = &d
	}
	return d, err
}

// canonicalName is the cache name of the canonical dataset of cfg flown
// by the simulator with fingerprint fp.
func canonicalName(cfg Config, fp string) string {
	return fmt.Sprintf("canonical-n%d-seed%d-gust%g-t%g-sim%s-v%d.csv", cfg.DatasetN, DefaultDatasetSeed, cfg.GustMS, cfg.TimeoutS, fp, cacheVersion)
}

// cacheNote is ", cached in <path>" for a dataset about to be built, or ""
// without a cache.
func (e *env) cacheNote(name string) string {
	if e.cfg.Cache == nil {
		return ""
	}
	return ", cached in " + e.cfg.Cache.DatasetPath(name)
}

// where names the file a dataset goes to, for the summary line.
func (c *Cache) where(name string) string {
	if c == nil {
		return "(memory)"
	}
	return c.DatasetPath(name)
}

// missionDataset returns DatasetN constrained-random tests drawn in the
// mission's canonical zone and flown on the mission, with their canonical
// features: the training data of a surrogate per mission; cached.
func (e *env) missionDataset(frame gen.Frame) (surrogate.Dataset, error) {
	cfg := e.cfg
	cs := cfg.CaseStudy
	h := sha256.New()
	for _, p := range cs.Mission.Path() {
		fmt.Fprintf(h, "%.6f,%.6f,%.6f;", p.X, p.Y, p.Z)
	}
	fp, err := e.fingerprint()
	if err != nil {
		return surrogate.Dataset{}, err
	}
	name := fmt.Sprintf("mission-%s-%s-leg%d-n%d-seed%d-gust%g-t%g-sim%s-v%d.csv", SafeName(cs.Name), hex.EncodeToString(h.Sum(nil))[:10],
		frame.Index, cfg.DatasetN, DefaultDatasetSeed, cfg.GustMS, cfg.TimeoutS, fp, cacheVersion)
	return cfg.Cache.Dataset(name, func() ([]byte, error) {
		fmt.Fprintf(cfg.Log, "building the %s leg %d training dataset (%d flights%s)\n", cs.Name, frame.Index, cfg.DatasetN, e.cacheNote(name))
		feasible := Feasible(cs)
		g := frame.Generator(func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil && feasible(b) })
		rng := rand.New(rand.NewPCG(DefaultDatasetSeed, 0xda7a))
		canon := make([][]world.Box, cfg.DatasetN)
		boxes := make([][]world.Box, cfg.DatasetN)
		for i := range canon {
			t, err := g.Constrained(rng)
			if err != nil {
				return nil, err
			}
			canon[i] = t.Obstacles
			boxes[i] = frame.MissionBoxes(t.Obstacles)
		}
		res, err := e.fly(cs, boxes, DefaultDatasetSeed, 0, false, "simulating")
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		b.WriteString(surrogate.FrameLine(surrogate.FrameCanonical)) // mapped into it
		b.WriteString("test," + strings.Join(surrogate.FeatureNames[:], ",") + "," + surrogate.TargetColumn + "\n")
		for i, r := range res {
			row := []string{strconv.Itoa(i)}
			for _, v := range gen.Features(canon[i]) {
				row = append(row, strconv.FormatFloat(v, 'f', 4, 64))
			}
			row = append(row, strconv.FormatFloat(clearanceOf(r), 'f', 4, 64))
			b.WriteString(strings.Join(row, ",") + "\n")
		}
		return b.Bytes(), nil
	})
}

// fingerprint flies a fixed probe (two boxes across the canonical leg,
// seed 1, the generation's wind and timeout) on the embedded simulator and
// returns a short hash of its trajectory: a cached dataset is only reused
// by the simulator, autopilot and planner that flew it, whatever changed
// in their code.
func (e *env) fingerprint() (string, error) {
	if e.fp != "" {
		return e.fp, nil
	}
	cs, err := scenario.Builtin(scenario.CanonicalName)
	if err != nil {
		return "", err
	}
	cs.Obstacles = []world.Box{{L: 10, W: 4, H: gen.HeightM, X: -5, Y: 25, R: 30}, {L: 4, W: 4, H: gen.HeightM, X: 5, Y: 32}}
	wind, err := Wind(e.cfg.GustMS)
	if err != nil {
		return "", err
	}
	r, _, err := run.FlySim(e.ctx, cs, run.Options{Seed: 1, TimeoutS: e.cfg.TimeoutS, Wind: wind, Autopilot: run.AutopilotAvoid, PreArmS: PreArmS})
	if err != nil {
		return "", fmt.Errorf("simulator fingerprint: %w", err)
	}
	h := sha256.New()
	for _, p := range r.Trace {
		fmt.Fprintf(h, "%.6f,%.6f,%.6f,%.6f;", p.T, p.Pos.X, p.Pos.Y, p.Pos.Z)
	}
	fmt.Fprintf(h, "%s|%v", r.Verdict, r.Clearances)
	e.fp = hex.EncodeToString(h.Sum(nil))[:8]
	return e.fp, nil
}

// SafeName maps s to a file name: letters, digits, '-' and '_' kept, any
// other rune '_'.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
