package run_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// estimated is a vehicle without ground truth: the simulator seen only
// through vehicle.Vehicle, as a MAVLink link sees it.
type estimated struct{ vehicle.Vehicle }

// A vehicle without ground truth is judged on its own estimate, sampled at
// 10 Hz: the same verdict as the judgement on the simulator's truth, a
// clearance within the estimator's noise, and a reason that says so.
func TestFlyEstimated(t *testing.T) {
	cs := builtin(t, "mission2")
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}, {L: 10, W: 5, H: 20, X: -10, Y: 20}}
	opt := run.Options{Seed: 3}
	truth, _, err := run.FlySim(context.Background(), cs, opt)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := run.NewSim(cs, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := run.Fly(context.Background(), estimated{s}, cs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != truth.Verdict || got.Completed != truth.Completed || got.MinObstacle != truth.MinObstacle {
		t.Errorf("verdict %s completed %v obstacle %d; want %s %v %d (the judgement on the truth)",
			got.Verdict, got.Completed, got.MinObstacle, truth.Verdict, truth.Completed, truth.MinObstacle)
	}
	// The estimate follows the truth to centimetres (GNSS-aided EKF-like
	// filter); 0.2 m also covers the 10-Hz sampling of a 2-m/s flight.
	if d := math.Abs(*got.MinClearanceM - *truth.MinClearanceM); d > 0.2 {
		t.Errorf("clearance %.3f m; want %.3f ± 0.2 m", *got.MinClearanceM, *truth.MinClearanceM)
	}
	if math.Abs(got.FlightTimeS-truth.FlightTimeS) > 1 {
		t.Errorf("flight time %.1f s; want %.1f ± 1 s", got.FlightTimeS, truth.FlightTimeS)
	}
	if !strings.HasSuffix(got.Reason, "collisions are not seen over MAVLink)") || strings.Contains(truth.Reason, "estimated") {
		t.Errorf("reasons %q and %q: want only the first to say it was judged on the estimate", got.Reason, truth.Reason)
	}
	if got.Seed != 3 || len(got.Trace) < 100 {
		t.Errorf("seed %d, %d samples; want 3 and the 10-Hz trace", got.Seed, len(got.Trace))
	}
}

// The estimate path stops at the time limit too.
func TestFlyEstimatedTimeout(t *testing.T) {
	cs := builtin(t, "mission2")
	s, _, err := run.NewSim(cs, run.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Fly(context.Background(), estimated{s}, cs, run.Options{TimeoutS: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.Completed || !strings.HasPrefix(r.Reason, "timeout: mission not finished after 5 s") {
		t.Errorf("timed out %v, completed %v, reason %q; want a timeout", r.TimedOut, r.Completed, r.Reason)
	}
}

// Judge is a pure function of the case study, the trajectory, the contacts
// and the ending; the numbers are worked out by hand.
func TestJudge(t *testing.T) {
	cs := builtin(t, "mission1")
	cs.Obstacles = []world.Box{{L: 2, W: 2, H: 20, X: 10, Y: 0}, {L: 2, W: 2, H: 20, X: 0, Y: 3}}
	// North along y = 0 at 0.5 m/s, 10 m up, a sample every 0.1 s. To x = 5
	// (101 samples) obstacle 2's face y = 2 is the closest, 2 m away
	// (obstacle 1's face x = 9 is 4 m); 200 samples run into obstacle 1.
	line := func(n int) []trace.Sample {
		tr := make([]trace.Sample, n)
		for i := range tr {
			tr[i] = trace.Sample{T: float64(i) * 0.1, Pos: geom.Vec3{X: float64(i) * 0.05, Z: -10}}
		}
		return tr
	}
	shifted := func(tr []trace.Sample, eastM float64) []trace.Sample {
		for i := range tr {
			tr[i].Pos.Y += eastM
		}
		return tr
	}
	done := vehicle.Telemetry{MissionDone: true, Pos: geom.Vec3{X: 1.234, Y: -0.5}}
	for _, c := range []struct {
		name       string
		tr         []trace.Sample
		contacts   []run.Collision
		end        run.Ending
		verdict    string
		reason     string
		clearanceM float64 // NaN: none
		obstacle   int
		points     int
		flightS    float64
	}{
		{"completed, 2 m from obstacle 2", line(101), nil, run.Ending{T: 10, MotorsOffT: 9.5, Last: done},
			run.VerdictPass, "mission complete: landed and disarmed at (1.23, -0.50)", 2, 2, 0, 9.5},
		{"0.5 m from obstacle 2", shifted(line(101), 1.5), nil, run.Ending{T: 10, Last: done},
			run.VerdictSoftFail, "mission complete", 0.5, 2, 2, 10},
		{"reached obstacle 1", line(200), nil, run.Ending{T: 20, Last: done},
			run.VerdictSoftFail, "mission complete", 0, 1, 5, 20},
		{"a contact does not end the flight", line(101), []run.Collision{{Obstacle: 2, T: 4.25, SpeedMS: 1.5}}, run.Ending{T: 9.25, Last: vehicle.Telemetry{Armed: true}},
			run.VerdictHardFail, "touched obstacle 2 at t=4.2 s (1.5 m/s); disarmed before the mission ended (at item 1 of 2)", 2, 2, 0, 9.25},
		{"two contacts, then complete", line(101), []run.Collision{{Obstacle: 2, T: 4.25, SpeedMS: 0.5}, {Obstacle: 1, T: 6, SpeedMS: 0.2}}, run.Ending{T: 9.5, Last: done},
			run.VerdictHardFail, "touched obstacle 2 at t=4.2 s (0.5 m/s) and 1 more contact(s); mission complete", 2, 2, 0, 9.5},
		{"ground contact", line(101), []run.Collision{{T: 3, SpeedMS: 4}}, run.Ending{T: 8},
			run.VerdictHardFail, "hit the ground at 4.0 m/s at t=3.0 s", 2, 2, 0, 8},
		{"timeout", line(101), nil, run.Ending{T: 10, TimedOut: true, Last: vehicle.Telemetry{Armed: true, MissionItem: 1}},
			run.VerdictPass, "timeout: mission not finished after 10 s (at item 2 of 2)", 2, 2, 0, 10},
		{"estimate", line(101), nil, run.Ending{T: 10, Last: done, Note: run.EstimatedNote},
			run.VerdictPass, "(judged on the vehicle's estimated position; collisions are not seen over MAVLink)", 2, 2, 0, 10},
		{"no trajectory", nil, nil, run.Ending{T: 1},
			run.VerdictPass, "disarmed before the mission ended (at item 1 of 2)", math.NaN(), 0, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run.Judge(cs, c.tr, c.contacts, c.end, 10)
			if r.Verdict != c.verdict || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("got %s %q; want %s %q", r.Verdict, r.Reason, c.verdict, c.reason)
			}
			if math.IsNaN(c.clearanceM) {
				if r.MinClearanceM != nil {
					t.Errorf("clearance %v; want none", *r.MinClearanceM)
				}
			} else if r.MinClearanceM == nil || math.Abs(*r.MinClearanceM-c.clearanceM) > 1e-9 || r.MinObstacle != c.obstacle {
				t.Errorf("clearance %v to obstacle %d; want %v to %d", r.MinClearanceM, r.MinObstacle, c.clearanceM, c.obstacle)
			}
			if r.Points != c.points || r.FlightTimeS != c.flightS {
				t.Errorf("points %d, flight time %v; want %d, %v", r.Points, r.FlightTimeS, c.points, c.flightS)
			}
			if got, want := len(r.Collisions), len(c.contacts); got != want {
				t.Errorf("%d collisions; want %d", got, want)
			}
		})
	}
}
