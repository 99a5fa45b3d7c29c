package run

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/shakedown-robotics/shakedown/scenario"
)

// Job is one flight of a batch.
type Job struct {
	Case *scenario.CaseStudy
	Opt  Options
}

// Batch flies jobs on workers goroutines (0 = one per core) and returns the
// results in job order, so the output does not depend on the number of
// workers. Traces are dropped unless keepTrace. onDone, if not nil, is
// called once per finished job, never concurrently. The first error stops
// the batch.
func Batch(ctx context.Context, jobs []Job, workers int, keepTrace bool, onDone func(done int)) ([]*Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, len(jobs)))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*Result, len(jobs))
	next := make(chan int)
	var (
		mu    sync.Mutex
		done  int
		first error
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, _, err := FlySim(ctx, jobs[i].Case, jobs[i].Opt)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = fmt.Errorf("job %d (%s): %w", i, jobs[i].Case.Name, err)
						cancel()
					}
					mu.Unlock()
					continue
				}
				if !keepTrace {
					r.Trace = nil
				}
				results[i] = r
				done++
				if onDone != nil {
					onDone(done)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}
