package mavlink

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
)

// parseURLCases feed TestParseURL and FuzzParseURL's seeds.
var parseURLCases = []struct {
	name string
	url  string
	dir  Direction
	want gomavlib.EndpointConf
}{
	{"udp dial", "udp://127.0.0.1:14540", Outgoing, gomavlib.EndpointUDPClient{Address: "127.0.0.1:14540"}},
	{"udp listen", "udp://127.0.0.1:14540", Incoming, gomavlib.EndpointUDPServer{Address: "127.0.0.1:14540"}},
	{"udp without host listens", "udp://:14540", Outgoing, gomavlib.EndpointUDPServer{Address: ":14540"}},
	{"udpin", "udpin://0.0.0.0:14550", Outgoing, gomavlib.EndpointUDPServer{Address: "0.0.0.0:14550"}},
	{"udpout", "udpout://10.0.0.2:14550", Incoming, gomavlib.EndpointUDPClient{Address: "10.0.0.2:14550"}},
	{"tcp dial", "tcp://127.0.0.1:5760", Outgoing, gomavlib.EndpointTCPClient{Address: "127.0.0.1:5760"}},
	{"tcpin", "tcpin://:5760", Outgoing, gomavlib.EndpointTCPServer{Address: ":5760"}},
	{"serial", "serial:///dev/ttyACM0?baud=921600", Outgoing, gomavlib.EndpointSerial{Device: "/dev/ttyACM0", Baud: 921600}},
	{"serial default baud", "serial:///dev/ttyUSB0", Outgoing, gomavlib.EndpointSerial{Device: "/dev/ttyUSB0", Baud: 57600}},
	{"no port", "udp://127.0.0.1", Outgoing, nil},
	{"port 0", "udp://127.0.0.1:0", Outgoing, nil},
	{"port too big", "udp://127.0.0.1:65536", Outgoing, nil},
	{"unknown scheme", "http://127.0.0.1:80", Outgoing, nil},
	{"path", "udp://127.0.0.1:14540/x", Outgoing, nil},
	{"udpout without host", "udpout://:14550", Outgoing, nil},
	{"serial without device", "serial://", Outgoing, nil},
	{"bad baud", "serial:///dev/ttyS0?baud=fast", Outgoing, nil},
	{"empty", "", Outgoing, nil},
}

func TestParseURL(t *testing.T) {
	for _, tc := range parseURLCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseURL(tc.url, tc.dir)
			if tc.want == nil {
				if !errors.Is(err, ErrBadURL) {
					t.Errorf("got %v, %v; want ErrBadURL", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

func TestModes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		flavor       Flavor
		base         uint8
		custom       uint32
		want         string
		wantCustomHx uint32
	}{
		{"PX4 position", FlavorPX4, 1, 196608, "position", 0x00030000},
		{"PX4 offboard", FlavorPX4, 1, 393216, "offboard", 0x00060000},
		{"PX4 takeoff", FlavorPX4, 1, 33816576, "takeoff", 0x02040000},
		{"PX4 hold", FlavorPX4, 1, 50593792, "hold", 0x03040000},
		{"PX4 mission", FlavorPX4, 1, 67371008, "mission", 0x04040000},
		{"PX4 RTL", FlavorPX4, 1, 84148224, "return", 0x05040000},
		{"PX4 land", FlavorPX4, 1, 100925440, "land", 0x06040000},
		{"PX4 stabilized", FlavorPX4, 1, 458752, "stabilized", 458752},
		{"PX4 altitude", FlavorPX4, 1, 131072, "altitude", 131072},
		{"PX4 unknown auto", FlavorPX4, 1, PX4Mode(4, 12), "auto.12", PX4Mode(4, 12)},
		{"no custom mode", FlavorPX4, 0, 196608, "unknown", 196608},
		{"ArduPilot guided", FlavorArduPilot, 1, 4, "offboard", 4},
		{"ArduPilot auto", FlavorArduPilot, 1, 3, "mission", 3},
		{"ArduPilot RTL", FlavorArduPilot, 1, 6, "return", 6},
		{"ArduPilot land", FlavorArduPilot, 1, 9, "land", 9},
		{"ArduPilot unknown", FlavorArduPilot, 1, 99, "ardupilot.99", 99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := modeName(tc.flavor, tc.base, tc.custom); got != tc.want {
				t.Errorf("name: got %s; want %s", got, tc.want)
			}
			if tc.custom != tc.wantCustomHx {
				t.Errorf("custom_mode %d is not %#x", tc.custom, tc.wantCustomHx)
			}
		})
	}
	// Each embedded mode maps to the PX4 mode whose name is its own (goto
	// reads as hold, as PX4 reports a reposition, and so does idle on the
	// ground, as PX4 SITL reports it).
	for m := autopilot.ModeIdle; m <= autopilot.ModeLand; m++ {
		custom, base := simPX4Mode(m)
		want := m.String()
		if m == autopilot.ModeGoto || m == autopilot.ModeIdle {
			want = "hold"
		}
		if got := modeName(FlavorPX4, base, custom); got != want || base != 29 {
			t.Errorf("%v: reported as %s (base %d); want %s (base 29)", m, got, base, want)
		}
	}
}

func TestDecodeUnits(t *testing.T) {
	tel := newTelem()
	tel.bindAny = true
	now := time.Time{}
	tel.apply(now, 1, 1, &common.MessageHeartbeat{Type: mavTypeQuadrotor, Autopilot: autopilotPX4, BaseMode: baseModeCustom | baseModeArmed, CustomMode: PX4Mode(px4Auto, px4AutoMission)})
	home := scenario.SITLHome
	lat, lon := scenario.Unproject(home, geom.Vec2{X: 10, Y: -5})
	for _, m := range []message.Message{
		&common.MessageHomePosition{Latitude: int32(math.Round(home.LatDeg * 1e7)), Longitude: int32(math.Round(home.LonDeg * 1e7)), Altitude: 488000, Z: 0.5},
		&common.MessageGpsRawInt{TimeUsec: 2e6, FixType: 3, Lat: int32(math.Round(lat * 1e7)), Lon: int32(math.Round(lon * 1e7)), Alt: 498000,
			Vel: 500, Cog: 9000, SatellitesVisible: 12, HAcc: 900, Eph: 70, VAcc: 0, Epv: 110},
		&common.MessageScaledImu{TimeBootMs: 2000, Zacc: -1000, Xgyro: 100},
		&common.MessageDistanceSensor{TimeBootMs: 2000, MinDistance: 10, MaxDistance: 4000, CurrentDistance: 250, Orientation: 25, Id: 3},
		&common.MessageDistanceSensor{TimeBootMs: 2000, MinDistance: 10, MaxDistance: 4000, CurrentDistance: 5, Orientation: 0, Id: 1},
		&common.MessageBatteryStatus{Voltages: [10]uint16{3900, 3900, 3900, 65535, 65535, 65535, 65535, 65535, 65535, 65535}, CurrentBattery: 1550, CurrentConsumed: 320, BatteryRemaining: 64},
		&common.MessageExtendedSysState{LandedState: landedInAir},
		&common.MessageMissionCurrent{Seq: 2, Total: 4, MissionState: missionStateActive},
	} {
		if !tel.apply(now, 1, 1, m) {
			t.Fatalf("%T refused", m)
		}
	}
	got := tel.snapshot()
	g := got.GNSS
	if d := g.Pos.Sub(geom.Vec3{X: 10, Y: -5, Z: 0.5 - 10}).Norm(); d > 0.01 || g.Fix != 3 || g.Satellites != 12 || g.EphM != 0.9 || g.EpvM != 1.1 {
		t.Errorf("GNSS: %+v (position off by %.3f m)", g, d)
	}
	if math.Abs(g.Vel.X) > 1e-9 || math.Abs(g.Vel.Y-5) > 1e-9 {
		t.Errorf("GNSS velocity from 5 m/s at course 90°: %v", g.Vel)
	}
	if math.Abs(got.IMU.Accel.Z+9.80665) > 1e-9 || math.Abs(got.IMU.Gyro.X-0.1) > 1e-9 || got.IMU.T != 2 {
		t.Errorf("SCALED_IMU: %+v", got.IMU)
	}
	wantRange := []float64{math.NaN(), 2.5} // id 1 forward below its minimum, id 3 down
	if diff := cmp.Diff(wantRange, got.Range.Ranges, cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })); diff != "" ||
		got.Range.Dirs[0] != (geom.Vec3{X: 1}) || got.Range.Dirs[1] != (geom.Vec3{Z: 1}) || got.Range.MaxM != 40 {
		t.Errorf("range: %+v %s", got.Range, diff)
	}
	b := got.Battery
	if math.Abs(b.VoltageV-11.7) > 1e-9 || b.Cells != 3 || b.CurrentA != 15.5 || b.UsedMAh != 320 || b.Remaining != 0.64 {
		t.Errorf("battery: %+v", b)
	}
	if got.Landed || !got.Armed || got.Mode != "mission" || got.MissionItem != 2 || got.MissionDone || got.Home.Z != 0.5 {
		t.Errorf("state: landed %v armed %v mode %s item %d done %v home %v", got.Landed, got.Armed, got.Mode, got.MissionItem, got.MissionDone, got.Home)
	}
	tel.apply(now, 1, 1, &common.MessageMissionCurrent{Seq: 3, Total: 4, MissionState: missionStateDone})
	if s := tel.snapshot(); !s.MissionDone || s.MissionItem != 4 {
		t.Errorf("complete: done %v item %d; want true 4", s.MissionDone, s.MissionItem)
	}
}

// TestSampleCounts: each sensor's Seq counts the samples that arrived, by
// their stamps: a repeated frame, or a second message of one sample (the
// barometer's HIGHRES_IMU without its updated flag, SYS_STATUS and
// BATTERY_STATUS of one battery reading), is not a new sample.
func TestSampleCounts(t *testing.T) {
	tel := newTelem()
	tel.bindAny = true
	now := time.Time{}
	tel.apply(now, 1, 1, &common.MessageHeartbeat{Type: mavTypeQuadrotor, Autopilot: autopilotPX4, BaseMode: baseModeCustom})
	const baro = 0x200
	imu := func(us uint64, flags common.HIGHRES_IMU_UPDATED_FLAGS) message.Message {
		return &common.MessageHighresImu{TimeUsec: us, Zacc: -9.8, AbsPressure: 955, Temperature: 20, PressureAlt: 488, FieldsUpdated: flags}
	}
	gps := func(us uint64) message.Message {
		return &common.MessageGpsRawInt{TimeUsec: us, FixType: 1, Eph: 65535, Epv: 65535, Vel: 65535, Cog: 65535}
	}
	for _, m := range []message.Message{
		imu(1_000_000, baro), &common.MessageSysStatus{VoltageBattery: 12000, CurrentBattery: -1, BatteryRemaining: -1}, gps(1_000_000),
		&common.MessageBatteryStatus{Voltages: [10]uint16{4000, 65535, 65535, 65535, 65535, 65535, 65535, 65535, 65535, 65535}, CurrentBattery: -1, CurrentConsumed: -1, BatteryRemaining: 80},
		imu(1_000_000, baro), // the same frame again
		imu(1_020_000, 0), imu(1_040_000, 0), imu(1_060_000, baro), gps(1_200_000), gps(1_200_000),
		&common.MessageAttitude{TimeBootMs: 2000}, &common.MessageSysStatus{VoltageBattery: 12000, CurrentBattery: -1, BatteryRemaining: -1},
	} {
		if !tel.apply(now, 1, 1, m) {
			t.Fatalf("%T refused", m)
		}
	}
	got := tel.snapshot()
	if got.IMU.Seq != 4 || got.Baro.Seq != 2 || got.GNSS.Seq != 2 || got.Battery.Seq != 2 {
		t.Errorf("samples: IMU %d, baro %d, GNSS %d, battery %d; want 4, 2, 2, 2", got.IMU.Seq, got.Baro.Seq, got.GNSS.Seq, got.Battery.Seq)
	}
}

func TestCarrot(t *testing.T) {
	s := &stream{}
	s.retarget(10, geom.Vec3{}, geom.Vec3{X: 6, Y: 8}, 2)
	for _, tc := range []struct {
		t        float64
		pos, vel geom.Vec3
	}{
		{9, geom.Vec3{}, geom.Vec3{X: 1.2, Y: 1.6}},
		{10, geom.Vec3{}, geom.Vec3{X: 1.2, Y: 1.6}},
		{12.5, geom.Vec3{X: 3, Y: 4}, geom.Vec3{X: 1.2, Y: 1.6}},
		{15, geom.Vec3{X: 6, Y: 8}, geom.Vec3{}},
		{99, geom.Vec3{X: 6, Y: 8}, geom.Vec3{}},
	} {
		p, v := s.at(tc.t)
		if p.Sub(tc.pos).Norm() > 1e-12 || v.Sub(tc.vel).Norm() > 1e-12 {
			t.Errorf("t=%v: got %v %v; want %v %v", tc.t, p, v, tc.pos, tc.vel)
		}
	}
}
