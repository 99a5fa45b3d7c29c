package mavlink

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// TestCommandResults: each command gets its COMMAND_ACK with PX4's result,
// refusals included, and the adapter reports the result code.
func TestCommandResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, vehicle.SimConfig{Seed: 3}, Config{})
		v, ctx := r.v, context.Background()
		check := func(name string, err error, want error) {
			t.Helper()
			if want == nil && err != nil || want != nil && !errors.Is(err, want) {
				t.Errorf("%s: got %v; want %v", name, err, want)
			}
		}
		check("takeoff while disarmed", v.Takeoff(ctx, 5), ErrTemporarilyRejected)
		check("disarm while disarmed", v.Disarm(ctx), nil)
		check("unsupported command", v.Command(ctx, 4242, [7]float32{}), vehicle.ErrUnsupported)
		check("set an unknown mode", v.Command(ctx, cmdDoSetMode, [7]float32{1, 99}), ErrDenied)
		check("motor test disarmed", v.MotorTest(ctx, 2, 0.2, time.Second), nil)
		if _, err := v.Wait(ctx, 200*time.Millisecond, nil); err != nil {
			t.Fatal(err)
		}
		e := v.ESCs()
		if e[2].RPM == 0 || e[0].RPM != 0 || !(e[2].Output > 0.15) {
			t.Errorf("ESCs during the test of motor 3: %+v", e)
		}
		check("arm", v.Arm(ctx), nil)
		check("arm again", v.Arm(ctx), nil)
		check("motor test armed", v.MotorTest(ctx, 0, 0.2, time.Second), ErrDenied)
		check("takeoff", v.Takeoff(ctx, 4), nil)
		if _, err := v.Wait(ctx, 20*time.Second, func(t vehicle.Telemetry) bool { return t.AltM() > 3 }); err != nil {
			t.Fatal(err)
		}
		check("disarm in the air", v.Disarm(ctx), ErrTemporarilyRejected)
		check("kill in the air", v.Kill(ctx), nil)
		if _, err := v.Wait(ctx, 300*time.Millisecond, nil); err != nil {
			t.Fatal(err)
		}
		check("arm while falling", v.Arm(ctx), ErrTemporarilyRejected)
		var ce *CommandError
		if err := v.Arm(ctx); !errors.As(err, &ce) || ce.Command != cmdArmDisarm || ce.Result != ResultTemporarilyRejected ||
			ce.Error() != "mavlink: MAV_CMD_COMPONENT_ARM_DISARM: TEMPORARILY_REJECTED" {
			t.Errorf("error: got %v (%#v)", err, ce)
		}
	})
}

// TestNoAck: with the link cut, a command is tried Tries times and fails
// with ErrNoAck after Tries × AckTimeout; Wait reports the link lost.
func TestNoAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, vehicle.SimConfig{Seed: 3}, Config{AckTimeout: 500 * time.Millisecond, Tries: 4})
		r.cut(true)
		t0 := time.Now()
		err := r.v.Arm(context.Background())
		if !errors.Is(err, ErrNoAck) {
			t.Fatalf("got %v; want ErrNoAck", err)
		}
		if got := time.Since(t0); got != 2*time.Second {
			t.Errorf("gave up after %v; want 4 tries × 500 ms", got)
		}
		if _, err := r.v.Wait(context.Background(), time.Minute, nil); !errors.Is(err, ErrLinkLost) {
			t.Errorf("Wait on a cut link: got %v; want ErrLinkLost", err)
		}
		if r.v.Link().Up {
			t.Error("link reported up")
		}
		if age, ok := r.v.Age(idLocalPos); !ok || age < 2*time.Second {
			t.Errorf("LOCAL_POSITION_NED age %v (seen %v) after 2 s without link", age, ok)
		}
		r.cut(false)
		time.Sleep(1100 * time.Millisecond) // a heartbeat period
		if _, err := r.v.Wait(context.Background(), time.Second, nil); err != nil {
			t.Errorf("Wait after the link came back: %v", err)
		}
		if !r.v.Link().Up {
			t.Error("link still down after it came back")
		}
	})
}

// TestMissionUpload flies an uploaded mission to its end and downloads it
// back as a ground station does.
func TestMissionUpload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, vehicle.SimConfig{Seed: 6}, Config{})
		v, ctx := r.v, context.Background()
		items := []vehicle.MissionItem{
			{Kind: vehicle.Takeoff, Pos: geomVec(0, 0, -5)},
			{Kind: vehicle.Waypoint, Pos: geomVec(15, 0, -5), AcceptRadiusM: 2},
			{Kind: vehicle.Waypoint, Pos: geomVec(15, 10, -8)},
			{Kind: vehicle.Land, Pos: geomVec(5, 10, 0)},
		}
		if err := v.UploadMission(ctx, items); err != nil {
			t.Fatal(err)
		}
		var got []vehicle.MissionItem
		r.srv.Do(ctx, func(*vehicle.Sim) { got, _, _ = r.srv.core.vehicleItems(r.srv.core.mission) })
		if len(got) != len(items) {
			t.Fatalf("vehicle holds %d items; want %d", len(got), len(items))
		}
		for i := range items {
			if got[i].Kind != items[i].Kind || got[i].Pos.Sub(items[i].Pos).Norm() > 0.05 || got[i].AcceptRadiusM != items[i].AcceptRadiusM {
				t.Errorf("item %d: got %+v; want %+v", i, got[i], items[i])
			}
		}
		if err := v.Arm(ctx); err != nil {
			t.Fatal(err)
		}
		if err := v.StartMission(ctx); err != nil {
			t.Fatal(err)
		}
		tel, err := v.Wait(ctx, 200*time.Second, func(t vehicle.Telemetry) bool { return t.MissionDone })
		if err != nil {
			t.Fatalf("mission: %v (mode %s item %d)", err, tel.Mode, tel.MissionItem)
		}
		// The mission's end goes out before the heartbeat of the same step
		// that says disarmed (as PX4 reports the mission complete on
		// landing, then disarms): wait for that heartbeat too.
		if tel, err = v.Wait(ctx, 10*time.Second, func(t vehicle.Telemetry) bool { return !t.Armed }); err != nil {
			t.Fatalf("disarm after the mission: %v", err)
		}
		if tel.Armed || !tel.Landed || tel.MissionItem != len(items) || tel.Pos.XY().Dist(items[3].Pos.XY()) > 1 {
			t.Errorf("end: armed %v landed %v item %d at %v", tel.Armed, tel.Landed, tel.MissionItem, tel.Pos)
		}
	})
}

func geomVec(x, y, z float64) geom.Vec3 { return geom.Vec3{X: x, Y: y, Z: z} }
