package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/internal/doctest"
	"github.com/shakedown-robotics/shakedown/track/extern/externtest"
)

// envAsCLI makes the test binary run as the shakedown CLI (see TestMain):
// the README test puts a link named shakedown to it on the PATH.
const envAsCLI = "SHAKEDOWN_TEST_AS_CLI"

// TestMain makes the test binary stand in for the programs the tests
// start: the CLI itself (the README test) and the JSON-lines tracker of
// bench --tracker exec: (externtest).
func TestMain(m *testing.M) {
	if os.Getenv(envAsCLI) == "1" {
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(externtest.HelperEnv) == "carrot" {
		if err := externtest.Serve(os.Stdin, os.Stdout); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// readmeCmdTimeout bounds one README command.
const readmeCmdTimeout = 5 * time.Minute

// TestREADME runs every fenced sh block of README.md, in order, in one
// temporary folder that links the repository's top-level entries (so the
// README's relative paths resolve and what the commands write lands in the
// folder), with `shakedown` and `go run ./cmd/shakedown` being this build.
// Each command must exit as its comment says (0 unless `exit N`), and each
// quoted output must match the output of its command. The directives
// (package internal/doctest) skip a block with its reason, keep one for the
// long tests, or shrink its sizes in the short tests; `go test` and
// `.ci/run` lines are the test suite itself and are not run. go test -v
// prints every block, its commands, exit codes and pass or fail.
func TestREADME(t *testing.T) {
	t.Parallel() // its commands are processes of their own, in a folder of their own
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := doctest.Parse(string(md))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	r := newReadmeRunner(t)
	for _, b := range doc.Blocks {
		t.Logf("README.md:%d", b.Line)
		switch {
		case b.Skip != "":
			t.Logf("  not run: %s", b.Skip)
			continue
		case b.Long && !longTests:
			t.Logf("  not run: a long block (go test -tags long)")
			continue
		}
		for _, c := range b.Commands {
			text := c.Text
			if !longTests {
				text = doctest.Apply(text, b.Small)
			}
			text, ok := strings.CutPrefix(text, "go run ./cmd/shakedown ")
			if ok {
				text = "shakedown " + text
			}
			if strings.HasPrefix(text, "go test ") || strings.HasPrefix(text, "bash .ci/run") {
				t.Logf("  $ %s\n    not run: the test suite itself", text)
				continue
			}
			code, took, cpu := r.run(c.Text, text)
			verdict := "pass"
			if code != c.Exit {
				verdict = "FAIL"
				t.Errorf("README.md:%d: %s: exit %d; want %d\nstdout:\n%s\nstderr:\n%s", c.Line, text, code, c.Exit, r.out[c.Text].stdout, tail(r.out[c.Text].stderr, 2000))
			}
			t.Logf("  $ %s\n    exit %d (want %d) %s, %.1f s wall, %.1f s CPU", text, code, c.Exit, verdict, took.Seconds(), cpu.Seconds())
		}
	}
	for _, q := range doc.Quotes {
		o, ok := r.out[q.Command]
		if !ok {
			r.run(q.Command, strings.Replace(q.Command, "go run ./cmd/shakedown ", "shakedown ", 1))
			o = r.out[q.Command]
		}
		if err := doctest.Match(q.Lines, o.stdout+"\n"+o.stderr, q.Loose); err != nil {
			t.Errorf("README.md:%d: the output quoted for %q: %v\nstdout:\n%s", q.Line, q.Command, err, o.stdout)
			continue
		}
		t.Logf("README.md:%d: output of %q: %d lines match, pass", q.Line, q.Command, len(q.Lines))
	}
}

type readmeOutput struct{ stdout, stderr string }

type readmeRunner struct {
	t   *testing.T
	dir string
	env []string
	out map[string]readmeOutput // by the command as the README writes it
}

// newReadmeRunner makes the working folder: the repository's top-level
// entries linked (not the outputs .gitignore lists), a home and cache of its
// own, and a PATH whose shakedown is this test binary.
func newReadmeRunner(t *testing.T) *readmeRunner {
	dir, bin := t.TempDir(), t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ignored := gitignored(t, filepath.Join(root, ".gitignore"))
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" || ignored[e.Name()] {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "shakedown")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH", k == "HOME", k == "XDG_CACHE_HOME", k == "TESTS_FOLDER", strings.HasPrefix(k, "SHAKEDOWN_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+filepath.Join(dir, ".home"), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), envAsCLI+"=1")
	return &readmeRunner{t: t, dir: dir, env: env, out: map[string]readmeOutput{}}
}

// run runs text with sh in the working folder and keeps its output under
// key; it returns the exit status (-1 when it could not start or timed
// out), the wall time and the CPU time it took.
func (r *readmeRunner) run(key, text string) (int, time.Duration, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), readmeCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", text)
	cmd.Dir, cmd.Env = r.dir, r.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var cpu time.Duration
	if ps := cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	r.out[key] = readmeOutput{o.String(), e.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, took, cpu
	case ctx.Err() != nil:
		r.t.Errorf("%s: still running after %v", text, readmeCmdTimeout)
		return -1, took, cpu
	case errors.As(err, &ee):
		return ee.ExitCode(), took, cpu
	}
	r.t.Errorf("%s: %v", text, err)
	return -1, took, cpu
}

// gitignored returns the top-level names .gitignore lists (lines like
// /name, /name/ or name/).
func gitignored(t *testing.T, path string) map[string]bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.Trim(strings.TrimSpace(sc.Text()), "/")
		if l != "" && !strings.HasPrefix(l, "#") && !strings.ContainsAny(l, "*/!") {
			names[l] = true
		}
	}
	return names
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
