package mavlink

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/frame"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// encode returns the MAVLink 2 frames of msgs from (sys, comp).
func encode(tb testing.TB, sys, comp uint8, msgs ...message.Message) []byte {
	tb.Helper()
	drw := &dialect.ReadWriter{Dialect: common.Dialect}
	if err := drw.Initialize(); err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	w := &frame.Writer{ByteWriter: &buf, DialectRW: drw}
	if err := w.Initialize(); err != nil {
		tb.Fatal(err)
	}
	for i, m := range msgs {
		mp := drw.GetMessage(m.GetID())
		fr := &frame.V2Frame{SequenceNumber: uint8(i), SystemID: sys, ComponentID: comp, Message: mp.Write(m, true)}
		fr.Checksum = fr.GenerateChecksum(mp.CRCExtra())
		if err := w.Write(fr); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// unknownFrame is a well-formed MAVLink 2 frame of a message id no dialect
// has (its CRC cannot be checked).
func unknownFrame() []byte {
	return []byte{0xFD, 3, 0, 0, 7, 1, 1, 0x60, 0xEA, 0x00, 1, 2, 3, 0x12, 0x34}
}

var nan32v = float32(math.NaN())

// hostileFrame is a frame that must not reach the telemetry or the state;
// counted says whether the adapter counts it as rejected or unparsable
// (frames for the vehicle are ignored by the adapter). A frame cut short
// is only known to be bad when the bytes after it come: then names the
// packet the test sends right after it, so that the count does not depend
// on whether the server's next telemetry arrives before the test looks.
type hostileFrame struct {
	name    string
	data    []byte
	then    []byte
	counted bool
}

// hostile are frames that must not reach the telemetry or the state: each
// with what it is.
func hostile(tb testing.TB) []hostileFrame {
	good := encode(tb, 1, 1, &common.MessageLocalPositionNed{TimeBootMs: 5000, X: 1, Y: 2, Z: -3})
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-1] ^= 0xFF
	return []hostileFrame{
		{"NaN position", encode(tb, 1, 1, &common.MessageLocalPositionNed{TimeBootMs: 5000, X: nan32v, Y: 2, Z: -3}), nil, true},
		{"infinite velocity", encode(tb, 1, 1, &common.MessageLocalPositionNed{TimeBootMs: 5000, Vx: float32(math.Inf(1))}), nil, true},
		{"absurd position", encode(tb, 1, 1, &common.MessageLocalPositionNed{TimeBootMs: 5000, X: 1e9}), nil, true},
		{"NaN attitude", encode(tb, 1, 1, &common.MessageAttitude{TimeBootMs: 5000, Roll: nan32v}), nil, true},
		{"latitude 91°", encode(tb, 1, 1, &common.MessageGlobalPositionInt{TimeBootMs: 5000, Lat: 910000000, Lon: 1}), nil, true},
		{"GPS at 200° E", encode(tb, 1, 1, &common.MessageGpsRawInt{FixType: 3, Lat: 1, Lon: 2000000000}), nil, true},
		{"NaN home", encode(tb, 1, 1, &common.MessageHomePosition{Latitude: 473977420, Longitude: 85455940, X: nan32v}), nil, true},
		{"range min above max", encode(tb, 1, 1, &common.MessageDistanceSensor{MinDistance: 500, MaxDistance: 100, CurrentDistance: 300, Orientation: 25}), nil, true},
		{"NaN IMU", encode(tb, 1, 1, &common.MessageHighresImu{Xacc: nan32v}), nil, true},
		{"landed state 9", encode(tb, 1, 1, &common.MessageExtendedSysState{LandedState: 9}), nil, true},
		{"bad CRC", badCRC, nil, true},
		{"truncated", good[:len(good)/2], good, true},
		{"unknown message id", unknownFrame(), nil, false},
		{"garbage", []byte("\xfd\xff\xff\xff\xff\xff\xff\xff\xff\xff not mavlink at all"), nil, true},
		{"NaN setpoint", encode(tb, 255, 190, &common.MessageSetPositionTargetLocalNed{TargetSystem: 1, CoordinateFrame: frameLocal, TypeMask: maskAcc | maskYaw | maskYawRate | maskVel, X: nan32v}), nil, false},
		{"partial setpoint", encode(tb, 255, 190, &common.MessageSetPositionTargetLocalNed{TargetSystem: 1, CoordinateFrame: frameLocal, TypeMask: 1 | maskVel | maskAcc, Y: 3}), nil, false},
		{"NaN reposition", encode(tb, 255, 190, &common.MessageCommandLong{TargetSystem: 1, Command: cmdDoReposition, Param5: nan32v, Param6: 8, Param7: 500}), nil, false},
		{"NaN mission item", encode(tb, 255, 190, &common.MessageMissionCount{TargetSystem: 1, Count: 1},
			&common.MessageMissionItemInt{TargetSystem: 1, Command: cmdNavWaypoint, Frame: frameGlobalRelInt, X: 473977420, Y: 85455940, Z: nan32v}), nil, false},
		{"absurd motor test", encode(tb, 255, 190, &common.MessageCommandLong{TargetSystem: 1, Command: cmdDoMotorTest, Param1: 1e9, Param3: 50, Param4: 1}), nil, false},
		{"takeoff to -1e30 m", encode(tb, 255, 190, &common.MessageCommandLong{TargetSystem: 1, Command: cmdNavTakeoff, Param7: -1e30}), nil, false},
	}
}

func checkTelemetry(t vehicle.Telemetry) error {
	for _, v := range []struct {
		name string
		x    []float64
		lim  float64
	}{
		{"T", []float64{t.T}, math.MaxFloat64},
		{"position", []float64{t.Pos.X, t.Pos.Y, t.Pos.Z}, maxPosM},
		{"velocity", []float64{t.Vel.X, t.Vel.Y, t.Vel.Z}, maxVelMS},
		{"attitude", []float64{t.Att.W, t.Att.X, t.Att.Y, t.Att.Z}, 1 + 1e-6},
		{"home", []float64{t.Home.X, t.Home.Y, t.Home.Z}, maxPosM},
		{"IMU", []float64{t.IMU.Accel.X, t.IMU.Accel.Y, t.IMU.Accel.Z, t.IMU.Gyro.X, t.IMU.Gyro.Y, t.IMU.Gyro.Z}, maxAccMS2},
		{"GNSS", []float64{t.GNSS.Pos.X, t.GNSS.Pos.Y, t.GNSS.Pos.Z, t.GNSS.Vel.X, t.GNSS.Vel.Y}, maxPosM},
		{"baro", []float64{t.Baro.PressurePa, t.Baro.AltM, t.Baro.TempC}, 1e6},
	} {
		if !within(v.lim, v.x...) {
			return fmt.Errorf("%s %v is not finite or beyond %g", v.name, v.x, v.lim)
		}
	}
	if math.Abs(t.Att.Norm()-1) > 1e-6 {
		return fmt.Errorf("attitude %v is not a unit quaternion", t.Att)
	}
	return nil
}

// TestHostileFrames sends each hostile frame to the adapter (as if from
// the vehicle) and to the server (as if from the ground station): neither
// crashes, no bad value reaches the telemetry or the simulated vehicle,
// and both go on answering.
func TestHostileFrames(t *testing.T) {
	for _, tc := range hostile(t) {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, vehicle.SimConfig{Seed: 8}, Config{})
				synctest.Wait() // the link idle: nothing of the server's comes between data and then
				before := r.v.Link()
				if _, err := r.srvEnd.Write(tc.data); err != nil {
					t.Fatal(err)
				}
				if tc.then != nil {
					if _, err := r.srvEnd.Write(tc.then); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := r.vEnd.Write(tc.data); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				tel, err := r.v.Wait(context.Background(), 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkTelemetry(tel); err != nil {
					t.Errorf("adapter telemetry: %v", err)
				}
				after := r.v.Link()
				if counted := after.Rejected+after.ParseErrors > before.Rejected+before.ParseErrors; counted != tc.counted {
					t.Errorf("counted as rejected or unparsable: %v; want %v (%+v)", counted, tc.counted, after)
				}
				var st autopilot.Status
				var simTel vehicle.Telemetry
				r.srv.Do(context.Background(), func(s *vehicle.Sim) { st, simTel = s.Autopilot().Status(), s.Telemetry() })
				if st.Mode != autopilot.ModeIdle || st.Armed {
					t.Errorf("server vehicle: mode %v armed %v after a hostile frame", st.Mode, st.Armed)
				}
				if err := checkTelemetry(simTel); err != nil {
					t.Errorf("server vehicle: %v", err)
				}
				if err := r.v.Arm(context.Background()); err != nil {
					t.Errorf("arm after the hostile frame: %v", err)
				}
			})
		})
	}
}

// TestRejectedCounts: implausible telemetry is counted as rejected, bad
// frames as parse errors, and an unknown message neither.
func TestRejectedCounts(t *testing.T) {
	tel := newTelem()
	tel.bindAny = true
	var now = zeroTime
	tel.apply(now, 1, 1, &common.MessageHeartbeat{Type: mavTypeQuadrotor, Autopilot: autopilotPX4, BaseMode: baseModeCustom, CustomMode: PX4Mode(px4Auto, px4AutoLoiter)})
	for _, tc := range []struct {
		name string
		msg  message.Message
		want bool
	}{
		{"good position", &common.MessageLocalPositionNed{TimeBootMs: 1000, X: 1}, true},
		{"NaN position", &common.MessageLocalPositionNed{TimeBootMs: 1000, X: nan32v}, false},
		{"absurd speed", &common.MessageLocalPositionNed{TimeBootMs: 1000, Vz: 1e4}, false},
		{"good attitude", &common.MessageAttitude{TimeBootMs: 1000, Yaw: 1}, true},
		{"roll 4 rad", &common.MessageAttitude{TimeBootMs: 1000, Roll: 4}, false},
		{"unnormalised quaternion", &common.MessageAttitudeQuaternion{Q1: 2}, false},
		{"from another system", &common.MessageLocalPositionNed{TimeBootMs: 1000, X: 7}, false},
		{"not telemetry", &common.MessageVfrHud{}, false},
	} {
		sys := uint8(1)
		if tc.name == "from another system" {
			sys = 2
		}
		if got := tel.apply(now, sys, 1, tc.msg); got != tc.want {
			t.Errorf("%s: accepted %v; want %v", tc.name, got, tc.want)
		}
	}
	if tel.rejected != 4 {
		t.Errorf("rejected: got %d; want 4", tel.rejected)
	}
	if tel.tel.Pos.X != 1 || tel.tel.Mode != "hold" || tel.tel.T != 1 {
		t.Errorf("telemetry: pos %v mode %s T %v", tel.tel.Pos, tel.tel.Mode, tel.tel.T)
	}
}

var zeroTime = time.Time{}
