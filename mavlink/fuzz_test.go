package mavlink

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/frame"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// FuzzDecode feeds arbitrary bytes through the frame decoder (as a link
// does) to both sides: the adapter's telemetry decoder and the server's
// message handler with a live simulator. Nothing may panic, the adapter's
// telemetry must stay finite and plausible, and so must the simulated
// vehicle's state.
func FuzzDecode(f *testing.F) {
	for _, h := range hostile(f) {
		f.Add(h.data)
	}
	f.Add(encode(f, 1, 1,
		&common.MessageHeartbeat{Type: mavTypeQuadrotor, Autopilot: autopilotPX4, BaseMode: baseModeCustom | baseModeArmed, CustomMode: PX4Mode(px4Offboard, 0)},
		&common.MessageLocalPositionNed{TimeBootMs: 1000, X: 1, Y: 2, Z: -3, Vx: 1},
		&common.MessageAttitude{TimeBootMs: 1000, Roll: 0.1, Yaw: 3},
		&common.MessageGlobalPositionInt{TimeBootMs: 1000, Lat: 473977420, Lon: 85455940, Alt: 490000},
		&common.MessageGpsRawInt{FixType: 3, Lat: 473977420, Lon: 85455940, Vel: 100, Cog: 9000, SatellitesVisible: 10},
		&common.MessageHomePosition{Latitude: 473977420, Longitude: 85455940, Altitude: 488000},
		&common.MessageDistanceSensor{MinDistance: 10, MaxDistance: 1000, CurrentDistance: 300, Orientation: 25},
		&common.MessageExtendedSysState{LandedState: landedInAir},
		&common.MessageMissionCurrent{Seq: 1, Total: 3, MissionState: missionStateActive},
		&common.MessageBatteryStatus{Voltages: [10]uint16{4000, 4000, 4000, 4000, 65535, 65535, 65535, 65535, 65535, 65535}, BatteryRemaining: 80}))
	f.Add(encode(f, 255, 190,
		&common.MessageCommandLong{TargetSystem: 1, Command: cmdArmDisarm, Param1: 1},
		&common.MessageCommandLong{TargetSystem: 1, Command: cmdNavTakeoff, Param7: 495},
		&common.MessageSetPositionTargetLocalNed{TargetSystem: 1, CoordinateFrame: frameLocal, TypeMask: maskAcc | maskYaw | maskYawRate, X: 1, Z: -5},
		&common.MessageCommandLong{TargetSystem: 1, Command: cmdDoSetMode, Param1: 1, Param2: px4Offboard},
		&common.MessageMissionCount{TargetSystem: 1, Count: 2},
		&common.MessageMissionItemInt{TargetSystem: 1, Command: cmdNavTakeoff, Frame: frameGlobalRelInt, X: 473977420, Y: 85455940, Z: 5},
		&common.MessageMissionItemInt{TargetSystem: 1, Seq: 1, Command: cmdNavLand, Frame: frameGlobalRelInt, X: 473977420, Y: 85455940},
		&common.MessageCommandLong{TargetSystem: 1, Command: cmdMissionStart}))
	drw := &dialect.ReadWriter{Dialect: common.Dialect}
	if err := drw.Initialize(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := newCore(sim, 1, 1, originForTest, 5)
		tel := newTelem()
		tel.bindAny = true
		r := &frame.Reader{BufByteReader: bufio.NewReader(bytes.NewReader(data)), DialectRW: drw}
		if err := r.Initialize(); err != nil {
			t.Fatal(err)
		}
		var now time.Time
		for i := 0; i < 200; i++ {
			fr, err := r.Read()
			if err != nil {
				var re frame.ReadError
				if errors.As(err, &re) {
					continue
				}
				break
			}
			msg := fr.GetMessage()
			tel.apply(now, fr.GetSystemID(), fr.GetComponentID(), msg)
			if err := checkTelemetry(tel.snapshot()); err != nil {
				t.Fatalf("after %T: %v", msg, err)
			}
			c.handle(nil, fr.GetSystemID(), fr.GetComponentID(), msg)
			c.advance(c.now()+0.02, now)
			c.take()
			if err := checkTelemetry(sim.Telemetry()); err != nil {
				t.Fatalf("simulated vehicle after %T: %v", msg, err)
			}
		}
	})
}

var originForTest = scenario.SITLHome

// FuzzParseURL: any string is either refused with ErrBadURL, quoting it, or
// read into an endpoint with a usable address (a port in 1–65535, a host
// only where the side needs one, a device and a positive baud rate) that
// the explicit form of the same endpoint (udpin://, udpout://, tcpin://,
// tcpout://, serial://) reads back to; a URL's side follows dir only for
// udp:// and tcp:// with a host.
func FuzzParseURL(f *testing.F) {
	for _, tc := range parseURLCases {
		f.Add(tc.url, tc.dir == Incoming)
	}
	f.Add("udp://[::1]:14540", false)
	f.Add("serial:ttyS0?baud=115200", false)
	f.Add("UDP://h:1", true)
	f.Fuzz(func(t *testing.T, s string, in bool) {
		dir := Outgoing
		if in {
			dir = Incoming
		}
		conf, err := ParseURL(s, dir)
		if err != nil {
			if conf != nil || !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseURL(%q) = %#v, %v; want nil and ErrBadURL quoting the URL", s, conf, err)
			}
			return
		}
		scheme := strings.ToLower(s[:max(0, strings.Index(s, ":"))])
		var explicit string
		switch c := conf.(type) {
		case gomavlib.EndpointSerial:
			if c.Device == "" || c.Baud <= 0 {
				t.Fatalf("ParseURL(%q) = %#v: no device or baud", s, c)
			}
			if !strings.HasPrefix(c.Device, "/") {
				return // an opaque device name has no path form to read back
			}
			explicit = (&url.URL{Scheme: "serial", Path: c.Device, RawQuery: "baud=" + strconv.Itoa(c.Baud)}).String()
		case gomavlib.EndpointUDPServer:
			explicit = "udpin://" + checkAddr(t, s, c.Address, false)
		case gomavlib.EndpointUDPClient:
			explicit = "udpout://" + checkAddr(t, s, c.Address, true)
			if dir == Incoming && scheme == "udp" {
				t.Fatalf("ParseURL(%q, Incoming) dials (%#v)", s, c)
			}
		case gomavlib.EndpointTCPServer:
			explicit = "tcpin://" + checkAddr(t, s, c.Address, false)
		case gomavlib.EndpointTCPClient:
			explicit = "tcpout://" + checkAddr(t, s, c.Address, true)
			if dir == Incoming && scheme == "tcp" {
				t.Fatalf("ParseURL(%q, Incoming) dials (%#v)", s, c)
			}
		default:
			t.Fatalf("ParseURL(%q) = %#v: an endpoint of an unexpected kind", s, conf)
		}
		back, err := ParseURL(explicit, Outgoing)
		if err != nil || back != conf {
			t.Fatalf("ParseURL(%q) = %#v, but its explicit form %q reads %#v, %v", s, conf, explicit, back, err)
		}
	})
}

// checkAddr checks an endpoint's address and returns it.
func checkAddr(t *testing.T, s, addr string, needHost bool) string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("ParseURL(%q): address %q: %v", s, addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		t.Fatalf("ParseURL(%q): port %q out of 1–65535", s, port)
	}
	if needHost && host == "" {
		t.Fatalf("ParseURL(%q): a client without a host (%q)", s, addr)
	}
	return addr
}
