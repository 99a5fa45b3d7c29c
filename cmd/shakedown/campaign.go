package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/store"
)

// execFlags choose where a command's simulations run and where their
// results are recorded. The zero value runs them on this machine and
// records nothing.
type execFlags struct {
	executor string // "local" ("" too) or "nats"
	natsURL  string
	db       string
}

// defaultNATSURL is --nats's default: $SHAKEDOWN_NATS, else the standard
// local server.
func defaultNATSURL() string {
	if u := os.Getenv("SHAKEDOWN_NATS"); u != "" {
		return u
	}
	return nats.DefaultURL
}

func addExecFlags(fl *pflag.FlagSet, f *execFlags) {
	fl.StringVar(&f.executor, "executor", "local", "where the simulations run: local (this machine, one per core) or nats (workers pulling from a NATS JetStream queue)")
	fl.StringVar(&f.natsURL, "nats", defaultNATSURL(), "NATS server `URL` for --executor nats (default from $SHAKEDOWN_NATS)")
	fl.StringVar(&f.db, "db", "", "record jobs and results in the SQLite database `FILE`; running the same jobs again skips those already done")
}

func (f execFlags) check() error {
	switch f.executor {
	case "", "local":
	case "nats":
		for _, u := range strings.Split(f.natsURL, ",") {
			p, err := url.Parse(strings.TrimSpace(u))
			if err != nil || p.Host == "" || !slices.Contains([]string{"nats", "tls", "ws", "wss"}, p.Scheme) {
				return fmt.Errorf("--nats %q: want a URL like nats://host:4222", f.natsURL)
			}
		}
	default:
		return fmt.Errorf("--executor %q: want local or nats", f.executor)
	}
	return nil
}

// runner checks the flags, connects to the NATS server (first, so that an
// unreachable server creates no database file) and opens the database. The
// returned close releases both.
func (f execFlags) runner(ctx context.Context, stderr io.Writer, workers int) (*campaign.Runner, func(), error) {
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	r := &campaign.Runner{Exec: &campaign.Local{Workers: workers}}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if f.executor == "nats" {
		nc, err := campaign.Dial(ctx, f.natsURL, "shakedown coordinator")
		if err != nil {
			if errors.Is(err, campaign.ErrUnreachable) {
				err = fmt.Errorf("--nats: %w (is `nats-server -js` running there?)", err)
			}
			return nil, nil, err
		}
		closers = append(closers, nc.Close)
		r.Exec = &campaign.NATS{Conn: nc, Log: stderr}
	}
	if f.db != "" {
		db, err := store.Open(ctx, f.db, store.Options{})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--db: %w", err)
		}
		closers = append(closers, func() { db.Close() })
		r.Store = db
	}
	return r, closeAll, nil
}

// newProgress returns a progress bar of n jobs on w.
func newProgress(w io.Writer, n int, what string) *progressbar.ProgressBar {
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200_000_000),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
}

func newCampaignCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "Run campaigns of many simulations and look into their results database",
		Long: `A campaign is a list of jobs (one simulated run each: scenario, vehicle
configuration, seed, run index), each with an id derived from its content.
The commands that fly many simulations (dataset, score, campaign run) record
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
		Args: cobra.ExactArgs(1),
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
	var jobs []campaign.Job
	for i, cs := range cases {
		file := files[i]
		for k := range spec.Runs {
			j, err := campaign.NewJob(cs, run.Options{Seed: run.RunSeed(spec.Seed, i*spec.Runs+k), TimeoutS: spec.TimeoutS,
				Wind: wind, Autopilot: spec.Autopilot}, k, false)
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
	bar := newProgress(stderr, len(jobs), "flying")
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

type campaignStatusFlags struct {
	db   string
	json bool
}

func newCampaignStatusCmd() *cobra.Command {
	var f campaignStatusFlags
	cmd := &cobra.Command{
		Use:   "status [campaign-id] --db FILE",
		Short: "Show the progress of the campaigns in a database, with counts by verdict",
		Long: `Without an id, list every campaign of the database with its progress; with
an id (or a unique prefix of at least 4 characters) show that campaign's
counts by verdict and by mission. It reads while a campaign writes.`,
		Example: `  shakedown campaign status --db runs.db
  shakedown campaign status 3f2a9c --db runs.db --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return campaignStatus(cmd.Context(), cmd.OutOrStdout(), args, f)
		},
	}
	cmd.Flags().StringVar(&f.db, "db", "", "the campaign database `FILE` (required)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	return cmd
}

func campaignStatus(ctx context.Context, stdout io.Writer, args []string, f campaignStatusFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := openDB(ctx, f.db)
	if err != nil {
		return err
	}
	defer db.Close()
	var sums []store.Summary
	if len(args) == 0 {
		if sums, err = db.Campaigns(ctx); err != nil {
			return err
		}
	} else {
		id, err := db.Resolve(ctx, args[0])
		if err != nil {
			return err
		}
		s, err := db.Summary(ctx, id)
		if err != nil {
			return err
		}
		sums = []store.Summary{s}
	}
	if f.json {
		var v any = sums
		if len(args) > 0 {
			v = sums[0]
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return nil
	}
	if len(sums) == 0 {
		fmt.Fprintf(stdout, "%s holds no campaign\n", f.db)
		return nil
	}
	for _, s := range sums {
		fmt.Fprintf(stdout, "%s  %s  %s\n  %s\n", s.ID.Short(), s.Created.UTC().Format("2006-01-02 15:04"), s.Name, progressLine(s.Jobs, s.Done, s.Failed, s.Verdicts))
		if len(args) == 0 {
			continue
		}
		if s.MinDistanceM != nil {
			fmt.Fprintf(stdout, "  least minimum distance %.2f m\n", *s.MinDistanceM)
		}
		for _, m := range s.Missions {
			fmt.Fprintf(stdout, "  %-12s %s\n", m.Mission, progressLine(m.Jobs, m.Done, m.Failed, m.Verdicts))
		}
	}
	return nil
}

func progressLine(jobs, done, failed int, verdicts map[string]int) string {
	pct := 0.0
	if jobs > 0 {
		pct = 100 * float64(done+failed) / float64(jobs)
	}
	var vs []string
	for _, v := range []string{run.VerdictPass, run.VerdictSoftFail, run.VerdictHardFail} {
		vs = append(vs, fmt.Sprintf("%s %d", v, verdicts[v]))
	}
	return fmt.Sprintf("%d jobs, %d done (%s), %d failed to run, %d pending: %.0f %%", jobs, done, strings.Join(vs, ", "), failed, jobs-done-failed, pct)
}

type campaignExportFlags struct {
	db           string
	format       string
	out          string
	mission      string
	status       string
	verdict      string
	below        float64
	trajectories bool
}

func newCampaignExportCmd() *cobra.Command {
	var f campaignExportFlags
	cmd := &cobra.Command{
		Use:   "export [campaign-id] --db FILE [--format csv|json] [--out FILE]",
		Short: "Export a campaign's jobs and results as CSV or JSON",
		Long: `Write one record per job of the campaign, in campaign order: index, job id,
mission, run index, seed, status (ok, failed, pending), verdict, minimum
distance (m), points, flight time (s), completed, timed out, the obstacles
(l,w,h,x,y,z,r; … in the competition frame), the worker, the attempt and the
error. JSON records hold the whole result (the run as shakedown fly --json
prints it) and, with --trajectories, the trajectory resampled into 0.5-s bins
as [t, x, y, z, heading] in the competition frame (z up).

The campaign id may be left out when the database holds one campaign.`,
		Example: `  shakedown campaign export --db runs.db > runs.csv
  shakedown campaign export 3f2a9c --db runs.db --format json --verdict soft-fail --out close.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("below") {
				f.below = math.NaN() // no filter
			}
			return campaignExport(cmd.Context(), cmd.OutOrStdout(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", "the campaign database `FILE` (required)")
	fl.StringVar(&f.format, "format", "csv", "csv or json")
	fl.StringVar(&f.out, "out", "", "write to `FILE` instead of stdout")
	fl.StringVar(&f.mission, "mission", "", "only jobs of this mission")
	fl.StringVar(&f.status, "status", "", "only jobs with this status: ok, failed or pending")
	fl.StringVar(&f.verdict, "verdict", "", "only jobs with this verdict: pass, soft-fail or hard-fail")
	fl.Float64Var(&f.below, "below", 0, "only jobs whose minimum distance is below `M` metres")
	fl.BoolVar(&f.trajectories, "trajectories", false, "JSON: include each run's resampled trajectory")
	return cmd
}

// exportRecord is one JSON record of campaign export.
type exportRecord struct {
	Index      int            `json:"index"`
	Job        campaign.ID    `json:"job"`
	Mission    string         `json:"mission"`
	Run        int            `json:"run"`
	Seed       uint64         `json:"seed"`
	Status     string         `json:"status"`
	Obstacles  []campaign.Box `json:"obstacles"`
	Result     *run.Result    `json:"result"`
	Error      string         `json:"error,omitempty"`
	Worker     string         `json:"worker,omitempty"`
	Attempt    int            `json:"attempt,omitempty"`
	Trajectory [][5]float64   `json:"trajectory,omitempty"`
}

var exportHeader = []string{"index", "job", "mission", "run", "seed", "status", "verdict", "min_distance", "points",
	"flight_time", "completed", "timed_out", "obstacles", "worker", "attempt", "error"}

func campaignExport(ctx context.Context, stdout io.Writer, args []string, f campaignExportFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.format != "csv" && f.format != "json" {
		return fmt.Errorf("--format %q: want csv or json", f.format)
	}
	if f.trajectories && f.format != "json" {
		return errors.New("--trajectories needs --format json")
	}
	if f.status != "" && f.status != "ok" && f.status != "failed" && f.status != "pending" {
		return fmt.Errorf("--status %q: want ok, failed or pending", f.status)
	}
	if f.verdict != "" && f.verdict != run.VerdictPass && f.verdict != run.VerdictSoftFail && f.verdict != run.VerdictHardFail {
		return fmt.Errorf("--verdict %q: want pass, soft-fail or hard-fail", f.verdict)
	}
	filter := store.Filter{Mission: f.mission, Status: f.status, Verdict: f.verdict, Trajectories: f.trajectories}
	if !math.IsNaN(f.below) {
		if math.IsInf(f.below, 0) {
			return fmt.Errorf("--below %v: want a finite distance", f.below)
		}
		b := f.below
		filter.BelowM = &b
	}
	db, err := openDB(ctx, f.db)
	if err != nil {
		return err
	}
	defer db.Close()
	prefix := ""
	if len(args) > 0 {
		prefix = args[0]
	}
	id, err := db.Resolve(ctx, prefix)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	var records []exportRecord
	if f.format == "csv" {
		_ = cw.Write(exportHeader)
	}
	err = db.Rows(ctx, id, filter, func(r store.Row) error {
		rec := exportRecord{Index: r.Index, Job: r.Job.ID, Mission: r.Job.Scenario.Mission.Name, Run: r.Job.Run, Seed: r.Job.Seed,
			Status: r.Status, Obstacles: r.Job.Scenario.Obstacles, Worker: r.Worker, Attempt: r.Attempt}
		if r.Result != nil {
			rec.Error = r.Result.Error
			rec.Result = r.Result.RunResult(r.Job)
			for _, s := range r.Result.Trajectory {
				rec.Trajectory = append(rec.Trajectory, [5]float64{s.T, s.Pos.X, s.Pos.Y, -s.Pos.Z + 0, s.Heading})
			}
		}
		if f.format == "json" {
			records = append(records, rec)
			return nil
		}
		row := []string{strconv.Itoa(rec.Index), string(rec.Job), rec.Mission, strconv.Itoa(rec.Run), strconv.FormatUint(rec.Seed, 10), rec.Status}
		if res := rec.Result; res != nil {
			md := "inf"
			if res.MinClearanceM != nil {
				md = strconv.FormatFloat(*res.MinClearanceM, 'f', 4, 64)
			}
			row = append(row, res.Verdict, md, strconv.Itoa(res.Points), strconv.FormatFloat(res.FlightTimeS, 'f', 3, 64),
				strconv.FormatBool(res.Completed), strconv.FormatBool(res.TimedOut))
		} else {
			row = append(row, "", "", "", "", "", "")
		}
		var obs []string
		for _, b := range rec.Obstacles {
			obs = append(obs, fmt.Sprintf("%g,%g,%g,%g,%g,%g,%g", b.L, b.W, b.H, b.X, b.Y, b.Z, b.R))
		}
		attempt := ""
		if rec.Attempt > 0 {
			attempt = strconv.Itoa(rec.Attempt)
		}
		row = append(row, strings.Join(obs, ";"), rec.Worker, attempt, rec.Error)
		return cw.Write(row)
	})
	if err != nil {
		return err
	}
	if f.format == "json" {
		if records == nil {
			records = []exportRecord{}
		}
		b, err := json.MarshalIndent(records, "", "  ")
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	} else {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	if f.out != "" {
		return writeAtomic(f.out, buf.Bytes())
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

type campaignResumeFlags struct {
	exec    execFlags
	workers int
}

func newCampaignResumeCmd() *cobra.Command {
	var f campaignResumeFlags
	cmd := &cobra.Command{
		Use:   "resume [campaign-id] --db FILE",
		Short: "Run the jobs of a recorded campaign that have no result yet",
		Long: `Run, from the job descriptions in the database, the jobs of a campaign that
have no result yet (and those that failed to run), and record their
results. Re-running the command that made the campaign does the same and
also prints its output; resume needs only the database. Exit status: 0 every
job has a result, 2 some job could not be run.`,
		Example: `  shakedown campaign resume 3f2a9c --db runs.db
  shakedown campaign resume --db runs.db --executor nats --nats nats://queue:4222`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return campaignResume(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args, f)
		},
	}
	addExecFlags(cmd.Flags(), &f.exec)
	cmd.Flags().IntVar(&f.workers, "workers", 0, "simulations in parallel with --executor local (0 = one per core)")
	return cmd
}

func campaignResume(ctx context.Context, stdout, stderr io.Writer, args []string, f campaignResumeFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.exec.db == "" {
		return errors.New("--db: the campaign database is required")
	}
	if f.workers < 0 || f.workers > 1024 {
		return fmt.Errorf("--workers %d: want 0 to 1024", f.workers)
	}
	if err := f.exec.check(); err != nil {
		return err
	}
	if _, err := os.Stat(f.exec.db); err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	r, closeRunner, err := f.exec.runner(ctx, stderr, f.workers)
	if err != nil {
		return err
	}
	defer closeRunner()
	db := r.Store.(*store.DB)
	prefix := ""
	if len(args) > 0 {
		prefix = args[0]
	}
	id, err := db.Resolve(ctx, prefix)
	if err != nil {
		return err
	}
	c, jobs, err := db.Campaign(ctx, id)
	if err != nil {
		return err
	}
	bar := newProgress(stderr, len(jobs), "resuming "+c.ID.Short())
	r.Progress = func(done, _ int) { _ = bar.Set(done) }
	res, err := r.Run(ctx, c, jobs)
	if err != nil {
		return err
	}
	s, err := db.Summary(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s  %s\n  %s\n", s.ID.Short(), s.Name, progressLine(s.Jobs, s.Done, s.Failed, s.Verdicts))
	if i, err := campaign.FirstFailure(res); err != nil {
		return fmt.Errorf("%d jobs could not run; the first, job %d (%s): %w", s.Failed, i, jobs[i].ID.Short(), err)
	}
	return nil
}
