package bench_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/traj"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// fixedClock is a wall clock that never moves, for byte-stable results.
func fixedClock() time.Time { return time.Date(2026, 7, 10, 12, 0, 0, 0, time.UTC) }

func run(t *testing.T, cfg bench.Config) *bench.Result {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = fixedClock
	}
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// statuses returns "test[param]=status" for every case.
func statuses(res *bench.Result) map[string]bench.Status {
	m := map[string]bench.Status{}
	for _, c := range res.Cases {
		m[c.Name()] = c.Status
	}
	return m
}

// TestChainPasses flies the default chain for one robot and checks every
// phase passed and every AirStack metric key is there with its unit.
func TestChainPasses(t *testing.T) {
	res := run(t, bench.Config{NumRobots: []int{1}})
	if got, want := len(res.Cases), 1+4*3; got != want {
		t.Fatalf("cases: got %d; want %d (ready once, then takeoff, trajectory, landing per type)", got, want)
	}
	for _, c := range res.Cases {
		if c.Status != bench.Passed {
			t.Errorf("%s: %s: %s", c.Name(), c.Status, c.Message)
		}
	}
	units := map[string]string{
		"ready_duration_sys_s": "s", "takeoff_duration_sim_s": "s", "altitude_error_m": "m", "overshoot_m": "m",
		"trajectory_success": "", "trajectory_execution_time_sim_s": "s", "cross_track_error_mean_m": "m",
		"cross_track_error_max_m": "m", "path_rmse_m": "m", "land_duration_sim_s": "s", "final_altitude_m": "m",
		"segment_cross_track_error_mean_m": "m", "segment_cross_track_error_max_m": "m", "segment_path_rmse_m": "m",
		"lateral_error_mean_m": "m", "along_track_lag_mean_m": "m", "along_track_lag_max_m": "m", "arrival_error_m": "m",
	}
	seen := map[string]bool{}
	for id, ms := range res.Metrics {
		for k, m := range ms {
			key := strings.TrimPrefix(k, "robot_1.")
			u, ok := units[key]
			if !ok {
				t.Errorf("%s: unexpected metric %s", id, k)
				continue
			}
			seen[key] = true
			if m.Unit != u {
				t.Errorf("%s %s: unit %q; want %q", id, k, m.Unit, u)
			}
			want := bench.LowerIsBetter
			switch key {
			case "trajectory_success":
				want = bench.HigherIsBetter
			case "lateral_error_mean_m":
				want = bench.Informational
			}
			if m.Direction != want {
				t.Errorf("%s %s: direction %s; want %s", id, k, m.Direction, want)
			}
		}
	}
	for k := range units {
		if !seen[k] {
			t.Errorf("metric %s never recorded", k)
		}
	}
	circle := res.Metrics["test_fixed_trajectory.TestFixedTrajectory.test_fixed_trajectory[shakedown-rob#1-trajCircle-iter0]"]
	// AirStack's Circle floor: the radial legs keep the vertex metric's
	// max at 5 m whatever the tracker does.
	if m := circle["robot_1.cross_track_error_max_m"]; m.Value < 4.9 {
		t.Errorf("Circle vertex max: got %v; want ≈ 5 (the metric's floor)", m.Value)
	}
	if m := circle["robot_1.segment_cross_track_error_mean_m"]; m.Value > 0.1 {
		t.Errorf("Circle distance to path: got %v m; want < 0.1", m.Value)
	}
}

// TestMultiRobot flies three robots together: each has its own metrics,
// start points are 40 m apart, and they all pass.
func TestMultiRobot(t *testing.T) {
	res := run(t, bench.Config{NumRobots: []int{3}, Types: []string{traj.Line}})
	m := res.Metrics["test_fixed_trajectory.TestFixedTrajectory.test_fixed_trajectory[shakedown-rob#3-trajLine-iter0]"]
	for n := 1; n <= 3; n++ {
		if _, ok := m[fmt.Sprintf("robot_%d.cross_track_error_mean_m", n)]; !ok {
			t.Errorf("robot_%d has no cross-track metric", n)
		}
	}
	if len(res.Flights) != 3 {
		t.Fatalf("flights: got %d; want 3", len(res.Flights))
	}
	for i, f := range res.Flights {
		want := 40 * float64(i)
		if y := f.Ideal[0].Y; y < want-1 || y > want+1 {
			t.Errorf("robot %d starts at y = %.1f; want ≈ %g", f.Robot, y, want)
		}
	}
	for _, c := range res.Cases {
		if c.Status != bench.Passed {
			t.Errorf("%s: %s %s", c.Name(), c.Status, c.Message)
		}
	}
}

// TestPoisoning stops a motor before the Figure8 takeoff: that takeoff
// fails, the environment is poisoned, and the rest of Figure8 and every
// later type are skipped; Circle before it passed.
func TestPoisoning(t *testing.T) {
	cfg := bench.Config{NumRobots: []int{1}, Inject: func(p bench.PhaseInfo, sims []*vehicle.Sim) {
		if p.Type == traj.Figure8 && p.Test == bench.TestTakeoff {
			sims[0].Quad().Faults.MotorStopped[0] = true
		}
	}}
	got := statuses(run(t, cfg))
	want := map[string]bench.Status{}
	for _, typ := range traj.Types() {
		p := "[shakedown-rob#1-traj" + typ + "-iter0]"
		for _, test := range []string{bench.TestTakeoff, bench.TestTrajectory, bench.TestLanding} {
			switch typ {
			case traj.Circle:
				want[test+p] = bench.Passed
			case traj.Figure8:
				want[test+p] = bench.Skipped
			default:
				want[test+p] = bench.Skipped
			}
		}
	}
	want[bench.TestReady+"[shakedown-rob#1-trajCircle-iter0]"] = bench.Passed
	want[bench.TestTakeoff+"[shakedown-rob#1-trajFigure8-iter0]"] = bench.Failed
	if !reflect.DeepEqual(got, want) {
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: got %s; want %s", k, got[k], w)
			}
		}
	}
}

// TestTrajectoryFailureLands makes the Circle time out (0.2 m/s needs
// 400 s): the trajectory fails with a timeout sentinel, but landing still
// runs and passes, and the next type flies.
func TestTrajectoryFailureLands(t *testing.T) {
	res := run(t, bench.Config{NumRobots: []int{1}, Types: []string{traj.Circle, traj.Line},
		Params: map[string]map[string]float64{traj.Circle: {"velocity": 0.2}}})
	got := statuses(res)
	for name, want := range map[string]bench.Status{
		"test_fixed_trajectory[shakedown-rob#1-trajCircle-iter0]": bench.Failed,
		"test_landing[shakedown-rob#1-trajCircle-iter0]":          bench.Passed,
		"test_takeoff[shakedown-rob#1-trajLine-iter0]":            bench.Passed,
		"test_fixed_trajectory[shakedown-rob#1-trajLine-iter0]":   bench.Passed,
	} {
		if got[name] != want {
			t.Errorf("%s: got %s; want %s", name, got[name], want)
		}
	}
	m := res.Metrics["test_fixed_trajectory.TestFixedTrajectory.test_fixed_trajectory[shakedown-rob#1-trajCircle-iter0]"]
	if e := m["robot_1.trajectory_execution_time_sim_s"]; e.Sentinel != "timeout" {
		t.Errorf("execution time: got %v; want the timeout sentinel", e)
	}
	if s := m["robot_1.trajectory_success"]; s.Value != 0 {
		t.Errorf("trajectory_success: got %v; want 0", s.Value)
	}
}

// TestDeterministic runs the same campaign twice: same seed, same result.
// A different seed changes the numbers.
func TestDeterministic(t *testing.T) {
	cfg := bench.Config{NumRobots: []int{1, 3}, Types: []string{traj.Racetrack}, Seed: 7, Workers: 2}
	a, b := run(t, cfg), run(t, cfg)
	if !reflect.DeepEqual(a.Metrics, b.Metrics) || !reflect.DeepEqual(a.Cases, b.Cases) {
		t.Errorf("two runs with seed 7 differ")
	}
	cfg.Seed = 8
	c := run(t, cfg)
	if reflect.DeepEqual(a.Metrics, c.Metrics) {
		t.Errorf("seeds 7 and 8 gave the same metrics")
	}
	if a.Meta.Fingerprint != c.Meta.Fingerprint {
		t.Errorf("the seed changed the campaign fingerprint")
	}
}

// TestSelection checks -k and -m: deselected phases are flown when the
// chain needs them but not reported; the hover suite runs under its mark.
func TestSelection(t *testing.T) {
	res := run(t, bench.Config{NumRobots: []int{1}, Keyword: "test_fixed_trajectory[ and Line"})
	if len(res.Cases) != 1 || res.Cases[0].Name() != "test_fixed_trajectory[shakedown-rob#1-trajLine-iter0]" {
		t.Fatalf("cases: got %v; want only the Line trajectory", res.Cases)
	}
	if res.Cases[0].Status != bench.Passed {
		t.Errorf("Line trajectory (after an unreported takeoff): %s %s", res.Cases[0].Status, res.Cases[0].Message)
	}
	if len(res.Metrics) != 1 {
		t.Errorf("metrics of %d tests; want 1", len(res.Metrics))
	}
	h := run(t, bench.Config{NumRobots: []int{1}, Marks: bench.MarkTakeoffHoverLand, TakeoffVelocities: []float64{1}})
	got := statuses(h)
	for _, test := range []string{bench.TestReady, bench.TestTakeoff, bench.TestHover, bench.TestLanding} {
		name := test + "[shakedown-rob#1-vel1-iter0]"
		if got[name] != bench.Passed {
			t.Errorf("%s: got %q; want passed", name, got[name])
		}
	}
	hm := h.Metrics["test_takeoff_hover_land.TestTakeoffHoverLand.test_hover[shakedown-rob#1-vel1-iter0]"]
	if m, ok := hm["robot_1.hover_altitude_mean_error_m"]; !ok || m.Value >= 0.5 {
		t.Errorf("hover altitude error: got %v; want < 0.5 m", m)
	}
	if _, err := bench.Run(context.Background(), bench.Config{Keyword: "nothing-matches-this"}); !errors.Is(err, bench.ErrNoTests) {
		t.Errorf("empty selection: got %v; want ErrNoTests", err)
	}
}

// TestBadConfig checks that bad campaigns are refused, naming the culprit.
func TestBadConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  bench.Config
		says string
	}{
		{"unknown type", bench.Config{Types: []string{"Spiral"}}, "Spiral"},
		{"unknown tracker", bench.Config{Tracker: "mpc"}, "mpc"},
		{"unknown param", bench.Config{Types: []string{traj.Line}, Params: map[string]map[string]float64{traj.Line: {"radius": 3}}}, "radius"},
		{"zero radius", bench.Config{Types: []string{traj.Circle}, Params: map[string]map[string]float64{traj.Circle: {"radius": 0}}}, "radius"},
		{"negative speed", bench.Config{Types: []string{traj.Line}, Params: map[string]map[string]float64{traj.Line: {"velocity": -1}}}, "velocity"},
		{"zero robots", bench.Config{NumRobots: []int{0}}, "robot count"},
		{"bad keyword", bench.Config{Keyword: "(Line"}, "(Line"},
		{"negative wind", bench.Config{WindMS: -1}, "wind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := bench.Run(context.Background(), c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("got %v; want an error naming %q", err, c.says)
			}
		})
	}
}

// BenchmarkDefaultSweep is the default sweep without writing results: four
// types, robot counts 1 and 3, one iteration.
func BenchmarkDefaultSweep(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bench.Run(context.Background(), bench.Config{Now: fixedClock, Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
}
