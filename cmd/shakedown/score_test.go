package main

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/trace"
)

// updateGolden is the package's -update flag, defined here unless another
// test file of the package already has.
var updateGolden = func() *bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok {
				v := b
				return &v
			}
		}
	}
	return flag.Bool("update", false, "rewrite the golden files")
}()

const scoreData = "testdata/score"

// scoreJSON is the part of `score --json` the tests read.
type scoreJSON struct {
	Rules  int    `json:"rules"`
	Source string `json:"source"`
	Table  struct {
		Missions []string `json:"missions"`
		Tools    []string `json:"tools"`
		Cells    [][]struct {
			Tests           int     `json:"tests"`
			Evaluated       int     `json:"evaluated"`
			Critical        int     `json:"critical"`
			Invalid         int     `json:"invalid"`
			Duplicates      int     `json:"duplicates"`
			Score           float64 `json:"score"`
			Diversity       float64 `json:"diversity"`
			InputDiversity  float64 `json:"input_diversity"`
			OutputDiversity float64 `json:"output_diversity"`
			Details         []struct {
				Name      string `json:"name"`
				Invalid   string `json:"invalid"`
				Duplicate string `json:"duplicate_of"`
				Runs      []struct {
					ClearanceM *float64 `json:"clearance_m"`
					Points     float64  `json:"points"`
				} `json:"runs"`
				Score float64 `json:"test_score"`
			} `json:"details"`
			Ranks struct {
				Score int `json:"score"`
			} `json:"ranks"`
		} `json:"cells"`
		Overall []struct {
			Value float64 `json:"value"`
			Place int     `json:"place"`
		} `json:"overall"`
	} `json:"table"`
	Invalid []struct {
		Tool, Mission, Test, Reason string
		Evaluated                   bool
	} `json:"invalid_tests"`
}

func scoreRun(t *testing.T, args ...string) scoreJSON {
	t.Helper()
	code, out, errOut := sh(t, append([]string{"score", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	var r scoreJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestScoreFromLogs scores the hand-made runs of testdata/score/logs,
// straight flights along y at a fixed x past the obstacles, whose
// clearances are the distances to the boxes' edges:
//
//	gen-a test_0: two 10×3 boxes; runs 1.0 m (1 point) and 0.8 m (2), 2 min:
//	              10·1.5/(2²·2) = 1.875
//	gen-a test_1: two 14×4 boxes; 0.9 m (2) and 1.0 m (1), 3 min: 10·1.5/(4·3) = 1.25
//	gen-a test_2: test_0's boxes in the other order: a duplicate (IoU 1)
//	gen-a test_3: l = 25: invalid
//	gen-b test_0: one 6×10 box; 1.0 m (1) and 0.2 m (5), 2 min: 10·3/2 = 15
//	gen-b test_1: one 20×4 box; one run at 1.0 m (1): 10·1/2 = 5
//	gen-b test_2: not YAML: invalid
//
// 2025 diversity: gen-a's footprint unions (60 and 112 m²) share 10 m²:
// 1 − 10/162; gen-b's (60 and 80 m²) share 24 m²: 1 − 24/116.
//
// gen-a test_1's boxes leave a 2-m gap across leg 2 in its 15-m corridor:
// no way through keeps 1.5 m, so the test is infeasible and, by default,
// invalid (TestScoreInfeasible); these known answers score it
// (--score-infeasible) to exercise the formulas on more tests.
func TestScoreFromLogs(t *testing.T) {
	r := scoreRun(t, "--rules", "2025", "--mission", "mission2", "--score-infeasible", "--logs", scoreData+"/logs", scoreData+"/gen-a", scoreData+"/gen-b")
	if r.Source != "logs" || len(r.Table.Tools) != 2 || r.Table.Tools[0] != "gen-a" || r.Table.Missions[0] != "mission2" {
		t.Fatalf("table header %+v", r.Table)
	}
	a, b := r.Table.Cells[0][0], r.Table.Cells[1][0]
	if !near(a.Score, 3.125) || !near(b.Score, 20) {
		t.Errorf("failure scores %v, %v; want 3.125, 20", a.Score, b.Score)
	}
	if !near(a.Diversity, 1-10.0/162) || !near(b.Diversity, 1-24.0/116) {
		t.Errorf("diversities %v, %v; want %v, %v", a.Diversity, b.Diversity, 1-10.0/162, 1-24.0/116)
	}
	if a.Tests != 4 || a.Critical != 2 || a.Invalid != 1 || a.Duplicates != 1 || b.Tests != 3 || b.Invalid != 1 {
		t.Errorf("counts a %+v b %+v", a, b)
	}
	if a.Details[2].Duplicate != "test_0.yaml" {
		t.Errorf("test_2 duplicate_of %q; want test_0.yaml", a.Details[2].Duplicate)
	}
	// gen-b: failure rank 1, diversity 2: 0.75 + 0.5 = 1.25, first; gen-a
	// 1.5 + 0.25 = 1.75.
	if o := r.Table.Overall; o[0].Place != 2 || o[1].Place != 1 || !near(o[0].Value, 1.75) || !near(o[1].Value, 1.25) {
		t.Errorf("overall %+v", o)
	}
	names := map[string]bool{}
	for _, iv := range r.Invalid {
		names[iv.Tool+"/"+iv.Test] = iv.Evaluated && iv.Reason != ""
	}
	if !names["gen-a/test_3.yaml"] || !names["gen-b/test_2.yaml"] || len(names) != 2 {
		t.Errorf("invalid tests %+v; want gen-a/test_3.yaml and gen-b/test_2.yaml, evaluated, with reasons", r.Invalid)
	}
}

// TestScoreInfeasible: by default gen-a test_1 (a wall across leg 2) is
// invalid, as lint says: 0 points, named with the reason, and gen-a's
// failure score is test_0's alone.
func TestScoreInfeasible(t *testing.T) {
	r := scoreRun(t, "--rules", "2025", "--mission", "mission2", "--logs", scoreData+"/logs", scoreData+"/gen-a", scoreData+"/gen-b")
	if a := r.Table.Cells[0][0]; !near(a.Score, 1.875) || a.Invalid != 2 {
		t.Errorf("gen-a %+v; want score 1.875 (test_0 only), 2 invalid", a)
	}
	found := false
	for _, iv := range r.Invalid {
		found = found || iv.Tool+"/"+iv.Test == "gen-a/test_1.yaml" && strings.Contains(iv.Reason, "infeasible (wall)")
	}
	if !found {
		t.Errorf("invalid tests %+v; want gen-a/test_1.yaml, infeasible (wall)", r.Invalid)
	}
}

// TestScoreGolden renders the Markdown tables of the three editions from
// the hand-made runs (gen-a test_1 counted invalid as infeasible).
func TestScoreGolden(t *testing.T) {
	for _, rules := range []string{"2024", "2025", "2026"} {
		t.Run(rules, func(t *testing.T) {
			code, out, errOut := sh(t, "score", "--rules", rules, "--mission", "mission2", "--details",
				"--logs", scoreData+"/logs", scoreData+"/gen-a", scoreData+"/gen-b")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden := filepath.Join(scoreData, "golden-"+rules+".md")
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/shakedown -run TestScoreGolden -update)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (rerun with -update and review the diff):\n%s", golden, out)
			}
		})
	}
}

// TestScoreSimulated flies the suites on the embedded simulator, writes
// the runs with --out, and scores them again from what it wrote.
func TestScoreSimulated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs")
	args := []string{"--rules", "2026", "--mission", "mission2", "--runs", "2", scoreData + "/gen-a", scoreData + "/gen-b"}
	code, js, errOut := sh(t, append([]string{"score", "--json", "--out", out}, args...)...)
	var sim scoreJSON
	if code != 0 || json.Unmarshal([]byte(js), &sim) != nil {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "wrote "+out+": every run") {
		t.Errorf("stderr %q does not name %s", errOut, out)
	}
	if sim.Source != "simulated" {
		t.Fatalf("source %q", sim.Source)
	}
	for t2, cells := range sim.Table.Cells {
		for _, d := range cells[0].Details {
			want := 2
			if d.Invalid != "" {
				want = 0
			}
			if len(d.Runs) != want {
				t.Errorf("%s %s: %d runs; want %d", sim.Table.Tools[t2], d.Name, len(d.Runs), want)
			}
		}
	}
	f, err := os.Open(filepath.Join(out, "gen-a", "mission2", "test_0", "run_2", "trajectory.csv"))
	if err != nil {
		t.Fatalf("--out did not write the runs: %v", err)
	}
	tr, err := trace.ReadCSV(f)
	f.Close()
	if err != nil || len(tr) == 0 {
		t.Fatalf("trajectory.csv: %v", err)
	}
	// As Aerialist logs a flight: from run.DefaultPreArmS before arming.
	if tr[0].T > 1 {
		t.Errorf("the log starts at %v s", tr[0].T)
	}
	for _, p := range tr {
		if p.T < run.DefaultPreArmS && math.Abs(p.Pos.Z) > 0.2 {
			t.Fatalf("airborne (z %v) at %v s; want the first %v s on the ground", p.Pos.Z, p.T, run.DefaultPreArmS)
		}
	}
	// The HTML page of the runs names the rules, the DTW scale and avg_time.
	html := filepath.Join(t.TempDir(), "page.html")
	if code, _, errOut := sh(t, "report", out, "--out", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.Contains(string(page), "scored with the 2026 rules. DTW path: ") ||
		!strings.Contains(string(page), "avg_time (log): the whole run as Aerialist logs it") {
		t.Errorf("the report page of --out does not name the DTW scale and avg_time (%v)", err)
	}
	logs := scoreRun(t, "--rules", "2026", "--mission", "mission2", "--logs", out, scoreData+"/gen-a", scoreData+"/gen-b")
	for i := range sim.Table.Tools {
		s, l := sim.Table.Cells[i][0], logs.Table.Cells[i][0]
		// The CSV keeps 0.1 mm and the clearance is recomputed from it:
		// the scores agree unless a clearance sits on a band's edge.
		if math.Abs(s.Score-l.Score) > 1e-6*math.Max(1, s.Score) || s.InputDiversity != l.InputDiversity ||
			math.Abs(s.OutputDiversity-l.OutputDiversity) > 1e-2 {
			t.Errorf("%s: simulated %+v; rescored from --out %+v", sim.Table.Tools[i], s, l)
		}
	}
	// The same seed gives the same output.
	_, a, _ := sh(t, append([]string{"score"}, args...)...)
	_, b, _ := sh(t, append([]string{"score"}, args...)...)
	if a != b || a == "" {
		t.Errorf("two runs with the same seed differ")
	}
}

// TestScoreULog reads a real PX4 log as a run: the sample flight takes
// off and lands on the spot, far from the obstacles, so it scores no
// points, but it is read and counted.
func TestScoreULog(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	src, err := os.ReadFile(filepath.Join("testdata", "ulog", "sample_log_small.ulg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(logs, "test_0"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"test_1.ulg", "test_0/a.ulg", "test_0/b.ulg"} {
		if err := os.WriteFile(filepath.Join(logs, p), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := scoreRun(t, "--rules", "2024", "--mission", "mission2", "--logs", logs, scoreData+"/gen-b")
	c := r.Table.Cells[0][0]
	if got := []int{len(c.Details[0].Runs), len(c.Details[1].Runs)}; got[0] != 2 || got[1] != 1 {
		t.Fatalf("runs read %v; want [2 1]", got)
	}
	if cl := c.Details[0].Runs[0].ClearanceM; cl == nil || *cl < 1.5 || c.Score != 0 {
		t.Errorf("clearance %v, score %v; want a clearance above 1.5 m and no score", cl, c.Score)
	}
}

func TestScoreMultiMission(t *testing.T) {
	tool := filepath.Join(t.TempDir(), "tool")
	for _, m := range []string{"mission2", "mission3"} {
		if err := os.MkdirAll(filepath.Join(tool, m), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(scoreData + "/gen-b/test_0.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tool, m, "test_0.yaml"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := scoreRun(t, "--rules", "2025", "--mission", "mission2", "--mission", "mission3", "--runs", "1", tool)
	if len(r.Table.Missions) != 2 || r.Table.Cells[0][1].Tests != 1 || r.Table.Cells[0][0].Details[0].Runs == nil {
		t.Errorf("missions %v, tool on mission3 %+v", r.Table.Missions, r.Table.Cells[0][1])
	}
	// A tool without a mission3 folder: exit 2, naming it.
	if err := os.RemoveAll(filepath.Join(tool, "mission3")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := sh(t, "score", "--mission", "mission2", "--mission", "mission3", tool)
	if code != 2 || !strings.Contains(errOut, "mission3") {
		t.Errorf("exit %d, stderr %q; want 2 naming mission3", code, errOut)
	}
}

func TestScoreBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing folder", []string{"--mission", "mission2", scoreData + "/no-such-tool"}, "no-such-tool"},
		{"missing mission", []string{"--mission", "mission9", scoreData + "/gen-a"}, "mission9"},
		{"missing mission file", []string{"--mission", "nowhere/m.yaml", scoreData + "/gen-a"}, "m.yaml"},
		{"no mission", []string{scoreData + "/gen-a"}, "--mission"},
		{"mission folder missing", []string{"--mission", "mission2", "--mission", "mission3", scoreData + "/gen-a"}, "no folder"},
		{"bad rules", []string{"--rules", "2023", "--mission", "mission2", scoreData + "/gen-a"}, "--rules"},
		{"bad selection", []string{"--select", "best", "--mission", "mission2", scoreData + "/gen-a"}, "--select"},
		{"no runs", []string{"--runs", "0", "--mission", "mission2", scoreData + "/gen-a"}, "--runs"},
		{"logs and out", []string{"--logs", scoreData + "/logs", "--out", "x", "--mission", "mission2", scoreData + "/gen-a"}, "--out"},
		{"missing logs", []string{"--logs", scoreData + "/nologs", "--mission", "mission2", scoreData + "/gen-a"}, "nologs"},
		{"no suite", []string{"--mission", "mission2"}, "missing <suite-dir>"},
		{"bad dtw norm", []string{"--dtw-norm", "mean", "--mission", "mission2", scoreData + "/gen-a"}, "--dtw-norm"},
		{"dtw norm default", []string{"--dtw-norm", "default", "--mission", "mission2", scoreData + "/gen-a"}, "--dtw-norm"},
		{"bad average", []string{"--average", "mean", "--mission", "mission2", scoreData + "/gen-a"}, "--average"},
		{"empty average", []string{"--average", "", "--mission", "mission2", scoreData + "/gen-a"}, "--average"},
		{"bad time", []string{"--time", "air", "--mission", "mission2", scoreData + "/gen-a"}, "--time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := sh(t, append([]string{"score"}, c.args...)...)
			if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, a message naming %q", code, out, errOut, c.want)
			}
		})
	}
}

func TestScoreBrokenLog(t *testing.T) {
	logs := t.TempDir()
	if err := os.WriteFile(filepath.Join(logs, "test_0.ulg"), []byte("not a log"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := sh(t, "score", "--mission", "mission2", "--logs", logs, scoreData+"/gen-b")
	if code != 2 || !strings.Contains(errOut, "test_0.ulg") {
		t.Errorf("exit %d, stderr %q; want 2 naming test_0.ulg", code, errOut)
	}
}
