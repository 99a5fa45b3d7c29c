package vehicle_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

func newSim(t testing.TB, cfg vehicle.SimConfig) *vehicle.Sim {
	t.Helper()
	s, err := vehicle.NewSim(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wait(t testing.TB, s *vehicle.Sim, d time.Duration, until func(vehicle.Telemetry) bool) vehicle.Telemetry {
	t.Helper()
	tel, err := s.Wait(context.Background(), d, until)
	if err != nil {
		t.Fatalf("wait %v: %v (mode %s, alt %.2f)", d, err, tel.Mode, tel.AltM())
	}
	return tel
}

// A take-off to 10 m settles within ±10 % with an overshoot under 0.5 m,
// measured on the ground truth.
func TestTakeoffStepResponse(t *testing.T) {
	s := newSim(t, vehicle.SimConfig{Seed: 1})
	ctx := context.Background()
	if err := s.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Takeoff(ctx, 10); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 30*time.Second, nil)
	var peak float64
	settled := math.NaN()
	for _, smp := range s.Trace() {
		alt := -smp.Pos.Z
		peak = math.Max(peak, alt)
		if math.Abs(alt-10) > 1 {
			settled = math.NaN()
		} else if math.IsNaN(settled) {
			settled = smp.T
		}
	}
	if over := peak - 10; over >= 0.5 {
		t.Errorf("overshoot: got %.3f m; want < 0.5", over)
	}
	if math.IsNaN(settled) {
		t.Fatalf("altitude did not settle within ±10 %% of 10 m in 30 s")
	}
	// 1 s spool-up + 10 m at 1.5 m/s with acceleration ramps: ≈ 8 s.
	if settled > 12 {
		t.Errorf("settled at t = %.1f s; want within 12 s", settled)
	}
	final := -s.Trace()[len(s.Trace())-1].Pos.Z
	if math.Abs(final-10) > 0.1 {
		t.Errorf("final altitude: got %.3f; want 10 ± 0.1", final)
	}
	t.Logf("overshoot %.3f m, within ±10 %% from t = %.2f s, final %.3f m", peak-10, settled, final)
}

func TestGotoHoldLand(t *testing.T) {
	s := newSim(t, vehicle.SimConfig{Seed: 2})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Arm(ctx))
	must(s.Takeoff(ctx, 5))
	wait(t, s, 20*time.Second, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	target := geom.Vec3{X: 20, Y: -10, Z: -8}
	must(s.Goto(ctx, target, 3))
	tel := wait(t, s, 40*time.Second, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	if d := tel.Pos.Sub(target).Norm(); d > 0.8 {
		t.Errorf("goto: ended %.2f m from the target", d)
	}
	// Heading faces the direction of travel (MPC_YAW_MODE 0).
	want := math.Atan2(-10, 20)
	if d := math.Abs(geom.WrapPi(tel.Heading() - want)); d > 0.1 {
		t.Errorf("heading after goto: got %.3f rad; want %.3f", tel.Heading(), want)
	}
	must(s.Land(ctx))
	tel = wait(t, s, 40*time.Second, func(tl vehicle.Telemetry) bool { return !tl.Armed })
	if !tel.Landed || tel.AltM() > 0.05 {
		t.Errorf("after landing: landed %v alt %.3f", tel.Landed, tel.AltM())
	}
	if d := tel.Pos.XY().Dist(target.XY()); d > 0.5 {
		t.Errorf("landed %.2f m from where the landing started", d)
	}
	if _, crashed := s.Crash(); crashed {
		t.Errorf("landing counted as a crash")
	}
}

func TestReturnHome(t *testing.T) {
	ap := autopilot.DefaultConfig()
	ap.RTLAltM = 15
	ap.RTLDescendM = 10
	s := newSim(t, vehicle.SimConfig{Seed: 3, Autopilot: ap})
	ctx := context.Background()
	_ = s.Arm(ctx)
	_ = s.Takeoff(ctx, 5)
	wait(t, s, 20*time.Second, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	_ = s.Goto(ctx, geom.Vec3{X: -30, Y: 15, Z: -5}, 0)
	wait(t, s, 40*time.Second, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	if err := s.Return(ctx); err != nil {
		t.Fatal(err)
	}
	var peak float64
	tel := wait(t, s, 120*time.Second, func(tl vehicle.Telemetry) bool {
		peak = math.Max(peak, tl.AltM())
		return !tl.Armed
	})
	if d := tel.Pos.XY().Norm(); d > 0.5 {
		t.Errorf("returned %.2f m from home", d)
	}
	if math.Abs(peak-15) > 0.6 {
		t.Errorf("return altitude: peak %.2f m; want 15", peak)
	}
}

func TestOffboardLossHolds(t *testing.T) {
	s := newSim(t, vehicle.SimConfig{Seed: 4})
	ctx := context.Background()
	_ = s.Arm(ctx)
	_ = s.Takeoff(ctx, 5)
	wait(t, s, 20*time.Second, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	nan := math.NaN()
	// Fly East at 2 m/s by velocity setpoints streamed at 10 Hz for 3 s.
	for range 30 {
		if err := s.Setpoint(ctx, vehicle.Setpoint{Pos: geom.Vec3{X: nan, Y: nan, Z: -5}, Vel: geom.Vec3{Y: 2}, Yaw: nan}); err != nil {
			t.Fatal(err)
		}
		wait(t, s, 100*time.Millisecond, nil)
	}
	tel := s.Telemetry()
	if tel.Mode != "offboard" || tel.Vel.Y < 1.5 {
		t.Fatalf("offboard: mode %s vel %v; want offboard at about 2 m/s East", tel.Mode, tel.Vel)
	}
	// Stop streaming: after COM_OF_LOSS_T (1 s) the vehicle holds.
	tel = wait(t, s, 1500*time.Millisecond, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	if tel.T-s.Trace()[0].T < 0 {
		t.Fatal("time went backwards")
	}
	tel = wait(t, s, 10*time.Second, nil)
	if v := tel.Vel.Norm(); v > 0.2 {
		t.Errorf("after offboard loss the vehicle still moves at %.2f m/s", v)
	}
}

func TestCommandsRefused(t *testing.T) {
	s := newSim(t, vehicle.SimConfig{})
	ctx := context.Background()
	if err := s.Takeoff(ctx, 10); err == nil {
		t.Error("takeoff while disarmed accepted")
	}
	if err := s.Disarm(ctx); err == nil {
		t.Error("disarm while disarmed accepted")
	}
	_ = s.Arm(ctx)
	if err := s.Takeoff(ctx, math.NaN()); err == nil {
		t.Error("takeoff to NaN accepted")
	}
	if err := s.StartMission(ctx); err == nil {
		t.Error("empty mission started")
	}
	if err := s.UploadMission(ctx, []vehicle.MissionItem{{Kind: vehicle.Waypoint, Pos: geom.Vec3{X: math.Inf(1)}}}); err == nil {
		t.Error("mission with an infinite waypoint accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Wait(cctx, time.Second, nil); err == nil {
		t.Error("wait with a cancelled context returned nil")
	}
}

// Auto-disarm: armed on the ground and never taking off, PX4 disarms after
// COM_DISARM_PRFLT (10 s).
func TestAutoDisarmWithoutTakeoff(t *testing.T) {
	s := newSim(t, vehicle.SimConfig{})
	_ = s.Arm(context.Background())
	tel := wait(t, s, 15*time.Second, func(tl vehicle.Telemetry) bool { return !tl.Armed })
	if tel.T < 10 || tel.T > 10.1 {
		t.Errorf("auto-disarm at %.2f s; want 10", tel.T)
	}
}

// Armed before any step, a vehicle that starts away from the origin takes
// its own position as home and takes off there.
func TestHomeAtStartPosition(t *testing.T) {
	start := geom.Vec3{X: 40, Y: -20}
	s := newSim(t, vehicle.SimConfig{Quad: quad.Config{StartPos: start}})
	ctx := context.Background()
	if err := s.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if h := s.Telemetry().Home; h.XY().Dist(start.XY()) > 0.1 {
		t.Fatalf("home %v; want the start position %v", h, start)
	}
	_ = s.Takeoff(ctx, 5)
	tel := wait(t, s, 20*time.Second, func(tl vehicle.Telemetry) bool { return tl.Mode == "hold" })
	if d := tel.Pos.XY().Dist(start.XY()); d > 0.5 {
		t.Errorf("took off %.2f m away from the start position", d)
	}
}
