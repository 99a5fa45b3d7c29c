package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/gen/harness"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
)

type generateFlags struct {
	strategy    string
	seed        uint64
	model       string
	data        string
	out         string
	report      bool
	json        bool
	workers     int
	gust        float64
	timeout     float64
	cacheDir    string
	batch       int
	margin      float64
	rounds      int
	runs        int
	datasetN    int
	legs        string
	flightModel string
	exec        execFlags        // --executor, --nats, --db
	quiet       bool             // no progress bars (tests, harness)
	now         func() time.Time // the clock naming the output folder
}

func newGenerateCmd() *cobra.Command {
	f := generateFlags{now: time.Now}
	cmd := &cobra.Command{
		Use:   "generate <case-study> <budget>",
		Short: "Generate critical, diverse obstacle tests for a mission within a simulation budget",
		Long: `Generate two-obstacle tests that bring the vehicle close to an obstacle on a
mission (a built-in mission1 … mission7 or canonical, an Aerialist YAML or a
.plan), spending at most <budget> simulations, every simulation counted. The
tests that came closer than 1.5 m are written, ranked closest first, to
<out>/<dd-mm-HH-MM-SS>/test_0.yaml, test_1.yaml, … each with its plot
test_N.png, beside the mission's plan and generation.json (every simulated
test with its prediction and distance); then "<n> test cases generated" and
"output folder: <path>" are printed, as the UAV Testing Competition's
generators do. A summary goes to stderr.

Strategies:
  surrogate       the paper's pipeline (§IV-E): the mission's leg with the
                  largest segment-placement zone is mapped onto the canonical
                  leg; phase 1 keeps, out of 100 rounds of constrained-random
                  batches, the tests the surrogate predicts closest; phase 2
                  (100 rounds) swaps in tests predicted critical (≤ 1.5 m)
                  when that raises input diversity (Eq. 9–11); phase 3 flies
                  the leaderboard (its size is the budget).
  active          the same in 4 rounds; after each round's flights the
                  surrogate is retrained on them (their weight ×5).
  mission         the pipeline with a surrogate trained on tests of the
                  mission itself (simulated once, cached).
  mission-active  both.
  local           the pipeline on 30 % of the budget, then mutants of the
                  failures found (a diversity constraint: IoU ≤ 0.5).
  search          (the default) 20 % of the budget on the training data's
                  closest tests mapped onto each leg, the pipeline for the
                  rest, every failure re-flown within the budget until it
                  fails 3 times out of 3 (8 of 8 above a 1.2-m mean) or is
                  disproved, mutants of the robust ones first, never more
                  new tests than the budget left can confirm; a failure
                  that flies as an earlier one (DTW of the paths < 75 m,
                  the 2024 similarity) is neither confirmed nor written;
                  confirmed tests are written first.
  constrained     the constrained-random generator in the zone, no model.
  random          sizes, rotations and positions uniformly in the area.
--margin M makes phase 2 swap in only tests predicted below 1.5 − M m: more
critical tests, less input diversity (mission-active --margin 0.3 had the
highest hit rate of the strategies measured that kept most of it).

Without --model the surrogate is trained on the canonical dataset (2716
constrained-random tests of the canonical mission): with the default flags the
binary ships it for its own simulator; otherwise it is simulated first. It is
cached in --cache-dir, keyed by its parameters and by a fingerprint of the
simulator (one probe flight), as are the trained models.
--report flies the tests the competition evaluates 3 more times (the first
20 in output order and the 20 with the best test score) and prints the
measures: hit rate (critical flights / simulations; a flight stopped at the
--timeout is never critical and is counted apart), precision of both
populations (mean distance of the re-flights < 1.5 m), surrogate RMSE on
the generated tests, input (Eq. 9–11) and output (Eq. 12–13) diversity,
and the tests critical beside more than one leg.
Every test is feasible: no footprint within 1.5 m of the take-off point, a
waypoint or the landing point, and no wall closing a leg (scenario lint's
rules, with the waypoint margin widened from 1 m to 1.5 m).

Legs and corners: every leg whose zone is 100 m² or more and every turn of
the mission inside the placement area with as much zone (the 30 m × 30 m
square around it, clipped to the area) gets a share of the budget by zone
area (--legs auto; all: every one; N[,M]: those legs, no corner). A
corner's tests are constrained-random draws against the last 15 m of the
leg into the turn or the first 15 m of the leg out of it, whatever the
strategy (no surrogate: the paper's canonical frame is a straight leg);
the search climbs from what they find.`,
		Example: `  shakedown generate mission2 100
  shakedown generate mission4 200 --strategy active --seed 3 --out generated
  shakedown generate mission5 100 --strategy constrained --report
  shakedown generate mission2 100 --strategy search --report
  shakedown generate mission2 100 --model model.json`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			budget, err := strconv.Atoi(args[1])
			if err != nil {
				return fmt.Errorf("budget %q: want a whole number of simulations", args[1])
			}
			return generateCmd(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], budget, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.strategy, "strategy", harness.DefaultStrategy, strings.Join(harness.Strategies, ", "))
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the generator and of the simulations")
	fl.StringVar(&f.model, "model", "", "surrogate model `file` (JSON); default: trained on the cached canonical dataset")
	fl.StringVar(&f.data, "data", "", "training data `CSV` for retraining (active); default: the cached canonical dataset")
	fl.StringVar(&f.out, "out", defaultTestsFolder(), "`folder` the timestamped output folder is made in")
	fl.BoolVar(&f.report, "report", false, "fly the written tests again and print hit rate, precision, RMSE and diversity")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.IntVar(&f.workers, "workers", 0, "simulations in parallel (0 = one per core)")
	addExecFlags(fl, &f.exec)
	fl.Float64Var(&f.gust, "gust", defaultGust, "wind gust standard deviation, m/s")
	fl.Float64Var(&f.timeout, "timeout", run.DefaultTimeoutS, "simulated `seconds` per flight")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "where datasets and models are cached (default: the user cache folder)")
	fl.IntVar(&f.batch, "batch", 0, "candidates per round of the pipeline (0 = 500)")
	fl.Float64Var(&f.margin, "margin", 0, "phase 2 swaps in only candidates predicted below 1.5 m minus this `margin`, m (0 = the paper)")
	fl.IntVar(&f.rounds, "rounds", harness.DefaultRefineRounds, "refinement rounds of the active strategies")
	fl.IntVar(&f.runs, "runs", harness.DefaultReportRuns, "flights per written test for --report's precision")
	fl.IntVar(&f.datasetN, "dataset-n", harness.DefaultDatasetN, "tests in a training dataset built by the simulator")
	fl.StringVar(&f.flightModel, "flight-model", harness.DefaultFlightModel, "the search's own surrogate, learnt from its flights, that picks its mutants: "+strings.Join(harness.FlightModels, ", ")+" (context: with the legs passing each box and its nearest waypoint)")
	fl.StringVar(&f.legs, "legs", "auto", "legs and corners to test: auto (zones of 100 m² or more, the budget split by zone area), all, or leg numbers `N[,M]` (no corner)")
	return cmd
}

// defaultTestsFolder is the competition's ${TESTS_FOLDER:-./generated_tests/}.
func defaultTestsFolder() string {
	if d := os.Getenv("TESTS_FOLDER"); d != "" {
		return d
	}
	return "generated_tests"
}

func generateCmd(ctx context.Context, stdout, stderr io.Writer, arg string, budget int, f generateFlags) error {
	o, err := generate(ctx, stderr, arg, budget, f)
	if err != nil {
		return err
	}
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	end := func() {}
	if !f.quiet {
		end = phase(ctx, stderr, "rendering plots")
	}
	files, err := o.Files()
	end()
	if err != nil {
		return err
	}
	dir, err := writeFolder(f.out, now(), files)
	if err != nil {
		return err
	}
	o.Folder = dir
	printGenSummary(stderr, o)
	if f.json {
		return writeJSON(stdout, o)
	}
	if o.Report != nil {
		printGenReport(stdout, o)
	}
	fmt.Fprintf(stdout, "%d test cases generated\noutput folder: %s\n", o.Critical, dir)
	return nil
}

// generate parses the flags into a harness.Config and runs the
// generation on one runner (the executor and store the flags name). It
// writes no file but the cache's.
func generate(ctx context.Context, stderr io.Writer, arg string, budget int, f generateFlags) (*harness.Outcome, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := f.exec.check(); err != nil {
		return nil, err
	}
	if f.workers < 0 || f.workers > 1024 {
		return nil, fmt.Errorf("--workers %d: want 0 to 1024", f.workers)
	}
	if f.out == "" {
		return nil, errors.New("--out: want a folder")
	}
	if !(f.timeout > 0) || math.IsInf(f.timeout, 0) {
		return nil, fmt.Errorf("--timeout %v: want a finite number of seconds > 0", f.timeout)
	}
	cfg := harness.Config{Budget: budget, Strategy: f.strategy, Seed: f.seed, GustMS: f.gust, TimeoutS: f.timeout,
		Batch: f.batch, MarginM: f.margin, Rounds: f.rounds, Report: f.report, Runs: f.runs, DatasetN: f.datasetN,
		FlightModel: f.flightModel}
	legs, err := harness.ParseLegs(f.legs)
	if err != nil {
		return nil, flagError(err)
	}
	cfg.Legs = legs
	if err := cfg.Validate(); err != nil {
		return nil, flagError(err)
	}
	cs, err := scenario.Load(arg)
	if err != nil {
		return nil, err
	}
	cfg.CaseStudy = cs
	if f.model != "" {
		if cfg.Model, err = readModel("--model", f.model); err != nil {
			return nil, err
		}
	}
	if f.data != "" {
		if cfg.Data, err = readDataset(stderr, f.data, ""); err != nil {
			return nil, err
		}
	}
	dir := f.cacheDir
	if dir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache folder (%v): give --cache-dir", err)
		}
		dir = filepath.Join(d, "shakedown")
	}
	cfg.Cache = &harness.Cache{Dir: dir}
	workers := f.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	runner, closeRunner, err := f.exec.runner(ctx, stderr, workers)
	if err != nil {
		return nil, err
	}
	defer closeRunner()
	cfg.Runner = runner
	cfg.Progress = progressOn(ctx, stderr, f.quiet)
	cfg.Phase = phaseOn(ctx, stderr, f.quiet)
	if !f.quiet {
		cfg.Log = stderr
	}
	o, err := harness.Run(ctx, cfg)
	return o, flagError(err)
}

// writeFolder makes the timestamped output folder <parent>/<dd-mm-HH-MM-SS>
// (with -2, -3, … when it exists) and writes the files into it.
func writeFolder(parent string, now time.Time, files []harness.File) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	stamp := now.Format("02-01-15-04-05")
	dir := filepath.Join(parent, stamp)
	for k := 2; ; k++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || k > 1000 {
			return "", err
		}
		dir = filepath.Join(parent, fmt.Sprintf("%s-%d", stamp, k))
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.Name)), 0o755); err != nil {
			return "", err
		}
		if err := writeAtomic(filepath.Join(dir, f.Name), f.Data); err != nil {
			return "", err
		}
	}
	return dir, nil
}
