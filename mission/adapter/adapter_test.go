package adapter_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

var ctx = context.Background()

func exec(t *testing.T, a interface {
	Execute(context.Context, mission.Command) error
}, c mission.Command) {
	t.Helper()
	if err := a.Execute(ctx, c); err != nil {
		t.Fatalf("%s: %v", c, err)
	}
}

func near(a, b geom.Vec3) bool { return a.Sub(b).Norm() < 1e-9 }

func TestDemoMotion(t *testing.T) {
	d := adapter.NewDemo(adapter.KinematicConfig{Start: geom.Vec3{Z: -1}})
	if d.Mode() != "demo" {
		t.Errorf("mode %q", d.Mode())
	}
	if err := d.Execute(ctx, mission.Command{Kind: mission.CmdArm}); !errors.Is(err, adapter.ErrNotConnected) {
		t.Fatalf("arm before connect: got %v", err)
	}
	exec(t, d, mission.Command{Kind: mission.CmdConnect})
	exec(t, d, mission.Command{Kind: mission.CmdArm})
	if err := d.Execute(ctx, mission.Command{Kind: mission.CmdArm}); !errors.Is(err, adapter.ErrArmed) {
		t.Fatalf("arm twice: got %v", err)
	}
	d.Poll(0)
	exec(t, d, mission.Command{Kind: mission.CmdTakeoff, AltM: 2})
	tel, ok, up := d.Poll(time.Second) // climbs at 1 m/s
	if !ok || !up || !near(tel.Pos, geom.Vec3{Z: -2}) || tel.Landed || !tel.Armed || tel.Vel.Z != -1 {
		t.Fatalf("after 1 s of climb: %+v", tel)
	}
	tel, _, _ = d.Poll(3 * time.Second)
	if !near(tel.Pos, geom.Vec3{Z: -3}) || tel.Vel != (geom.Vec3{}) {
		t.Fatalf("at take-off height: %+v", tel)
	}
	exec(t, d, mission.Command{Kind: mission.CmdGoto, Target: geom.Vec3{X: 4, Z: -3}, SpeedMS: 2})
	tel, _, _ = d.Poll(4 * time.Second)
	if !near(tel.Pos, geom.Vec3{X: 2, Z: -3}) || tel.Vel.X != 2 {
		t.Fatalf("half way: %+v", tel)
	}
	exec(t, d, mission.Command{Kind: mission.CmdCancel})
	tel, _, _ = d.Poll(10 * time.Second)
	if !near(tel.Pos, geom.Vec3{X: 2, Z: -3}) || tel.Vel != (geom.Vec3{}) {
		t.Fatalf("cancelled: it moved on: %+v", tel)
	}
	if err := d.Execute(ctx, mission.Command{Kind: mission.CmdDisarm}); !errors.Is(err, adapter.ErrInAir) {
		t.Fatalf("disarm in the air: got %v", err)
	}
	exec(t, d, mission.Command{Kind: mission.CmdLand})
	tel, _, _ = d.Poll(14 * time.Second) // 2 m at 0.5 m/s
	if !tel.Landed || !near(tel.Pos, geom.Vec3{X: 2, Z: -1}) {
		t.Fatalf("landed: %+v", tel)
	}
	exec(t, d, mission.Command{Kind: mission.CmdDisarm})
	exec(t, d, mission.Command{Kind: mission.CmdDisarm})
	if tel, _, _ = d.Poll(15 * time.Second); tel.Armed {
		t.Fatalf("still armed")
	}
	// time going backwards does not move the vehicle
	if tel2, _, _ := d.Poll(time.Second); tel2.Pos != tel.Pos {
		t.Errorf("moved on an old time")
	}
}

func TestStateOnlyIsInstant(t *testing.T) {
	d := adapter.NewStateOnly(adapter.KinematicConfig{})
	if d.Mode() != "state_only" {
		t.Errorf("mode %q", d.Mode())
	}
	for _, c := range []mission.Command{{Kind: mission.CmdConnect}, {Kind: mission.CmdArm}, {Kind: mission.CmdTakeoff, AltM: 2}} {
		exec(t, d, c)
	}
	if tel, _, _ := d.Poll(0); !near(tel.Pos, geom.Vec3{Z: -2}) || tel.Landed {
		t.Fatalf("after take-off: %+v", tel)
	}
	exec(t, d, mission.Command{Kind: mission.CmdGoto, Target: geom.Vec3{X: 100, Z: -5}, SpeedMS: 1})
	if tel, _, _ := d.Poll(0); !near(tel.Pos, geom.Vec3{X: 100, Z: -5}) {
		t.Fatalf("after goto: %+v", tel)
	}
	exec(t, d, mission.Command{Kind: mission.CmdLand})
	if tel, _, _ := d.Poll(0); !tel.Landed || tel.Pos.Z != 0 {
		t.Fatalf("after land: %+v", tel)
	}
}

func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    interface {
			adapter.Faulty
			Execute(context.Context, mission.Command) error
			Poll(time.Duration) (mission.Telemetry, bool, bool)
		}
	}{
		{"demo", adapter.NewDemo(adapter.KinematicConfig{})},
		{"sim", mustSim(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			exec(t, a, mission.Command{Kind: mission.CmdConnect})
			a.SetFaults(adapter.Faults{RefuseArm: true})
			if err := a.Execute(ctx, mission.Command{Kind: mission.CmdArm}); !errors.Is(err, adapter.ErrRefused) {
				t.Fatalf("refused arm: got %v", err)
			}
			a.SetFaults(adapter.Faults{RefuseTakeoff: true})
			exec(t, a, mission.Command{Kind: mission.CmdArm})
			if err := a.Execute(ctx, mission.Command{Kind: mission.CmdTakeoff, AltM: 2}); !errors.Is(err, adapter.ErrRefused) {
				t.Fatalf("refused take-off: got %v", err)
			}
			a.SetFaults(adapter.Faults{DropTelemetry: true})
			if _, ok, up := a.Poll(time.Second); ok || !up {
				t.Fatalf("dropped telemetry: ok %v up %v", ok, up)
			}
			a.SetFaults(adapter.Faults{LinkDown: true})
			if _, ok, up := a.Poll(2 * time.Second); ok || up {
				t.Fatalf("link down: ok %v up %v", ok, up)
			}
			if err := a.Execute(ctx, mission.Command{Kind: mission.CmdHold}); !errors.Is(err, adapter.ErrLinkDown) {
				t.Fatalf("command over a lost link: got %v", err)
			}
			a.SetFaults(adapter.Faults{})
			if _, ok, up := a.Poll(3 * time.Second); !ok || !up {
				t.Fatalf("healed: ok %v up %v", ok, up)
			}
		})
	}
}

func mustSim(t *testing.T) *adapter.Sim {
	s, err := adapter.NewSim(vehicle.SimConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSimFollowsTheClock: the simulator's time follows Poll's, from the
// first Poll on, at most MaxCatchUp per Poll.
func TestSimFollowsTheClock(t *testing.T) {
	s := mustSim(t)
	if s.Mode() != "sim" {
		t.Errorf("mode %q", s.Mode())
	}
	tel, ok, up := s.Poll(10 * time.Second) // the first poll sets the origin
	if !ok || !up || !tel.Landed || tel.Armed {
		t.Fatalf("on the ground: %+v", tel)
	}
	t0 := tel.T
	for _, now := range []time.Duration{10*time.Second + 7*time.Millisecond, 11 * time.Second, 12500 * time.Millisecond} {
		tel, _, _ = s.Poll(now)
		if got, want := tel.T-t0, (now - 10*time.Second).Seconds(); math.Abs(got-want) > 0.0026 {
			t.Errorf("at %v: sim time %.4f s; want %.4f ± one step", now, got, want)
		}
	}
	tel, _, _ = s.Poll(60 * time.Second) // far behind: catch up by MaxCatchUp only
	if got := tel.T - t0; math.Abs(got-(2.5+adapter.MaxCatchUp.Seconds())) > 0.0026 {
		t.Errorf("after a stall: sim time %.3f s; want %.3f", got, 2.5+adapter.MaxCatchUp.Seconds())
	}
	if math.IsNaN(tel.Battery) || tel.Battery <= 0.5 {
		t.Errorf("battery: %v", tel.Battery)
	}
}

// TestSimTakeoffAndLand flies the embedded quadrotor through the adapter:
// take-off, goto, land, and a disarm after the autopilot's own auto-disarm.
func TestSimTakeoffAndLand(t *testing.T) {
	s := mustSim(t)
	now := time.Duration(0)
	poll := func(d time.Duration) mission.Telemetry {
		var tel mission.Telemetry
		for end := now + d; now < end; {
			now += 50 * time.Millisecond
			tel, _, _ = s.Poll(now)
		}
		return tel
	}
	poll(0)
	for _, c := range []mission.Command{{Kind: mission.CmdConnect}, {Kind: mission.CmdArm}, {Kind: mission.CmdTakeoff, AltM: 3}} {
		exec(t, s, c)
	}
	if tel := poll(8 * time.Second); tel.Landed || math.Abs(tel.Pos.Z+3) > 0.3 {
		t.Fatalf("after take-off: %+v", tel)
	}
	exec(t, s, mission.Command{Kind: mission.CmdGoto, Target: geom.Vec3{X: 5, Z: -3}, SpeedMS: 2})
	if tel := poll(8 * time.Second); tel.Pos.Sub(geom.Vec3{X: 5, Z: -3}).Norm() > 0.5 {
		t.Fatalf("after goto: %+v", tel)
	}
	exec(t, s, mission.Command{Kind: mission.CmdCancel})
	exec(t, s, mission.Command{Kind: mission.CmdLand})
	tel := poll(20 * time.Second)
	if !tel.Landed || tel.Armed {
		t.Fatalf("after landing (and COM_DISARM_LAND): %+v", tel)
	}
	exec(t, s, mission.Command{Kind: mission.CmdDisarm}) // already disarmed: success
}
