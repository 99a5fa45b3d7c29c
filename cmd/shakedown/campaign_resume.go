package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/store"
)

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
	bar := newProgress(ctx, stderr, len(jobs), "resuming "+c.ID.Short())
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
