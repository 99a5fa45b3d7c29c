package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func fixedEOLClock(t *testing.T) {
	t.Helper()
	old := eolNow
	eolNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	t.Cleanup(func() { eolNow = old })
}

func TestEOLMowerPasses(t *testing.T) {
	fixedEOLClock(t)
	dir := t.TempDir()
	code, out, errOut := sh(t, "eol", "--serial", "MB-0001", "--out", dir, "--data", filepath.Join(dir, "data"))
	if code != 0 {
		t.Fatalf("exit %d; stderr %q\n%s", code, errOut, out)
	}
	for _, w := range []string{"MB-0001-20260102T030405Z mower MB-0001: PASS", "wrote "} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "MB-0001-20260102T030405Z-eol.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 6 obstacle | stopped by the gate before the box |") {
		t.Errorf("report lacks the obstacle row:\n%s", md)
	}
	var rec struct {
		EOL struct {
			Serial, RunID, Result string
		} `json:"end_of_line"`
	}
	js, err := os.ReadFile(filepath.Join(dir, "MB-0001-20260102T030405Z-eol.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &rec); err != nil || rec.EOL.Serial != "MB-0001" || rec.EOL.Result != "PASS" {
		t.Errorf("record: %+v, %v", rec, err)
	}
}

func TestEOLOptions(t *testing.T) {
	fixedEOLClock(t)
	cases := []struct {
		name  string
		args  []string
		code  int
		files []string
		in    []string // in stdout
	}{
		{"default serial and run id", []string{"eol"}, 0, []string{"SIM-0001-20260102T030405Z-eol.md", "SIM-0001-20260102T030405Z-eol.json"}, []string{"SIM-0001: PASS"}},
		{"H2: no blade, no lidar", []string{"eol", "--serial", "MB-0002", "--run-id", "h2", "--blade=false", "--lidar=false"}, 0, []string{"h2-eol.md", "h2-eol.json"},
			[]string{"PASS (17 passed, 0 failed, 6 skipped", "SKIP blade.spin_up", "SKIP obstacle.stop"}},
		{"quad", []string{"eol", "--vehicle", "quad", "--serial", "QD-0001", "--run-id", "q1"}, 0, []string{"q1-eol.md", "q1-eol.json"}, []string{"q1 quad QD-0001: PASS"}},
		{"quad without range sensor", []string{"eol", "--vehicle", "quad", "--run-id", "q2", "--lidar=false"}, 0, []string{"q2-eol.md", "q2-eol.json"}, []string{"SKIP obstacle.cp"}},
		{"json", []string{"eol", "--run-id", "j", "--json"}, 0, []string{"j-eol.md", "j-eol.json"}, []string{`"end_of_line": {`, `"run_id": "j"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := sh(t, append(c.args, "--out", dir, "--data", filepath.Join(dir, "data"))...)
			if code != c.code {
				t.Fatalf("exit %d; want %d; stderr %q\n%s", code, c.code, errOut, out)
			}
			for _, f := range c.files {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			for _, w := range c.in {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// Bad parameters: exit 2, a message naming the flag, and nothing written.
func TestEOLBadParameters(t *testing.T) {
	fixedEOLClock(t)
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown vehicle", []string{"--vehicle", "boat"}, `--vehicle "boat"`},
		{"empty serial", []string{"--serial", ""}, "empty serial"},
		{"serial with a slash", []string{"--serial", "MB/1"}, "--serial"},
		{"run id with a path", []string{"--run-id", "../x"}, "--run-id"},
		{"connect without serial", []string{"--connect", "udp://127.0.0.1:14540"}, "--serial is required with --connect"},
		{"connect the mower", []string{"--connect", "udp://127.0.0.1:14540", "--serial", "MB-0001"}, "only the quadrotor speaks MAVLink"},
		{"connect bad URL", []string{"--vehicle", "quad", "--connect", "udp://", "--serial", "QD-0001"}, "--connect"},
		{"blade on a quad", []string{"--vehicle", "quad", "--blade=false"}, "--blade is for the mower"},
		{"unknown variant", []string{"--sim-variant", "eol-9"}, `--sim-variant "eol-9"`},
		{"variant on a quad", []string{"--vehicle", "quad", "--sim-variant", "eol-1"}, "--sim-variant is for the simulated mower"},
		{"an argument", []string{"extra"}, "unknown command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "reports")
			code, out, errOut := sh(t, append(append([]string{"eol"}, c.args...), "--out", dir, "--data", filepath.Join(dir, "data"))...)
			if code != 2 {
				t.Fatalf("exit %d; want 2\nstdout %s\nstderr %s", code, out, errOut)
			}
			if !strings.Contains(errOut, c.msg) {
				t.Errorf("stderr %q lacks %q", errOut, c.msg)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s was created: %v", dir, err)
			}
		})
	}
}

// The seed's earlier runs fail from the command line with exit 1, and still
// write their reports.
func TestEOLSeedVariantsFail(t *testing.T) {
	fixedEOLClock(t)
	for _, c := range []struct {
		variant, failed string
	}{{"eol-1", "FAIL watchdog.drive"}, {"eol-2", "FAIL obstacle.stop"}} {
		t.Run(c.variant, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := sh(t, "eol", "--sim-variant", c.variant, "--run-id", c.variant, "--out", dir, "--data", filepath.Join(dir, "data"))
			if code != 1 {
				t.Fatalf("exit %d; want 1\n%s\n%s", code, out, errOut)
			}
			if !strings.Contains(out, c.failed) || !strings.Contains(errOut, "FAILED") {
				t.Errorf("stdout lacks %q or stderr lacks FAILED:\n%s\n%s", c.failed, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, c.variant+"-eol.json")); err != nil {
				t.Errorf("no report: %v", err)
			}
		})
	}
}

// With --connect the checklist must be confirmed before anything is
// dialled: without a terminal and without --yes it refuses (exit 2, the
// reason named); a "no" at the terminal refuses; "yes" and --yes go on to
// the link (here an unreachable one, so the error is the link's).
func TestEOLChecklistGate(t *testing.T) {
	cases := []struct {
		name     string
		yes      bool
		terminal bool
		stdin    string
		want     string // in the error
		prompted bool
	}{
		{"no terminal, no --yes", false, false, "yes\n", "stdin is not a terminal", false},
		{"answered no", false, true, "no\n", `answered "no"`, true},
		{"answered yes", false, true, "yes\n", "--connect", true},
		{"--yes", true, false, "", "--connect", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var stderr strings.Builder
			f := eolFlags{vehicle: "mower", serial: "MB-0001", runID: "gate", out: dir, blade: true, lidar: true, yes: c.yes,
				connect: "ws://127.0.0.1:1"}
			err := runEOL(t.Context(), eolIO{stdout: &discard{}, stderr: &stderr, stdin: strings.NewReader(c.stdin), terminal: c.terminal}, f, true, false)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want one naming %q", err, c.want)
			}
			if _, ok := err.(*failure); ok {
				t.Fatalf("error %v is a finding (exit 1); want exit 2", err)
			}
			if got := strings.Contains(stderr.String(), "Before the end-of-line test moves the robot"); got != c.prompted {
				t.Errorf("checklist shown %v; want %v:\n%s", got, c.prompted, stderr.String())
			}
			if c.want != "--connect" && strings.Contains(err.Error(), "dial") {
				t.Errorf("the link was dialled before the checklist was confirmed: %v", err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("wrote %d files; want none", len(ents))
			}
		})
	}
}
