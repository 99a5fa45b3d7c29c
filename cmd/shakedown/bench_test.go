package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBenchBadInput checks that bad input exits 2 naming the culprit, and
// writes nothing.
func TestBenchBadInput(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		name string
		args []string
		says string
	}{
		{"unknown type", []string{"--trajectory-types", "Circle,Spiral"}, "Spiral"},
		{"unknown tracker", []string{"--tracker", "mpc"}, "mpc"},
		{"unknown parameter", []string{"--trajectory-param", "spin=3"}, "spin"},
		{"parameter of another type", []string{"--trajectory-types", "Line", "--trajectory-param", "radius=3"}, "radius"},
		{"typed unknown parameter", []string{"--trajectory-param", "Line.radius=3"}, "radius"},
		{"non-positive speed", []string{"--trajectory-param", "velocity=0"}, "velocity"},
		{"negative radius", []string{"--trajectory-param", "Circle.radius=-4"}, "radius"},
		{"not a number", []string{"--trajectory-param", "radius=ten"}, "radius"},
		{"bad robot count", []string{"--num-robots", "1,zero"}, "--num-robots"},
		{"bad iterations", []string{"--stress-iterations", "0"}, "--stress-iterations"},
		{"bad keyword", []string{"-k", "Circle and"}, "-k"},
		{"nothing selected", []string{"-k", "Spiral"}, "no test selected"},
		{"stray argument", []string{"Circle"}, `unexpected argument "Circle": shakedown bench takes none`},
		{"other simulator", []string{"--sim", "isaacsim"}, "isaacsim"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := sh(t, append([]string{"bench", "--quiet", "--out", out}, c.args...)...)
			if code != 2 {
				t.Fatalf("exit %d; want 2 (stderr %q)", code, errOut)
			}
			if !strings.Contains(errOut, c.says) {
				t.Errorf("stderr %q does not name %q", errOut, c.says)
			}
		})
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("bad input wrote %d entries into --out", len(ents))
	}
}

// TestBenchRunAndCompare runs a small campaign twice (one tracker each),
// compares them both ways, injects a regression, and checks the exit codes.
func TestBenchRunAndCompare(t *testing.T) {
	root := t.TempDir()
	clock := func(s int) func() time.Time {
		return func() time.Time { return time.Date(2026, 7, 10, 12, 0, s, 0, time.UTC) }
	}
	benchRun := func(tracker string, s int) string {
		t.Helper()
		var o, e bytes.Buffer
		f := benchFlags{types: "Line", robots: "1", iterations: 1, tracker: tracker, seed: 1, out: root,
			marks: "autonomy", velocities: "0.5", wind: 1, gust: 0.5, quiet: true, json: true, sim: "shakedown"}
		if err := runBench(context.Background(), &o, &e, f, clock(s)); err != nil {
			t.Fatalf("%s: %v (%s)", tracker, err, e.String())
		}
		var r struct {
			Dir    string `json:"dir"`
			Counts struct {
				Passed, Failed int
			} `json:"counts"`
		}
		if err := json.Unmarshal(o.Bytes(), &r); err != nil {
			t.Fatalf("--json output: %v\n%s", err, o.String())
		}
		if r.Counts.Passed != 4 || r.Counts.Failed != 0 {
			t.Errorf("%s: counts %+v; want 4 passed", tracker, r.Counts)
		}
		return r.Dir
	}
	old := benchRun("airstack", 0)
	cur := benchRun("feedforward", 1)

	// The default tracker against the replica: no regression.
	report := filepath.Join(root, "report.md")
	code, out, errOut := sh(t, "bench", "compare", "--current", cur, "--baseline", old, "--output", report)
	if code != 0 {
		t.Fatalf("feedforward vs airstack: exit %d; want 0\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(report); err != nil || string(b) != out {
		t.Errorf("--output differs from stdout (%v)", err)
	}
	// The replica against the default: its errors are regressions.
	if code, out, _ := sh(t, "bench", "compare", "--current", old, "--baseline", cur); code != 1 || !strings.Contains(out, "**Regression detected**") {
		t.Errorf("airstack vs feedforward: exit %d; want 1\n%s", code, out)
	}
	// A run against itself with 10 % noise injected: no regression; with
	// +50 %, a regression (the metric set to 1 m in the baseline copy).
	base := copyRun(t, cur, filepath.Join(root, "base"))
	setMetric(t, base, "robot_1.segment_cross_track_error_mean_m", 1)
	for _, c := range []struct {
		v    float64
		code int
	}{{1.1, 0}, {1.5, 1}} {
		dir := copyRun(t, cur, filepath.Join(root, "scaled"))
		setMetric(t, dir, "robot_1.segment_cross_track_error_mean_m", c.v)
		if code, out, errOut := sh(t, "bench", "compare", "--current", dir, "--baseline", base); code != c.code {
			t.Errorf("1 m → %g m: exit %d; want %d\n%s%s", c.v, code, c.code, out, errOut)
		}
	}
	// Unusable input: exit 2.
	if code, _, errOut := sh(t, "bench", "compare", "--current", filepath.Join(root, "nope"), "--baseline", cur); code != 2 || !strings.Contains(errOut, "--current") {
		t.Errorf("missing directory: exit %d (%s); want 2 naming --current", code, errOut)
	}
	if code, _, _ := sh(t, "bench", "compare", "--baseline", cur); code != 2 {
		t.Errorf("no --current: exit %d; want 2", code)
	}
	bad := copyRun(t, cur, filepath.Join(root, "bad"))
	os.WriteFile(filepath.Join(bad, "metrics.json"), []byte("{"), 0o644)
	if code, _, errOut := sh(t, "bench", "compare", "--current", bad, "--baseline", cur); code != 2 || !strings.Contains(errOut, "metrics.json") {
		t.Errorf("broken metrics.json: exit %d (%s); want 2 naming the file", code, errOut)
	}
	// A different campaign is refused unless --force.
	other := filepath.Join(root, "other")
	var o, e bytes.Buffer
	if err := runBench(context.Background(), &o, &e, benchFlags{types: "Line", robots: "1", iterations: 1, tracker: "feedforward", seed: 1,
		out: other, marks: "autonomy", velocities: "0.5", wind: 0, gust: 0, quiet: true, sim: "shakedown"}, clock(2)); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(other)
	od := filepath.Join(other, ents[0].Name())
	if code, _, errOut := sh(t, "bench", "compare", "--current", od, "--baseline", cur); code != 2 || !strings.Contains(errOut, "wind") {
		t.Errorf("calm vs windy: exit %d (%s); want 2 naming the wind", code, errOut)
	}
	if code, out, _ := sh(t, "bench", "compare", "--current", od, "--baseline", cur, "--force"); code == 2 || !strings.Contains(out, "Campaigns differ") {
		t.Errorf("--force: exit %d; want a report\n%s", code, out)
	}
}

func copyRun(t *testing.T, src, dst string) string {
	t.Helper()
	os.RemoveAll(dst)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"metrics.json", "results.xml", "run_meta.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// setMetric sets every value of key in dir's metrics.json to v.
func setMetric(t *testing.T, dir, key string, v float64) {
	t.Helper()
	p := filepath.Join(dir, "metrics.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, ms := range m {
		if e, ok := ms[key]; ok {
			e["value"] = v
		}
	}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBenchRecord(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := sh(t, "bench", "--num-robots", "1", "--trajectory-types", "Line", "--out", dir, "--quiet", "--record")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "flightlogs", "*.mcap"))
	if len(logs) != 1 {
		t.Fatalf("flight logs %v; want one for the one robot", logs)
	}
	isMCAP(t, logs[0])
	if !strings.HasSuffix(stdout, "\nwrote "+logs[0]+"\n") {
		t.Errorf("stdout does not end naming %s:\n%s", logs[0], stdout)
	}
}
