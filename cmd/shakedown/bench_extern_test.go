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

	"github.com/shakedown-robotics/shakedown/track/extern/externtest"
)

// benchExtern runs bench on Circle and Line with tracker and returns the
// counts and the trajectory metrics by case.
func benchExtern(t *testing.T, tracker string, params ...string) (passed, failed int, metrics map[string]map[string]any) {
	t.Helper()
	root := t.TempDir()
	var o, e bytes.Buffer
	f := benchFlags{types: "Circle,Line", robots: "1", iterations: 1, tracker: tracker, trackerPar: params, seed: 1, out: root,
		marks: "autonomy", velocities: "0.5", wind: 1, gust: 0.5, quiet: true, json: true, sim: "shakedown"}
	now := func() time.Time { return time.Date(2026, 7, 10, 12, 0, 0, 0, time.UTC) }
	if err := runBench(context.Background(), &o, &e, f, now); err != nil {
		if _, ok := err.(*failure); !ok {
			t.Fatalf("%s: %v (%s)", tracker, err, e.String())
		}
	}
	var r struct {
		Dir    string `json:"dir"`
		Counts struct{ Passed, Failed int }
	}
	if err := json.Unmarshal(o.Bytes(), &r); err != nil {
		t.Fatalf("--json output: %v\n%s", err, o.String())
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	metrics = map[string]map[string]any{}
	for id, v := range doc {
		if m, ok := v.(map[string]any); ok && strings.Contains(id, "test_fixed_trajectory[") {
			metrics[id] = m
		}
	}
	if len(metrics) == 0 {
		t.Logf("metrics.json: %.2000s", b)
	}
	return r.Counts.Passed, r.Counts.Failed, metrics
}

// TestBenchExecTracker: a tracker outside the process (this test binary
// as package externtest's carrot, over JSON lines) flies Circle and Line
// through the four-phase chain, and the metrics come out.
func TestBenchExecTracker(t *testing.T) {
	t.Setenv(externtest.HelperEnv, "carrot")
	passed, failed, m := benchExtern(t, "exec:"+os.Args[0], "rate_hz=50")
	checkTrajectoryMetrics(t, passed, failed, m)
}

func checkTrajectoryMetrics(t *testing.T, passed, failed int, m map[string]map[string]any) {
	t.Helper()
	// As many cases as with a built-in tracker (TestBenchTrackerParam).
	if failed != 0 || passed != 7 {
		t.Errorf("counts: %d passed, %d failed; want 7 passed", passed, failed)
	}
	if len(m) != 2 {
		t.Fatalf("trajectory cases %v; want Circle and Line", m)
	}
	for id, ms := range m {
		ct, ok := ms["robot_1.cross_track_error_mean_m"].(map[string]any)
		if !ok {
			t.Errorf("%s: no cross-track error in %v", id, ms)
			continue
		}
		v, _ := ct["value"].(float64)
		if !(v > 0 && v < 2) {
			t.Errorf("%s: mean cross-track error %v m; want in (0, 2)", id, v)
		}
		t.Logf("%s: mean cross-track error %.3f m", id, v)
	}
}

// TestBenchTrackerParam: --tracker-param reaches a built-in tracker (the
// AirStack replica with a fixed 1.5-m sphere) and the campaign has the
// same cases as with an external tracker; a bad parameter exits 2.
func TestBenchTrackerParam(t *testing.T) {
	passed, failed, m := benchExtern(t, "airstack", "velocity_sphere_radius_multiplier=-1", "sphere_radius=1.5")
	checkTrajectoryMetrics(t, passed, failed, m)
	for _, args := range [][]string{
		{"--tracker", "airstack", "--tracker-param", "sphere_radiu=1"},
		{"--tracker", "airstack", "--tracker-param", "look_ahead_time=1e300"},
		{"--tracker", "exec:", "--tracker-param", "rate_hz=50"},
		{"--tracker", "exec:/no/such/program"},
		{"--tracker", "ros:http://x"},
	} {
		if code, _, errOut := sh(t, append([]string{"bench", "--quiet", "--out", t.TempDir()}, args...)...); code != 2 || !strings.Contains(errOut, "--tracker") {
			t.Errorf("%v: exit %d (%s); want 2 naming --tracker", args, code, errOut)
		}
	}
}
