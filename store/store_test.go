package store_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/campaign/campaigntest"
	"github.com/shakedown-robotics/shakedown/store"
)

const envChild = "SHAKEDOWN_TEST_STORE_CHILD"

func TestMain(m *testing.M) {
	if db := os.Getenv(envChild); db != "" {
		os.Exit(child(db))
	}
	os.Exit(m.Run())
}

// crashJobs are the jobs of the crash test: whole flights, so that the
// campaign takes long enough to be killed in the middle.
func crashJobs() ([]campaign.Job, error) { return campaigntest.Jobs(80, 3, 0) }

// child runs the crash test's campaign into db, printing the number of
// jobs done after each, until it is killed.
func child(path string) int {
	jobs, err := crashJobs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r := campaign.Runner{Exec: &campaign.Local{Workers: 2}, Store: db, Progress: func(done, _ int) { fmt.Println(done) }}
	if _, err := r.Run(context.Background(), campaign.Campaign{Name: "crash"}, jobs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

func open(t testing.TB, path string, opt store.Options) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func jobs(t testing.TB, n int) []campaign.Job {
	t.Helper()
	j, err := campaigntest.Jobs(n, 5, 20)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func enc(t testing.TB, r campaign.Result) []byte {
	t.Helper()
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var fixed = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// What a campaign puts in comes out the same, through a read-only open
// too; a second run of the campaign finds everything done.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	db := open(t, path, store.Options{Now: func() time.Time { return fixed }})
	js := jobs(t, 12)
	js[0].KeepTrace = true // a different job: its id must follow
	js[0], _ = campaign.NewJob(js[0].CaseStudy(), js[0].Options(), 0, true)
	r := campaign.Runner{Exec: &campaign.Local{}, Store: db}
	c := campaign.Campaign{Name: "round trip", Created: fixed}
	want, err := r.Run(context.Background(), c, js)
	if err != nil {
		t.Fatal(err)
	}
	id := campaign.CampaignID(js)

	ro := open(t, path, store.Options{ReadOnly: true})
	got, err := ro.Results(context.Background(), []campaign.ID{js[0].ID, js[5].ID, "ffffffffffffffffffffffffffffffff"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !bytes.Equal(enc(t, got[js[0].ID]), enc(t, want[0])) || !bytes.Equal(enc(t, got[js[5].ID]), enc(t, want[5])) {
		t.Errorf("Results: %d results, or they differ from what was put", len(got))
	}
	if len(got[js[0].ID].Trace) == 0 {
		t.Error("the kept trace was not stored")
	}
	sum, err := ro.Summary(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range sum.Verdicts {
		n += v
	}
	if sum.Name != "round trip" || !sum.Created.Equal(fixed) || sum.Jobs != 12 || sum.Done != 12 || n != 12 || sum.Pending != 0 ||
		len(sum.Missions) != 1 || sum.Missions[0].Mission != "canonical" || sum.MinDistanceM == nil {
		t.Errorf("summary %+v", sum)
	}
	var rows []store.Row
	if err := ro.Rows(context.Background(), id, store.Filter{Trajectories: true}, func(r store.Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r.Index != i || r.Job.ID != js[i].ID || r.Status != "ok" || r.Worker != "local" || r.Attempt != 1 || !bytes.Equal(enc(t, *r.Result), enc(t, want[i])) {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	below := *sum.MinDistanceM + 1e-9
	k := 0
	_ = ro.Rows(context.Background(), id, store.Filter{BelowM: &below, Mission: "canonical"}, func(store.Row) error { k++; return nil })
	if k < 1 {
		t.Errorf("filter below the least distance kept %d rows; want at least 1", k)
	}
	c2, js2, err := ro.Campaign(context.Background(), id)
	if err != nil || c2.ID != id || len(js2) != len(js) || js2[3].ID != js[3].ID {
		t.Errorf("Campaign: %+v, %d jobs, %v", c2, len(js2), err)
	}
	if got, err := ro.Resolve(context.Background(), string(id[:6])); err != nil || got != id {
		t.Errorf("Resolve(prefix) = %s, %v", got, err)
	}
	if got, err := ro.Resolve(context.Background(), ""); err != nil || got != id {
		t.Errorf("Resolve(\"\") = %s, %v", got, err)
	}
	if _, err := ro.Resolve(context.Background(), "beef00"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Resolve(unknown) = %v; want ErrNotFound", err)
	}

	// Run again: nothing is executed.
	ex := &countExec{}
	r2 := campaign.Runner{Exec: ex, Store: db}
	again, err := r2.Run(context.Background(), c, js)
	if err != nil {
		t.Fatal(err)
	}
	if ex.n != 0 {
		t.Errorf("re-run executed %d jobs; want 0", ex.n)
	}
	for i := range again {
		if !bytes.Equal(enc(t, again[i]), enc(t, want[i])) {
			t.Errorf("re-run: result %d differs", i)
		}
	}
}

type countExec struct{ n int }

func (c *countExec) Execute(ctx context.Context, id campaign.ID, jobs []campaign.Job, put func(campaign.Delivery) error) error {
	c.n += len(jobs)
	return (&campaign.Local{}).Execute(ctx, id, jobs, put)
}

// A result put twice is stored once; a failure does not replace a result,
// and a result replaces a failure.
func TestPutIdempotent(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "runs.db"), store.Options{})
	js := jobs(t, 2)
	c := campaign.Campaign{ID: campaign.CampaignID(js), Name: "put", Created: fixed}
	if err := db.AddCampaign(context.Background(), c, js); err != nil {
		t.Fatal(err)
	}
	if err := db.AddCampaign(context.Background(), c, js); err != nil {
		t.Fatal(err)
	}
	ok, err := campaign.Execute(context.Background(), js[0])
	if err != nil {
		t.Fatal(err)
	}
	failed := campaign.Result{Job: js[0].ID, Error: "boom"}
	ctx := context.Background()
	steps := []struct {
		name string
		put  campaign.Result
		want campaign.Result
	}{
		{"failure first", failed, failed},
		{"failure again", campaign.Result{Job: js[0].ID, Error: "other"}, failed},
		{"result replaces failure", ok, ok},
		{"result again", ok, ok},
		{"failure after result", failed, ok},
	}
	for _, s := range steps {
		if err := db.Put(ctx, c.ID, campaign.Delivery{Result: s.put, Worker: "w", Attempt: 1}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var got *campaign.Result
		_ = db.Rows(ctx, c.ID, store.Filter{Trajectories: true}, func(r store.Row) error {
			if r.Job.ID == js[0].ID {
				got = r.Result
			}
			return nil
		})
		if got == nil || !bytes.Equal(enc(t, *got), enc(t, s.want)) {
			t.Errorf("%s: stored %+v; want %+v", s.name, got, s.want)
		}
	}
	counts, err := db.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"campaigns": 1, "jobs": 2, "campaign_jobs": 2, "results": 1, "trajectories": 1}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d rows; want %d", k, counts[k], v)
		}
	}
	sum, _ := db.Summary(ctx, c.ID)
	if sum.Done != 1 || sum.Pending != 1 || sum.Failed != 0 {
		t.Errorf("summary %+v; want 1 done, 1 pending", sum)
	}
	// A result for a job no campaign holds is refused.
	other := jobs(t, 3)[2]
	res, _ := campaign.Execute(ctx, other)
	if err := db.Put(ctx, c.ID, campaign.Delivery{Result: res}); err == nil {
		t.Error("a result for an unknown job was stored")
	}
}

func sum(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Files that are not Shakedown databases are refused with ErrCorrupt and
// left exactly as they were.
func TestOpenBadFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not a database at all\n"), 300), 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.db")
	{
		full := filepath.Join(dir, "full.db")
		db := open(t, full, store.Options{})
		js := jobs(t, 3)
		if _, err := (&campaign.Runner{Store: db}).Run(context.Background(), campaign.Campaign{}, js); err != nil {
			t.Fatal(err)
		}
		db.Close()
		b := sum(t, full)
		if err := os.WriteFile(truncated, append(b[:100:100], bytes.Repeat([]byte{0xa5}, 4000)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	foreign := filepath.Join(dir, "foreign.db")
	newer := filepath.Join(dir, "newer.db")
	for p, stmt := range map[string]string{foreign: "CREATE TABLE notes(x TEXT)", newer: "PRAGMA user_version = 99"} {
		raw, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatal(err)
		}
		raw.Close()
	}
	cases := []struct {
		name string
		path string
		want error
	}{
		{"garbage", garbage, store.ErrCorrupt},
		{"damaged pages", truncated, store.ErrCorrupt},
		{"other application's database", foreign, store.ErrCorrupt},
		{"newer schema", newer, store.ErrNewer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := sum(t, c.path)
			for _, ro := range []bool{false, true} {
				db, err := store.Open(context.Background(), c.path, store.Options{ReadOnly: ro})
				if err == nil {
					// Damage may go unnoticed until the pages are read.
					_, err = db.Campaigns(context.Background())
					db.Close()
				}
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.path) {
					t.Errorf("read-only %v: got %v; want %v naming the file", ro, err, c.want)
				}
			}
			if !bytes.Equal(sum(t, c.path), before) {
				t.Error("the file was changed")
			}
			if st, err := os.Stat(c.path + "-wal"); err == nil && st.Size() > 0 {
				t.Errorf("a WAL file of %d bytes was left beside it", st.Size())
			}
		})
	}
	missing := filepath.Join(dir, "missing.db")
	if _, err := store.Open(context.Background(), missing, store.Options{ReadOnly: true}); err == nil {
		t.Error("read-only open of a missing file succeeded")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("read-only open created the file")
	}
	if _, err := store.Open(context.Background(), dir, store.Options{}); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Errorf("opening a folder: %v", err)
	}
}

// The crash test: a campaign killed (SIGKILL) in the middle
// resumes and completes with no duplicate or missing rows, and its results
// are those of an uninterrupted run.
func TestCrashResume(t *testing.T) {
	js, err := crashJobs()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "runs.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const killAt = 30
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if n, _ := strconv.Atoi(lines.Text()); n >= killAt {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	for lines.Scan() {
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v; want it killed", err)
	}

	db := open(t, path, store.Options{})
	if err := db.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := campaign.CampaignID(js)
	before, err := db.Summary(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("killed with %d of %d jobs stored", before.Done, len(js))
	if before.Done < killAt || before.Done+before.Pending != len(js) {
		t.Errorf("after the kill: %+v", before)
	}
	ex := &countExec{}
	res, err := (&campaign.Runner{Exec: ex, Store: db}).Run(context.Background(), campaign.Campaign{Name: "crash"}, js)
	if err != nil {
		t.Fatal(err)
	}
	if ex.n != before.Pending {
		t.Errorf("resume ran %d jobs; want the %d pending", ex.n, before.Pending)
	}
	counts, err := db.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"jobs", "campaign_jobs", "results", "trajectories"} {
		if counts[table] != len(js) {
			t.Errorf("%s: %d rows; want %d", table, counts[table], len(js))
		}
	}
	if counts["campaigns"] != 1 {
		t.Errorf("%d campaigns; want 1", counts["campaigns"])
	}
	want, err := (&campaign.Runner{}).Run(context.Background(), campaign.Campaign{}, js)
	if err != nil {
		t.Fatal(err)
	}
	for i := range js {
		if !bytes.Equal(enc(t, res[i]), enc(t, want[i])) {
			t.Errorf("job %d: resumed result differs from an uninterrupted run", i)
		}
	}
}

// benchSetup returns a database holding a campaign of n jobs, and n
// results for them: one whole flight's result (with its trajectory
// resampled into 0.5-s bins) under each job id.
func benchSetup(b *testing.B, n int) (*store.DB, campaign.ID, []campaign.Delivery) {
	js, err := campaigntest.Jobs(1, 5, 0) // a whole flight
	if err != nil {
		b.Fatal(err)
	}
	res, err := campaign.Execute(context.Background(), js[0])
	if err != nil {
		b.Fatal(err)
	}
	all := make([]campaign.Job, n)
	ds := make([]campaign.Delivery, n)
	for i := range all {
		j := js[0]
		j.Seed = uint64(i)
		j, err = campaign.NewJob(j.CaseStudy(), j.Options(), 0, false)
		if err != nil {
			b.Fatal(err)
		}
		all[i] = j
		r := res
		r.Job = j.ID
		ds[i] = campaign.Delivery{Result: r, Worker: "bench", Attempt: 1}
	}
	db := open(b, filepath.Join(b.TempDir(), "bench.db"), store.Options{})
	c := campaign.Campaign{ID: campaign.CampaignID(all), Name: "bench"}
	if err := db.AddCampaign(context.Background(), c, all); err != nil {
		b.Fatal(err)
	}
	return db, c.ID, ds
}

// BenchmarkPut stores results with their trajectories, one transaction
// each (what a campaign does as results arrive).
func BenchmarkPut(b *testing.B) {
	db, id, ds := benchSetup(b, 20000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := db.Put(context.Background(), id, ds[i%len(ds)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if i > len(ds) {
		b.Fatalf("%d puts of %d distinct results: later puts were no-ops", i, len(ds))
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "results/s")
	b.ReportMetric(float64(len(ds[0].Trajectory)), "samples/result")
}

// BenchmarkPutBatch stores results 100 to a transaction.
func BenchmarkPutBatch(b *testing.B) {
	db, _, ds := benchSetup(b, 100000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		lo := (i * 100) % len(ds)
		if err := db.PutBatch(context.Background(), ds[lo:lo+100]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if i*100 > len(ds) {
		b.Fatalf("%d puts of %d distinct results: later puts were no-ops", i*100, len(ds))
	}
	b.ReportMetric(float64(i*100)/b.Elapsed().Seconds(), "results/s")
	b.ReportMetric(float64(len(ds[0].Trajectory)), "samples/result")
}

// The reproduction: a database with one page zeroed is refused at
// open, by every command (read-write as `campaign run` opens it, and
// read-only as `status` does), naming the file; it is left as it was.
func TestOpenZeroedPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	db := open(t, path, store.Options{})
	js := jobs(t, 60)
	if _, err := (&campaign.Runner{Store: db}).Run(context.Background(), campaign.Campaign{}, js); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b := sum(t, path)
	const page = 4096
	if len(b) < 6*page {
		t.Fatalf("the database has %d bytes; want a few pages", len(b))
	}
	// The last page: a leaf of the results or jobs table.
	last := len(b)/page - 1
	copy(b[last*page:(last+1)*page], make([]byte, page))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		db, err := store.Open(context.Background(), path, store.Options{ReadOnly: ro})
		if err == nil {
			db.Close()
		}
		if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "integrity check") {
			t.Errorf("read-only %v: got %v; want ErrCorrupt naming the file and the integrity check", ro, err)
		}
	}
	if !bytes.Equal(sum(t, path), b) {
		t.Error("the file was changed")
	}
}
