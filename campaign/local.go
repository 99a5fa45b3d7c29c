package campaign

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Local runs jobs on a pool of goroutines in this process, one simulation
// per core by default.
type Local struct {
	Workers int              // simulations at once; 0 = GOMAXPROCS
	Name    string           // the worker name in deliveries; "" = "local"
	Now     func() time.Time // measures Elapsed; nil = time.Now
	// Engines fly the jobs, by the engine each names; nil = the embedded
	// simulator only.
	Engines Engines
}

var _ Executor = (*Local)(nil)

// Execute implements Executor. A failed job is a result like any other;
// it is not retried, since a flight on the embedded simulator fails the
// same way every time.
func (l *Local) Execute(ctx context.Context, _ ID, jobs []Job, put func(Delivery) error) error {
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, len(jobs)))
	name := l.Name
	if name == "" {
		name = "local"
	}
	now := l.Now
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan Job)
	out := make(chan Delivery)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				t0 := now()
				res, err := l.Engines.Execute(ctx, j)
				if err != nil {
					return // ctx ended
				}
				select {
				case out <- Delivery{Result: res, Worker: name, Attempt: 1, Elapsed: now().Sub(t0)}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	var err error
	n := 0
	for d := range out {
		if err != nil {
			continue // draining after a failed put
		}
		if err = put(d); err != nil {
			cancel()
			continue
		}
		n++
	}
	if err != nil {
		return err
	}
	if n < len(jobs) {
		return ctx.Err()
	}
	return nil
}
