package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/store"
)

func newCampaignCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "Run campaigns of many simulations and look into their results database",
		Long: `A campaign is a list of jobs (one simulated run each: scenario, vehicle
configuration, seed, run index), each with an id derived from its content.
The commands that fly many simulations (dataset, score, generate, campaign run) record
their campaign in the SQLite file given with --db and skip the jobs already
done there, so an interrupted campaign resumes where it stopped. With
--executor nats the jobs go to workers on other machines (shakedown worker).`,
	}
	cmd.AddCommand(newCampaignRunCmd(), newCampaignStatusCmd(), newCampaignExportCmd(), newCampaignResumeCmd())
	return cmd
}

type campaignRunFlags struct {
	exec    execFlags
	workers int
	json    bool
}

func newCampaignRunCmd() *cobra.Command {
	var f campaignRunFlags
	cmd := &cobra.Command{
		Use:   "run <campaign.yaml>",
		Short: "Run the tests a campaign file lists, --runs times each",
		Long: `Run a campaign file: tests (built-in missions, case-study YAMLs or .plan files,
globs relative to the file), each flown runs times with the seeds
shakedown run gives them (run k of test i: run.RunSeed(seed, i·runs+k)), and
print per test what shakedown run prints. The keys:

  name: nightly        # a label (default: the file name)
  tests: [generated/test_*.yaml, mission2]
  runs: 3              # default 1
  seed: 1              # default 1
  gust: 0.3            # m/s, default 0.3
  autopilot: avoid     # or plain
  timeout: 500         # simulated seconds per run
  rules: "2025"        # obstacle rules the tests must satisfy: 2024, 2025, 2026

An unknown key is an error. Exit status: 0 all tests passed, 1 some test
came closer than 1.5 m or collided, 2 bad input or a job that could not run.`,
		Example: `  shakedown campaign run nightly.yaml --db runs.db
  shakedown campaign run nightly.yaml --db runs.db --executor nats --nats nats://queue:4222`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return campaignRun(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f)
		},
	}
	addExecFlags(cmd.Flags(), &f.exec)
	cmd.Flags().IntVar(&f.workers, "workers", 0, "simulations in parallel with --executor local (0 = one per core)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the results as JSON (as shakedown run --json)")
	return cmd
}

// specTests expands a spec's tests into case-study arguments: built-in
// names as they are, paths relative to the spec's folder, globs sorted.
func specTests(specPath string, s campaign.Spec) ([]string, error) {
	dir := filepath.Dir(specPath)
	var out []string
	for i, t := range s.Tests {
		if slices.Contains(scenario.BuiltinNames(), t) {
			out = append(out, t)
			continue
		}
		p := t
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if strings.ContainsAny(t, "*?[") {
			m, err := filepath.Glob(p)
			if err != nil {
				return nil, &campaign.SpecError{File: specPath, Field: fmt.Sprintf("tests[%d]", i), Err: fmt.Errorf("%w: %v", campaign.ErrSpec, err)}
			}
			if len(m) == 0 {
				return nil, &campaign.SpecError{File: specPath, Field: fmt.Sprintf("tests[%d]", i), Err: fmt.Errorf("%w: %q matches no file", campaign.ErrSpec, t)}
			}
			sort.Strings(m)
			out = append(out, m...)
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func campaignRun(ctx context.Context, stdout, stderr io.Writer, specPath string, f campaignRunFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.workers < 0 || f.workers > 1024 {
		return fmt.Errorf("--workers %d: want 0 to 1024", f.workers)
	}
	if err := f.exec.check(); err != nil {
		return err
	}
	data, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	spec, err := campaign.ParseSpec(specPath, data)
	if err != nil {
		return err
	}
	if spec.Name == "" {
		spec.Name = strings.TrimSuffix(filepath.Base(specPath), filepath.Ext(specPath))
	}
	files, err := specTests(specPath, spec)
	if err != nil {
		return err
	}
	rules, err := rulesFor(spec.Rules)
	if err != nil {
		return err
	}
	wind, err := windFor(spec.GustMS)
	if err != nil {
		return err
	}
	cases, names, err := loadTests(files, rules)
	if err != nil {
		return err
	}
	// The spec's engine:, unless --engine names another one.
	switch e := f.exec.engine; {
	case e == "" || e == campaign.EngineEmbedded:
		f.exec.engine = spec.Engine
	case spec.Engine != campaign.EngineEmbedded && spec.Engine != e:
		return fmt.Errorf("--engine %s, but %s says engine: %s", e, specPath, spec.Engine)
	}
	if err := f.exec.check(); err != nil {
		return err
	}
	var jobs []campaign.Job
	for i, cs := range cases {
		file := files[i]
		for k := range spec.Runs {
			j, err := campaign.NewJob(cs, run.Options{Seed: run.RunSeed(spec.Seed, i*spec.Runs+k), TimeoutS: spec.TimeoutS,
				Wind: wind, Autopilot: spec.Autopilot, PreArmS: spec.PreArmS}, k, false)
			if err == nil && f.exec.engine != campaign.EngineEmbedded {
				j, err = j.WithEngine(f.exec.engine)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			jobs = append(jobs, j)
		}
	}
	r, closeRunner, err := f.exec.runner(ctx, stderr, f.workers)
	if err != nil {
		return err
	}
	defer closeRunner()
	c := campaign.Campaign{ID: campaign.CampaignID(jobs), Name: spec.Name}
	fmt.Fprintf(stderr, "campaign %s (%s): %d tests × %d runs\n", c.ID.Short(), spec.Name, len(files), spec.Runs)
	bar := newProgress(ctx, stderr, len(jobs), "flying")
	r.Progress = func(done, _ int) { _ = bar.Set(done) }
	res, err := r.Run(ctx, c, jobs)
	if err != nil {
		return err
	}
	if i, err := campaign.FirstFailure(res); err != nil {
		return fmt.Errorf("%s run %d: %w", files[i/spec.Runs], i%spec.Runs+1, err)
	}
	results := make([]*run.Result, len(res))
	for i := range res {
		results[i] = res[i].RunResult(jobs[i])
	}
	out := summarizeTests(files, cases, results, spec.Runs)
	return reportTests(stdout, f.json, names, out, spec.Runs)
}

// openDB opens an existing database for reading.
func openDB(ctx context.Context, path string) (*store.DB, error) {
	if path == "" {
		return nil, errors.New("--db: the campaign database is required")
	}
	db, err := store.Open(ctx, path, store.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	return db, nil
}
