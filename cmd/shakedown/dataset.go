package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/world"
)

type datasetFlags struct {
	n         int
	generator string
	seed      uint64
	out       string
	workers   int
	gust      float64
	autopilot string
	timeout   float64
	exec      execFlags
}

func newDatasetCmd() *cobra.Command {
	var f datasetFlags
	cmd := &cobra.Command{
		Use:   "dataset <case-study> --n N --out data.csv",
		Short: "Generate obstacle tests for a mission, simulate each, and write a CSV",
		Long: `Generate N two-obstacle tests for a case study (a built-in mission1 … mission7 or
canonical, an Aerialist YAML or a .plan), fly each once on the embedded
simulator with the obstacle-avoidance autopilot, and write one CSV row per
test: the ten obstacle features (l, w, x, y, r of each box), the minimum
distance, the flight time, the competition points and the verdict, then the
categories the constrained generator drew.

The constrained generator is the paper's semantic sampler (intrusion into the
path, size, aspect ratio, rotation low/high, the neighbour's sector, the
passage width): one category of each feature uniformly, then values in its
range, on the leg with the longest part inside the placement area. The random
generator draws sizes, rotations and positions uniformly. Tests are drawn in
order from --seed and simulated on all cores, or with --executor nats by
workers on other machines; the file is the same whatever the executor and
the number of workers. With --db the flights are recorded in a SQLite
database, and running the same command again skips those already done.`,
		Example: `  shakedown dataset canonical --n 2716 --seed 1 --out canonical.csv
  shakedown dataset mission2 --n 200 --generator random --out m2-random.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return dataset(cmd.Context(), cmd.ErrOrStderr(), args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.n, "n", 100, "number of tests")
	fl.StringVar(&f.generator, "generator", "constrained", "constrained or random")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the generator and of the simulations")
	fl.StringVar(&f.out, "out", "", "CSV `file` to write (required)")
	fl.IntVar(&f.workers, "workers", 0, "simulations in parallel (0 = one per core)")
	fl.Float64Var(&f.gust, "gust", defaultGust, "wind gust standard deviation, m/s")
	fl.StringVar(&f.autopilot, "autopilot", run.AutopilotAvoid, "avoid or plain")
	fl.Float64Var(&f.timeout, "timeout", run.DefaultTimeoutS, "simulated `seconds` per flight")
	addExecFlags(fl, &f.exec)
	return cmd
}

// defaultGust is the gust level of test runs (m/s, 1σ): enough wind to
// spread repeated runs of one test the way the competition sees them vary,
// far below what the vehicle can hold against.
const defaultGust = 0.3

func windFor(gust float64) (sim.WindConfig, error) {
	w := sim.WindConfig{GustSigmaMS: gust, GustTauS: 2}
	if gust == 0 {
		w.GustTauS = 0
	}
	if err := w.Validate(); err != nil || gust > 10 {
		return w, fmt.Errorf("--gust %v: want a finite number in [0, 10] m/s", gust)
	}
	return w, nil
}

// datasetHeader names the CSV columns.
var datasetHeader = []string{"test", "l1", "w1", "x1", "y1", "r1", "l2", "w2", "x2", "y2", "r2",
	"min_distance", "flight_time", "points", "verdict", "completed",
	"intrusion", "size1", "size2", "aspect1", "aspect2", "rotation1", "rotation2", "sector", "passage"}

func dataset(ctx context.Context, stderr io.Writer, arg string, f datasetFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.out == "" {
		return fmt.Errorf("--out: a CSV file to write is required")
	}
	if f.n < 1 || f.n > 1_000_000 {
		return fmt.Errorf("--n %d: want 1 to 1000000 tests", f.n)
	}
	if f.generator != "constrained" && f.generator != "random" {
		return fmt.Errorf("--generator %q: want constrained or random", f.generator)
	}
	if f.autopilot != run.AutopilotAvoid && f.autopilot != run.AutopilotPlain {
		return fmt.Errorf("--autopilot %q: want %s or %s", f.autopilot, run.AutopilotAvoid, run.AutopilotPlain)
	}
	if f.workers < 0 || f.workers > 1024 {
		return fmt.Errorf("--workers %d: want 0 to 1024", f.workers)
	}
	if !(f.timeout > 0) || math.IsInf(f.timeout, 0) {
		return fmt.Errorf("--timeout %v: want a finite number of seconds > 0", f.timeout)
	}
	if err := f.exec.check(); err != nil {
		return err
	}
	wind, err := windFor(f.gust)
	if err != nil {
		return err
	}
	cs, err := scenario.Load(arg)
	if err != nil {
		return err
	}
	leg, err := gen.LongestLeg(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		return fmt.Errorf("%s: %w", cs.Name, err)
	}
	g := gen.Generator{Leg: leg, Area: world.DefaultArea, Valid: func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }}
	rng := rand.New(rand.NewPCG(f.seed, 0xda7a))
	tests := make([]gen.Test, f.n)
	jobs := make([]run.Job, f.n)
	for i := range tests {
		var t gen.Test
		if f.generator == "random" {
			t, err = g.Random(rng)
		} else {
			t, err = g.Constrained(rng)
		}
		if err != nil {
			return fmt.Errorf("test %d: %w", i, err)
		}
		tests[i] = t
		c := *cs
		c.Obstacles = t.Obstacles
		jobs[i] = run.Job{Case: &c, Opt: run.Options{Seed: run.RunSeed(f.seed, i), TimeoutS: f.timeout, Wind: wind, Autopilot: f.autopilot}}
	}
	workers := f.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	runner, closeRunner, err := f.exec.runner(ctx, stderr, workers)
	if err != nil {
		return err
	}
	defer closeRunner()
	bar := progressbar.NewOptions(f.n, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200_000_000),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }))
	name := fmt.Sprintf("dataset %s --n %d --generator %s --seed %d --gust %g --autopilot %s --timeout %g", cs.Name, f.n, f.generator, f.seed, f.gust, f.autopilot, f.timeout)
	results, err := runner.Batch(ctx, name, jobs, false, func(done int) { _ = bar.Set(done) })
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(strings.Join(datasetHeader, ","))
	b.WriteByte('\n')
	var critical, hard int
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
			critical++
		}
		if r.Verdict == run.VerdictHardFail {
			hard++
		}
	}
	if err := writeAtomic(f.out, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %d tests, %d critical (%.1f %%), %d collisions, %d soft fails; wrote %s\n",
		cs.Name, f.n, critical, 100*float64(critical)/float64(f.n), hard, critical-hard, f.out)
	return nil
}
