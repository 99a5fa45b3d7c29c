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
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/store"
)

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
	Index      int                `json:"index"`
	Job        campaign.ID        `json:"job"`
	Mission    string             `json:"mission"`
	Run        int                `json:"run"`
	Seed       uint64             `json:"seed"`
	Status     string             `json:"status"`
	Obstacles  campaign.Obstacles `json:"obstacles"`
	Result     *run.Result        `json:"result"`
	Error      string             `json:"error,omitempty"`
	Worker     string             `json:"worker,omitempty"`
	Attempt    int                `json:"attempt,omitempty"`
	Trajectory [][5]float64       `json:"trajectory,omitempty"`
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
		if err := writeAtomic(f.out, buf.Bytes()); err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "wrote %s\n", f.out)
		return err
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}
