package mavlink

import (
	"math"
	"strings"
	"time"

	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// advance steps the simulation to vehicle time t (s), and after each step
// sends what is due then: messages on change (heartbeat, landed state,
// mission progress, status texts) and the telemetry streams, so that a
// stream keeps its rate in vehicle time however far one call steps (a
// sped-up server steps several times per tick).
func (c *core) advance(t float64, wall time.Time) {
	c.wall = wall
	dt := c.sim.Quad().StepS()
	stepped := false
	for c.sim.Time()+dt/2 <= t {
		c.sim.Step()
		c.afterStep()
		stepped = true
	}
	if !stepped && !c.stepped {
		c.afterStep() // the first call: the first heartbeat and streams at once
	}
	c.stepped = c.stepped || stepped
	if c.up != nil && wall.Sub(c.up.askedAt) > missionTimeout {
		if c.up.retries++; c.up.retries > missionRetries {
			u := c.up
			c.up = nil
			c.send(u.to, &common.MessageMissionAck{TargetSystem: u.sys, TargetComponent: u.comp, Type: 15 /* OPERATION_CANCELLED */})
		} else {
			c.requestItem()
		}
	}
}

// afterStep sends what one simulation step made due.
func (c *core) afterStep() {
	now := c.now()
	ev := c.sim.Events()
	for _, e := range ev[c.evIdx:] {
		sev := uint8(6) // INFO
		if strings.HasPrefix(e.Text, "offboard setpoints lost") {
			sev = 4 // WARNING
			if c.ap.Status().Mode == autopilot.ModeHold {
				c.landAt = e.T + c.failDelayS
			}
		}
		c.statusText(sev, "%s", e.Text)
	}
	c.evIdx = len(ev)
	if !math.IsNaN(c.landAt) {
		st := c.ap.Status()
		switch {
		case st.Mode != autopilot.ModeHold || !st.Armed:
			c.landAt = math.NaN()
		case now >= c.landAt:
			c.landAt = math.NaN()
			if c.ap.Land() == nil {
				c.statusText(4, "Failsafe: offboard lost, landing")
			}
		}
	}
	c.trackMission()
	c.onChange()
	for _, d := range streamDefaults {
		s := c.streams[d.id]
		if s.period <= 0 || now+1e-9 < s.next {
			continue
		}
		s.next += s.period
		if s.next <= now {
			s.next = now + s.period
		}
		if m := c.streamMsg(d.id); m != nil {
			c.send(nil, m)
		}
	}
}

// onChange sends the mission progress, the heartbeat and the landed state
// as soon as they change, as PX4 does, so that a ground station sees
// arming and mode changes without waiting a period. The mission's progress
// goes first: when the last item ends in the step that disarms (a mission's
// landing), a ground station reading in order has the mission complete by
// the time it reads the disarm, as PX4 reports the touchdown before its
// auto-disarm.
func (c *core) onChange() {
	st := c.ap.Status()
	if k := st.MissionItem; k != c.lastAPItem {
		if c.inMission || c.finished {
			for i := max(c.lastAPItem, 0); i < k && i < len(c.apSeq); i++ {
				c.send(nil, &common.MessageMissionItemReached{Seq: uint16(c.apSeq[i])})
			}
		}
		c.lastAPItem = k
	}
	if seq, ms := c.missionSeqState(); ms != c.lastMState || seq != c.lastCur {
		c.lastMState, c.lastCur = ms, seq
		c.send(nil, c.missionCurrentMsg())
	}
	custom, base, _ := c.modeState()
	if base != c.lastBase || custom != c.lastCustom {
		c.lastBase, c.lastCustom = base, custom
		c.send(nil, c.heartbeatMsg())
		c.send(nil, c.homeMsg())
	}
	if ls := c.landedState(); ls != c.lastLanded {
		c.lastLanded = ls
		c.send(nil, c.extStateMsg())
	}
}

// modeState returns the PX4 custom_mode, base_mode and MAV_STATE the
// heartbeat reports.
func (c *core) modeState() (custom uint32, base, state uint8) {
	st := c.ap.Status()
	m := st.Mode
	switch {
	case c.inMission && (m == autopilot.ModeTakeoff || m == autopilot.ModeLand):
		m = autopilot.ModeMission // PX4: a mission's take-off and land items are AUTO.MISSION
	case c.inRTL && m == autopilot.ModeLand:
		m = autopilot.ModeReturn // PX4: RTL lands in AUTO.RTL
	}
	custom, base = simPX4Mode(m)
	state = mavStateStandby
	if st.Armed {
		base |= baseModeArmed
		state = mavStateActive
		if !math.IsNaN(c.landAt) {
			state = mavStateCritical
		}
	}
	return custom, base, state
}

func (c *core) heartbeatMsg() *common.MessageHeartbeat {
	custom, base, state := c.modeState()
	return &common.MessageHeartbeat{Type: mavTypeQuadrotor, Autopilot: autopilotPX4, BaseMode: common.MAV_MODE_FLAG(base),
		CustomMode: custom, SystemStatus: common.MAV_STATE(state), MavlinkVersion: 3}
}

// landedState is EXTENDED_SYS_STATE.landed_state as PX4 fills it: on the
// ground, or in the air with TAKEOFF while a take-off setpoint is flown
// (Takeoff mode, a mission's take-off item) and LANDING while a land
// setpoint is (Land mode, RTL's final descent, a mission's land item once
// over its point).
func (c *core) landedState() uint8 {
	st := c.ap.Status()
	switch {
	case st.Landed:
		return landedOnGround
	case st.Mode == autopilot.ModeTakeoff:
		return landedTakeoff
	case st.Mode == autopilot.ModeLand, c.missionLanding():
		return landedLanding
	}
	return landedInAir
}

func (c *core) extStateMsg() *common.MessageExtendedSysState {
	return &common.MessageExtendedSysState{LandedState: common.MAV_LANDED_STATE(c.landedState())}
}

func (c *core) homeMsg() *common.MessageHomePosition {
	h := c.home()
	lat, lon, amsl := c.toGlobal(h)
	return &common.MessageHomePosition{Latitude: int32(math.Round(lat * 1e7)), Longitude: int32(math.Round(lon * 1e7)),
		Altitude: int32(math.Round(amsl * 1000)), X: float32(h.X), Y: float32(h.Y), Z: float32(h.Z), Q: [4]float32{1, 0, 0, 0},
		ApproachX: float32(math.NaN()), ApproachY: float32(math.NaN()), ApproachZ: float32(math.NaN()), TimeUsec: uint64(c.now() * 1e6)}
}

// missionSeqState returns MISSION_CURRENT's seq and mission_state
// (MISSION_STATE): NO_MISSION, NOT_STARTED before the first start, ACTIVE
// in Mission mode (its take-off and touchdown too), PAUSED when stopped
// part way, COMPLETE after its last item (with or without a LAND).
func (c *core) missionSeqState() (seq int, state uint8) {
	n := len(c.mission)
	switch {
	case n == 0:
		return 0, missionStateNone
	case c.finished:
		return n - 1, missionStateDone
	case c.inMission:
		return min(c.cur, n-1), missionStateActive
	case c.started:
		return min(c.cur, n-1), missionStatePaused
	}
	return min(c.cur, n-1), missionStateWaiting
}

func (c *core) missionCurrentMsg() *common.MessageMissionCurrent {
	seq, state := c.missionSeqState()
	m := &common.MessageMissionCurrent{Seq: uint16(seq), Total: uint16(len(c.mission)), MissionState: common.MISSION_STATE(state)}
	if c.inMission {
		m.MissionMode = 1
	}
	return m
}

func clampI16(v float64) int16 { return int16(geom.Clamp(math.Round(v), math.MinInt16, math.MaxInt16)) }

// streamMsg builds the telemetry message id from the vehicle's estimate and
// sensors (never ground truth, except the downward range finder's reading,
// which the simulated sensor takes from the true height as SIH does).
func (c *core) streamMsg(id uint32) message.Message {
	tel := c.sim.Telemetry()
	ms := c.bootMs()
	us := uint64(c.now() * 1e6)
	switch id {
	case idHeartbeat:
		return c.heartbeatMsg()
	case idSysStatus:
		const sensors = 1 | 2 | 4 | 8 | 32 | 1024 | 2048 | 4096 | 8192 | 16384 | 32768 | 1<<21 | 1<<25 | 1<<28
		b := tel.Battery
		return &common.MessageSysStatus{OnboardControlSensorsPresent: sensors, OnboardControlSensorsEnabled: sensors,
			OnboardControlSensorsHealth: sensors, VoltageBattery: uint16(geom.Clamp(b.VoltageV*1000, 0, uint16Max-1)),
			CurrentBattery: clampI16(b.CurrentA * 100), BatteryRemaining: int8(geom.Clamp(math.Round(b.Remaining*100), 0, 100))}
	case 2:
		var unix uint64
		if !c.wall.IsZero() {
			unix = uint64(c.wall.UnixMicro())
		}
		return &common.MessageSystemTime{TimeUnixUsec: unix, TimeBootMs: ms}
	case idGPSRaw:
		g := tel.GNSS
		lat, lon, amsl := c.toGlobal(g.Pos)
		cog := math.Mod(math.Atan2(g.Vel.Y, g.Vel.X)*180/math.Pi+360, 360)
		return &common.MessageGpsRawInt{TimeUsec: uint64(g.T * 1e6), FixType: common.GPS_FIX_TYPE(g.Fix),
			Lat: int32(math.Round(lat * 1e7)), Lon: int32(math.Round(lon * 1e7)), Alt: int32(math.Round(amsl * 1000)),
			Eph: 70, Epv: 110, Vel: uint16(geom.Clamp(g.Vel.XY().Norm()*100, 0, uint16Max-1)), Cog: uint16(math.Round(cog*100)) % 36000,
			SatellitesVisible: uint8(g.Satellites), HAcc: uint32(g.EphM * 1000), VAcc: uint32(g.EpvM * 1000)}
	case idAttitude:
		r, p, y := tel.Att.Euler()
		w := tel.IMU.Gyro
		return &common.MessageAttitude{TimeBootMs: ms, Roll: float32(r), Pitch: float32(p), Yaw: float32(y),
			Rollspeed: float32(w.X), Pitchspeed: float32(w.Y), Yawspeed: float32(w.Z)}
	case idLocalPos:
		return &common.MessageLocalPositionNed{TimeBootMs: ms, X: float32(tel.Pos.X), Y: float32(tel.Pos.Y), Z: float32(tel.Pos.Z),
			Vx: float32(tel.Vel.X), Vy: float32(tel.Vel.Y), Vz: float32(tel.Vel.Z)}
	case idGlobalPos:
		lat, lon, amsl := c.toGlobal(tel.Pos)
		hdg := math.Mod(tel.Heading()*180/math.Pi+360, 360)
		return &common.MessageGlobalPositionInt{TimeBootMs: ms, Lat: int32(math.Round(lat * 1e7)), Lon: int32(math.Round(lon * 1e7)),
			Alt: int32(math.Round(amsl * 1000)), RelativeAlt: int32(math.Round((c.home().Z - tel.Pos.Z) * 1000)),
			Vx: clampI16(tel.Vel.X * 100), Vy: clampI16(tel.Vel.Y * 100), Vz: clampI16(tel.Vel.Z * 100), Hdg: uint16(math.Round(hdg*100)) % 36000}
	case idServoOut:
		e := c.sim.ESCs()
		pwm := func(i int) uint16 { return uint16(1000 + math.Round(geom.Clamp(e[i].Output, 0, 1)*1000)) }
		return &common.MessageServoOutputRaw{TimeUsec: uint32(us), Servo1Raw: pwm(0), Servo2Raw: pwm(1), Servo3Raw: pwm(2), Servo4Raw: pwm(3)}
	case idESCStatus:
		e := c.sim.ESCs()
		var rpm [4]int32
		for i := range rpm {
			rpm[i] = int32(math.Round(e[i].RPM))
		}
		return &common.MessageEscStatus{TimeUsec: us, Rpm: rpm}
	case idMissionCur:
		return c.missionCurrentMsg()
	case 74:
		st := c.ap.Status()
		_, _, amsl := c.toGlobal(tel.Pos)
		return &common.MessageVfrHud{Groundspeed: float32(tel.Vel.XY().Norm()), Heading: int16(math.Mod(tel.Heading()*180/math.Pi+360, 360)),
			Throttle: uint16(geom.Clamp(st.Thrust*100, 0, 100)), Alt: float32(amsl), Climb: float32(-tel.Vel.Z)}
	case idHighresIMU:
		i, b := tel.IMU, tel.Baro
		fields := uint16(0x3F) // accelerometer and gyroscope
		if b.T != c.lastBaroT {
			// A new barometer sample: abs pressure, pressure altitude,
			// temperature (HIGHRES_IMU_UPDATED_FLAGS).
			c.lastBaroT = b.T
			fields |= 0x200 | 0x800 | 0x1000
		}
		return &common.MessageHighresImu{TimeUsec: uint64(i.T * 1e6), Xacc: float32(i.Accel.X), Yacc: float32(i.Accel.Y), Zacc: float32(i.Accel.Z),
			Xgyro: float32(i.Gyro.X), Ygyro: float32(i.Gyro.Y), Zgyro: float32(i.Gyro.Z),
			AbsPressure: float32(b.PressurePa / 100), PressureAlt: float32(b.AltM), Temperature: float32(b.TempC),
			FieldsUpdated: common.HIGHRES_IMU_UPDATED_FLAGS(fields)}
	case idDistance:
		c.forwardRange(tel, ms)
		tr := c.sim.Quad().Truth()
		down := tr.Att.Rotate(geom.Vec3{Z: 1}).Z // cos of the tilt
		h := 100.0
		if down > 0.1 {
			h = math.Min(-tr.Pos.Z/down, 100)
		}
		return &common.MessageDistanceSensor{TimeBootMs: ms, MinDistance: 10, MaxDistance: 10000, CurrentDistance: uint16(math.Max(h, 0) * 100),
			Type: 0, Orientation: 25, Quaternion: [4]float32{}, SignalQuality: 100}
	case idBattery:
		b := tel.Battery
		var v [10]uint16
		for k := range v {
			v[k] = uint16Max
		}
		n := max(b.Cells, 1)
		for k := 0; k < n && k < len(v); k++ {
			v[k] = uint16(geom.Clamp(b.VoltageV/float64(n)*1000, 0, uint16Max-1))
		}
		cs := uint8(1) // OK; BAT_LOW_THR, BAT_CRIT_THR, BAT_EMERGEN_THR (px4.md §3.4)
		switch {
		case b.Remaining < 0.05:
			cs = 4
		case b.Remaining < 0.07:
			cs = 3
		case b.Remaining < 0.15:
			cs = 2
		}
		// Energy consumed is unknown (−1), as PX4 reports it; the battery
		// powers everything (MAV_BATTERY_FUNCTION_ALL) and is a LiPo.
		return &common.MessageBatteryStatus{BatteryFunction: 1, Type: 1, Voltages: v, CurrentBattery: clampI16(b.CurrentA * 100),
			CurrentConsumed: int32(b.UsedMAh), EnergyConsumed: -1,
			BatteryRemaining: int8(geom.Clamp(math.Round(b.Remaining*100), 0, 100)), ChargeState: common.MAV_BATTERY_CHARGE_STATE(cs), Temperature: math.MaxInt16}
	case idHome:
		return c.homeMsg()
	case idExtState:
		return c.extStateMsg()
	}
	return nil
}

// forwardRange sends the forward range sensor (when the simulator has one)
// as a DISTANCE_SENSOR facing forward: the nearest return within 15° of
// straight ahead.
func (c *core) forwardRange(tel vehicle.Telemetry, ms uint32) {
	r := tel.Range
	if len(r.Ranges) == 0 || !(r.MaxM > 0) {
		return
	}
	best := math.Inf(1)
	c15 := math.Cos(15 * math.Pi / 180)
	for i, rg := range r.Ranges {
		if i >= len(r.Dirs) {
			break
		}
		if d := r.Dirs[i]; d.X < c15 || math.Abs(d.Z) > 0.2 {
			continue
		}
		if math.IsNaN(rg) {
			rg = 0
		}
		best = math.Min(best, rg)
	}
	if math.IsInf(best, 1) {
		return
	}
	maxCM := math.Min(r.MaxM*100, uint16Max-1)
	c.send(nil, &common.MessageDistanceSensor{TimeBootMs: ms, MinDistance: 0, MaxDistance: uint16(maxCM),
		CurrentDistance: uint16(math.Min(best*100, maxCM)), Type: 0, Id: 1, Orientation: 0, SignalQuality: 100})
}
