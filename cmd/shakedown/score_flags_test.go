package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// scoreFlagsJSON is what the flag tests read of `score --json`.
type scoreFlagsJSON struct {
	DTWNorm  string `json:"dtw_norm"`
	Average  string `json:"average"`
	DTW      string `json:"dtw"`
	Time     string `json:"avg_time"`
	TimeNote string `json:"avg_time_note"`
	Table    struct {
		Cells [][]struct {
			Score           float64 `json:"score"`
			Similar         int     `json:"similar"`
			OutputDiversity float64 `json:"output_diversity"`
			Details         []struct {
				Score float64 `json:"test_score"`
			} `json:"details"`
		} `json:"cells"`
	} `json:"table"`
}

func scoreFlagsRun(t *testing.T, args ...string) scoreFlagsJSON {
	t.Helper()
	args = append([]string{"score", "--json", "--mission", "mission2", "--score-infeasible", "--logs", scoreData + "/logs"}, args...)
	code, out, errOut := sh(t, append(args, scoreData+"/gen-a", scoreData+"/gen-b")...)
	if code != 0 {
		t.Fatalf("score %v: exit %d; stderr %s", args, code, errOut)
	}
	var r scoreFlagsJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return r
}

// TestScoreDTWNorm scores the hand-made runs of testdata/score/logs on
// the three DTW scales. gen-b's tests fly straight lines along y, 120 s
// long, sampled every 10 s (13 points after the 0.5-s bins): test_0's two
// runs at x = 1 and 0.2 average to x = 0.6, test_1 flies at x = 8. The
// warping path is the diagonal of 13 pairs 7.4 m apart, so D_out is
// 13·7.4 = 96.2 (sum), 7.4 (path) and 96.2/26 = 3.7 (points). gen-a's
// test_0 (x = −3.9 on average) and test_1 (x = −4.05) are 0.15 apart.
func TestScoreDTWNorm(t *testing.T) {
	for _, c := range []struct {
		norm, want string
		a, b       float64
	}{
		{"", "path", 0.15, 7.4}, // 2026's default
		{"sum", "sum", 13 * 0.15, 13 * 7.4},
		{"path", "path", 0.15, 7.4},
		{"points", "points", 0.15 / 2, 7.4 / 2},
	} {
		t.Run(c.want+"/"+c.norm, func(t *testing.T) {
			args := []string{"--rules", "2026", "--average", "dba"}
			if c.norm != "" {
				args = append(args, "--dtw-norm", c.norm)
			}
			r := scoreFlagsRun(t, args...)
			if r.DTWNorm != c.want || !strings.HasPrefix(r.DTW, "DTW "+c.want+": ") {
				t.Errorf("dtw_norm %q, dtw %q; want %s named", r.DTWNorm, r.DTW, c.want)
			}
			a, b := r.Table.Cells[0][0].OutputDiversity, r.Table.Cells[1][0].OutputDiversity
			if !near1e9(a, c.a) || !near1e9(b, c.b) {
				t.Errorf("D_out %v, %v; want %v, %v", a, b, c.a, c.b)
			}
		})
	}
	// 2024: on the raw sum (the default) gen-b's tests are 96.2 apart, not
	// similar; per pair they are 7.4 apart, below 75: both similar, and the
	// penalty 1 − 2/3 (Eq. 3) cuts the suite score 15 + 5 to 20/3.
	sum := scoreFlagsRun(t, "--rules", "2024")
	path := scoreFlagsRun(t, "--rules", "2024", "--dtw-norm", "path")
	if s := sum.Table.Cells[1][0]; s.Similar != 0 || !near1e9(s.Score, 20) || sum.DTWNorm != "sum" {
		t.Errorf("2024 sum: %+v (dtw_norm %q); want no similar tests, score 20", s, sum.DTWNorm)
	}
	if p := path.Table.Cells[1][0]; p.Similar != 2 || !near1e9(p.Score, 20.0/3) {
		t.Errorf("2024 path: %+v; want 2 similar tests, score 20/3", p)
	}
	// 2025 uses no DTW: nothing is named.
	if r := scoreFlagsRun(t, "--rules", "2025", "--dtw-norm", "points"); r.DTW != "" || r.DTWNorm != "" || r.Average != "" {
		t.Errorf("2025 names a DTW: %q %q %q", r.DTW, r.DTWNorm, r.Average)
	}
}

// TestScoreAverage: --average names the averaging and changes it. DBA
// of two parallel lines is their mid-line, exactly; tslearn's soft-DTW
// barycenter (γ = 200) is found by L-BFGS and lands within 1e-6 of it,
// not on it.
func TestScoreAverage(t *testing.T) {
	soft := scoreFlagsRun(t, "--rules", "2026")
	dba := scoreFlagsRun(t, "--rules", "2026", "--average", "dba")
	if soft.Average != "soft-dtw" || !strings.Contains(soft.DTW, "soft-DTW barycenter (tslearn, γ = 200)") {
		t.Errorf("default: average %q, dtw %q; want soft-dtw named", soft.Average, soft.DTW)
	}
	if dba.Average != "dba" || !strings.Contains(dba.DTW, "DBA") {
		t.Errorf("--average dba: average %q, dtw %q; want dba named", dba.Average, dba.DTW)
	}
	s, d := soft.Table.Cells[1][0].OutputDiversity, dba.Table.Cells[1][0].OutputDiversity
	if !near1e9(d, 7.4) || s == d || !(abs(s-d) < 1e-6) {
		t.Errorf("D_out soft-dtw %v, dba %v; want dba 7.4 and soft-dtw within 1e-6 of it, not equal", s, d)
	}
}

// TestScoreTime: with --time airborne a run's time is the time in the
// air, 10 s to 110 s of the hand-made runs (100 s), instead of the whole
// 120-s log. gen-a test_0 (2 boxes, 1.5 points on average) scores
// 10·1.5/(2²·2 min) = 1.875 on the log and 10·1.5/(2²·5/3 min) = 2.25
// airborne; gen-b test_0 (1 box, 3 points) 15 and 18.
func TestScoreTime(t *testing.T) {
	for _, c := range []struct {
		time, want string
		a, b       float64
	}{
		{"", "log", 1.875, 15},
		{"log", "log", 1.875, 15},
		{"airborne", "airborne", 2.25, 18},
	} {
		args := []string{"--rules", "2025"}
		if c.time != "" {
			args = append(args, "--time", c.time)
		}
		r := scoreFlagsRun(t, args...)
		a, b := r.Table.Cells[0][0].Details[0].Score, r.Table.Cells[1][0].Details[0].Score
		if r.Time != c.want || r.TimeNote == "" || !near1e9(a, c.a) || !near1e9(b, c.b) {
			t.Errorf("--time %q: avg_time %q (%q), test_0 scores %v, %v; want %s, %v, %v", c.time, r.Time, r.TimeNote, a, b, c.want, c.a, c.b)
		}
	}
	_, out, _ := sh(t, "score", "--rules", "2024", "--mission", "mission2", "--time", "airborne", "--logs", scoreData+"/logs", scoreData+"/gen-b")
	if !strings.Contains(out, "\navg_time (airborne): the time in the air") || !strings.Contains(out, "\nDTW sum: ") {
		t.Errorf("the Markdown header does not name the time and the DTW scale:\n%s", out)
	}
}

func near1e9(a, b float64) bool { return abs(a-b) <= 1e-9*max(1, abs(b)) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
