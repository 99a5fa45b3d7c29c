package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/internal/natstest"
	"github.com/shakedown-robotics/shakedown/store"
)

// helper starts the CLI in a child process (the test binary as the CLI,
// see TestMain), for the tests that need to kill or signal it; its stderr
// is returned as a stream.
func helper(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envAsCLI+"=1")
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, bufio.NewReader(errPipe)
}

// inProcessWorker serves jobs from s until the returned stop is called or
// the test ends.
func inProcessWorker(t *testing.T, s *server.Server) (stop func()) {
	t.Helper()
	nc, err := campaign.Dial(context.Background(), s.ClientURL(), "test worker")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		w := &campaign.Worker{Conn: nc, Name: "test", Concurrency: 2, Config: campaign.NATSConfig{FetchWait: 200 * time.Millisecond}}
		done <- w.Serve(ctx)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		nc.Close()
	}
	t.Cleanup(stop)
	return stop
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dataset writes the same file whatever the executor; with --db a second
// run flies nothing, so it completes with no worker at all.
func TestDatasetExecutors(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Start(t)
	common := []string{"dataset", "canonical", "--n", "12", "--seed", "4", "--timeout", "40"}
	local := filepath.Join(dir, "local.csv")
	if code, _, e := sh(t, append(common, "--out", local)...); code != 0 {
		t.Fatalf("local: exit %d: %s", code, e)
	}
	stop := inProcessWorker(t, s)
	viaNATS := filepath.Join(dir, "nats.csv")
	db := filepath.Join(dir, "runs.db")
	if code, _, e := sh(t, append(common, "--out", viaNATS, "--executor", "nats", "--nats", s.ClientURL(), "--db", db)...); code != 0 {
		t.Fatalf("nats: exit %d: %s", code, e)
	}
	if !bytes.Equal(read(t, local), read(t, viaNATS)) {
		t.Error("the NATS executor wrote another dataset than the local one")
	}
	stop()
	// No worker now: every job must come from the database.
	again := filepath.Join(dir, "again.csv")
	if code, _, e := sh(t, append(common, "--out", again, "--executor", "nats", "--nats", s.ClientURL(), "--db", filepath.Join(dir, "runs.db"))...); code != 0 {
		t.Fatalf("re-run from the database: exit %d: %s", code, e)
	}
	if !bytes.Equal(read(t, local), read(t, again)) {
		t.Error("the re-run from the database wrote another dataset")
	}
	code, out, e := sh(t, "campaign", "status", "--db", filepath.Join(dir, "runs.db"))
	if code != 0 || !strings.Contains(out, "12 jobs, 12 done") || !strings.Contains(out, "dataset canonical --n 12") {
		t.Errorf("status: exit %d\n%s%s", code, out, e)
	}
}

// score prints the same tables whatever the executor.
func TestScoreExecutors(t *testing.T) {
	s := natstest.Start(t)
	inProcessWorker(t, s)
	args := []string{"score", "--rules", "2026", "--mission", "mission2", "--runs", "2", "--timeout", "60", "--json", scoreData + "/gen-a", scoreData + "/gen-b"}
	code, local, e := sh(t, args...)
	if code != 0 {
		t.Fatalf("local: exit %d: %s", code, e)
	}
	code, viaNATS, e := sh(t, append(args, "--executor", "nats", "--nats", s.ClientURL())...)
	if code != 0 {
		t.Fatalf("nats: exit %d: %s", code, e)
	}
	if local != viaNATS {
		t.Errorf("score differs between the executors:\nlocal %s\nnats %s", local, viaNATS)
	}
}

// writeSpec writes a campaign file flying a test YAML and a built-in
// mission.
func writeSpec(t *testing.T, dir, extra string) (spec, test string) {
	t.Helper()
	test = testYAML(t, dir, "test_0.yaml", readmeSample)
	spec = writeFile(t, dir, "nightly.yaml", "name: nightly\ntests:\n  - test_*.yaml\n  - mission3\nruns: 2\nseed: 3\ntimeout: 60\n"+extra)
	return spec, test
}

// campaign run prints what run prints for the same tests; status, export
// and resume read the database it wrote.
func TestCampaignRun(t *testing.T) {
	dir := t.TempDir()
	spec, test := writeSpec(t, dir, "")
	db := filepath.Join(dir, "runs.db")
	code, out, e := sh(t, "campaign", "run", spec, "--db", db)
	wantCode, want, _ := sh(t, "run", test, "mission3", "--runs", "2", "--seed", "3", "--timeout", "60")
	if code != wantCode || out != want {
		t.Errorf("campaign run: exit %d\n%s%s\nwant exit %d\n%s", code, out, e, wantCode, want)
	}
	if !strings.Contains(e, "campaign ") || !strings.Contains(e, "(nightly): 2 tests × 2 runs") {
		t.Errorf("stderr lacks the campaign line: %s", e)
	}
	code, js, e := sh(t, "campaign", "run", spec, "--db", db, "--json")
	wantCode, wantJS, _ := sh(t, "run", test, "mission3", "--runs", "2", "--seed", "3", "--timeout", "60", "--json")
	if code != wantCode || js != wantJS {
		t.Errorf("campaign run --json differs from run --json (exit %d): %s", code, e)
	}

	code, out, e = sh(t, "campaign", "status", "--db", db, "--json")
	var sums []store.Summary
	if code != 0 || json.Unmarshal([]byte(out), &sums) != nil || len(sums) != 1 || sums[0].Done != 4 || sums[0].Name != "nightly" || len(sums[0].Missions) != 2 {
		t.Fatalf("status: exit %d %s %s", code, out, e)
	}
	id := string(sums[0].ID)
	code, out, _ = sh(t, "campaign", "status", id[:8], "--db", db)
	if code != 0 || !strings.Contains(out, "mission2") || !strings.Contains(out, "mission3") || !strings.Contains(out, "4 jobs, 4 done") {
		t.Errorf("status of one campaign: exit %d\n%s", code, out)
	}

	code, csvOut, e := sh(t, "campaign", "export", "--db", db)
	lines := strings.Split(strings.TrimSpace(csvOut), "\n")
	if code != 0 || len(lines) != 5 || lines[0] != strings.Join(exportHeader, ",") {
		t.Errorf("export CSV: exit %d %s\n%s", code, e, csvOut)
	}
	if !strings.Contains(lines[1], ",mission2,0,") || !strings.Contains(lines[1], `"10,5,20,10,20,0,0;10,5,20,-10,20,0,0"`) || !strings.Contains(lines[1], ",local,1,") {
		t.Errorf("export row 0: %s", lines[1])
	}
	// --below keeps the runs closer than the distance: none below 0, the
	// two runs with obstacles below a kilometre (mission3 has none).
	for below, want := range map[string]int{"0": 0, "1000": 2} {
		code, out, e := sh(t, "campaign", "export", "--db", db, "--below", below)
		if n := strings.Count(strings.TrimSpace(out), "\n"); code != 0 || n != want {
			t.Errorf("export --below %s: exit %d, %d rows; want %d (%s)", below, code, n, want, e)
		}
	}
	outFile := filepath.Join(dir, "export.json")
	code, _, e = sh(t, "campaign", "export", id[:6], "--db", db, "--format", "json", "--trajectories", "--mission", "mission2", "--out", outFile)
	var recs []exportRecord
	if code != 0 || json.Unmarshal(read(t, outFile), &recs) != nil || len(recs) != 2 || recs[1].Run != 1 || len(recs[0].Trajectory) < 100 || recs[0].Result == nil {
		t.Errorf("export JSON: exit %d %s; %d records", code, e, len(recs))
	}

	code, out, e = sh(t, "campaign", "resume", "--db", db)
	if code != 0 || !strings.Contains(out, "4 jobs, 4 done") {
		t.Errorf("resume of a complete campaign: exit %d\n%s%s", code, out, e)
	}
}

// freePort returns a loopback address nothing listens on.
func freeURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "nats://" + addr
}

// Bad input: exit 2, a message naming the problem, and nothing written:
// no output file, no database file, a corrupt database left as it was.
func TestCampaignBadInput(t *testing.T) {
	dir := t.TempDir()
	unreachable := freeURL(t)
	corrupt := writeFile(t, dir, "corrupt.db", strings.Repeat("this is not SQLite\n", 100))
	spec, _ := writeSpec(t, dir, "")
	unknownKey := writeFile(t, dir, "unknown.yaml", "name: x\ntests: [mission2]\nrepeats: 3\n")
	badType := writeFile(t, dir, "type.yaml", "tests: [mission2]\nruns: many\n")
	noMatch := writeFile(t, dir, "nomatch.yaml", "tests: [nothing_*.yaml]\n")
	db := filepath.Join(dir, "new.db")
	out := filepath.Join(dir, "out.csv")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"dataset unreachable NATS", []string{"dataset", "canonical", "--n", "3", "--out", out, "--executor", "nats", "--nats", unreachable, "--db", db},
			[]string{"unreachable", unreachable, "nats-server -js"}},
		{"score unreachable NATS", []string{"score", "--mission", "mission2", "--executor", "nats", "--nats", unreachable, "--db", db, scoreData + "/gen-a"},
			[]string{"unreachable", unreachable}},
		{"campaign run unreachable NATS", []string{"campaign", "run", spec, "--executor", "nats", "--nats", unreachable, "--db", db}, []string{"unreachable"}},
		{"worker unreachable NATS", []string{"worker", "--nats", unreachable}, []string{"unreachable", unreachable}},
		{"bad NATS URL", []string{"worker", "--nats", "http://x"}, []string{"--nats"}},
		{"bad executor", []string{"dataset", "canonical", "--n", "3", "--out", out, "--executor", "slurm"}, []string{"--executor", "slurm"}},
		{"dataset corrupt db", []string{"dataset", "canonical", "--n", "3", "--out", out, "--db", corrupt}, []string{"corrupt.db", "not a Shakedown database"}},
		{"campaign run corrupt db", []string{"campaign", "run", spec, "--db", corrupt}, []string{"corrupt.db", "not a Shakedown database"}},
		{"status corrupt db", []string{"campaign", "status", "--db", corrupt}, []string{"corrupt.db", "not a Shakedown database"}},
		{"export corrupt db", []string{"campaign", "export", "--db", corrupt}, []string{"corrupt.db"}},
		{"resume corrupt db", []string{"campaign", "resume", "--db", corrupt}, []string{"corrupt.db"}},
		{"status missing db", []string{"campaign", "status", "--db", db}, []string{"new.db"}},
		{"resume missing db", []string{"campaign", "resume", "--db", db}, []string{"new.db"}},
		{"status without db", []string{"campaign", "status"}, []string{"--db"}},
		{"spec unknown key", []string{"campaign", "run", unknownKey, "--db", db}, []string{"unknown.yaml:3", "repeats", "unknown key"}},
		{"spec wrong type", []string{"campaign", "run", badType, "--db", db}, []string{"type.yaml:2", "many"}},
		{"spec glob matches nothing", []string{"campaign", "run", noMatch, "--db", db}, []string{"nomatch.yaml", "nothing_*.yaml"}},
		{"spec missing", []string{"campaign", "run", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
		{"export bad format", []string{"campaign", "export", "--db", corrupt, "--format", "xml"}, []string{"--format"}},
	}
	before := read(t, corrupt)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := sh(t, c.args...)
			if code != 2 {
				t.Fatalf("exit %d; want 2\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for _, p := range []string{db, out} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written", p)
					os.Remove(p)
				}
			}
			if !bytes.Equal(read(t, corrupt), before) {
				t.Fatal("the corrupt database was changed")
			}
		})
	}
}

var barCount = regexp.MustCompile(`\((\d+)/(\d+)`)

// A campaign killed mid-way (SIGKILL) resumes with campaign resume and
// completes with one result per job, the results of an uninterrupted run.
func TestCampaignResumeAfterKill(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "long.yaml", "tests: [mission2, mission3, mission4, mission5]\nruns: 10\n")
	db := filepath.Join(dir, "runs.db")
	cmd, stderr := helper(t, "campaign", "run", spec, "--db", db, "--workers", "2", "--progress")
	// Kill it once the progress bar shows 10 flights done.
	for {
		chunk, err := stderr.ReadString(')')
		if m := barCount.FindStringSubmatch(chunk); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= 10 {
				break
			}
		}
		if err != nil {
			t.Fatalf("the campaign ended before it could be killed: %v", err)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_, _ = io.Copy(io.Discard, stderr)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v; want it killed", err)
	}
	code, out, e := sh(t, "campaign", "status", "--db", db, "--json")
	var sums []store.Summary
	if code != 0 || json.Unmarshal([]byte(out), &sums) != nil || len(sums) != 1 {
		t.Fatalf("status after the kill: exit %d %s %s", code, out, e)
	}
	t.Logf("killed with %d of %d flights stored", sums[0].Done, sums[0].Jobs)
	if sums[0].Done < 10 || sums[0].Done >= 40 {
		t.Errorf("%d of 40 stored at the kill; want it in the middle", sums[0].Done)
	}
	if code, out, e := sh(t, "campaign", "resume", "--db", db); code != 0 || !strings.Contains(out, "40 jobs, 40 done") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, e)
	}
	rdb, err := store.Open(context.Background(), db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if err := rdb.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	counts, _ := rdb.Counts(context.Background())
	if counts["results"] != 40 || counts["jobs"] != 40 || counts["campaign_jobs"] != 40 || counts["campaigns"] != 1 {
		t.Errorf("rows %v; want 40 jobs and results in 1 campaign", counts)
	}
	// The resumed campaign's output is the uninterrupted run's.
	_, resumed, _ := sh(t, "campaign", "run", spec, "--db", db, "--json")
	_, fresh, _ := sh(t, "campaign", "run", spec, "--json")
	if resumed != fresh {
		t.Error("the resumed campaign's results differ from an uninterrupted run's")
	}
}

// shakedown worker runs jobs until SIGTERM, then drains and exits 0.
func TestWorkerCommand(t *testing.T) {
	s := natstest.Start(t)
	cmd, stderr := helper(t, "worker", "--nats", s.ClientURL(), "--workers", "2", "--name", "child", "--verbose")
	line, err := stderr.ReadString('\n')
	if err != nil || !strings.Contains(line, "worker child: 2 jobs at a time from") {
		t.Fatalf("worker start line %q (%v)", line, err)
	}
	out := filepath.Join(t.TempDir(), "d.csv")
	if code, _, e := sh(t, "dataset", "canonical", "--n", "6", "--timeout", "30", "--out", out, "--executor", "nats", "--nats", s.ClientURL()); code != 0 {
		t.Fatalf("dataset through the worker: exit %d %s", code, e)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker after SIGTERM: %v\n%s", err, rest)
	}
	if n := strings.Count(string(rest), "(attempt 1,"); n != 6 || !strings.Contains(string(rest), "worker child: drained after 6 jobs (0 dead letters)") {
		t.Errorf("worker log (%d job lines):\n%s", n, rest)
	}
}
