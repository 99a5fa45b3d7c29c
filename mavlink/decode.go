package mavlink

import (
	"math"
	"sort"
	"time"

	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Plausibility limits: a message with a value beyond them (or NaN, ±Inf)
// is rejected whole and never reaches the telemetry.
const (
	maxPosM    = 1e6   // local position, m (a mission spans at most scenario.MaxRangeM)
	maxVelMS   = 500   // velocity, m/s
	maxRateRad = 100   // body rate, rad/s (a 2000 °/s gyro saturates at 35)
	maxAccMS2  = 2000  // specific force, m/s² (a 16 g accelerometer saturates at 157)
	maxVoltV   = 1000  // battery voltage, V
	maxRangeM  = 1000  // range sensor, m
	uint16Max  = 65535 // "unknown" in many MAVLink fields
	gravity    = 9.80665
	rebootS    = 5 // vehicle time going back more than this is a reboot
)

// Message ids the decoder reads.
const (
	idHeartbeat     = 0
	idSysStatus     = 1
	idGPSRaw        = 24
	idScaledIMU     = 26
	idAttitude      = 30
	idLocalPos      = 32
	idGlobalPos     = 33
	idServoOut      = 36
	idMissionCur    = 42
	idItemReached   = 46
	idHighresIMU    = 105
	idDistance      = 132
	idBattery       = 147
	idHome          = 242
	idExtState      = 245
	idStatusText    = 253
	idESCStatus     = 291
	idObstacleDist  = 330
	idCommandAck    = 77
	idAutopilotVers = 148
	idProtocolVers  = 300
)

// refPoint ties the local frame to the globe: a point known in both.
type refPoint struct {
	ll    scenario.LatLonAlt // AltM is AMSL
	local geom.Vec3
	ok    bool
}

func (r refPoint) toGlobal(p geom.Vec3) (lat, lon, amsl float64) {
	lat, lon = scenario.Unproject(r.ll, p.XY().Sub(r.local.XY()))
	return lat, lon, r.ll.AltM - (p.Z - r.local.Z)
}

func (r refPoint) toLocal(lat, lon, amsl float64) geom.Vec3 {
	ne := scenario.Project(r.ll, lat, lon).Add(r.local.XY())
	return geom.Vec3{X: ne.X, Y: ne.Y, Z: r.local.Z - (amsl - r.ll.AltM)}
}

type rangeRay struct {
	t          float64
	dist       float64
	minM, maxM float64
	dir        geom.Vec3
}

// telem is the decoded state of the vehicle: what the messages said, each
// checked before it is taken. It does no I/O and reads no clock: the
// receipt time comes in with each message.
type telem struct {
	sys, comp uint8 // the autopilot (0 until its first heartbeat or telemetry)
	bindAny   bool  // bind to the first autopilot component heard (no target system given)
	flavor    Flavor
	base      uint8
	custom    uint32
	status    uint8
	tel       vehicle.Telemetry

	bootS    float64 // latest vehicle time, s
	haveTime bool
	landedOK bool // EXTENDED_SYS_STATE seen
	home     refPoint
	cur      refPoint // the latest GLOBAL_POSITION_INT with the latest local position
	lposOK   bool

	missionTotal int
	missionState uint8
	lastReached  int
	uploaded     int // items of the last upload, −1 = none

	esc    [4]vehicle.ESC
	ranges map[uint8]rangeRay

	seen     map[uint32]time.Time // receipt of the latest accepted message of each id
	lastHB   time.Time
	lastMsg  time.Time // receipt of the latest frame of any kind from the autopilot
	posSeq   uint64    // accepted LOCAL_POSITION_NED count
	hbSeq    uint64
	rejected uint64 // messages refused as implausible
	texts    []string
}

func newTelem() *telem {
	t := &telem{seen: map[uint32]time.Time{}, ranges: map[uint8]rangeRay{}, lastReached: -1, uploaded: -1}
	t.tel.Att = geom.Quat{W: 1}
	t.tel.Battery.Remaining = math.NaN()
	for i := range t.esc {
		t.esc[i] = vehicle.ESC{Output: math.NaN(), RPM: math.NaN()}
	}
	return t
}

func fin(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func within(lim float64, vs ...float64) bool {
	for _, v := range vs {
		if !(math.Abs(v) <= lim) {
			return false
		}
	}
	return true
}

func validLatLon(lat, lon int32) bool {
	return lat >= -900000000 && lat <= 900000000 && lon >= -1800000000 && lon <= 1800000000 && (lat != 0 || lon != 0)
}

// clock takes the vehicle's time_boot_ms: time moves forward, and a jump
// back of more than rebootS is a reboot.
func (t *telem) clock(ms uint32) float64 {
	s := float64(ms) / 1000
	if !t.haveTime || s > t.bootS || s < t.bootS-rebootS {
		t.bootS, t.haveTime = s, true
	}
	return s
}

// usec interprets a time_usec that may be since boot or since the UNIX
// epoch: within 10 s of the vehicle's time it is since boot, otherwise the
// sample is dated now.
func (t *telem) usec(us uint64) float64 {
	s := float64(us) / 1e6
	if t.haveTime && math.Abs(s-t.bootS) < 10 {
		return s
	}
	if !t.haveTime && s < 1e6 {
		t.bootS, t.haveTime = s, true
		return s
	}
	return t.bootS
}

// apply takes one message received at now from (sys, comp). It returns
// false when the message is not the autopilot's or not plausible; only
// accepted messages change the telemetry.
func (t *telem) apply(now time.Time, sys, comp uint8, msg message.Message) bool {
	if hb, ok := msg.(*common.MessageHeartbeat); ok {
		return t.heartbeat(now, sys, comp, hb)
	}
	if !decodable(msg) {
		return false // not telemetry (or not read here): neither taken nor refused
	}
	if t.sys == 0 && t.bindAny && comp == 1 {
		// Telemetry from an autopilot component (MAV_COMP_ID_AUTOPILOT1)
		// before its first heartbeat (1 Hz): take it, so that a connection
		// has a position at once.
		t.sys, t.comp = sys, comp
	}
	if t.sys == 0 || sys != t.sys {
		return false
	}
	ok := t.decode(msg)
	if ok {
		t.seen[msg.GetID()] = now
		t.tel.T = t.bootS
	} else {
		t.rejected++
	}
	return ok
}

func (t *telem) heartbeat(now time.Time, sys, comp uint8, hb *common.MessageHeartbeat) bool {
	if uint8(hb.Type) == mavTypeGCS || uint8(hb.Autopilot) == autopilotInvalid {
		return false // a ground station or a peripheral
	}
	if t.sys == 0 && t.bindAny {
		t.sys, t.comp = sys, comp
	}
	if sys != t.sys || comp != t.comp {
		return false
	}
	t.flavor = flavorOf(uint8(hb.Autopilot))
	t.base, t.custom, t.status = uint8(hb.BaseMode), hb.CustomMode, uint8(hb.SystemStatus)
	t.tel.Armed = t.base&baseModeArmed != 0
	t.tel.Mode = modeName(t.flavor, t.base, t.custom)
	if !t.landedOK {
		t.tel.Landed = !t.tel.Armed
	}
	t.lastHB = now
	t.seen[idHeartbeat] = now
	t.hbSeq++
	t.missionDone()
	return true
}

// decodable reports whether decode reads msg.
func decodable(msg message.Message) bool {
	switch msg.(type) {
	case *common.MessageLocalPositionNed, *common.MessageAttitude, *common.MessageAttitudeQuaternion,
		*common.MessageGlobalPositionInt, *common.MessageHomePosition, *common.MessageGpsRawInt,
		*common.MessageHighresImu, *common.MessageScaledImu, *common.MessageSysStatus, *common.MessageBatteryStatus,
		*common.MessageExtendedSysState, *common.MessageDistanceSensor, *common.MessageMissionCurrent,
		*common.MessageMissionItemReached, *common.MessageEscStatus, *common.MessageServoOutputRaw,
		*common.MessageStatustext:
		return true
	}
	return false
}

// decode takes a decodable message; false means it was refused as
// implausible.
func (t *telem) decode(msg message.Message) bool {
	switch m := msg.(type) {
	case *common.MessageLocalPositionNed:
		p := geom.Vec3{X: float64(m.X), Y: float64(m.Y), Z: float64(m.Z)}
		v := geom.Vec3{X: float64(m.Vx), Y: float64(m.Vy), Z: float64(m.Vz)}
		if !within(maxPosM, p.X, p.Y, p.Z) || !within(maxVelMS, v.X, v.Y, v.Z) {
			return false
		}
		t.clock(m.TimeBootMs)
		t.tel.Pos, t.tel.Vel, t.lposOK = p, v, true
		t.posSeq++
	case *common.MessageAttitude:
		r, p, y := float64(m.Roll), float64(m.Pitch), float64(m.Yaw)
		if !within(math.Pi+0.01, r, p) || !within(2*math.Pi+0.01, y) ||
			!within(maxRateRad, float64(m.Rollspeed), float64(m.Pitchspeed), float64(m.Yawspeed)) {
			return false
		}
		t.clock(m.TimeBootMs)
		t.tel.Att = geom.QuatEuler(r, p, y)
	case *common.MessageAttitudeQuaternion:
		q := geom.Quat{W: float64(m.Q1), X: float64(m.Q2), Y: float64(m.Q3), Z: float64(m.Q4)}
		if !fin(q.W, q.X, q.Y, q.Z) || math.Abs(q.Norm()-1) > 0.01 {
			return false
		}
		t.clock(m.TimeBootMs)
		t.tel.Att = q.Normalize()
	case *common.MessageGlobalPositionInt:
		if !validLatLon(m.Lat, m.Lon) {
			return false
		}
		t.clock(m.TimeBootMs)
		// Paired with the latest local position, at most one period older.
		t.cur = refPoint{ll: scenario.LatLonAlt{LatDeg: float64(m.Lat) / 1e7, LonDeg: float64(m.Lon) / 1e7, AltM: float64(m.Alt) / 1000},
			local: t.tel.Pos, ok: t.lposOK}
	case *common.MessageHomePosition:
		x, y, z := float64(m.X), float64(m.Y), float64(m.Z)
		if !validLatLon(m.Latitude, m.Longitude) || !within(maxPosM, x, y, z) {
			return false
		}
		t.home = refPoint{ll: scenario.LatLonAlt{LatDeg: float64(m.Latitude) / 1e7, LonDeg: float64(m.Longitude) / 1e7, AltM: float64(m.Altitude) / 1000},
			local: geom.Vec3{X: x, Y: y, Z: z}, ok: true}
		t.tel.Home = t.home.local
	case *common.MessageGpsRawInt:
		return t.gps(m)
	case *common.MessageHighresImu:
		acc := geom.Vec3{X: float64(m.Xacc), Y: float64(m.Yacc), Z: float64(m.Zacc)}
		gyr := geom.Vec3{X: float64(m.Xgyro), Y: float64(m.Ygyro), Z: float64(m.Zgyro)}
		if !within(maxAccMS2, acc.X, acc.Y, acc.Z) || !within(maxRateRad, gyr.X, gyr.Y, gyr.Z) {
			return false
		}
		ts := t.usec(m.TimeUsec)
		t.tel.IMU = vehicle.IMU{T: ts, Seq: nextSeq(t.tel.IMU.T, t.tel.IMU.Seq, ts), Accel: acc, Gyro: gyr}
		const baroFields = 0x200 // HIGHRES_IMU_UPDATED_ABS_PRESSURE: a new barometer sample
		if p, tc, alt := float64(m.AbsPressure), float64(m.Temperature), float64(m.PressureAlt); m.FieldsUpdated&baroFields != 0 &&
			fin(p, tc, alt) && p > 0 && p < 2000 && math.Abs(alt) < 1e5 && math.Abs(tc) < 200 {
			t.tel.Baro = vehicle.Baro{T: ts, Seq: nextSeq(t.tel.Baro.T, t.tel.Baro.Seq, ts), PressurePa: p * 100, TempC: tc, AltM: alt}
		}
	case *common.MessageScaledImu:
		ts := t.clock(m.TimeBootMs)
		k := gravity / 1000
		t.tel.IMU = vehicle.IMU{T: ts, Seq: nextSeq(t.tel.IMU.T, t.tel.IMU.Seq, ts),
			Accel: geom.Vec3{X: float64(m.Xacc) * k, Y: float64(m.Yacc) * k, Z: float64(m.Zacc) * k},
			Gyro:  geom.Vec3{X: float64(m.Xgyro) / 1000, Y: float64(m.Ygyro) / 1000, Z: float64(m.Zgyro) / 1000}}
	case *common.MessageSysStatus:
		b := t.tel.Battery
		b.T, b.Seq = t.bootS, nextSeq(b.T, b.Seq, t.bootS)
		if m.VoltageBattery != uint16Max {
			b.VoltageV = float64(m.VoltageBattery) / 1000
		}
		if m.CurrentBattery >= 0 {
			b.CurrentA = float64(m.CurrentBattery) / 100
		}
		if m.BatteryRemaining >= 0 && m.BatteryRemaining <= 100 {
			b.Remaining = float64(m.BatteryRemaining) / 100
		}
		t.tel.Battery = b
	case *common.MessageBatteryStatus:
		return t.battery(m)
	case *common.MessageExtendedSysState:
		switch m.LandedState {
		case landedOnGround:
			t.tel.Landed, t.landedOK = true, true
		case landedInAir, landedTakeoff, landedLanding:
			t.tel.Landed, t.landedOK = false, true
		default:
			return false
		}
		t.missionDone()
	case *common.MessageDistanceSensor:
		return t.distance(m)
	case *common.MessageMissionCurrent:
		if m.Total != 0 && m.Seq > m.Total {
			return false
		}
		t.missionTotal, t.missionState = int(m.Total), uint8(m.MissionState)
		t.tel.MissionItem = int(m.Seq)
		t.missionDone()
	case *common.MessageMissionItemReached:
		t.lastReached = int(m.Seq)
		t.missionDone()
	case *common.MessageEscStatus:
		ts := t.usec(m.TimeUsec)
		for i, rpm := range m.Rpm {
			if j := int(m.Index) + i; j < len(t.esc) {
				t.esc[j].T, t.esc[j].RPM = ts, float64(rpm)
			}
		}
	case *common.MessageServoOutputRaw:
		for i, pwm := range [4]uint16{m.Servo1Raw, m.Servo2Raw, m.Servo3Raw, m.Servo4Raw} {
			if pwm == 0 || pwm == uint16Max {
				continue
			}
			t.esc[i].Output = geom.Clamp((float64(pwm)-1000)/1000, 0, 1)
		}
	case *common.MessageStatustext:
		const keep = 64
		t.texts = append(t.texts, m.Text)
		if len(t.texts) > keep {
			t.texts = append(t.texts[:0], t.texts[len(t.texts)-keep:]...)
		}
	default:
		return false
	}
	return true
}

// nextSeq is a sensor's sample count after a sample stamped t, the last
// one (if seq > 0) being stamped last: one more for the first sample or a
// new stamp, the same for a repeat (a frame sent twice, or a second message
// of the same sample, such as SYS_STATUS and BATTERY_STATUS of one battery
// reading).
func nextSeq(last float64, seq uint64, t float64) uint64 {
	if seq == 0 || t != last {
		return seq + 1
	}
	return seq
}

// missionDone: PX4 ≥ 1.14 reports MISSION_STATE_COMPLETE; older firmware
// and ArduPilot are done when the last item was reached and the vehicle has
// landed and disarmed.
func (t *telem) missionDone() {
	done := t.missionState == missionStateDone && t.missionTotal > 0
	if !done && t.uploaded > 0 && t.lastReached == t.uploaded-1 && !t.tel.Armed && t.tel.Landed {
		done = true
	}
	t.tel.MissionDone = done
	if done && t.missionTotal > 0 {
		t.tel.MissionItem = t.missionTotal
	}
}

func (t *telem) gps(m *common.MessageGpsRawInt) bool {
	if uint8(m.FixType) > 8 {
		return false
	}
	g := vehicle.GNSS{T: t.usec(m.TimeUsec), Fix: int(m.FixType), Satellites: int(m.SatellitesVisible), EphM: math.NaN(), EpvM: math.NaN()}
	if g.Satellites == 255 {
		g.Satellites = 0
	}
	if m.HAcc > 0 {
		g.EphM = float64(m.HAcc) / 1000
	} else if m.Eph != uint16Max {
		g.EphM = float64(m.Eph) / 100 // HDOP, the best a receiver without h_acc offers
	}
	if m.VAcc > 0 {
		g.EpvM = float64(m.VAcc) / 1000
	} else if m.Epv != uint16Max {
		g.EpvM = float64(m.Epv) / 100
	}
	if m.FixType >= 2 {
		if !validLatLon(m.Lat, m.Lon) {
			return false
		}
		if r := t.reference(); r.ok {
			g.Pos = r.toLocal(float64(m.Lat)/1e7, float64(m.Lon)/1e7, float64(m.Alt)/1000)
			if !within(maxPosM, g.Pos.X, g.Pos.Y, g.Pos.Z) {
				return false
			}
		}
		if m.Vel != uint16Max && m.Cog != uint16Max {
			v := float64(m.Vel) / 100
			c := float64(m.Cog) / 100 * math.Pi / 180
			g.Vel = geom.Vec3{X: v * math.Cos(c), Y: v * math.Sin(c)}
		}
	}
	g.Seq = nextSeq(t.tel.GNSS.T, t.tel.GNSS.Seq, g.T)
	t.tel.GNSS = g
	return true
}

func (t *telem) battery(m *common.MessageBatteryStatus) bool {
	var mv float64
	cells := 0
	for _, v := range m.Voltages {
		if v != uint16Max {
			mv += float64(v)
			cells++
		}
	}
	if mv/1000 > maxVoltV {
		return false
	}
	b := t.tel.Battery
	b.T, b.Seq = t.bootS, nextSeq(b.T, b.Seq, t.bootS)
	if cells > 0 {
		b.VoltageV, b.Cells = mv/1000, cells
	}
	if m.CurrentBattery >= 0 {
		b.CurrentA = float64(m.CurrentBattery) / 100
	}
	if m.CurrentConsumed >= 0 {
		b.UsedMAh = float64(m.CurrentConsumed)
	}
	if m.BatteryRemaining >= 0 && m.BatteryRemaining <= 100 {
		b.Remaining = float64(m.BatteryRemaining) / 100
	}
	t.tel.Battery = b
	return true
}

// sensorDir is the body-frame (FRD) direction of a MAV_SENSOR_ORIENTATION.
func sensorDir(o uint8) (geom.Vec3, bool) {
	switch o {
	case 0, 1, 2, 3, 4, 5, 6, 7: // yaw 0, 45, … 315
		a := float64(o) * math.Pi / 4
		r := func(v float64) float64 { return math.Round(v*1e12) / 1e12 }
		return geom.Vec3{X: r(math.Cos(a)), Y: r(math.Sin(a))}, true
	case 24: // PITCH_90: up
		return geom.Vec3{Z: -1}, true
	case 25: // PITCH_270: down
		return geom.Vec3{Z: 1}, true
	}
	return geom.Vec3{}, false
}

func (t *telem) distance(m *common.MessageDistanceSensor) bool {
	dir, ok := sensorDir(uint8(m.Orientation))
	if !ok || m.MaxDistance == 0 || m.MinDistance > m.MaxDistance || float64(m.MaxDistance)/100 > maxRangeM {
		return false
	}
	ts := t.clock(m.TimeBootMs)
	r := rangeRay{t: ts, minM: float64(m.MinDistance) / 100, maxM: float64(m.MaxDistance) / 100, dir: dir}
	switch d := float64(m.CurrentDistance) / 100; {
	case d < r.minM:
		r.dist = math.NaN()
	case d >= r.maxM:
		r.dist = r.maxM
	default:
		r.dist = d
	}
	const maxSensors = 16
	if _, have := t.ranges[m.Id]; !have && len(t.ranges) >= maxSensors {
		return false
	}
	t.ranges[m.Id] = r
	ids := make([]int, 0, len(t.ranges))
	for id := range t.ranges {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	rg := vehicle.Range{Cols: len(ids), Rows: 1, Ranges: make([]float64, len(ids)), Dirs: make([]geom.Vec3, len(ids))}
	for i, id := range ids {
		ray := t.ranges[uint8(id)]
		rg.Ranges[i], rg.Dirs[i] = ray.dist, ray.dir
		rg.T = math.Max(rg.T, ray.t)
		rg.MaxM = math.Max(rg.MaxM, ray.maxM)
	}
	rg.Seq = nextSeq(t.tel.Range.T, t.tel.Range.Seq, rg.T)
	t.tel.Range = rg
	return true
}

// reference returns the point that ties local and global frames: home when
// known, else the latest global position paired with the local one.
func (t *telem) reference() refPoint {
	if t.home.ok {
		return t.home
	}
	return t.cur
}

// snapshot returns a copy of the telemetry that shares no memory with t.
func (t *telem) snapshot() vehicle.Telemetry {
	s := t.tel
	if s.Range.Ranges != nil {
		s.Range.Ranges = append([]float64(nil), s.Range.Ranges...)
		s.Range.Dirs = append([]geom.Vec3(nil), s.Range.Dirs...)
	}
	return s
}
