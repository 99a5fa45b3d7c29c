package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/plot"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
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
	record    bool
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
collision). Every test is checked against the rules first; an invalid one
stops everything before anything is simulated.

--out writes, per test, a plot of the run that came closest (the trajectory
over the obstacles with the closest approach marked and its distance), each
run's trajectory CSV, and results.json for all tests; with --record, each
run's MCAP flight log too.

Exit status: 0 all tests passed, 1 some test came closer than 1.5 m or
collided, 2 bad input.`,
		Example: `  shakedown run generated/test_0.yaml generated/test_1.yaml --runs 3 --out results
  shakedown run ../shared/data/competition/mission2.yaml --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
	fl.BoolVar(&f.record, "record", false, "with --out, also write each run as an MCAP flight log for Foxglove")
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
	if f.record && f.out == "" {
		return fmt.Errorf("--record needs --out DIR")
	}
	// Load and check every test before simulating any.
	cases, names, err := loadTests(files, rules)
	if err != nil {
		return err
	}
	var jobs []run.Job
	var logs []*bytes.Buffer
	for i, cs := range cases {
		for k := range f.runs {
			opt := run.Options{Seed: run.RunSeed(f.seed, i*f.runs+k), TimeoutS: f.timeout, Wind: wind, Autopilot: f.autopilot}
			if f.record {
				b := new(bytes.Buffer)
				logs = append(logs, b)
				opt.Record = b
			}
			jobs = append(jobs, run.Job{Case: cs, Opt: opt})
		}
	}
	results, err := run.Batch(ctx, jobs, f.workers, f.out != "", nil)
	if err != nil {
		return err
	}
	out := summarizeTests(files, cases, results, f.runs)
	if f.out != "" {
		if err := writeRunOutputs(f.out, names, cases, out, logs); err != nil {
			return err
		}
	}
	return reportTests(stdout, f.json, names, out, f.runs)
}

// loadTests loads every test file and checks it against rules before
// anything flies, and names each test after its file (test_0.yaml →
// test_0; the second of two files with the same base name → test_0-2).
func loadTests(files []string, rules scenario.Rules) ([]*scenario.CaseStudy, []string, error) {
	cases := make([]*scenario.CaseStudy, len(files))
	names := make([]string, len(files))
	seen := map[string]int{}
	for i, file := range files {
		cs, err := scenario.Load(file)
		if err != nil {
			return nil, nil, err
		}
		if err := rules.Check(cs.Obstacles); err != nil {
			return nil, nil, fmt.Errorf("%s: invalid test: %w", file, err)
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

// summarizeTests groups results (runs consecutive results per test, in the
// order of cases) into one testResult per test.
func summarizeTests(files []string, cases []*scenario.CaseStudy, results []*run.Result, runs int) []testResult {
	out := make([]testResult, len(cases))
	for i, cs := range cases {
		rs := results[i*runs : (i+1)*runs]
		tr := testResult{Test: files[i], Mission: cs.Mission.Name, Summary: run.Summarize(rs), Runs: rs}
		for _, b := range cs.Obstacles {
			tr.Obstacles = append(tr.Obstacles, obstacleOut{b.L, b.W, b.H, b.X, b.Y, b.Z, b.R})
		}
		out[i] = tr
	}
	return out
}

// reportTests prints the tests as JSON or one line each with a total, and
// returns a *failure when any test failed (exit 1).
func reportTests(stdout io.Writer, asJSON bool, names []string, out []testResult, runs int) error {
	failed := 0
	for _, tr := range out {
		if tr.Summary.Verdict != run.VerdictPass {
			failed++
		}
	}
	if asJSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		for i, tr := range out {
			printTest(stdout, names[i], tr)
		}
		fmt.Fprintf(stdout, "%d tests, %d runs each: %d passed, %d failed\n", len(out), runs, len(out)-failed, failed)
	}
	if failed > 0 {
		return &failure{}
	}
	return nil
}

func printTest(w io.Writer, name string, tr testResult) {
	s := tr.Summary
	dist := "no obstacles"
	if s.MinClearanceM != nil {
		dist = fmt.Sprintf("min distance %.2f m", *s.MinClearanceM)
	}
	per := make([]string, len(tr.Runs))
	for k, r := range tr.Runs {
		if r.MinClearanceM != nil {
			per[k] = strconv.FormatFloat(*r.MinClearanceM, 'f', 2, 64)
		} else {
			per[k] = "-"
		}
		if !r.Completed {
			per[k] += "*"
		}
	}
	fmt.Fprintf(w, "%s (%s, %d obstacles): %s, points %.2f, flight time %.1f s, %s  [runs: %s]\n",
		name, tr.Mission, len(tr.Obstacles), dist, s.MeanPoints, s.MeanTimeS, s.Verdict, strings.Join(per, " "))
}

// writeRunOutputs renders all files first, then writes them atomically.
func writeRunOutputs(dir string, names []string, cases []*scenario.CaseStudy, out []testResult, logs []*bytes.Buffer) error {
	type file struct {
		name string
		data []byte
	}
	var files []file
	area := world.DefaultArea
	for i, tr := range out {
		// The run that came closest.
		best := tr.Runs[0]
		for _, r := range tr.Runs {
			if r.MinClearanceM != nil && (best.MinClearanceM == nil || *r.MinClearanceM < *best.MinClearanceM) {
				best = r
			}
		}
		for k, r := range tr.Runs {
			var b bytes.Buffer
			if err := trace.WriteCSV(&b, r.Trace); err != nil {
				return err
			}
			files = append(files, file{fmt.Sprintf("%s-run%d.csv", names[i], k+1), b.Bytes()})
			if logs != nil {
				files = append(files, file{fmt.Sprintf("%s-run%d.mcap", names[i], k+1), logs[i*len(tr.Runs)+k].Bytes()})
			}
		}
		title := fmt.Sprintf("%s (%s): %s", names[i], tr.Mission, tr.Summary.Verdict)
		note := "no obstacles"
		if best.MinClearanceM != nil {
			note = fmt.Sprintf("distance: %.2f m (obstacle %d), run seed %d", *best.MinClearanceM, best.MinObstacle, best.Seed)
		}
		fl := plot.Flight{Title: title, Area: &area, Obstacles: cases[i].Obstacles, Planned: cases[i].Mission.Path(),
			Flown: trace.Positions(best.Trace), Start: true, End: true, Note: note, Closest: best.Closest}
		var png bytes.Buffer
		if err := plot.WritePNG(&png, fl, 1200, 800); err != nil {
			return fmt.Errorf("%s.png: %w", names[i], err)
		}
		files = append(files, file{names[i] + ".png", png.Bytes()})
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, file{"results.json", append(js, '\n')})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}
