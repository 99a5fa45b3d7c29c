package eol_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// sent is one request or button change the runner sent, at vehicle time T.
type sent struct {
	T      float64
	Cmd    gate.Command
	Button vehicle.Button
	Down   bool
	Press  bool // a button change, not a request
}

func (s sent) String() string {
	if s.Press {
		return fmt.Sprintf("%.2f s: button %d down=%v", s.T, s.Button, s.Down)
	}
	return fmt.Sprintf("%.2f s: v %.2f w %.2f blade %v", s.T, s.Cmd.V, s.Cmd.W, s.Cmd.Blade)
}

// recorder is a simulated mower that logs everything the runner sends.
type recorder struct {
	*vehicle.MowerSim
	log []sent
}

func (r *recorder) Send(ctx context.Context, c gate.Command) error {
	r.log = append(r.log, sent{T: r.Time(), Cmd: c})
	return r.MowerSim.Send(ctx, c)
}

func (r *recorder) Press(ctx context.Context, b vehicle.Button, down bool) error {
	r.log = append(r.log, sent{T: r.Time(), Button: b, Down: down, Press: true})
	return r.MowerSim.Press(ctx, b, down)
}

// after returns what was sent after t that could move the robot: a request
// other than the idle one, or GO pressed.
func (r *recorder) movingAfter(t float64) []sent {
	var out []sent
	for _, s := range r.log {
		if s.T > t+1e-9 && ((!s.Press && !s.Cmd.Idle()) || (s.Press && s.Button == vehicle.ButtonGo && s.Down)) {
			out = append(out, s)
		}
	}
	return out
}

// firstPress returns the time of the first press of b.
func (r *recorder) firstPress(t *testing.T, b vehicle.Button) float64 {
	t.Helper()
	for _, s := range r.log {
		if s.Press && s.Button == b && s.Down {
			return s.T
		}
	}
	t.Fatalf("button %d never pressed", b)
	return 0
}

// With Halt, as on a real robot, a failed safety check ends all motion:
// after the moment the check's limit passed, the runner sends nothing but
// the idle request, presses no GO, and the later motion rows SKIP. Without
// Halt (the simulator's seed runs) it carries on, which the same recorder
// sees: the test can tell the two apart.
func TestMowerHaltAfterFailedSafetyStep(t *testing.T) {
	L := map[string]float64{}
	for _, th := range eol.Thresholds("mower") {
		L[th.Key] = th.Value
	}
	tick := 0.01
	cases := []struct {
		name     string
		mc       mowerCase
		failedAt func(r *recorder) float64 // when the failing check's limit passed
		wantFail []string
		wantSkip []string
	}{
		{
			name: "STOP contact open",
			mc:   mowerCase{faults: rover.Faults{StopOpen: true}},
			failedAt: func(r *recorder) float64 {
				return r.firstPress(t, vehicle.ButtonStop) + L["stop_standstill_s"]
			},
			wantFail: []string{"stop.standstill"},
			wantSkip: []string{"stop.blade", "stop.latched_still", "stop.ring", "stop.release", "watchdog.drive", "watchdog.blade", "obstacle.stop"},
		},
		{
			name: "no watchdog (eol-1)",
			mc:   mowerCase{noDog: true, unlimited: true},
			failedAt: func(r *recorder) float64 {
				// The driver goes silent in step 5: the last motion request
				// after the release that is followed by a gap in the stream.
				goAt := r.firstPress(t, vehicle.ButtonGo)
				last := 0.0
				for i, s := range r.log[:len(r.log)-1] {
					if s.T > goAt && !s.Press && s.Cmd.V > 0 && r.log[i+1].T-s.T > 0.5 {
						last = s.T
						break
					}
				}
				if last == 0 {
					t.Fatal("the driver never went silent")
				}
				return last + L["dog_drive_s"]
			},
			wantFail: []string{"watchdog.drive"},
			wantSkip: []string{"watchdog.blade", "obstacle.stop"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{MowerSim: newMower(t, c.mc)}
			rep, err := eol.RunMower(context.Background(), rec, eol.Options{Serial: "MB-0001", RunID: "halt", Time: runTime, Halt: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rep, eol.Fail); !slices.Equal(got, c.wantFail) {
				t.Errorf("failed: got %v; want %v\n%s", got, c.wantFail, rep.Summary())
			}
			if got := ids(rep, eol.Skip); !slices.Equal(got, c.wantSkip) {
				t.Errorf("skipped: got %v; want %v", got, c.wantSkip)
			}
			at := c.failedAt(rec)
			// The idle request goes out within a tick of the limit.
			if m := rec.movingAfter(at + tick); len(m) > 0 {
				t.Errorf("failed at %.2f s, then sent %d motion commands, the first %v", at, len(m), m[0])
			}
			idle := false
			for _, s := range rec.log {
				if !s.Press && s.Cmd.Idle() && s.T >= at-1e-9 && s.T <= at+tick+1e-9 {
					idle = true
				}
			}
			if !idle {
				t.Errorf("no idle request within a tick of %.2f s", at)
			}
			// On the ground truth: at rest within 1.5 s of the halt, blade stopped within 3 s.
			for _, smp := range rec.Trace() {
				if smp.T > at+1.5 && (smp.SpeedMS > 0.02 || smp.SpeedMS < -0.02) {
					t.Fatalf("still moving at %.2f s (%.3f m/s), the halt at %.2f s", smp.T, smp.SpeedMS, at)
				}
				if smp.T > at+3 && smp.BladeOn {
					t.Fatalf("blade on at %.2f s, the halt at %.2f s", smp.T, at)
				}
			}

			// Without Halt the same fault keeps the runner commanding motion.
			rec2 := &recorder{MowerSim: newMower(t, c.mc)}
			if _, err := eol.RunMower(context.Background(), rec2, eol.Options{Serial: "MB-0001", RunID: "go-on", Time: runTime}); err != nil {
				t.Fatal(err)
			}
			if m := rec2.movingAfter(c.failedAt(rec2) + tick); len(m) == 0 {
				t.Errorf("without Halt: no motion command after the failure; the recorder cannot see a difference")
			} else {
				t.Logf("without Halt: %d motion commands after the failure, %.1f s of them (%v … %v)", len(m), m[len(m)-1].T-m[0].T, m[0], m[len(m)-1])
			}
		})
	}
}
