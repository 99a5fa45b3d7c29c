package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/gen/harness"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
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
test: the ten obstacle features (l, w, x, y, r of each box, in the case
study's competition frame), the minimum distance, the flight time, the
competition points and the verdict, then the categories the constrained
generator drew. The first line names the frame ("# frame: mission2"; "#
frame: canonical" for the canonical mission), for surrogate train and eval.

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
		Args: exactArgs(1),
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

func dataset(ctx context.Context, stderr io.Writer, arg string, f datasetFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.out == "" {
		return fmt.Errorf("--out: a CSV file to write is required")
	}
	if err := checkOutFile("out", f.out); err != nil {
		return err
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
	cfg := harness.DatasetConfig{N: f.n, Generator: f.generator, Seed: f.seed, GustMS: f.gust, Autopilot: f.autopilot, TimeoutS: f.timeout}
	if f.generator == "" {
		return errors.New(`--generator "": want constrained or random`)
	}
	if err := cfg.Validate(); err != nil {
		return flagError(err)
	}
	cs, err := scenario.Load(arg)
	if err != nil {
		return err
	}
	cfg.CaseStudy = cs
	workers := f.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	runner, closeRunner, err := f.exec.runner(ctx, stderr, workers)
	if err != nil {
		return err
	}
	defer closeRunner()
	cfg.Runner = runner
	cfg.Progress = progressOn(ctx, stderr, false)
	d, err := harness.BuildDataset(ctx, cfg)
	if err != nil {
		return flagError(err)
	}
	if err := writeAtomic(f.out, d.CSV); err != nil {
		return err
	}
	fmt.Fprintln(stderr, d.Summary(cs.Name, f.out))
	return nil
}
