package main

import (
	"bytes"
	"encoding/json"
	"github.com/shakedown-robotics/shakedown/gen/harness"
	"github.com/shakedown-robotics/shakedown/scenario"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testYAML writes a competition-style test of mission2 with the given
// obstacle entries into dir (with the plan beside it, as case_studies/).
func testYAML(t *testing.T, dir, name, obstacles string) string {
	t.Helper()
	plan, err := os.ReadFile("../../scenario/competition/mission2.plan")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "case_studies"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "case_studies"), "mission2.plan", string(plan))
	y := `drone:
  mission_file: case_studies/mission2.plan
  params: {MIS_TAKEOFF_ALT: 1.0, MIS_YAW_ERR: 12.0, MPC_YAW_MODE: 0, NAV_ACC_RAD: 0.5,
           NAV_DLL_ACT: 0, NAV_MC_ALT_RAD: 0.5, NAV_RCL_ACT: 3, SDLOG_PROFILE: 7}
  port: 14541
simulation:
  headless: true
  obstacles:
` + obstacles + `  simulator: ros
test:
  commands:
  - {mode: 3, r: 0, timestamp: 1, x: 0, y: 0, z: 0.5}
`
	return writeFile(t, dir, name, y)
}

const readmeSample = `  - position: {r: 0, x: 10, y: 20, z: 0}
    size: {h: 20, l: 10, w: 5}
  - position: {r: 0, x: -10, y: 20, z: 0}
    size: {h: 20, l: 10, w: 5}
`

func TestRunTests(t *testing.T) {
	dir := t.TempDir()
	f := testYAML(t, dir, "test_0.yaml", readmeSample)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := sh(t, "run", f, "--runs", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "test_0 (mission2, 2 obstacles): min distance") || !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("unexpected output:\n%s", stdout)
	}
	for _, n := range []string{"test_0.png", "test_0-run1.csv", "test_0-run2.csv", "results.json"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Errorf("%s not written: %v", n, err)
		}
	}
	// The same seed gives the same results.
	code, js1, _ := sh(t, "run", f, "--runs", "2", "--json")
	_, js2, _ := sh(t, "run", f, "--runs", "2", "--json")
	if code != 0 || js1 != js2 {
		t.Errorf("two runs with the same seed differ (exit %d)", code)
	}
	var res []struct {
		Summary struct {
			Runs    int    `json:"runs"`
			Verdict string `json:"verdict"`
		} `json:"summary"`
		Runs []struct {
			Points int `json:"points"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(js1), &res); err != nil || len(res) != 1 || res[0].Summary.Runs != 2 || len(res[0].Runs) != 2 {
		t.Errorf("JSON: %v %+v", err, res)
	}
}

// A test that makes the plain autopilot crash is reported as a hard fail
// with exit 1.
func TestRunTestsFailure(t *testing.T) {
	dir := t.TempDir()
	f := testYAML(t, dir, "wall.yaml", "  - position: {r: 30, x: -3, y: 30, z: 0}\n    size: {h: 20, l: 10, w: 4}\n")
	code, stdout, _ := sh(t, "run", f, "--autopilot", "plain")
	if code != 1 || !strings.Contains(stdout, "hard-fail") {
		t.Errorf("exit %d; want 1 with a hard-fail:\n%s", code, stdout)
	}
}

// An invalid test stops the run before anything is simulated: exit 2, the
// file, the rule and the obstacle named, no output written.
// Without --strict a rule break is flown after a warning, but a
// malformed file (a non-finite number, a size that is not positive) is
// still refused before anything flies.
func TestRunTestsMalformedRefused(t *testing.T) {
	dir := t.TempDir()
	good := testYAML(t, dir, "good.yaml", readmeSample)
	for name, obstacles := range map[string]string{
		"nan":  "  - position: {r: 0, x: .nan, y: 20, z: 0}\n    size: {h: 20, l: 10, w: 4}\n",
		"inf":  "  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: .inf, l: 10, w: 4}\n",
		"zero": "  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: 20, l: 0, w: 4}\n",
	} {
		bad := testYAML(t, dir, name+".yaml", obstacles)
		code, stdout, stderr := sh(t, "run", good, bad)
		if code != 2 || stdout != "" || !strings.Contains(stderr, filepath.Base(bad)) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming the file, nothing flown", name, code, stdout, stderr)
		}
	}
}

func TestRunTestsInvalid(t *testing.T) {
	dir := t.TempDir()
	good := testYAML(t, dir, "good.yaml", readmeSample)
	cases := []struct {
		name, obstacles string
		want            []string
	}{
		{"overlap", "  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: 20, l: 10, w: 4}\n  - position: {r: 0, x: 2, y: 21, z: 0}\n    size: {h: 20, l: 10, w: 4}\n", []string{"overlap", "obstacle 1", "obstacle 2"}},
		{"outside", "  - position: {r: 0, x: 28, y: 20, z: 0}\n    size: {h: 20, l: 10, w: 4}\n", []string{"obstacle 1", "area"}},
		{"NaN", "  - position: {r: 0, x: .nan, y: 20, z: 0}\n    size: {h: 20, l: 10, w: 4}\n", []string{"x"}},
		{"too many", strings.Repeat("  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: 20, l: 2, w: 2}\n", 1) +
			"  - position: {r: 0, x: -10, y: 20, z: 0}\n    size: {h: 20, l: 2, w: 2}\n" +
			"  - position: {r: 0, x: -20, y: 20, z: 0}\n    size: {h: 20, l: 2, w: 2}\n" +
			"  - position: {r: 0, x: -30, y: 20, z: 0}\n    size: {h: 20, l: 2, w: 2}\n", []string{"4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := testYAML(t, dir, strings.ReplaceAll(c.name, " ", "_")+".yaml", c.obstacles)
			out := filepath.Join(dir, "out-"+c.name)
			code, stdout, stderr := sh(t, "run", "--strict", good, bad, "--out", out)
			if code != 2 {
				t.Fatalf("exit %d; want 2\n%s%s", code, stdout, stderr)
			}
			if stdout != "" {
				t.Errorf("something was run: %q", stdout)
			}
			for _, w := range append(c.want, filepath.Base(bad)) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("output directory written for an invalid test")
			}
		})
	}
}

// The dataset is the same whatever the number of workers, and has one row
// per test with the ten features.
func TestDatasetDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	if code, _, e := sh(t, "dataset", "canonical", "--n", "6", "--seed", "5", "--workers", "1", "--out", a); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if code, _, e := sh(t, "dataset", "canonical", "--n", "6", "--seed", "5", "--workers", "2", "--out", b); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) {
		t.Error("1 and 2 workers wrote different files")
	}
	lines := strings.Split(strings.TrimSpace(string(x)), "\n")
	if len(lines) != 8 || lines[0] != "# frame: canonical" || !strings.HasPrefix(lines[1], "test,l1,w1,x1,y1,r1,l2,w2,x2,y2,r2,min_distance,flight_time,points,verdict") {
		t.Errorf("got %d lines, frame %q, header %q", len(lines), lines[0], lines[1])
	}
	for _, l := range lines[2:] {
		if n := len(strings.Split(l, ",")); n != len(harness.DatasetHeader) {
			t.Errorf("row %q has %d fields; want %d", l, n, len(harness.DatasetHeader))
		}
	}
	code, _, e := sh(t, "dataset", "canonical", "--n", "0", "--out", filepath.Join(dir, "c.csv"))
	if code != 2 || !strings.Contains(e, "--n") {
		t.Errorf("--n 0: exit %d, %q", code, e)
	}
	code, _, e = sh(t, "dataset", "canonical", "--generator", "genius", "--out", filepath.Join(dir, "c.csv"))
	if code != 2 || !strings.Contains(e, "genius") {
		t.Errorf("bad generator: exit %d, %q", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.csv")); err == nil {
		t.Error("bad input wrote a file")
	}
}

// Tests from files with the same base name get distinct names, however
// many there are.
func TestLoadTestsNames(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, sub := range []string{"a", "b", "c"} {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		files = append(files, testYAML(t, d, "test_0.yaml", readmeSample))
	}
	_, names, err := loadTests(files, scenario.DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, " "); got != "test_0 test_0-2 test_0-3" {
		t.Errorf("names %q; want test_0 test_0-2 test_0-3", got)
	}
}

// A test the mission cannot be flown through (a wall across both legs of
// mission2, boxes 1 m apart) is flown after a warning naming the file and
// the finding; a feasible one gets none.
func TestRunTestsWarnsInfeasible(t *testing.T) {
	dir := t.TempDir()
	good := testYAML(t, dir, "good.yaml", readmeSample)
	wall := testYAML(t, dir, "wall.yaml", "  - position: {r: 0, x: -15, y: 25, z: 0}\n    size: {h: 20, l: 14, w: 2}\n"+
		"  - position: {r: 0, x: 0, y: 25, z: 0}\n    size: {h: 20, l: 14, w: 2}\n"+
		"  - position: {r: 0, x: 15, y: 25, z: 0}\n    size: {h: 20, l: 14, w: 2}\n")
	var warn bytes.Buffer
	if _, _, err := loadTestsWarn([]string{good, wall}, scenario.DefaultRules, false, &warn); err != nil {
		t.Fatal(err)
	}
	if got := warn.String(); !strings.Contains(got, "wall.yaml: infeasible (wall)") || strings.Contains(got, "good.yaml") {
		t.Errorf("warnings %q; want one infeasible wall on wall.yaml only", got)
	}
}
