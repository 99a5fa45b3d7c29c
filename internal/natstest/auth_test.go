package natstest_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/internal/natstest"
)

func key(t testing.TB, secret string) campaign.Key {
	t.Helper()
	k, err := campaign.NewKey([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// workerLog records the workers whose results were stored.
type workerLog struct {
	mu      sync.Mutex
	workers map[string]int
}

func (w *workerLog) AddCampaign(context.Context, campaign.Campaign, []campaign.Job) error {
	return nil
}
func (w *workerLog) Results(context.Context, []campaign.ID) (map[campaign.ID]campaign.Result, error) {
	return nil, nil
}
func (w *workerLog) Put(_ context.Context, _ campaign.ID, d campaign.Delivery) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.workers[d.Worker]++
	return nil
}

// forge publishes, for every job, a result with another verdict and
// clearance, as a process that can reach the server but has no campaign
// key would (unsigned, or signed with a key of its own).
func forge(t testing.TB, nc *nats.Conn, c campaign.ID, jobs []campaign.Job, want map[campaign.ID][]byte, k campaign.Key) {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		r, err := campaign.DecodeResult(want[j.ID])
		if err != nil {
			t.Fatal(err)
		}
		cl := 99.0
		r.Run.MinClearanceM = &cl
		r.Run.Verdict = "pass"
		m := nats.NewMsg("shakedown.results." + string(c) + ".ok")
		m.Data = encode(t, r)
		m.Header.Set("Shakedown-Job", string(j.ID))
		m.Header.Set("Shakedown-Worker", "forger")
		m.Header.Set("Shakedown-Attempt", "1")
		if k.Set() {
			// A signature under another key: the right form, the wrong
			// secret.
			m.Header.Set("Shakedown-Signature", "hmac-sha256=00")
		}
		if _, err := js.PublishMsg(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
}

// The forged-result test: a process without the campaign's key
// publishes a result for every job of the campaign, before the
// coordinator starts and while it runs; none is stored, every rejection is
// counted, and the campaign completes with results byte-equal to a local
// run's.
func TestNATSForgedResults(t *testing.T) {
	jobs := testJobs(t, 10, 20)
	want := local(t, jobs)
	s := natstest.Start(t)
	cfg := testConfig()
	cfg.Key = key(t, "the campaign's shared secret")
	c := campaign.CampaignID(jobs)
	if err := campaign.Setup(context.Background(), dial(t, s), cfg); err != nil {
		t.Fatal(err)
	}
	forger := dial(t, s)
	forge(t, forger, c, jobs, want, campaign.Key{})                    // waiting in the stream
	forge(t, forger, c, jobs, want, key(t, "another, guessed secret")) // signed with the wrong key

	var log bytes.Buffer
	ex := &campaign.NATS{Conn: dial(t, s), Config: cfg, Log: &log}
	st := &workerLog{workers: map[string]int{}}
	r := campaign.Runner{Exec: ex, Store: st, Progress: func(done, _ int) {
		if done == 1 {
			forge(t, forger, c, jobs, want, campaign.Key{}) // and while it runs (Progress runs on the test goroutine)
		}
	}}
	startWorker(t, s, &campaign.Worker{Config: cfg, Name: "w1", Concurrency: 1})
	got, err := r.Run(timeout(t, time.Minute), campaign.Campaign{ID: c}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range got {
		if !bytes.Equal(encode(t, res), want[jobs[i].ID]) {
			t.Errorf("job %d: the stored result is not the local run's", i)
		}
	}
	if st.workers["forger"] != 0 || st.workers["w1"] != len(jobs) {
		t.Errorf("stored results by worker: %v; want all %d from w1, none from the forger", st.workers, len(jobs))
	}
	if ex.Rejected() < 2*len(jobs) {
		t.Errorf("rejected %d results; want at least the %d planted before the run", ex.Rejected(), 2*len(jobs))
	}
	if !strings.Contains(log.String(), "rejected") || !strings.Contains(log.String(), "forger") {
		t.Errorf("the log does not tell of the rejections:\n%s", log.String())
	}
}

// A job planted on the queue by a process without the key (a copy of a
// real job, so that its id is valid) is not run by a worker that has the
// key; a worker without the key leaves a signed campaign's jobs to those
// that have it.
func TestNATSForgedJob(t *testing.T) {
	jobs := testJobs(t, 1, 5)
	s := natstest.Start(t)
	cfg := testConfig()
	cfg.Key = key(t, "the campaign's shared secret")
	nc := dial(t, s)
	if err := campaign.Setup(context.Background(), nc, cfg); err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	b, err := jobs[0].Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), "shakedown.jobs."+string(campaign.CampaignID(jobs)), b); err != nil {
		t.Fatal(err)
	}
	ran := make(chan campaign.ID, 1)
	log := newNotice("refusing a job")
	w := &campaign.Worker{Config: cfg, Concurrency: 1, Log: log, Exec: func(ctx context.Context, j campaign.Job) (campaign.Result, error) {
		ran <- j.ID
		return campaign.Execute(ctx, j)
	}}
	stop := startWorker(t, s, w)
	log.wait(t)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-ran:
		t.Errorf("the worker ran the planted job %s", id)
	default:
	}
	st, err := js.Stream(context.Background(), "SHAKEDOWN_JOBS")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := st.Info(context.Background()); err != nil || info.State.Msgs != 0 {
		t.Errorf("the planted job is still queued (%v)", err)
	}
}

// notice is a log that tells when a line holding want was written.
type notice struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func newNotice(want string) *notice { return &notice{want: want, seen: make(chan struct{})} }

func (n *notice) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.buf.Write(p)
	if strings.Contains(n.buf.String(), n.want) {
		n.once.Do(func() { close(n.seen) })
	}
	return len(p), nil
}

// wait waits for the notice (at most 30 s, a bound for a broken test, not
// a pace).
func (n *notice) wait(t testing.TB) {
	t.Helper()
	select {
	case <-n.seen:
	case <-time.After(30 * time.Second):
		n.mu.Lock()
		defer n.mu.Unlock()
		t.Fatalf("no %q in 30 s; the log:\n%s", n.want, n.buf.String())
	}
}

// A campaign whose server lost its JetStream store (restarted on an empty
// folder) ends with ErrStreamsLost rather than waiting forever, also when a
// worker has made the streams anew meanwhile; running it again completes.
func TestNATSStreamsLost(t *testing.T) {
	jobs := testJobs(t, 6, 20)
	want := local(t, jobs)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s, err := natstest.New(t.TempDir(), port)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	current := s
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		natstest.Stop(current)
	})
	cfg := testConfig()
	cfg.CheckEvery = 50 * time.Millisecond
	// No worker yet: once the coordinator says its jobs wait in the
	// queue, the server restarts on an empty folder, losing them.
	queued := newNotice("no worker is pulling yet")
	restarted := make(chan error, 1)
	r := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: cfg, Log: queued}}
	go func() {
		<-queued.seen
		mu.Lock()
		defer mu.Unlock()
		natstest.Stop(current)
		next, err := natstest.New(t.TempDir(), port)
		if err == nil {
			current = next
		}
		restarted <- err
	}()
	_, err = r.Run(timeout(t, time.Minute), campaign.Campaign{}, jobs)
	if !errors.Is(err, campaign.ErrStreamsLost) || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("got %v; want ErrStreamsLost telling to resume", err)
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	s = current
	mu.Unlock()
	startWorker(t, s, &campaign.Worker{Config: cfg, Concurrency: 2})
	got, err := r.Run(timeout(t, time.Minute), campaign.Campaign{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range got {
		if !bytes.Equal(encode(t, x), want[jobs[i].ID]) {
			t.Errorf("job %d differs from the local result", i)
		}
	}
}

// Streams deleted and made anew under a waiting coordinator (as a worker
// does when it finds the server lost them) are noticed too: the new,
// empty streams do not hold the campaign's jobs.
func TestNATSStreamsRecreated(t *testing.T) {
	jobs := testJobs(t, 3, 20)
	s := natstest.Start(t)
	cfg := testConfig()
	cfg.CheckEvery = time.Second
	nc := dial(t, s)
	js, _ := jetstream.New(nc)
	done := make(chan error, 1)
	queued := newNotice("no worker is pulling yet")
	ex := &campaign.NATS{Conn: dial(t, s), Config: cfg, Log: queued}
	go func() {
		_, err := (&campaign.Runner{Exec: ex}).Run(timeout(t, time.Minute), campaign.Campaign{}, jobs)
		done <- err
	}()
	queued.wait(t)
	for _, name := range []string{"SHAKEDOWN_JOBS", "SHAKEDOWN_RESULTS"} {
		if err := js.DeleteStream(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	if err := campaign.Setup(context.Background(), nc, cfg); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, campaign.ErrStreamsLost) {
		t.Fatalf("got %v; want ErrStreamsLost", err)
	}
}
