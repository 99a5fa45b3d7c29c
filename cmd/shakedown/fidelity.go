package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/fidelity"
	"github.com/shakedown-robotics/shakedown/run"
)

type fidelityFlags struct {
	runs, sample, workers int
	seed                  uint64
	gust                  float64
	json, quirk           bool
	classes, paths        string
	series                string
	plannerParams         string
}

func newFidelityCmd() *cobra.Command {
	var f fidelityFlags
	cmd := &cobra.Command{
		Use:   "fidelity <reference.csv | folder>",
		Short: "Measure how well the embedded simulator predicts PX4 on tests with known outcomes",
		Long: `Fly tests whose outcome on PX4 + PX4-Avoidance is known and compare. The
reference is a CSV with at least the columns test and px4_min_distance_m,
and optionally yaml (the test file, relative to the CSV; default
tests/<mission>/<test>.yaml beside it), mission, source, px4_airborne_s,
px4_class and usable (rows with usable = no are left out), as in the
project's px4-reference data. A folder instead holds test YAMLs each with
the PX4 log of its flight beside it (test_0.yaml, test_0.ulg): PX4's
distance and airborne time are then measured on the log's trajectory by
Aerialist's rule.

Each test is flown --runs times (Aerialist's setting: the log starts about
20 s before arming, no wind, a contact does not end the flight) and the
simulator's mean minimum distance is compared with PX4's, pooled, per
source and mission, and per mission: Spearman's rank correlation with its
permutation p-value (and on the tests where PX4 came within 3 m), mean
absolute error and bias of the clearance, agreement on collision and on
critical (< 1.5 m), the precision and recall of the simulator's critical
verdict as a prediction of PX4's, the median ratio of airborne times, the mean lateral
distance to PX4's traced paths (--paths) and the tests that disagree most.
Where PX4's time series are known (--series), the share of the time at
cruise height each flew slower than 0.45 m/s (PX4 + PX4-Avoidance spends minutes at
0.2-0.35 m/s on some flights).
Then the clearances by band of PX4's clearance, by where the boxes stand
(beside the mission's straight path, or across it by the detour they
force), and the repeat scatter:
how far apart two flights of one layout land, for PX4 on the tests the
near_dup_group column groups, for the simulator on the same pairs and
between its first two runs of every test. Rows where PX4 apparently never
took off (its distance is the take-off point's to the nearest box, and the
simulator flew past at least 1 m closer) are listed and left out of a
"pooled, not grounded" line. --gust adds wind gusts (m/s, 1σ) to see how
they spread the simulator's runs.

Exit status: 0 compared, 2 bad input (the message names the row).`,
		Example: `  shakedown fidelity fidelity/testdata/tiny/reference.csv --runs 1
  shakedown fidelity ../shared/data/px4-reference/reference.csv --runs 5 --classes normal,crash   # the project's PX4 data, outside the repository
  shakedown fidelity ../shared/data/px4-reference/wide/reference.csv --sample 200 --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFidelity(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.runs, "runs", 2, "flights per test, each with its own noise seed")
	fl.IntVar(&f.sample, "sample", 0, "fly a seeded random subset of `N` tests (0 = all)")
	fl.IntVar(&f.workers, "workers", 0, "simulations in parallel (0 = one per core)")
	fl.Uint64Var(&f.seed, "seed", 1, "base seed of the runs and of --sample")
	fl.BoolVar(&f.json, "json", false, "print the report as JSON")
	fl.Float64Var(&f.gust, "gust", 0, "wind gust standard deviation, m/s (0 = calm, as Aerialist flies)")
	fl.BoolVar(&f.quirk, "aerialist-quirk", false, "leave out of the flight the boxes Aerialist cannot spawn (rotation printed in exponent notation), still scoring them")
	fl.StringVar(&f.classes, "classes", "", "keep only these px4_class values (comma-separated)")
	fl.StringVar(&f.paths, "paths", "", "`DIR` of PX4's traced paths <mission>-<test>.csv; default paths/ beside the reference when present")
	addPlannerParamsFlag(fl, &f.plannerParams)
	fl.StringVar(&f.series, "series", "", "`DIR` of PX4's time series t,x,y,z as <mission>-<test>.csv or <mission>/<test>.csv; default series/ or trajectories/ beside the reference when present")
	return cmd
}

// loadReference reads a reference CSV, or a folder of test YAMLs each with
// its PX4 log (.ulg) beside it.
func loadReference(ref string) ([]fidelity.Reference, error) {
	st, err := os.Stat(ref)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return fidelity.FromFolder(ref)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file or a folder", ref)
	}
	fh, err := os.Open(ref)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return fidelity.ParseCSV(ref, fh)
}

func runFidelity(cmd *cobra.Command, ref string, f fidelityFlags) error {
	if f.runs < 1 || f.runs > 100 {
		return fmt.Errorf("--runs %d out of [1, 100]", f.runs)
	}
	if f.sample < 0 {
		return fmt.Errorf("--sample %d < 0", f.sample)
	}
	refs, err := loadReference(ref)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if !r.Usable {
			continue
		}
		if _, err := os.Stat(r.YAML); err != nil {
			return &fidelity.ParseError{File: ref, Line: r.Line, Field: "yaml", Err: fmt.Errorf("test file %s: %w", r.YAML, errors.Unwrap(err))}
		}
	}
	wind, err := windFor(f.gust)
	if err != nil {
		return err
	}
	planner, err := plannerParams(f.plannerParams, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	cfg := fidelity.Config{Runs: f.runs, Seed: f.seed, Workers: f.workers, Sample: f.sample,
		Options: run.Options{AerialistUnspawned: f.quirk, Wind: wind, Avoid: planner}}
	if f.classes != "" {
		cfg.Classes = strings.Split(f.classes, ",")
	}
	cfg.PathsDir = f.paths
	if cfg.PathsDir == "" {
		if st, err := os.Stat(filepath.Join(filepath.Dir(ref), "paths")); err == nil && st.IsDir() {
			cfg.PathsDir = filepath.Join(filepath.Dir(ref), "paths")
		}
	}
	cfg.SeriesDir = f.series
	for _, d := range []string{"series", "trajectories"} {
		if cfg.SeriesDir != "" {
			break
		}
		if st, err := os.Stat(filepath.Join(filepath.Dir(ref), d)); err == nil && st.IsDir() {
			cfg.SeriesDir = filepath.Join(filepath.Dir(ref), d)
		}
	}
	stderr := cmd.ErrOrStderr()
	cfg.OnDone = func(done, total int) {
		if done%50 == 0 || done == total {
			fmt.Fprintf(stderr, "\rflown %d/%d flights", done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	rep, err := fidelity.Evaluate(cmd.Context(), refs, cfg)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(out)
}
