package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/campaign"
)

type workerFlags struct {
	natsFlags
	concurrency int
	name        string
	drain       time.Duration
	verbose     bool
	engines     engineFlags // the engine this worker has beside the embedded one
}

func newWorkerCmd() *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:   "worker --nats URL [--workers N]",
		Short: "Run campaign jobs from a NATS JetStream queue until stopped",
		Long: `Pull jobs from the NATS JetStream work queue that commands run with
--executor nats fill, fly each on the embedded simulator, publish the result,
and only then acknowledge the job, so that a worker that dies loses nothing:
its unacknowledged jobs go to another worker after the ack wait (1 min
without a sign of life; a running job signals every 20 s). A job that fails
is retried after 1 s, 5 s, 30 s and 2 min, and after its fifth failure its
error goes to the campaign's dead-letter subject. Run as many workers, on as
many hosts, as you like; each runs --workers jobs at once.

SIGTERM or SIGINT drains the worker: it takes no new job, finishes the jobs
it is running (at most --drain-timeout, after which they go back to the
queue), publishes their results and exits 0. Exit status 2: the server
cannot be reached or has no JetStream.`,
		Example: `  shakedown worker --nats nats://queue.lab:4222
  shakedown worker --nats nats://queue.lab:4222 --workers 8 --name rack3-node2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
			defer stop()
			return runWorker(ctx, cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	addNATSFlags(fl, &f.natsFlags, "")
	fl.IntVar(&f.concurrency, "workers", 0, "jobs at once (0 = one per core)")
	aliasFlags(cmd, map[string]string{"concurrency": "workers"})
	fl.StringVar(&f.name, "name", "", "worker name reported with each result (default host-pid)")
	fl.DurationVar(&f.drain, "drain-timeout", 10*time.Minute, "on SIGTERM, how long running jobs may take to finish before going back to the queue (0 = no limit)")
	fl.BoolVar(&f.verbose, "verbose", false, "print a line per job")
	addEngineFlags(fl, &f.engines)
	return cmd
}

func runWorker(ctx context.Context, stderr io.Writer, f workerFlags) error {
	if f.concurrency < 0 || f.concurrency > 1024 {
		return fmt.Errorf("--workers %d: want 0 to 1024", f.concurrency)
	}
	if f.drain < 0 {
		return fmt.Errorf("--drain-timeout %v: want 0 or more", f.drain)
	}
	if err := (execFlags{executor: "nats", natsFlags: f.natsFlags, engineFlags: f.engines}).check(); err != nil {
		return err
	}
	engines := f.engines.engines(stderr)
	name := f.name
	if name == "" {
		host, err := os.Hostname()
		if err != nil {
			host = "worker"
		}
		name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	n := f.concurrency
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	nc, key, err := f.dial(ctx, stderr, "shakedown worker "+name)
	if err != nil {
		return err
	}
	defer nc.Close()
	var mu sync.Mutex
	jobs, failed := 0, 0
	if f.engines.engine == campaign.EngineMAVLink {
		n = 1 // one vehicle flies one job at a time
	}
	w := &campaign.Worker{Conn: nc, Config: campaign.NATSConfig{Key: key}, Name: name, Concurrency: n, DrainTimeout: f.drain, Exec: engines.Execute, Log: stderr,
		OnResult: func(d campaign.Delivery) {
			mu.Lock()
			defer mu.Unlock()
			jobs++
			if !d.OK() {
				failed++
			}
			if f.verbose {
				what := d.Error
				if d.OK() {
					what = d.Run.Verdict
					if d.Run.MinClearanceM != nil {
						what += fmt.Sprintf(" %.2f m", *d.Run.MinClearanceM)
					}
				}
				fmt.Fprintf(stderr, "job %s (attempt %d, %v): %s\n", d.Job.Short(), d.Attempt, d.Elapsed.Round(time.Millisecond), what)
			}
		}}
	fmt.Fprintf(stderr, "worker %s: %d jobs at a time from %s\n", name, n, nc.ConnectedUrlRedacted())
	err = w.Serve(ctx)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		return fmt.Errorf("worker %s: %w (after %d jobs)", name, err, jobs)
	}
	fmt.Fprintf(stderr, "worker %s: drained after %d jobs (%d dead letters)\n", name, jobs, failed)
	return nil
}
