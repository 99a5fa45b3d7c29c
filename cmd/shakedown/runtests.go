package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

type runFlags struct {
	runs      int
	out       string
	json      bool
	seed      uint64
	gust      float64
	autopilot string
	rules     string
	timeout   float64
	workers   int
	record    string // --record[=DIR]
	strict    bool
	preArm    float64
	// aerialistQuirk leaves out of the flight the boxes Aerialist cannot spawn.
	aerialistQuirk bool
	plannerParams  string    // --planner-params FILE
	warn           io.Writer // rule-break warnings; nil refuses them
	engines        engineFlags
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run <test.yaml>...",
		Short: "Run competition test files on the embedded simulator, as Aerialist would",
		Long: `Run UAV Testing Competition test files (Aerialist YAML with obstacles; old
drone/simulation/test keys or the newer robot/mission ones) on the embedded
simulator with the obstacle-avoidance autopilot, --runs times each with
different noise and gust seeds, and print per test the minimum distance to
the obstacles (Aerialist's rule), the competition points averaged over runs,
the flight time and the verdict (pass, soft-fail below 1.5 m, hard-fail on a
collision). Every test is checked against the rules first; one that breaks
them (footprints leaving the placement area, overlapping boxes…) is flown
after a warning naming the file and the rule, as Aerialist flies it;
--strict refuses it instead and stops before anything is simulated. As in
Aerialist, the log starts --pre-arm seconds before arming, and a contact
with a box does not end the flight.

--out writes, per test, a plot of the run that came closest (the trajectory
over the obstacles with the closest approach marked and its distance), each
run's trajectory CSV, and results.json for all tests. --record=DIR writes
each run's MCAP flight log into DIR (test_0-run1.mcap, …); a bare --record
into <out>/flightlogs.

Exit status: 0 all tests passed, 1 some test came closer than 1.5 m or
collided, 2 bad input.`,
		Example: `  shakedown run generated_tests/*/test_*.yaml --runs 3 --out results
  shakedown run scenario/competition/mission2.yaml --json
  shakedown run scenario/competition/mission2.yaml --runs 2 --record=flightlogs`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.warn = cmd.ErrOrStderr()
			return runTests(cmd.Context(), cmd.OutOrStdout(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.runs, "runs", 1, "runs per test, each with its own noise and gust seed")
	fl.StringVar(&f.out, "out", "", "write plots, trajectories and results.json into `DIR`")
	fl.BoolVar(&f.json, "json", false, "print the results as JSON")
	fl.Uint64Var(&f.seed, "seed", 1, "base seed of the runs")
	fl.Float64Var(&f.gust, "gust", defaultGust, "wind gust standard deviation, m/s")
	fl.StringVar(&f.autopilot, "autopilot", run.AutopilotAvoid, "avoid or plain")
	fl.StringVar(&f.rules, "rules", "2025", "validity rules: 2024, 2025 or 2026")
	fl.Float64Var(&f.timeout, "timeout", run.DefaultTimeoutS, "simulated `seconds` per run (the competition's 500)")
	fl.IntVar(&f.workers, "workers", 0, "simulations in parallel (0 = one per core)")
	addRecordDirFlag(fl, &f.record, "<out>/flightlogs")
	fl.BoolVar(&f.strict, "strict", false, "refuse (exit 2) a test that breaks the --rules instead of warning and flying it")
	fl.Float64Var(&f.preArm, "pre-arm", run.DefaultPreArmS, "`seconds` on the ground before arming, inside the log (Aerialist's logs start about 20 s before take-off)")
	addEngineFlags(fl, &f.engines)
	fl.BoolVar(&f.aerialistQuirk, "aerialist-quirk", false, "leave out of the flight the boxes Aerialist cannot spawn (rotation printed in exponent notation, 0 < |r| < 0.0057°); they are still scored")
	addPlannerParamsFlag(fl, &f.plannerParams)
	return cmd
}

// testResult is what `shakedown run --json` prints per test.
type testResult struct {
	Test      string        `json:"test"`
	Mission   string        `json:"mission"`
	Obstacles []obstacleOut `json:"obstacles"`
	Summary   run.Summary   `json:"summary"`
	Runs      []*run.Result `json:"runs"`
}

type obstacleOut struct {
	L float64 `json:"l"`
	W float64 `json:"w"`
	H float64 `json:"h"`
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
	R float64 `json:"r"`
}

func runTests(ctx context.Context, stdout io.Writer, files []string, f runFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rules, err := rulesFor(f.rules)
	if err != nil {
		return err
	}
	if f.runs < 1 || f.runs > 1000 {
		return fmt.Errorf("--runs %d: want 1 to 1000", f.runs)
	}
	if f.autopilot != run.AutopilotAvoid && f.autopilot != run.AutopilotPlain {
		return fmt.Errorf("--autopilot %q: want %s or %s", f.autopilot, run.AutopilotAvoid, run.AutopilotPlain)
	}
	if !(f.timeout > 0) || math.IsInf(f.timeout, 0) {
		return fmt.Errorf("--timeout %v: want a finite number of seconds > 0", f.timeout)
	}
	if f.workers < 0 || f.workers > 1024 {
		return fmt.Errorf("--workers %d: want 0 to 1024", f.workers)
	}
	wind, err := windFor(f.gust)
	if err != nil {
		return err
	}
	var outLogs string
	if f.out != "" {
		outLogs = filepath.Join(f.out, "flightlogs")
	}
	if err := strayRecordArg(f.record, files); err != nil {
		return err
	}
	logDir, err := recordDir(f.record, outLogs, f.warn)
	if err != nil {
		return err
	}
	planner, err := runPlannerParams(f)
	if err != nil {
		return err
	}
	// Load and check every test before simulating any.
	cases, names, err := loadTestsWarn(files, rules, f.strict, f.warn)
	if err != nil {
		return err
	}
	var jobs []run.Job
	var logs []*bytes.Buffer
	for i, cs := range cases {
		for k := range f.runs {
			opt := run.Options{Seed: run.RunSeed(f.seed, i*f.runs+k), TimeoutS: f.timeout, Wind: wind, Autopilot: f.autopilot,
				PreArmS: f.preArm, AerialistUnspawned: f.aerialistQuirk, Avoid: planner}
			if logDir != "" {
				b := new(bytes.Buffer)
				logs = append(logs, b)
				opt.Record = b
			}
			jobs = append(jobs, run.Job{Case: cs, Opt: opt})
		}
	}
	results, err := flyTests(ctx, jobs, f)
	if err != nil {
		return err
	}
	out := summarizeTests(files, cases, results, f.runs)
	if f.out != "" {
		end := func() {}
		if f.warn != nil {
			end = phase(ctx, f.warn, "writing plots and trajectories")
		}
		err := writeRunOutputs(f.out, names, cases, out)
		end()
		if err != nil {
			return err
		}
	}
	wrote := stdout
	if f.json { // stdout is the JSON
		wrote = io.Discard
		if f.warn != nil {
			wrote = f.warn
		}
	}
	err = reportTests(stdout, f.json, names, out, f.runs)
	if f.out != "" {
		fmt.Fprintf(wrote, "wrote %s: results.json, %s (TEST.png), %s (TEST-runN.csv)\n", f.out, count(len(out), "plot"), count(len(jobs), "trajectory CSV"))
	}
	byName := map[string][]byte{}
	for i, b := range logs {
		byName[fmt.Sprintf("%s-run%d.mcap", names[i/f.runs], i%f.runs+1)] = b.Bytes()
	}
	if werr := writeLogs(wrote, logDir, byName); werr != nil {
		return werr
	}
	return err
}

// flyTests flies the jobs on the embedded simulator (run.Batch: with the
// pre-arm time, the Aerialist quirk and the MCAP records), or as campaign
// jobs on the engine --engine names.
func flyTests(ctx context.Context, jobs []run.Job, f runFlags) ([]*run.Result, error) {
	if err := f.engines.check(); err != nil {
		return nil, err
	}
	var onDone func(int)
	if f.warn != nil {
		if p := progressOn(ctx, f.warn, false); p != nil {
			onDone = p("flying", len(jobs))
		}
	}
	if f.engines.engine == "" || f.engines.engine == campaign.EngineEmbedded {
		return run.Batch(ctx, jobs, f.workers, f.out != "", onDone)
	}
	if f.record != "" {
		return nil, fmt.Errorf("--record needs the embedded simulator, not --engine %s", f.engines.engine)
	}
	stderr := f.warn
	if stderr == nil {
		stderr = io.Discard
	}
	ef := execFlags{engineFlags: f.engines}
	r, closeRunner, err := ef.runner(ctx, stderr, f.workers)
	if err != nil {
		return nil, err
	}
	defer closeRunner()
	return r.Batch(ctx, "run --engine "+f.engines.engine, jobs, f.out != "", onDone)
}

// loadTests loads every test file and checks it against rules before
// anything flies, and names each test after its file (test_0.yaml →
// test_0; the second of two files with the same base name → test_0-2).
func loadTests(files []string, rules scenario.Rules) ([]*scenario.CaseStudy, []string, error) {
	return loadTestsWarn(files, rules, true, nil)
}

// loadTestsWarn is loadTests that, unless strict, flies a test that breaks
// the rules after a warning on warn naming the file and the rule: Aerialist
// flies such files, and so do the competition's entrants (a refused rule
// break is still a scoring matter for score).
func loadTestsWarn(files []string, rules scenario.Rules, strict bool, warn io.Writer) ([]*scenario.CaseStudy, []string, error) {
	cases := make([]*scenario.CaseStudy, len(files))
	names := make([]string, len(files))
	seen := map[string]int{}
	for i, file := range files {
		cs, err := scenario.Load(file)
		if err != nil {
			return nil, nil, err
		}
		if err := malformed(cs.Obstacles); err != nil {
			return nil, nil, fmt.Errorf("%s: invalid test: %w", file, err)
		}
		if err := rules.Check(cs.Obstacles); err != nil {
			if strict || warn == nil {
				return nil, nil, fmt.Errorf("%s: invalid test: %w", file, err)
			}
			fmt.Fprintf(warn, "warning: %s: breaks the rules: %v (flown anyway; --strict refuses it)\n", file, err)
		}
		if warn != nil {
			for _, fd := range (scenario.Feasibility{AccRadM: cs.Params["NAV_ACC_RAD"]}).Check(cs.Mission, cs.Obstacles) {
				fmt.Fprintf(warn, "warning: %s: infeasible (%s): %s; the competition counts it invalid\n", file, fd.Kind, fd.Msg)
			}
		}
		cases[i] = cs
		base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		names[i] = base
		if n := seen[base]; n > 0 {
			names[i] = fmt.Sprintf("%s-%d", base, n+1)
		}
		seen[base]++
	}
	return cases, names, nil
}

// malformed reports an obstacle that no bench could fly: a non-finite
// number, or a size that is not positive.
func malformed(boxes []world.Box) error {
	for i, b := range boxes {
		for _, v := range []float64{b.L, b.W, b.H, b.X, b.Y, b.Z, b.R} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("obstacle %d: %v is not a finite number", i+1, v)
			}
		}
		if !(b.L > 0 && b.W > 0 && b.H > 0) {
			return fmt.Errorf("obstacle %d: size %g × %g × %g must be positive", i+1, b.L, b.W, b.H)
		}
	}
	return nil
}
