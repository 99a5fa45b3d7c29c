package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/internal/atomicfile"
	"github.com/shakedown-robotics/shakedown/report"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/score/suite"
)

type scoreFlags struct {
	rules     string
	missions  []string
	runs      int
	logs      string
	json      bool
	seed      uint64
	sel       string
	sample    int
	norm      string
	dtwNorm   string
	average   string
	time      string
	threshold float64
	band      int
	timeout   float64
	out       string
	details   bool
	infeas    bool
	jobs      int
	exec      execFlags
}

func newScoreCmd() *cobra.Command {
	var f scoreFlags
	cmd := &cobra.Command{
		Use:   "score --rules 2024|2025|2026 --mission <case-study> [--runs 3] [--logs DIR] <suite-dir>... [--json]",
		Short: "Score test suites the way the UAV Testing Competition does",
		Long: `Score one or more test suites (each a folder of test_*.yaml, any tool's
output) on a mission with the 2024, 2025 or 2026 rules of the UAV Testing
Competition, and rank them against each other, per mission and across
missions: the shape of the surrogate-assisted testing paper's Tables III–V.

Each evaluated test is flown --runs times on the embedded simulator, or read
from real PX4 logs (.ulg) or Shakedown results (trajectory.csv, result.json)
with --logs. Only the obstacles of a test file are used; every test flies the
--mission. A test that cannot be read, breaks the edition's obstacle rules, or
cannot be flown without a violation (lint's infeasible: a footprint by a
waypoint, a wall across a leg) is scored as invalid (0 points) and named in
the output; --score-infeasible flies and scores the infeasible ones.

With several --mission flags each suite folder holds one sub-folder per
mission, named after it (gen/mission2/test_0.yaml …). Exit status: 0 scored,
2 could not run (a missing folder or mission, bad flags, an unreadable log).`,
		Example: `  shakedown score --rules 2025 --mission mission2 cmd/shakedown/testdata/score/gen-a cmd/shakedown/testdata/score/gen-b
  shakedown score --rules 2026 --mission mission2 generated_tests/* --json   # every generate run of mission2 against each other
  shakedown score --rules 2024 --mission mission2 --logs cmd/shakedown/testdata/score/logs cmd/shakedown/testdata/score/gen-a`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return scoreSuites(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rules, "rules", "2025", "scoring rules and obstacle rules: 2024, 2025 or 2026")
	fl.StringArrayVar(&f.missions, "mission", nil, "case study the suites were made for: mission1..7, a case-study YAML or a .plan; repeatable")
	fl.IntVar(&f.runs, "runs", 3, "simulated runs of each evaluated test")
	fl.StringVar(&f.logs, "logs", "", "read the runs from `DIR` (PX4 .ulg logs or Shakedown results) instead of simulating")
	fl.BoolVar(&f.json, "json", false, "print the results as JSON")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the simulations (run k uses seed+k) and of the 2024 random draw")
	fl.StringVar(&f.sel, "select", "", "which tests are evaluated: first, random or top-score (default: random in 2024, first after)")
	fl.IntVar(&f.sample, "sample", score.SampleSize, "number of tests evaluated per suite and mission")
	fl.StringVar(&f.norm, "norm", "pairs", "2025 diversity normalisation: pairs (mean over pairs) or tests (the paper's 1/|S_s|)")
	fl.StringVar(&f.dtwNorm, "dtw-norm", "", "scale of the DTW distances (2024 similarity, 2026 D_out): sum (Aerialist's similaritymeasures.dtw), path (per matched pair) or points (per point); default: sum in 2024, path in 2026")
	fl.StringVar(&f.average, "average", "soft-dtw", "how a test's runs are averaged before the DTW distances: soft-dtw (tslearn's barycenter, γ = 200, as Aerialist) or dba")
	fl.StringVar(&f.time, "time", "log", "avg_time of a run: log (the whole Aerialist log, pre-arm time included, 500 s on a timeout, crash or not: the competition's) or airborne (lift-off to the last touchdown)")
	fl.Float64Var(&f.threshold, "dtw-threshold", score.SimilarDTW, "2024: DTW distance below which two tests are similar")
	fl.IntVar(&f.band, "band", 0, "Sakoe-Chiba band of the DTW distances in 0.5-s points; 0 = exact")
	fl.Float64Var(&f.timeout, "timeout", run.DefaultTimeoutS, "simulated `seconds` before a flight is stopped (a timed-out run scores 0)")
	fl.StringVar(&f.out, "out", "", "write every simulated run to `DIR`/<tool>/<mission>/<test>/run_<k>/ (trajectory.csv, result.json); --logs reads it back")
	fl.BoolVar(&f.details, "details", false, "also print each evaluated test's runs and score")
	fl.BoolVar(&f.infeas, "score-infeasible", false, "fly and score tests lint calls infeasible instead of counting them invalid")
	fl.IntVar(&f.jobs, "workers", 0, "simulations run at once with --executor local; 0 = one per CPU")
	aliasFlags(cmd, map[string]string{"jobs": "workers"})
	addExecFlags(fl, &f.exec)
	return cmd
}

// scoreConfig turns the flags into a score.Config.
func scoreConfig(f scoreFlags) (score.Config, error) {
	ed, err := strconv.Atoi(f.rules)
	if err != nil {
		ed = 0
	}
	c := score.Config{Edition: score.Edition(ed), SampleSize: f.sample, SimilarDTW: f.threshold, Band: f.band}
	switch f.sel {
	case "":
	case "first":
		c.Select = score.SelectFirst
	case "random":
		c.Select = score.SelectRandom
	case "top-score":
		c.Select = score.SelectTopScore
	default:
		return c, fmt.Errorf("--select %q: want first, random or top-score", f.sel)
	}
	switch f.norm {
	case "pairs":
	case "tests":
		c.Norm = score.NormTests
	default:
		return c, fmt.Errorf("--norm %q: want pairs or tests", f.norm)
	}
	if c.DTWNorm, err = score.ParseDTWNorm(f.dtwNorm); err != nil || f.dtwNorm == "default" {
		return c, fmt.Errorf("--dtw-norm %q: want sum, path or points", f.dtwNorm)
	}
	if c.Average, err = score.ParseAverage(f.average); err != nil || f.average == "" {
		return c, fmt.Errorf("--average %q: want soft-dtw or dba", f.average)
	}
	if c.Time, err = score.ParseTimeBasis(f.time); err != nil || f.time == "" {
		return c, fmt.Errorf("--time %q: want log or airborne", f.time)
	}
	if f.sample <= 0 {
		return c, fmt.Errorf("--sample %d: want at least 1", f.sample)
	}
	if f.band < 0 {
		return c, fmt.Errorf("--band %d: want 0 (exact) or more", f.band)
	}
	if !(f.threshold > 0) || math.IsInf(f.threshold, 0) {
		return c, fmt.Errorf("--dtw-threshold %v: want a finite number above 0", f.threshold)
	}
	c, err = c.Validate()
	if errors.Is(err, score.ErrEdition) {
		return c, fmt.Errorf("--rules %q: want 2024, 2025 or 2026", f.rules)
	}
	return c, err
}

func scoreSuites(ctx context.Context, stdout, stderr io.Writer, dirs []string, f scoreFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := scoreConfig(f)
	if err != nil {
		return err
	}
	rules, err := rulesFor(f.rules)
	if err != nil {
		return err
	}
	if len(f.missions) == 0 {
		return errors.New("--mission is required: the case study the suites were made for (mission1..7, a YAML or a .plan)")
	}
	if f.logs == "" && f.runs < 1 {
		return fmt.Errorf("--runs %d: want at least 1", f.runs)
	}
	if !(f.timeout > 0) || math.IsInf(f.timeout, 0) {
		return fmt.Errorf("--timeout %v: want a finite number of seconds > 0", f.timeout)
	}
	if f.logs != "" && f.out != "" {
		return errors.New("--out writes simulated runs; it cannot be combined with --logs")
	}
	if err := f.exec.check(); err != nil {
		return err
	}
	if f.logs != "" {
		if err := isDir(f.logs); err != nil {
			return fmt.Errorf("--logs: %w", err)
		}
	}
	missions, names, err := suite.LoadMissions(f.missions)
	if err != nil {
		return err
	}
	if err := suite.CheckDirs(dirs, names); err != nil {
		return err
	}
	tools := suite.ToolNames(dirs)

	// Read every suite: data[t][m].
	data := make([][]*suite.Suite, len(dirs))
	for t, d := range dirs {
		data[t] = make([]*suite.Suite, len(missions))
		for m, cs := range missions {
			sd, err := suite.Read(d, cs, suite.ReadOptions{Single: len(missions) == 1, Rules: rules, ScoreInfeasible: f.infeas}, stderr, tools[t])
			if err != nil {
				return err
			}
			lintWarnings(stderr, d, tools[t], cs, len(missions) == 1, f.rules)
			rng := rand.New(rand.NewPCG(f.seed, suite.HashName(tools[t], cs.Name)))
			sd.Plan = score.Plan(cfg, len(sd.Tests), rng)
			data[t][m] = sd
		}
	}

	// Runs: from the logs or the simulator.
	if f.logs != "" {
		for t := range data {
			for m, sd := range data[t] {
				if err := suite.ReadLogs(f.logs, tools[t], names[m], len(dirs) == 1, sd, f.timeout); err != nil {
					return err
				}
			}
		}
	} else if err := simulate(ctx, stderr, data, missions, tools, f); err != nil {
		return err
	}

	tab, results, err := suite.Score(cfg, data, tools, names)
	if err != nil {
		return err
	}
	rep := report.Scores{Rules: cfg.Edition, Selection: cfg.Select.String(), Sample: cfg.SampleSize,
		Runs: f.runs, Seed: f.seed, Source: "simulated", Norm: cfg.Norm.String(), DTWThreshold: cfg.SimilarDTW,
		Band: cfg.Band, DTW: cfg.DTWHeader(), Time: cfg.Time.String(), TimeNote: cfg.Time.Describe(), Table: tab, Invalid: []report.InvalidTest{}}
	if cfg.Edition != score.Edition2025 {
		rep.DTWNorm, rep.Average = cfg.Scale().String(), cfg.Average.String()
	}
	if f.logs != "" {
		rep.Source, rep.Runs = "logs", 0
	}
	for t := range data {
		for m, sd := range data[t] {
			for i, st := range sd.Tests {
				if st.Test.Invalid != "" {
					rep.Invalid = append(rep.Invalid, report.InvalidTest{Tool: tools[t], Mission: names[m], Test: st.Test.Name,
						File: st.Path, Reason: st.Test.Invalid, Evaluated: suite.Evaluated(results[t][m], i)})
				}
			}
		}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if f.out != "" { // the runs, and the scores `shakedown report` shows beside them
		if err := suite.WriteRuns(f.out, tools, names, data); err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(f.out, report.ScoresFile), b); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s: every run (<tool>/<mission>/<test>/run_<k>/) and %s\n", f.out, report.ScoresFile)
	}
	if f.json {
		_, err := stdout.Write(b)
		return err
	}
	report.WriteScoreMarkdown(stdout, rep, f.details)
	return nil
}

func isDir(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a folder", p)
	}
	return nil
}

// simulate flies every planned valid test --runs times as one campaign,
// on the executor and engine the flags name.
func simulate(ctx context.Context, stderr io.Writer, data [][]*suite.Suite, missions []*scenario.CaseStudy, tools []string, f scoreFlags) error {
	r, closeRunner, err := f.exec.runner(ctx, stderr, f.jobs)
	if err != nil {
		return err
	}
	defer closeRunner()
	var bar func(int)
	name := fmt.Sprintf("score --rules %s --runs %d --seed %d --timeout %g: %s", f.rules, f.runs, f.seed, f.timeout, strings.Join(tools, " "))
	return suite.Simulate(ctx, data, missions, suite.Simulation{Runs: f.runs, Seed: f.seed, TimeoutS: f.timeout, Engine: f.exec.engine,
		KeepRuns: f.out != "", Runner: r, Name: name, Progress: func(done, total int) {
			if bar == nil {
				if p := progressOn(ctx, stderr, false); p != nil {
					bar = p("flying", total)
				} else {
					bar = func(int) {}
				}
			}
			bar(done)
		}})
}
