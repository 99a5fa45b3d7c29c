package run_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// A slow touch does not end the flight: the vehicle is pushed back and
// keeps trying (here, straight into a wall at MPC_XY_CRUISE 1 m/s) until
// the time limit; a hit faster than quad.CrashImpactMS breaks it and it
// falls.
func TestContactGoesOn(t *testing.T) {
	cs := builtin(t, "mission1")
	cs.Obstacles = []world.Box{{L: 30, W: 4, H: 25, X: 2, Y: 25}}
	slow := *cs
	slow.Params = map[string]float64{"MPC_XY_CRUISE": 1}
	r, s, err := run.FlySim(context.Background(), &slow, run.Options{Seed: 1, Autopilot: run.AutopilotPlain, TimeoutS: 80})
	if err != nil {
		t.Fatal(err)
	}
	if _, crashed := s.Crash(); crashed {
		t.Fatalf("crashed at a 1 m/s touch: %s", r.Reason)
	}
	if len(r.Collisions) == 0 || r.Collisions[0].Obstacle != 1 || !r.TimedOut || r.Verdict != run.VerdictHardFail {
		t.Fatalf("collisions %v, timed out %v, verdict %s; want a touch of obstacle 1 and the flight going on to the limit", r.Collisions, r.TimedOut, r.Verdict)
	}
	last := r.Trace[len(r.Trace)-1]
	if -last.Pos.Z < 5 || r.FlightTimeS < 79 {
		t.Errorf("at the end: %.1f m up after %.1f s; want still flying at the limit", -last.Pos.Z, r.FlightTimeS)
	}
	// Pushed back: never inside the collision box (0.8·w/2 = 1.6 m from
	// the centre line, plus the 0.25-m radius).
	for _, p := range r.Trace {
		if math.Abs(p.Pos.Y-25) < 1.6+0.25-0.02 && -p.Pos.Z < 25 && math.Abs(p.Pos.X-2) < 12 {
			t.Fatalf("inside the wall at %v", p.Pos)
		}
	}
	// At the default 5 m/s it breaks and falls.
	r, s, err = run.FlySim(context.Background(), cs, run.Options{Seed: 1, Autopilot: run.AutopilotPlain, TimeoutS: 80})
	if err != nil {
		t.Fatal(err)
	}
	c, crashed := s.Crash()
	if !crashed || c.Obstacle != 0 || r.TimedOut {
		t.Fatalf("5 m/s into the wall: crash %v %+v, reason %s; want a crash on obstacle index 0 and a fall", crashed, c, r.Reason)
	}
	if last := r.Trace[len(r.Trace)-1]; -last.Pos.Z > 0.5 {
		t.Errorf("after the crash the vehicle is %.1f m up; want on the ground", -last.Pos.Z)
	}
}

// Aerialist's quirk: with the option, the box whose rotation prints in
// exponent notation is not in the flight (the vehicle flies through its
// footprint, clearance 0, no contact) but is still scored; without it the
// same box stops the vehicle.
func TestAerialistUnspawned(t *testing.T) {
	cs := builtin(t, "mission1")
	cs.Obstacles = []world.Box{{L: 30, W: 4, H: 25, X: 2, Y: 25, R: 0.00357}, {L: 4, W: 4, H: 25, X: -30, Y: 30, R: 10}}
	r, err := flySim(t, cs, run.Options{Seed: 1, Autopilot: run.AutopilotPlain, AerialistUnspawned: true, TimeoutS: 120})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Completed || len(r.Collisions) != 0 || r.Clearances[0] != 0 || r.Clearances[1] < 20 || len(r.Clearances) != 2 {
		t.Errorf("quirk on: completed %v, collisions %v, clearances %v; want through box 1 (0 m), box 2 scored far away", r.Completed, r.Collisions, r.Clearances)
	}
	r, err = flySim(t, cs, run.Options{Seed: 1, Autopilot: run.AutopilotPlain, TimeoutS: 120})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Collisions) == 0 || r.Collisions[0].Obstacle != 1 {
		t.Errorf("quirk off: collisions %v; want obstacle 1 hit", r.Collisions)
	}
}

func flySim(t *testing.T, cs *scenario.CaseStudy, opt run.Options) (*run.Result, error) {
	t.Helper()
	r, _, err := run.FlySim(context.Background(), cs, opt)
	return r, err
}

// BenchmarkFlyTwoBoxes is one competition flight with PX4-Avoidance's
// planner: mission2 with the competition README's two boxes, from the
// start of the log (19 s before arming) to disarm.
func BenchmarkFlyTwoBoxes(b *testing.B) {
	cs := builtin(b, "mission2")
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}, {L: 10, W: 5, H: 20, X: -10, Y: 20}}
	b.ReportAllocs()
	var simS float64
	for b.Loop() {
		r, _, err := run.FlySim(context.Background(), cs, run.Options{Seed: 1, PreArmS: run.DefaultPreArmS})
		if err != nil {
			b.Fatal(err)
		}
		simS = r.SimTimeS
	}
	b.ReportMetric(simS, "sim-s/op")
	b.ReportMetric(simS/(b.Elapsed().Seconds()/float64(b.N)), "x-realtime")
}

// noArm is a vehicle that refuses to arm (PX4 still running its preflight
// checks).
type noArm struct{ *vehicle.Sim }

func (noArm) Arm(context.Context) error { return errors.New("COMMAND_ACK TEMPORARILY_REJECTED") }

// A refused arm is a result, not an error: not completed, the refusal as
// the reason (fly --connect exits 1 on it, not 2).
func TestArmRefused(t *testing.T) {
	cs := builtin(t, "mission2")
	s, _, err := run.NewSim(cs, run.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Fly(context.Background(), noArm{s}, cs, run.Options{Seed: 1})
	if err != nil {
		t.Fatalf("error %v; want a result", err)
	}
	if r.Completed || !strings.Contains(r.Reason, "refused to arm: COMMAND_ACK TEMPORARILY_REJECTED") {
		t.Errorf("completed %v, reason %q; want not completed with the refusal", r.Completed, r.Reason)
	}
}
