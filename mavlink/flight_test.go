package mavlink

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// rig is a Server and a Vehicle over an in-memory link, inside a synctest
// bubble.
type rig struct {
	srv    *Server
	v      *Vehicle
	srvEnd *memEnd // writes reach the vehicle adapter as if from the server
	vEnd   *memEnd // writes reach the server as if from the adapter
	cancel context.CancelFunc
	cut    func(bool)
}

func newRig(t *testing.T, simCfg vehicle.SimConfig, vcfg Config) *rig {
	t.Helper()
	return newRigAt(t, simCfg, vcfg, 1)
}

// newRigAt is newRig with the server at speed (simulated seconds per wall
// second).
func newRigAt(t *testing.T, simCfg vehicle.SimConfig, vcfg Config, speed float64) *rig {
	t.Helper()
	srv, a, b, cut := newServerAt(t, simCfg, speed)
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Run(ctx)
	vcfg.Endpoints = b.endpoints()
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	v, err := Dial(dctx, vcfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := &rig{srv: srv, v: v, srvEnd: a, vEnd: b, cancel: cancel, cut: func(on bool) { cut.Store(on) }}
	t.Cleanup(r.close)
	return r
}

// newServerAt makes a server of a new simulator at speed on an in-memory
// pipe: a is the server's end, b the other, cut cuts the pipe.
func newServerAt(t *testing.T, simCfg vehicle.SimConfig, speed float64) (srv *Server, a, b *memEnd, cut *atomic.Bool) {
	t.Helper()
	sim, err := vehicle.NewSim(simCfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b, cut = memPipe()
	srv, err = NewServer(ServerConfig{Sim: sim, Endpoints: a.endpoints(), Speed: speed})
	if err != nil {
		t.Fatal(err)
	}
	return srv, a, b, cut
}

// flyOut arms v, takes off to alt m, waits for the hover, sends it toward
// x m north at 2 m/s and returns once it is past movedX m.
func flyOut(t *testing.T, v *Vehicle, alt, x, movedX float64) {
	t.Helper()
	ctx := context.Background()
	if err := v.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := v.Takeoff(ctx, alt); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Wait(ctx, 30*time.Second, func(t vehicle.Telemetry) bool { return t.Mode == "hold" && t.AltM() > alt-0.5 }); err != nil {
		t.Fatal(err)
	}
	if err := v.Goto(ctx, geom.Vec3{X: x, Z: -alt}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Wait(ctx, 20*time.Second, func(t vehicle.Telemetry) bool { return t.Pos.X > movedX }); err != nil {
		t.Fatal(err)
	}
}

func (r *rig) close() {
	r.v.Close()
	r.cancel()
	<-r.srv.done
}

func TestFlyOverLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, vehicle.SimConfig{Seed: 1}, Config{})
		v := r.v
		ctx := context.Background()
		if err := v.Takeoff(ctx, 5); err == nil {
			t.Fatal("takeoff while disarmed: got nil; want a refusal")
		}
		if err := v.Arm(ctx); err != nil {
			t.Fatal(err)
		}
		if err := v.Takeoff(ctx, 5); err != nil {
			t.Fatal(err)
		}
		tel, err := v.Wait(ctx, 30*time.Second, func(t vehicle.Telemetry) bool { return t.Mode == "hold" && t.AltM() > 4.5 })
		if err != nil {
			t.Fatalf("takeoff: %v (mode %s alt %.2f)", err, tel.Mode, tel.AltM())
		}
		goal := geom.Vec3{X: 10, Y: 5, Z: -5}
		if err := v.Goto(ctx, goal, 3); err != nil {
			t.Fatal(err)
		}
		tel, err = v.Wait(ctx, 30*time.Second, func(t vehicle.Telemetry) bool { return t.Pos.Sub(goal).Norm() < 0.5 })
		if err != nil {
			t.Fatalf("goto: %v (mode %s pos %v)", err, tel.Mode, tel.Pos)
		}
		if tel.Mode != "offboard" {
			t.Errorf("mode during goto: got %s; want offboard", tel.Mode)
		}
		if err := v.Land(ctx); err != nil {
			t.Fatal(err)
		}
		tel, err = v.Wait(ctx, 60*time.Second, func(t vehicle.Telemetry) bool { return !t.Armed && t.Landed })
		if err != nil {
			t.Fatalf("land: %v (mode %s alt %.2f)", err, tel.Mode, tel.AltM())
		}
		t.Logf("landed at %v, T=%.1f s, link %+v", tel.Pos, tel.T, v.Link())
		if d := tel.Pos.XY().Dist(goal.XY()); d > 1 || math.IsNaN(d) {
			t.Errorf("landed %.2f m from the goto target", d)
		}
	})
}

// TestOffboardLossFailsafe: the setpoint stream of a Goto stops reaching
// the served vehicle: it holds within COM_OF_LOSS_T and lands after
// COM_FAIL_ACT_T, and disarms on the ground.
func TestOffboardLossFailsafe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, vehicle.SimConfig{Seed: 2}, Config{})
		v, ctx := r.v, context.Background()
		flyOut(t, v, 6, 30, 2)
		var lostAt float64
		r.srv.Do(ctx, func(s *vehicle.Sim) { lostAt = s.Time() })
		r.cut(true)
		time.Sleep(1500 * time.Millisecond)
		var mode autopilot.Mode
		var events []autopilot.Event
		r.srv.Do(ctx, func(s *vehicle.Sim) { mode, events = s.Autopilot().Status().Mode, append(events, s.Events()...) })
		if mode != autopilot.ModeHold {
			t.Fatalf("1.5 s after the stream stopped: mode %v; want hold", mode)
		}
		lost := -1.0
		for _, e := range events {
			if strings.HasPrefix(e.Text, "offboard setpoints lost") {
				lost = e.T
			}
		}
		if d := lost - lostAt; lost < 0 || d > 1.1 {
			t.Errorf("offboard loss declared %.2f s after the last setpoint; want within COM_OF_LOSS_T 1 s (+ a setpoint period)", d)
		}
		time.Sleep(5 * time.Second)
		r.srv.Do(ctx, func(s *vehicle.Sim) { mode = s.Autopilot().Status().Mode })
		if mode != autopilot.ModeLand {
			t.Fatalf("5 s in hold after the loss: mode %v; want land", mode)
		}
		time.Sleep(30 * time.Second)
		var st autopilot.Status
		r.srv.Do(ctx, func(s *vehicle.Sim) { st = s.Autopilot().Status() })
		if st.Armed || !st.Landed {
			t.Errorf("after the failsafe landing: armed %v landed %v", st.Armed, st.Landed)
		}
	})
}
