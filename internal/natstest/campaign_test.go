// These tests run campaigns through an in-process NATS server. They live
// here rather than in package campaign so that campaign's own test binary,
// which fuzzes its decoders, does not link the server and SQLite.
package natstest_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/campaign/campaigntest"
	"github.com/shakedown-robotics/shakedown/internal/natstest"
	"github.com/shakedown-robotics/shakedown/store"
)

// Environment of a worker run in a child process by TestMain.
const (
	envWorkerURL  = "SHAKEDOWN_TEST_WORKER_URL"
	envWorkerKill = "SHAKEDOWN_TEST_WORKER_KILL_AFTER"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorkerURL); url != "" {
		os.Exit(childWorker(url))
	}
	os.Exit(m.Run())
}

func testJobs(t testing.TB, n int, timeoutS float64) []campaign.Job {
	t.Helper()
	jobs, err := campaigntest.Jobs(n, 7, timeoutS)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func encode(t testing.TB, r campaign.Result) []byte {
	t.Helper()
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testConfig makes redelivery and retries quick.
func testConfig() campaign.NATSConfig {
	return campaign.NATSConfig{AckWait: time.Second, MaxDeliver: 4, BackOff: []time.Duration{10 * time.Millisecond}, FetchWait: 100 * time.Millisecond}
}

// childWorker serves jobs until it has published killAfter results, and
// then kills itself with SIGKILL between publishing a result and
// acknowledging its job: the worst moment for a worker to die.
func childWorker(url string) int {
	killAfter, _ := strconv.Atoi(os.Getenv(envWorkerKill))
	nc, err := campaign.Dial(context.Background(), url, "child")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var n atomic.Int64
	w := &campaign.Worker{Conn: nc, Config: testConfig(), Name: "child", Concurrency: 1}
	w.BeforeAck = func(j campaign.Job) {
		fmt.Printf("published %s\n", j.ID)
		if killAfter > 0 && n.Add(1) == int64(killAfter) {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
	fmt.Println("ready")
	if err := w.Serve(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

func dial(t testing.TB, s *server.Server) *nats.Conn {
	t.Helper()
	nc, err := campaign.Dial(context.Background(), s.ClientURL(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// startWorker serves jobs in this process until the returned stop is
// called (or the test ends); stop returns Serve's error.
func startWorker(t testing.TB, s *server.Server, w *campaign.Worker) (stop func() error) {
	t.Helper()
	if w.Conn == nil {
		w.Conn = dial(t, s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Serve(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				err = errors.New("worker did not stop within 30 s")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// local runs jobs on the local pool and returns their encoded results.
func local(t testing.TB, jobs []campaign.Job) map[campaign.ID][]byte {
	t.Helper()
	res, err := (&campaign.Runner{Exec: &campaign.Local{}}).Run(context.Background(), campaign.Campaign{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[campaign.ID][]byte, len(res))
	for _, r := range res {
		out[r.Job] = encode(t, r)
	}
	return out
}

func timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Two workers on loopback produce, byte for byte, the results of the local
// executor; once the campaign is complete nothing of it is left on the
// server.
func TestNATSMatchesLocal(t *testing.T) {
	jobs := testJobs(t, 40, 20)
	want := local(t, jobs)
	s := natstest.Start(t)
	for _, name := range []string{"w1", "w2"} {
		startWorker(t, s, &campaign.Worker{Config: testConfig(), Name: name, Concurrency: 1})
	}
	var log bytes.Buffer
	r := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig(), Log: &log}}
	c := campaign.Campaign{ID: campaign.CampaignID(jobs), Name: "nats"}
	got, err := r.Run(timeout(t, time.Minute), c, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range got {
		if !bytes.Equal(encode(t, res), want[jobs[i].ID]) {
			t.Errorf("job %d: NATS result differs from the local one", i)
		}
	}
	// The same campaign again, right away: it runs again in full.
	again, err := r.Run(timeout(t, time.Minute), c, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range again {
		if !bytes.Equal(encode(t, res), want[jobs[i].ID]) {
			t.Errorf("second run, job %d: differs from the local result", i)
		}
	}
	js, _ := jetstream.New(dial(t, s))
	for _, name := range []string{"SHAKEDOWN_JOBS", "SHAKEDOWN_RESULTS"} {
		st, err := js.Stream(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs != 0 {
			t.Errorf("%s holds %d messages after the campaign", name, info.State.Msgs)
		}
	}
}

// The test: 500 jobs, two workers, one killed (SIGKILL, in a child
// process) right after publishing a result and before acknowledging its
// job. Every job ends with exactly one result in the store, none lost, none
// doubled, and the results equal the local executor's byte for byte. With
// SHAKEDOWN_LONG=1 the flights are whole (500 s of simulated time at most)
// rather than cut at 20 s.
func TestNATSWorkerKilled(t *testing.T) {
	n, timeoutS, killAfter := 500, 20.0, 100
	if os.Getenv("SHAKEDOWN_LONG") != "" {
		timeoutS = 0
	}
	jobs := testJobs(t, n, timeoutS)
	want := local(t, jobs)
	s := natstest.Start(t)

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envWorkerURL+"="+s.ClientURL(), envWorkerKill+"="+strconv.Itoa(killAfter))
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child worker did not start: %q", lines.Text())
	}
	childDone := make(chan []string, 1)
	go func() {
		var published []string
		for lines.Scan() {
			published = append(published, strings.TrimPrefix(lines.Text(), "published "))
		}
		childDone <- published
	}()

	var mu sync.Mutex
	redelivered := 0
	startWorker(t, s, &campaign.Worker{Config: testConfig(), Name: "survivor", Concurrency: 1, OnResult: func(d campaign.Delivery) {
		mu.Lock()
		defer mu.Unlock()
		if d.Attempt > 1 {
			redelivered++
		}
	}})

	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "runs.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	puts := map[campaign.ID]int{}
	r := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig()}, Store: countingStore{db, puts}}
	c := campaign.Campaign{ID: campaign.CampaignID(jobs), Name: "killed"}
	got, err := r.Run(timeout(t, 5*time.Minute), c, jobs)
	if err != nil {
		t.Fatal(err)
	}

	// The child died by its own SIGKILL, mid-run.
	published := <-childDone
	werr := child.Wait()
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child worker ended with %v after %d results; want it killed after %d", werr, len(published), killAfter)
	}
	if len(published) != killAfter {
		t.Errorf("child published %d results; want %d", len(published), killAfter)
	}
	t.Logf("child published %d results and was killed before acking the last; %d jobs redelivered to the survivor", len(published), redelivered)
	if redelivered == 0 {
		t.Error("no job was redelivered: the kill did not happen mid-job")
	}

	for id, k := range puts {
		if k != 1 {
			t.Errorf("job %s stored %d times", id.Short(), k)
		}
	}
	if len(puts) != n {
		t.Errorf("%d jobs stored; want %d", len(puts), n)
	}
	counts, err := db.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if counts["results"] != n || counts["jobs"] != n || counts["trajectories"] != n || counts["campaign_jobs"] != n {
		t.Errorf("table rows %v; want %d each", counts, n)
	}
	stored, err := db.Results(context.Background(), idsOf(jobs))
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs {
		if !bytes.Equal(encode(t, got[i]), want[j.ID]) {
			t.Errorf("job %d: NATS result differs from the local one", i)
		}
		if !bytes.Equal(encode(t, stored[j.ID]), want[j.ID]) {
			t.Errorf("job %d: stored result differs from the local one", i)
		}
	}
	sum, err := db.Summary(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != n || sum.Pending != 0 || sum.Failed != 0 {
		t.Errorf("summary %+v; want %d done", sum, n)
	}
}

// countingStore counts the results put per job.
type countingStore struct {
	*store.DB
	puts map[campaign.ID]int
}

func (c countingStore) Put(ctx context.Context, id campaign.ID, d campaign.Delivery) error {
	c.puts[d.Job]++
	return c.DB.Put(ctx, id, d)
}

func idsOf(jobs []campaign.Job) []campaign.ID {
	ids := make([]campaign.ID, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

func openStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "runs.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A job that fails on every delivery lands on the dead-letter subject with
// its error after MaxDeliver attempts and is stored as failed; the other
// jobs are not held up.
func TestNATSDeadLetter(t *testing.T) {
	jobs := testJobs(t, 4, 20)
	poison := jobs[2].ID
	cfg := testConfig()
	cfg.MaxDeliver = 3
	s := natstest.Start(t)
	var tries atomic.Int64
	startWorker(t, s, &campaign.Worker{Config: cfg, Name: "w", Concurrency: 2, Exec: func(ctx context.Context, j campaign.Job) (campaign.Result, error) {
		if j.ID == poison {
			tries.Add(1)
			return campaign.Result{Job: j.ID, Error: "engine: simulated failure"}, nil
		}
		return campaign.Execute(ctx, j)
	}})
	nc := dial(t, s)
	c := campaign.Campaign{ID: campaign.CampaignID(jobs), Name: "dead"}
	dead, err := nc.SubscribeSync("shakedown.results." + string(c.ID) + ".dead")
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t)
	r := campaign.Runner{Exec: &campaign.NATS{Conn: nc, Config: cfg}, Store: db}
	res, err := r.Run(timeout(t, time.Minute), c, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range res {
		if ok := jobs[i].ID != poison; x.OK() != ok {
			t.Errorf("job %d: ok %v; want %v (%s)", i, x.OK(), ok, x.Error)
		}
	}
	if res[2].Error != "engine: simulated failure" || tries.Load() != 3 {
		t.Errorf("poison job: error %q after %d tries; want the engine's error after 3", res[2].Error, tries.Load())
	}
	m, err := dead.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatalf("no dead letter: %v", err)
	}
	if dl, err := campaign.DecodeResult(m.Data); err != nil || dl.Job != poison || dl.Error != res[2].Error {
		t.Errorf("dead letter %+v, %v; want job %s with its error", dl, err, poison.Short())
	}
	sum, err := db.Summary(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 3 || sum.Failed != 1 {
		t.Errorf("summary %+v; want 3 done, 1 failed", sum)
	}
	err = db.Rows(context.Background(), c.ID, store.Filter{Status: "failed"}, func(r store.Row) error {
		if r.Job.ID != poison || r.Attempt != 3 || r.Result.Error != res[2].Error {
			t.Errorf("failed row %+v; want job %s, attempt 3", r, poison.Short())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Jobs whose deliveries all go unacknowledged (their workers vanish) are
// given up after MaxDeliver deliveries: the server's advisory makes the
// coordinator write their dead letters.
func TestNATSWorkerLost(t *testing.T) {
	jobs := testJobs(t, 2, 20)
	cfg := testConfig()
	cfg.AckWait, cfg.MaxDeliver = 100*time.Millisecond, 2
	s := natstest.Start(t)
	nc := dial(t, s)
	if err := campaign.Setup(context.Background(), nc, cfg); err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	cons, err := js.Consumer(context.Background(), "SHAKEDOWN_JOBS", "workers")
	if err != nil {
		t.Fatal(err)
	}
	// A rogue worker takes jobs and never answers.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var taken atomic.Int64
	go func() {
		for ctx.Err() == nil {
			if _, err := cons.Next(jetstream.FetchMaxWait(50 * time.Millisecond)); err == nil {
				taken.Add(1)
			}
		}
	}()
	r := campaign.Runner{Exec: &campaign.NATS{Conn: nc, Config: cfg}}
	res, err := r.Run(timeout(t, time.Minute), campaign.Campaign{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range res {
		if x.OK() || !strings.Contains(x.Error, "no result after 2 deliveries") {
			t.Errorf("job %d: %+v; want a dead letter after 2 deliveries", i, x)
		}
	}
	if taken.Load() < 4 {
		t.Errorf("rogue took %d deliveries; want 2 per job", taken.Load())
	}
}

// A coordinator stopped mid-campaign leaves the workers going; the next
// run of the campaign takes the results they published meanwhile, runs
// the rest, and stores each job once.
func TestNATSCoordinatorRestart(t *testing.T) {
	jobs := testJobs(t, 60, 20)
	want := local(t, jobs)
	s := natstest.Start(t)
	startWorker(t, s, &campaign.Worker{Config: testConfig(), Name: "w", Concurrency: 2})
	db := openStore(t)
	c := campaign.Campaign{ID: campaign.CampaignID(jobs), Name: "restart"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig()}, Store: db,
		Progress: func(done, _ int) {
			if done >= 10 {
				cancel()
			}
		}}
	if _, err := first.Run(ctx, c, jobs); !errors.Is(err, context.Canceled) {
		t.Fatalf("first coordinator: got %v; want context.Canceled", err)
	}
	sum, err := db.Summary(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first coordinator stored %d of %d", sum.Done, len(jobs))
	second := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig()}, Store: db}
	got, err := second.Run(timeout(t, time.Minute), c, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range got {
		if !bytes.Equal(encode(t, x), want[jobs[i].ID]) {
			t.Errorf("job %d differs from the local result", i)
		}
	}
	if counts, _ := db.Counts(context.Background()); counts["results"] != len(jobs) {
		t.Errorf("%d results stored; want %d", counts["results"], len(jobs))
	}
}

// A stopped worker finishes the job it is running and publishes its
// result; with a drain timeout it abandons a job that runs on, and another
// worker takes it.
func TestWorkerDrain(t *testing.T) {
	s := natstest.Start(t)
	jobs := testJobs(t, 2, 20)
	want := local(t, jobs)
	started := make(chan campaign.ID, 2)
	release := make(chan struct{})
	stop := startWorker(t, s, &campaign.Worker{Config: testConfig(), Concurrency: 1, Exec: func(ctx context.Context, j campaign.Job) (campaign.Result, error) {
		started <- j.ID
		<-release
		return campaign.Execute(ctx, j)
	}})
	done := make(chan []campaign.Result, 1)
	go func() {
		r := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig()}}
		res, err := r.Run(timeout(t, time.Minute), campaign.Campaign{}, jobs[:1])
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("drain: %v", err)
	}
	if res := <-done; len(res) != 1 || !bytes.Equal(encode(t, res[0]), want[jobs[0].ID]) {
		t.Error("the draining worker's result did not arrive intact")
	}

	stuck := startWorker(t, s, &campaign.Worker{Config: testConfig(), Concurrency: 1, DrainTimeout: 50 * time.Millisecond,
		Exec: func(ctx context.Context, j campaign.Job) (campaign.Result, error) {
			started <- j.ID
			<-ctx.Done()
			return campaign.Result{}, ctx.Err()
		}})
	go func() {
		r := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig()}}
		res, err := r.Run(timeout(t, time.Minute), campaign.Campaign{}, jobs[1:])
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	if err := stuck(); err != nil {
		t.Fatalf("drain with timeout: %v", err)
	}
	startWorker(t, s, &campaign.Worker{Config: testConfig(), Concurrency: 1})
	if res := <-done; len(res) != 1 || !bytes.Equal(encode(t, res[0]), want[jobs[1].ID]) {
		t.Error("the abandoned job was not run by the other worker")
	}
}

// The server restarts in the middle of a campaign: the coordinator and the
// workers reconnect, the queued jobs and stored results survive on disk,
// and every job still gets its result.
func TestNATSServerRestart(t *testing.T) {
	jobs := testJobs(t, 60, 20)
	want := local(t, jobs)
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s, err := natstest.New(dir, port)
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
	startWorker(t, s, &campaign.Worker{Config: testConfig(), Concurrency: 2})
	restarted := make(chan error, 1)
	var once sync.Once
	r := campaign.Runner{Exec: &campaign.NATS{Conn: dial(t, s), Config: testConfig()}, Progress: func(done, _ int) {
		if done < 10 {
			return
		}
		once.Do(func() {
			go func() {
				mu.Lock()
				defer mu.Unlock()
				natstest.Stop(current)
				next, err := natstest.New(dir, port)
				if err == nil {
					current = next
				}
				restarted <- err
			}()
		})
	}}
	got, err := r.Run(timeout(t, 2*time.Minute), campaign.Campaign{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	for i, x := range got {
		if !bytes.Equal(encode(t, x), want[jobs[i].ID]) {
			t.Errorf("job %d differs from the local result", i)
		}
	}
}

// A server without JetStream is named as such.
func TestDialNoJetStream(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	defer s.Shutdown()
	_, err = campaign.Dial(context.Background(), s.ClientURL(), "test")
	if err == nil || !strings.Contains(err.Error(), "-js") {
		t.Errorf("got %v; want an error telling to start the server with -js", err)
	}
}

// An unreachable server is ErrUnreachable, quickly.
func TestDialUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + l.Addr().String()
	l.Close()
	_, err = campaign.Dial(context.Background(), url, "test")
	if !errors.Is(err, campaign.ErrUnreachable) || !strings.Contains(err.Error(), url) {
		t.Errorf("got %v; want ErrUnreachable naming %s", err, url)
	}
}

// BenchmarkNATSOverhead is the cost of the NATS path per job on loopback:
// 200 jobs a round through the queue to two workers (one slot each) and
// back, with a run that takes no time (it returns a result computed
// beforehand), so that what is measured is publishing the job, pulling it,
// publishing the result, acknowledging and collecting it.
func BenchmarkNATSOverhead(b *testing.B) {
	jobs := testJobs(b, 200, 20)
	pre := map[campaign.ID]campaign.Result{}
	for _, j := range jobs {
		r, err := campaign.Execute(context.Background(), j)
		if err != nil {
			b.Fatal(err)
		}
		pre[j.ID] = r
	}
	instant := func(_ context.Context, j campaign.Job) (campaign.Result, error) { return pre[j.ID], nil }
	s := natstest.Start(b)
	for range 2 {
		startWorker(b, s, &campaign.Worker{Config: testConfig(), Concurrency: 1, Exec: instant})
	}
	ex := &campaign.NATS{Conn: dial(b, s), Config: testConfig()}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		err := ex.Execute(context.Background(), campaign.CampaignID(jobs), jobs, func(campaign.Delivery) error { n++; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(n)*1e6, "µs/job")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkNATSFlights runs BenchmarkLocal's 40 whole flights through the
// queue to two workers (one slot each) on the same machine: the local
// executor's jobs/s minus this one's is what the NATS path costs.
func BenchmarkNATSFlights(b *testing.B) {
	jobs := testJobs(b, 40, 0)
	s := natstest.Start(b)
	for range 2 {
		startWorker(b, s, &campaign.Worker{Config: testConfig(), Concurrency: 1})
	}
	ex := &campaign.NATS{Conn: dial(b, s), Config: testConfig()}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		err := ex.Execute(context.Background(), campaign.CampaignID(jobs), jobs, func(campaign.Delivery) error { n++; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "jobs/s")
}
