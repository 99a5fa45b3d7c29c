package results_test

import (
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/results"
	"github.com/shakedown-robotics/shakedown/traj"
)

var update = flag.Bool("update", false, "rewrite golden files")

func fixedClock() time.Time { return time.Date(2026, 7, 10, 12, 0, 0, 0, time.UTC) }

// synthetic is a hand-built result: two iterations of a Circle chain with
// two robots (one timing out once), and one takeoff_hover_land cycle.
func synthetic() *bench.Result {
	res := &bench.Result{Started: fixedClock(), Metrics: map[string]map[string]bench.Metric{}}
	add := func(c bench.Case, ms map[string]bench.Metric) {
		res.Cases = append(res.Cases, c)
		if ms != nil {
			res.Metrics[c.ID()] = ms
		}
	}
	num := func(v float64, unit string) bench.Metric {
		return bench.Metric{Value: v, Unit: unit, Direction: bench.LowerIsBetter}
	}
	for it, exec := range []float64{43.6, 44.2} {
		p := "shakedown-rob#2-trajCircle-iter" + string(rune('0'+it))
		mk := func(test string, st bench.Status, wall, sim float64) bench.Case {
			return bench.Case{Module: bench.ModuleTrajectory, Class: bench.ClassTrajectory, Test: test, Param: p, Status: st, WallS: wall, SimS: sim}
		}
		add(mk(bench.TestReady, bench.Passed, 0.001, 2), map[string]bench.Metric{"robot_1.ready_duration_sys_s": num(0, "s"), "robot_2.ready_duration_sys_s": num(0, "s")})
		add(mk(bench.TestTakeoff, bench.Passed, 0.01, 11.9), map[string]bench.Metric{
			"robot_1.altitude_error_m": num(0.07+0.01*float64(it), "m"), "robot_1.takeoff_duration_sim_s": num(9.035, "s"),
			"robot_2.altitude_error_m": num(0.09, "m"),
		})
		tc := mk(bench.TestTrajectory, bench.Passed, 0.03, exec)
		second := num(exec, "s")
		success := 1.0
		if it == 1 {
			tc.Status, tc.Message = bench.Failed, "robot_2: trajectory not complete after 180 s"
			second = bench.Metric{Sentinel: "timeout", Unit: "s", Direction: bench.LowerIsBetter}
			success = 0
		}
		add(tc, map[string]bench.Metric{
			"robot_1.trajectory_success":               {Value: 1, Direction: bench.HigherIsBetter},
			"robot_1.trajectory_execution_time_sim_s":  num(exec, "s"),
			"robot_1.cross_track_error_mean_m":         num(0.894, "m"),
			"robot_1.segment_cross_track_error_mean_m": num(0.04+0.002*float64(it), "m"),
			"robot_1.lateral_error_mean_m":             {Value: -0.008, Unit: "m", Direction: bench.Informational},
			"robot_2.trajectory_success":               {Value: success, Direction: bench.HigherIsBetter},
			"robot_2.trajectory_execution_time_sim_s":  second,
		})
		add(mk(bench.TestLanding, bench.Passed, 0.002, 12.4), map[string]bench.Metric{"robot_1.final_altitude_m": num(-0.048, "m")})
	}
	hp := "shakedown-rob#1-vel0.5-iter0"
	hk := func(test string, st bench.Status) bench.Case {
		return bench.Case{Module: bench.ModuleHover, Class: bench.ClassHover, Test: test, Param: hp, Status: st, WallS: 0.002, SimS: 10}
	}
	add(hk(bench.TestReady, bench.Passed), nil)
	add(hk(bench.TestTakeoff, bench.Passed), map[string]bench.Metric{"robot_1.velocity_rmse_m_sim_s": num(0.07, "m/s")})
	add(hk(bench.TestHover, bench.Passed), map[string]bench.Metric{"robot_1.hover_altitude_mean_error_m": num(0.026, "m")})
	add(hk(bench.TestLanding, bench.Skipped), nil)
	res.Cases[len(res.Cases)-1].Message = "environment poisoned by nothing"
	res.Meta = bench.Meta{SchemaVersion: 2, Sim: bench.SimName, Tracker: "feedforward", Seed: 1, Types: []string{traj.Circle},
		NumRobots: []int{2}, Iterations: 2, Marks: "autonomy or takeoff_hover_land", WindMS: 1, GustMS: 0.5, SeparationM: 40}
	for _, c := range res.Cases {
		res.Meta.Selected = append(res.Meta.Selected, c.ID())
	}
	res.Meta.Fingerprint = res.Meta.CampaignFingerprint()
	return res
}

// TestSummaryGolden renders summary.txt for the synthetic result.
func TestSummaryGolden(t *testing.T) {
	got := results.Summary(results.FromResult("2026-07-10_12-00-00", synthetic()))
	golden := filepath.Join("testdata", "summary.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("summary.txt differs from %s (rerun with -update and review the diff):\n%s", golden, got)
	}
}

// TestJUnit checks that results.xml parses with encoding/xml, its counts
// match the cases, and it decodes back into the same cases.
func TestJUnit(t *testing.T) {
	res := synthetic()
	data, err := results.EncodeJUnit(res.Cases, "2026-07-10T12:00:00")
	if err != nil {
		t.Fatal(err)
	}
	var root results.Suites
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("results.xml does not parse: %v", err)
	}
	var tests, failures, skipped int
	for _, s := range root.Suites {
		tests += len(s.Cases)
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d; has %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			if c.Failure != nil {
				failures++
			}
			if c.Skipped != nil {
				skipped++
			}
		}
	}
	if tests != len(res.Cases) || root.Tests != tests || root.Failures != failures || root.Skipped != skipped || failures != 1 || skipped != 1 {
		t.Errorf("counts: root tests=%d failures=%d skipped=%d; testcases %d, failures %d, skipped %d; cases %d (1 failed, 1 skipped)",
			root.Tests, root.Failures, root.Skipped, tests, failures, skipped, len(res.Cases))
	}
	if len(root.Suites) != 2 || root.Suites[0].Name != bench.ModuleTrajectory || root.Suites[1].Name != bench.ModuleHover {
		t.Errorf("suites: got %d; want one per module in order", len(root.Suites))
	}
	back, err := results.DecodeJUnit(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		a, b := back[i], res.Cases[i]
		if a.ID() != b.ID() || a.Status != b.Status || a.Message != b.Message || a.WallS != b.WallS || (b.Status != bench.Skipped && a.SimS != b.SimS) {
			t.Errorf("case %d: got %+v; want %+v", i, a, b)
		}
	}
}

// TestMetricsRoundTrip checks metrics.json: AirStack's schema, numbers and
// sentinels, back to the same values.
func TestMetricsRoundTrip(t *testing.T) {
	res := synthetic()
	data, err := results.EncodeMetrics(res.Metrics)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"value": "timeout"`) || !strings.Contains(string(data), `"direction": "higher_is_better"`) {
		t.Errorf("metrics.json lacks the sentinel or the direction:\n%s", data)
	}
	back, err := results.DecodeMetrics(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, res.Metrics) {
		t.Errorf("round trip differs")
	}
}

var decodeSeeds = []string{
	`{"t": {"robot_1.x_m": {"value": 1.5, "unit": "m", "direction": "lower_is_better"}}}`,
	`{"t": {"robot_1.x_m": {"value": "timeout", "unit": "s"}}}`,
	`{"t": {"rate_samples": {"samples": [{"t": 0, "hz": 30}]}}}`,
	`{"t": {"robot_1.x_m": {"value": null}}}`,
	`{"t": {"robot_1.x_m": {"value": true}}}`,
	`[1, 2]`,
	`{"t": {"robot_1.x_m": {"value": 1e999}}}`,
}

func TestDecodeMetricsErrors(t *testing.T) {
	for _, s := range decodeSeeds[3:] {
		_, err := results.DecodeMetrics([]byte(s))
		var pe *results.ParseError
		if !errors.As(err, &pe) || pe.File != results.MetricsFile {
			t.Errorf("%s: got %v; want a ParseError naming metrics.json", s, err)
		}
	}
}

func FuzzDecodeMetrics(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := results.DecodeMetrics(data)
		if err != nil {
			return
		}
		// What decodes encodes, and decodes to the same.
		again, err := results.EncodeMetrics(m)
		if err != nil {
			return // NaN cannot come from JSON; other errors are fine to refuse
		}
		m2, err := results.DecodeMetrics(again)
		if err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

func FuzzDecodeJUnit(f *testing.F) {
	data, _ := results.EncodeJUnit(synthetic().Cases, "x")
	f.Add(data)
	f.Add([]byte(`<testsuites><testsuite><testcase classname="a" name="b"/></testsuite></testsuites>`))
	f.Add([]byte(`<testsuites><testsuite><testcase classname="m.C" name="t[p]" time="x"/></testsuite></testsuites>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := results.DecodeJUnit(data)
		if err != nil {
			return
		}
		for _, c := range cases {
			if c.Module == "" || c.Test == "" || c.Status == "" {
				t.Fatalf("decoded an incomplete case %+v", c)
			}
		}
	})
}

// TestWriteRead writes a real (small) campaign and reads it back.
func TestWriteRead(t *testing.T) {
	res, err := bench.Run(context.Background(), bench.Config{NumRobots: []int{1}, Types: []string{traj.Line}, Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir, err := results.Write(root, res)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "2026-07-10_12-00-00" {
		t.Errorf("directory: got %s; want 2026-07-10_12-00-00", filepath.Base(dir))
	}
	for _, f := range []string{results.MetricsFile, results.JUnitFile, results.SummaryFile, results.MetaFile,
		"plots/path-Line-rob1-iter0-robot1.png", "plots/error-Line-rob1-iter0.png", "tracks/Line-rob1-iter0.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	again, err := results.Write(root, res)
	if err != nil || filepath.Base(again) != "2026-07-10_12-00-00-2" {
		t.Errorf("second write: got %s, %v; want a -2 suffix", again, err)
	}
	run, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(run.Metrics, res.Metrics) || len(run.Cases) != len(res.Cases) || run.Meta.Fingerprint != res.Meta.Fingerprint {
		t.Errorf("read back differs")
	}
	if _, err := results.Read(filepath.Join(root, "missing")); err == nil {
		t.Errorf("reading a missing directory: no error")
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}
}

func TestNewest(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"2026-01-02_10-00-00", "2026-01-02_10-00-00-2", "2026-01-02_10-00-00-10", "2025-12-31_23-59-59", "notes", "2027-01-01_00-00-00"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d == "2027-01-01_00-00-00" || d == "notes" {
			continue // no metrics.json: not a run
		}
		if err := os.WriteFile(filepath.Join(root, d, results.MetricsFile), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, n, err := results.Newest(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "2026-01-02_10-00-00-10"); got != want || n != 4 {
		t.Errorf("got %s (%d runs); want %s (4 runs)", got, n, want)
	}
	run := filepath.Join(root, "2025-12-31_23-59-59")
	if got, _, err := results.Newest(run); err != nil || got != run {
		t.Errorf("a run directory: got %q, %v; want itself", got, err)
	}
	if _, _, err := results.Newest(filepath.Join(root, "notes")); !errors.Is(err, results.ErrNoMetrics) {
		t.Errorf("a folder without runs: got %v; want results.ErrNoMetrics", err)
	}
}
