package compare_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/compare"
	"github.com/shakedown-robotics/shakedown/bench/results"
)

const trajID = "test_fixed_trajectory.TestFixedTrajectory.test_fixed_trajectory[shakedown-rob#1-trajCircle-iter%d]"

// mkRun builds a two-iteration run whose Circle metrics are scaled by f per
// metric (1 = the baseline's values).
func mkRun(name, tracker string, f map[string]float64, sentinel string) *results.Run {
	base := map[string]bench.Metric{
		"robot_1.cross_track_error_mean_m":         {Value: 1.0, Unit: "m", Direction: bench.LowerIsBetter},
		"robot_1.segment_cross_track_error_mean_m": {Value: 0.2, Unit: "m", Direction: bench.LowerIsBetter},
		"robot_1.trajectory_execution_time_sim_s":  {Value: 46, Unit: "s", Direction: bench.LowerIsBetter},
		"robot_1.trajectory_success":               {Value: 1, Direction: bench.HigherIsBetter},
		"robot_1.lateral_error_mean_m":             {Value: -0.1, Unit: "m", Direction: bench.Informational},
		"robot_1.ready_duration_sys_s":             {Value: 0.01, Unit: "s", Direction: bench.LowerIsBetter},
	}
	r := &results.Run{Name: name, Metrics: map[string]map[string]bench.Metric{}}
	meta := bench.Meta{Sim: bench.SimName, Tracker: tracker, Types: []string{"Circle"}, NumRobots: []int{1}, Iterations: 2}
	for it := range 2 {
		id := strings.Replace(trajID, "%d", string(rune('0'+it)), 1)
		ms := map[string]bench.Metric{}
		for k, m := range base {
			if s, ok := f[k]; ok {
				m.Value *= s
			}
			ms[k] = m
		}
		if sentinel != "" && it == 1 {
			ms["robot_1.trajectory_execution_time_sim_s"] = bench.Metric{Sentinel: sentinel, Unit: "s", Direction: bench.LowerIsBetter}
		}
		r.Metrics[id] = ms
		c := bench.Case{Module: bench.ModuleTrajectory, Class: bench.ClassTrajectory, Test: bench.TestTrajectory,
			Param: "shakedown-rob#1-trajCircle-iter" + string(rune('0'+it)), Status: bench.Passed}
		r.Cases = append(r.Cases, c)
		meta.Selected = append(meta.Selected, c.ID())
	}
	meta.Fingerprint = meta.CampaignFingerprint()
	r.Meta = &meta
	return r
}

func TestCompare(t *testing.T) {
	base := mkRun("base", "airstack", nil, "")
	cases := []struct {
		name        string
		cur         *results.Run
		regressions int
		flagged     string // a metric that must be flagged a regression
		improved    string
	}{
		{"identical", mkRun("cur", "feedforward", nil, ""), 0, "", ""},
		{"noise under the threshold", mkRun("cur", "feedforward", map[string]float64{"robot_1.cross_track_error_mean_m": 1.1, "robot_1.trajectory_execution_time_sim_s": 1.15}, ""), 0, "", ""},
		{"injected regression", mkRun("cur", "feedforward", map[string]float64{"robot_1.cross_track_error_mean_m": 1.3}, ""), 1, "robot_1.cross_track_error_mean_m", ""},
		{"under the floor", mkRun("cur", "feedforward", map[string]float64{"robot_1.segment_cross_track_error_mean_m": 1.2}, ""), 0, "", ""},
		{"improvement", mkRun("cur", "feedforward", map[string]float64{"robot_1.segment_cross_track_error_mean_m": 0.2}, ""), 0, "", "robot_1.segment_cross_track_error_mean_m"},
		{"higher is better falls", mkRun("cur", "feedforward", map[string]float64{"robot_1.trajectory_success": 0.5}, ""), 1, "robot_1.trajectory_success", ""},
		{"timeout against numbers", mkRun("cur", "feedforward", nil, "timeout"), 1, "robot_1.trajectory_execution_time_sim_s", ""},
		{"informational and wall clock are not judged", mkRun("cur", "feedforward", map[string]float64{"robot_1.lateral_error_mean_m": 10, "robot_1.ready_duration_sys_s": 100}, ""), 0, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := compare.Compare(c.cur, base, compare.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Regressions(); got != c.regressions {
				t.Errorf("regressions: got %d; want %d\n%s", got, c.regressions, rep.Markdown())
			}
			for _, row := range rep.Rows {
				if row.Metric == c.flagged && row.Flag != compare.Regression {
					t.Errorf("%s: flag %v; want a regression", row.Metric, row.Flag)
				}
				if row.Metric == c.improved && row.Flag != compare.Improvement {
					t.Errorf("%s: flag %v; want an improvement", row.Metric, row.Flag)
				}
			}
			md := rep.Markdown()
			if c.regressions > 0 && (!strings.Contains(md, "**Regression detected**") || !strings.Contains(md, ":red_circle:")) {
				t.Errorf("report does not say so:\n%s", md)
			}
			if c.regressions == 0 && !strings.Contains(md, "No regression") {
				t.Errorf("report does not say no regression:\n%s", md)
			}
		})
	}
}

// TestIncomparable refuses runs of different campaigns unless forced, and
// runs without run_meta.json.
func TestIncomparable(t *testing.T) {
	base := mkRun("base", "airstack", nil, "")
	cur := mkRun("cur", "feedforward", nil, "")
	cur.Meta.NumRobots = []int{3}
	cur.Meta.Fingerprint = cur.Meta.CampaignFingerprint()
	_, err := compare.Compare(cur, base, compare.DefaultOptions())
	if !errors.Is(err, compare.ErrIncomparable) || !strings.Contains(err.Error(), "num_robots") {
		t.Fatalf("got %v; want ErrIncomparable naming num_robots", err)
	}
	opt := compare.DefaultOptions()
	opt.Force = true
	rep, err := compare.Compare(cur, base, opt)
	if err != nil || len(rep.ConfigDiff) == 0 || !strings.Contains(rep.Markdown(), "Campaigns differ") {
		t.Errorf("forced: got %v, %v", rep, err)
	}
	cur.Meta = nil
	if _, err := compare.Compare(cur, base, compare.DefaultOptions()); !errors.Is(err, compare.ErrIncomparable) {
		t.Errorf("no run_meta.json: got %v; want ErrIncomparable", err)
	}
	if _, err := compare.Compare(base, base, compare.Options{ThresholdPct: -1}); !errors.Is(err, compare.ErrBadOptions) {
		t.Errorf("negative threshold: got %v; want ErrBadOptions", err)
	}
}

// TestPassRateRegression flags a test that passed in the baseline and fails
// now.
func TestPassRateRegression(t *testing.T) {
	base := mkRun("base", "airstack", nil, "")
	cur := mkRun("cur", "feedforward", nil, "")
	cur.Cases[1].Status = bench.Failed
	rep, err := compare.Compare(cur, base, compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Regressions() != 1 || len(rep.RateRegressions) != 1 {
		t.Errorf("regressions: got %d (%v); want the pass rate", rep.Regressions(), rep.RateRegressions)
	}
}

// TestSingle tabulates one run with means over iterations.
func TestSingle(t *testing.T) {
	rep := compare.Single(mkRun("cur", "feedforward", nil, "timeout"))
	md := rep.Markdown()
	for _, want := range []string{"| test_fixed_trajectory[shakedown-rob#1-trajCircle] | robot_1.cross_track_error_mean_m", "1 ± 0 m (n=2)", "46 ± 0 s (n=1, timeout)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
