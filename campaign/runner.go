package campaign

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/run"
)

// Executor runs jobs. Execute runs the jobs of campaign c (their ids are
// distinct) and calls put once per job with its result, never
// concurrently. It returns nil when every job has been put, put's error
// when put fails, and ctx's error when ctx ends first.
type Executor interface {
	Execute(ctx context.Context, c ID, jobs []Job, put func(Delivery) error) error
}

// Campaign is a named list of jobs. Its ID is derived from the jobs (see
// CampaignID), so building the same jobs again names the same campaign.
type Campaign struct {
	ID      ID
	Name    string    // for people: the command that made it
	Created time.Time // when it was first run
}

// CampaignID is the id of the campaign of jobs, in order.
func CampaignID(jobs []Job) ID {
	var b strings.Builder
	b.WriteString("shakedown campaign v1\n")
	for _, j := range jobs {
		b.WriteString(string(j.ID))
		b.WriteByte('\n')
	}
	return hashID([]byte(b.String()))
}

// Store records campaigns and results; package store implements it.
// AddCampaign and Put are idempotent: a campaign added twice, or a result
// put twice for one job, is recorded once. Results returns the successful
// results recorded for any of ids.
type Store interface {
	AddCampaign(ctx context.Context, c Campaign, jobs []Job) error
	Results(ctx context.Context, ids []ID) (map[ID]Result, error)
	Put(ctx context.Context, c ID, d Delivery) error
}

// Runner runs campaigns on an executor and records them in a store.
type Runner struct {
	Exec  Executor // nil: &Local{}
	Store Store    // nil: results are not recorded, nothing is skipped
	// Progress, if not nil, is called with the number of jobs done (those
	// found in the store first, then one more per result) and the total.
	// It is never called concurrently.
	Progress func(done, total int)
	// Now stamps new campaigns; nil means time.Now.
	Now func() time.Time
	// Engine is the engine of the jobs Batch builds (EngineEmbedded,
	// EngineMAVLink, EngineAerialist); "" = EngineEmbedded. The executor
	// must have it.
	Engine string
}

// Run runs the campaign of jobs: it records the campaign and its jobs in
// the store, takes the jobs that already have a successful result from it,
// runs the others (each distinct job once), records each result as it
// arrives, and returns the results in job order. A job that failed has a
// Result with Error set; the error returned is about the campaign itself
// (the executor, the store, ctx). c.ID is filled in when empty.
func (r *Runner) Run(ctx context.Context, c Campaign, jobs []Job) ([]Result, error) {
	if c.ID == "" {
		c.ID = CampaignID(jobs)
	}
	if c.Created.IsZero() {
		now := time.Now
		if r.Now != nil {
			now = r.Now
		}
		c.Created = now()
	}
	slots := map[ID]int{}
	var unique []Job
	for _, j := range jobs {
		if slots[j.ID] == 0 {
			unique = append(unique, j)
		}
		slots[j.ID]++
	}
	got := make(map[ID]Result, len(unique))
	done := 0
	if r.Store != nil {
		if err := r.Store.AddCampaign(ctx, c, jobs); err != nil {
			return nil, err
		}
		ids := make([]ID, len(unique))
		for i, j := range unique {
			ids[i] = j.ID
		}
		have, err := r.Store.Results(ctx, ids)
		if err != nil {
			return nil, err
		}
		for id, res := range have {
			if _, ok := slots[id]; ok && res.OK() {
				got[id] = res
				done += slots[id]
			}
		}
	}
	var todo []Job
	for _, j := range unique {
		if _, ok := got[j.ID]; !ok {
			todo = append(todo, j)
		}
	}
	if r.Progress != nil {
		r.Progress(done, len(jobs))
	}
	if len(todo) > 0 {
		ex := r.Exec
		if ex == nil {
			ex = &Local{}
		}
		put := func(d Delivery) error {
			n, ok := slots[d.Job]
			if !ok {
				return fmt.Errorf("campaign: executor returned a result for job %s, which is not in campaign %s", d.Job, c.ID)
			}
			if _, dup := got[d.Job]; dup {
				return nil
			}
			if r.Store != nil {
				if err := r.Store.Put(ctx, c.ID, d); err != nil {
					return err
				}
			}
			got[d.Job] = d.Result
			done += n
			if r.Progress != nil {
				r.Progress(done, len(jobs))
			}
			return nil
		}
		if err := ex.Execute(ctx, c.ID, todo, put); err != nil {
			return nil, err
		}
	}
	out := make([]Result, len(jobs))
	for i, j := range jobs {
		res, ok := got[j.ID]
		if !ok {
			return nil, fmt.Errorf("campaign: executor finished without a result for job %d (%s)", i, j.ID)
		}
		out[i] = res
	}
	return out, nil
}

// Batch flies jobs through the runner with run.Batch's contract: the
// results in job order, Trace kept only when keepTrace, onDone (if not
// nil) called with the number of jobs done, never concurrently; a job that
// failed makes the whole batch fail, naming the first such job in order.
// name labels the campaign in the store. Job k is run index 0 of its
// case study and seed; use Run with NewJob to set run indexes.
func (r *Runner) Batch(ctx context.Context, name string, jobs []run.Job, keepTrace bool, onDone func(done int)) ([]*run.Result, error) {
	cj := make([]Job, len(jobs))
	for i, j := range jobs {
		var err error
		if cj[i], err = NewJob(j.Case, j.Opt, 0, keepTrace); err != nil {
			return nil, fmt.Errorf("job %d (%s): %w", i, j.Case.Name, err)
		}
		if r.Engine != "" && r.Engine != EngineEmbedded {
			if cj[i], err = cj[i].WithEngine(r.Engine); err != nil {
				return nil, fmt.Errorf("job %d (%s): %w", i, j.Case.Name, err)
			}
		}
	}
	rr := *r
	if onDone != nil {
		rr.Progress = func(done, _ int) { onDone(done) }
	}
	res, err := rr.Run(ctx, Campaign{Name: name}, cj)
	if err != nil {
		return nil, err
	}
	out := make([]*run.Result, len(res))
	for i, x := range res {
		if !x.OK() {
			return nil, fmt.Errorf("job %d (%s): %s", i, jobs[i].Case.Name, x.Error)
		}
		out[i] = x.RunResult(cj[i])
	}
	return out, nil
}

// FirstFailure returns the index and error of the first failed result in
// order, or -1 and nil.
func FirstFailure(rs []Result) (int, error) {
	for i, r := range rs {
		if err := r.Err(); err != nil {
			return i, err
		}
	}
	return -1, nil
}
