package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrClosed is returned by Worker.Serve when its connection is closed.
var ErrClosed = errors.New("campaign: NATS connection closed")

// Worker runs jobs from the NATS work queue (see NATSConfig) until it is
// stopped. Each of its Concurrency slots pulls one job at a time from the
// shared "workers" consumer, runs it, publishes the result and only then
// acknowledges the job. While a job runs its slot tells the server the job
// is in progress every AckWait/3, so a job may run longer than AckWait but
// a dead worker's jobs are redelivered after AckWait. A job that fails is
// retried after the configured back-off; at its MaxDeliver-th delivery the
// failure is published as the campaign's dead letter.
type Worker struct {
	Conn        *nats.Conn // from Dial
	Config      NATSConfig
	Name        string // reported with each result; "" = "worker"
	Concurrency int    // jobs at once; 0 = GOMAXPROCS
	// DrainTimeout bounds how long Serve waits, once stopped, for the jobs
	// that are running; those still running then are abandoned to other
	// workers. 0 waits as long as they take.
	DrainTimeout time.Duration
	// Exec runs a job; nil means Execute.
	Exec func(context.Context, Job) (Result, error)
	// OnResult, if not nil, is called after each job's result is published
	// and the job acknowledged, from the slot that ran it (concurrently).
	OnResult func(Delivery)
	// BeforeAck, if not nil, is called after a job's result is published
	// and before the job is acknowledged. It is a fault-injection seam:
	// tests stop a worker there, where a result exists but its job is
	// still owed, to show the result is counted once.
	BeforeAck func(Job)
	// Log, if not nil, receives notes for people: a job refused for its
	// signature, streams made anew after the server lost them.
	Log io.Writer

	mu   sync.Mutex
	cons jetstream.Consumer
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, format, args...)
	}
}

// consumer returns the workers' consumer.
func (w *Worker) consumer() jetstream.Consumer {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cons
}

// remake makes the streams and the consumer anew when the server says
// they are missing (it was restarted with an empty JetStream store): the
// campaign's coordinator notices the new streams (ErrStreamsLost) and
// publishes its jobs again when it is run again.
func (w *Worker) remake(ctx context.Context, cfg NATSConfig, js jetstream.JetStream, was jetstream.Consumer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cons != was {
		return // another slot did it
	}
	if _, _, err := ensure(ctx, js, cfg); err != nil {
		return
	}
	c, err := js.Consumer(ctx, cfg.jobsStream(), workersConsumer)
	if err != nil {
		return
	}
	w.cons = c
	w.logf("campaign: the NATS server had lost the job queue (%s); made it anew: the coordinators must run their campaigns again (shakedown campaign resume)\n", cfg.jobsStream())
}

// Serve runs jobs until ctx ends, then drains: it stops pulling, lets the
// running jobs finish (see DrainTimeout), publishes their results and
// returns nil. It returns early with an error when the streams cannot be
// set up or the connection is closed.
func (w *Worker) Serve(ctx context.Context) error {
	cfg, err := w.Config.withDefaults()
	if err != nil {
		return err
	}
	js, err := jetstream.New(w.Conn)
	if err != nil {
		return err
	}
	if _, _, err := ensure(ctx, js, cfg); err != nil {
		return err
	}
	cons, err := js.Consumer(ctx, cfg.jobsStream(), workersConsumer)
	if err != nil {
		return fmt.Errorf("campaign: consumer %s: %w", workersConsumer, err)
	}
	w.mu.Lock()
	w.cons = cons
	w.mu.Unlock()
	n := w.Concurrency
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	// Jobs run on their own context: stopping the worker lets them finish.
	jobCtx, abandon := context.WithCancel(context.Background())
	defer abandon()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.slot(ctx, jobCtx, cfg, js); err != nil {
				errs <- err
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		if w.DrainTimeout > 0 {
			t := time.NewTimer(w.DrainTimeout)
			defer t.Stop()
			select {
			case <-done:
			case <-t.C:
				abandon()
				<-done
			}
		} else {
			<-done
		}
	}
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// slot pulls and runs one job at a time until ctx ends.
func (w *Worker) slot(ctx, jobCtx context.Context, cfg NATSConfig, js jetstream.JetStream) error {
	for ctx.Err() == nil {
		if w.Conn.IsClosed() {
			return ErrClosed
		}
		cons := w.consumer()
		msg, err := cons.Next(jetstream.FetchMaxWait(cfg.FetchWait))
		if err != nil {
			if errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) {
				continue
			}
			if w.Conn.IsClosed() {
				return ErrClosed
			}
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrStreamNotFound) {
				w.remake(ctx, cfg, js, cons)
			}
			// Disconnected or the consumer is being recreated: wait a
			// little before pulling again.
			t := time.NewTimer(cfg.FetchWait)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
			continue
		}
		if ctx.Err() != nil {
			_ = msg.Nak() // stopping: someone else takes it now
			return nil
		}
		w.handle(jobCtx, cfg, js, msg)
	}
	return nil
}

// handle runs one delivered job.
func (w *Worker) handle(ctx context.Context, cfg NATSConfig, js jetstream.JetStream, msg jetstream.Msg) {
	attempt := 1
	if md, err := msg.Metadata(); err == nil {
		attempt = int(md.NumDelivered)
	}
	c := ID(strings.TrimPrefix(msg.Subject(), cfg.Prefix+".jobs."))
	name := w.Name
	if name == "" {
		name = "worker"
	}
	if err := cfg.Key.verify(msg.Subject(), msg.Headers(), msg.Data()); err != nil {
		// Planted by someone without the key, or published by a
		// coordinator that was not given it: not run, never redelivered.
		w.logf("campaign: refusing a job on %s: %v (the coordinator and this worker must share the campaign key)\n", msg.Subject(), err)
		_ = msg.TermWithReason(err.Error())
		return
	}
	if !cfg.Key.Set() && msg.Headers().Get(hdrSignature) != "" {
		// A signed campaign: a worker without its key would answer with
		// results the coordinator rejects. Leave the job to workers that
		// have the key.
		w.logf("campaign: job on %s is signed with a campaign key this worker was not given (--nats-key); leaving it to others\n", msg.Subject())
		_ = msg.NakWithDelay(cfg.backOff(attempt))
		return
	}
	j, err := DecodeJob(msg.Data())
	if err != nil || !c.Valid() {
		// A job this worker cannot read: if it names its id, the campaign
		// gets a dead letter saying why; otherwise it is dropped.
		var probe struct {
			ID ID `json:"id"`
		}
		_ = json.Unmarshal(msg.Data(), &probe)
		if err == nil {
			err = fmt.Errorf("subject %q does not name a campaign", msg.Subject())
		}
		if c.Valid() && probe.ID.Valid() {
			pctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if publishResult(pctx, js, cfg, c, Result{Job: probe.ID, Error: err.Error()}, kindDead, name, attempt, 0) == nil {
				_ = msg.DoubleAck(pctx)
				return
			}
		}
		_ = msg.TermWithReason(err.Error())
		return
	}

	// Tell the server the job is alive while it runs.
	stop := make(chan struct{})
	var beat sync.WaitGroup
	beat.Add(1)
	go func() {
		defer beat.Done()
		t := time.NewTicker(cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	exec := w.Exec
	if exec == nil {
		exec = Execute
	}
	t0 := time.Now()
	res, err := exec(ctx, j)
	elapsed := time.Since(t0)
	close(stop)
	beat.Wait()
	if err != nil {
		_ = msg.Nak() // abandoned while draining: another worker runs it
		return
	}
	kind := kindOK
	if !res.OK() {
		if attempt < cfg.MaxDeliver {
			_ = msg.NakWithDelay(cfg.backOff(attempt))
			return
		}
		kind = kindDead
	}
	pctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := publishResult(pctx, js, cfg, c, res, kind, name, attempt, elapsed); err != nil {
		_ = msg.Nak() // not stored: run it again
		return
	}
	if w.BeforeAck != nil {
		w.BeforeAck(j)
	}
	// A lost ack only means the job runs again; its result is a duplicate
	// that the results store ignores.
	_ = msg.DoubleAck(pctx)
	if w.OnResult != nil {
		w.OnResult(Delivery{Result: res, Worker: name, Attempt: attempt, Elapsed: elapsed})
	}
}
