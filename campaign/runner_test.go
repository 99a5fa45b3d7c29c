package campaign_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/world"
)

// counting wraps an executor and counts the jobs it is given.
type counting struct {
	campaign.Executor
	mu   sync.Mutex
	jobs map[campaign.ID]int
}

func (c *counting) Execute(ctx context.Context, id campaign.ID, jobs []campaign.Job, put func(campaign.Delivery) error) error {
	c.mu.Lock()
	if c.jobs == nil {
		c.jobs = map[campaign.ID]int{}
	}
	for _, j := range jobs {
		c.jobs[j.ID]++
	}
	c.mu.Unlock()
	return c.Executor.Execute(ctx, id, jobs, put)
}

// Runner.Batch returns what run.Batch returns, whatever the number of
// workers, traces included when asked for.
func TestBatchMatchesRunBatch(t *testing.T) {
	cs := mission(t, "mission2")
	var jobs []run.Job
	for i, y := range []float64{15, 20, 25, 30} {
		c := *cs
		c.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: y}}
		jobs = append(jobs, run.Job{Case: &c, Opt: run.Options{Seed: uint64(i), TimeoutS: 40, Wind: campaignWind}})
	}
	for _, keep := range []bool{false, true} {
		want, err := run.Batch(context.Background(), jobs, 2, keep, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 3} {
			var calls []int
			r := campaign.Runner{Exec: &campaign.Local{Workers: workers}}
			got, err := r.Batch(context.Background(), "test", jobs, keep, func(done int) { calls = append(calls, done) })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("keep %v, %d workers: differs from run.Batch (-want +got):\n%s", keep, workers, diff)
			}
			if len(calls) == 0 || calls[len(calls)-1] != len(jobs) {
				t.Errorf("progress calls %v; want them to end at %d", calls, len(jobs))
			}
		}
	}
}

// A job listed twice runs once and its result fills both places.
func TestRunnerDuplicates(t *testing.T) {
	jobs := testJobs(t, 3, 20)
	jobs = append(jobs, jobs[1], jobs[0])
	ex := &counting{Executor: &campaign.Local{}}
	r := campaign.Runner{Exec: ex}
	res, err := r.Run(context.Background(), campaign.Campaign{Name: "dups"}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.jobs) != 3 {
		t.Errorf("executor got %d distinct jobs; want 3", len(ex.jobs))
	}
	for id, n := range ex.jobs {
		if n != 1 {
			t.Errorf("job %s given %d times", id.Short(), n)
		}
	}
	if res[3].Job != jobs[1].ID || string(encode(t, res[4])) != string(encode(t, res[0])) {
		t.Error("duplicate slots do not hold their job's result")
	}
}

// A failed job stops a batch, naming the first such job in order; in a
// campaign it is a result with its error.
func TestRunnerFailure(t *testing.T) {
	cs := mission(t, "mission2")
	bad := *cs
	bad.Params = map[string]float64{"NOT_A_PARAM": 1}
	jobs := []run.Job{{Case: cs, Opt: run.Options{TimeoutS: 10}}, {Case: &bad, Opt: run.Options{TimeoutS: 10}}}
	r := campaign.Runner{}
	_, err := r.Batch(context.Background(), "bad", jobs, false, nil)
	if err == nil || !strings.Contains(err.Error(), "job 1 (mission2)") || !strings.Contains(err.Error(), "NOT_A_PARAM") {
		t.Errorf("got %v; want job 1's error", err)
	}
	cj := []campaign.Job{newJob(t, cs, jobs[0].Opt, 0), newJob(t, &bad, jobs[1].Opt, 0)}
	res, err := r.Run(context.Background(), campaign.Campaign{}, cj)
	if err != nil {
		t.Fatal(err)
	}
	if i, err := campaign.FirstFailure(res); i != 1 || !errors.Is(err, campaign.ErrJobFailed) {
		t.Errorf("FirstFailure: %d %v; want 1, ErrJobFailed", i, err)
	}
}

// A cancelled context stops the local pool with the context's error.
func TestLocalCancel(t *testing.T) {
	jobs := testJobs(t, 50, 0)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := (&campaign.Local{Workers: 2}).Execute(ctx, campaign.CampaignID(jobs), jobs, func(campaign.Delivery) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v after %d results; want context.Canceled", err, n)
	}
	stop := errors.New("stop")
	err = (&campaign.Local{Workers: 2}).Execute(context.Background(), campaign.CampaignID(jobs), jobs, func(campaign.Delivery) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("put failing: got %v; want its error", err)
	}
}
