package mavlink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// out is a message the core sends: to the link it came from (reply), or to
// every link (nil).
type out struct {
	to  any // the gomavlib channel of the request; nil = all links
	msg message.Message
}

// telemetry streams of the server, with their default rates (Hz of vehicle
// time) after PX4 SITL's GCS link (px4.md §5.5). Within one step they go
// out in this order: the sensor samples first, then the messages whose
// time_boot_ms moves the receiver's clock on, so that a receiver woken by
// the new time already holds the samples of that time.
var streamDefaults = []struct {
	id uint32
	hz float64
}{
	{idHeartbeat, 1}, {idSysStatus, 1}, {idBattery, 1}, {idGPSRaw, 5}, {idHighresIMU, 50},
	{idServoOut, 10}, {idESCStatus, 10}, {idMissionCur, 1}, {idHome, 0.5}, {idExtState, 5}, {74 /* VFR_HUD */, 4},
	{2 /* SYSTEM_TIME */, 1}, {idDistance, 10}, {idAttitude, 50}, {idGlobalPos, 50}, {idLocalPos, 50},
}

type streamState struct {
	period float64 // s; 0 = off
	next   float64
}

// uploadState is a mission upload in progress (the vehicle's side).
type uploadState struct {
	to        any
	sys, comp uint8
	count     int
	items     []*common.MessageMissionItemInt
	legacy    bool      // the ground station answers with MISSION_ITEM (39): ask with MISSION_REQUEST (40)
	askedAt   time.Time // wall time of the last request (PX4's mission timeouts are wall time)
	retries   int
}

// core is the simulated PX4: the simulator and the MAVLink behaviour
// around it, with no I/O, no goroutine and no clock of its own. handle
// takes one received message, advance steps the simulation; both return
// what to send.
type core struct {
	sim        *vehicle.Sim
	ap         *autopilot.Autopilot
	sys, comp  uint8
	origin     scenario.LatLonAlt
	failDelayS float64
	startHome  geom.Vec3
	streams    map[uint32]*streamState
	up         *uploadState
	evIdx      int
	landAt     float64 // offboard-loss failsafe: land at this vehicle time (NaN = none)
	wall       time.Time
	params     []param
	outs       []out

	// The mission as uploaded (every item, DO_ items too), the items the
	// autopilot flies and the sequence number of each (apSeq[k] is the
	// MAVLink seq of autopilot item k).
	mission []*common.MessageMissionItemInt
	apItems []autopilot.Item
	apSeq   []int
	// cur is the mission's current item (MISSION_CURRENT.seq): where Mission
	// mode resumes; len(mission) once finished. started: the mission ran
	// since its upload (a current item > 0 or a Hold after it is PAUSED).
	cur      int
	started  bool
	finished bool
	// inMission and inRTL say which PX4 mode a take-off, a land or a
	// descent of the embedded autopilot belongs to: a mission's take-off
	// item and its touchdown read AUTO.MISSION, RTL's descent AUTO.RTL.
	inMission, inRTL bool
	apFrom           int // autopilot index the running mission started at (its items are apItems[apFrom:] shifted)
	apEnd            int // one past the last autopilot item of the running mission (MISSION_START's last item)

	lastBase    uint8
	lastCustom  uint32
	lastLanded  uint8
	lastAPItem  int
	lastCur     int
	lastMState  uint8
	lastBaroT   float64
	stepped     bool
	unsupported int // messages not handled
}

type param struct {
	name  string
	value float32
	int   bool
}

func newCore(sim *vehicle.Sim, sys, comp uint8, origin scenario.LatLonAlt, failDelayS float64) *core {
	c := &core{sim: sim, ap: sim.Autopilot(), sys: sys, comp: comp, origin: origin, failDelayS: failDelayS,
		streams: map[uint32]*streamState{}, landAt: math.NaN(), lastAPItem: -1, lastCur: -1}
	for _, s := range streamDefaults {
		c.streams[s.id] = &streamState{period: 1 / s.hz}
	}
	c.startHome = sim.Telemetry().Pos
	cfg := c.ap.Config()
	c.params = []param{
		{"COM_DISARM_LAND", float32(cfg.DisarmLandS), false}, {"COM_FAIL_ACT_T", float32(failDelayS), false},
		{"COM_MOT_TEST_EN", 1, true}, {"COM_OBL_RC_ACT", 5, true}, {"COM_OF_LOSS_T", float32(cfg.OffboardLoss), false},
		{"MAV_SYS_ID", float32(sys), true}, {"MIS_TAKEOFF_ALT", float32(cfg.TakeoffAltM), false},
		{"MPC_LAND_SPEED", float32(cfg.LandMS), false}, {"MPC_TKO_SPEED", float32(cfg.TakeoffMS), false},
		{"MPC_XY_CRUISE", float32(cfg.CruiseMS), false}, {"MPC_XY_VEL_MAX", float32(cfg.Gains.XYVelMaxMS), false},
		{"MPC_Z_V_AUTO_DN", float32(cfg.ZVelDnMS), false}, {"MPC_Z_V_AUTO_UP", float32(cfg.ZVelUpMS), false},
		{"NAV_ACC_RAD", float32(cfg.AccRadM), false}, {"RTL_DESCEND_ALT", float32(cfg.RTLDescendM), false},
		{"RTL_RETURN_ALT", float32(cfg.RTLAltM), false},
	}
	return c
}

func (c *core) send(to any, m message.Message) { c.outs = append(c.outs, out{to: to, msg: m}) }

// take returns and clears what is to be sent.
func (c *core) take() []out {
	o := c.outs
	c.outs = nil
	return o
}

func (c *core) now() float64 { return c.sim.Time() }
func (c *core) bootMs() uint32 {
	return uint32(math.Min(c.now()*1000, math.MaxUint32))
}

// home returns the home position: where the vehicle was armed, or where it
// started before that (PX4 sets home at the first fix).
func (c *core) home() geom.Vec3 {
	if h, ok := c.ap.Home(); ok {
		return h
	}
	return c.startHome
}

// inAir reports what PX4's land detector would say of a disarmed vehicle:
// more than 0.5 m above the ground it started on, or moving faster than
// LNDMC_XY_VEL_MAX (1.5 m/s) or vertically faster than 2 × LNDMC_Z_VEL_MAX.
func (c *core) inAir() bool {
	tel := c.sim.Telemetry()
	return c.startHome.Z-tel.Pos.Z > 0.5 || tel.Vel.XY().Norm() > 1.5 || math.Abs(tel.Vel.Z) > 0.5
}

func (c *core) homeAMSL() float64 { return c.origin.AltM - c.home().Z }

func (c *core) toGlobal(p geom.Vec3) (lat, lon, amsl float64) {
	lat, lon = scenario.Unproject(c.origin, p.XY())
	return lat, lon, c.origin.AltM - p.Z
}

func (c *core) statusText(sev uint8, format string, args ...any) {
	txt := fmt.Sprintf(format, args...)
	if len(txt) > 50 {
		txt = txt[:50]
	}
	c.send(nil, &common.MessageStatustext{Severity: common.MAV_SEVERITY(sev), Text: txt})
}

// forUs reports whether a message addressed to (sys, comp) is ours. Like
// PX4 (MAVLINK_CHECK_SYSID_COMPID and its mission manager's), the system
// must be ours: a message to system 0 (broadcast) is not taken, so that a
// ground station on a network of several vehicles commands the one it
// names.
func (c *core) forUs(sys, comp uint8) bool {
	return sys == c.sys && (comp == 0 || comp == c.comp)
}

// commandForUs is PX4's MavlinkReceiver::evaluate_target_ok: the request
// commands REQUEST_AUTOPILOT_CAPABILITIES and REQUEST_PROTOCOL_VERSION are
// taken on broadcast (system 0, any component), every other command only
// when addressed to this system and to this component or all components.
func (c *core) commandForUs(cmd uint16, sys, comp uint8) bool {
	if cmd == cmdRequestAPVersion || cmd == cmdRequestProtoVers {
		return sys == 0 || sys == c.sys
	}
	return c.forUs(sys, comp)
}

// handle takes one message from (sys, comp), received on link to.
func (c *core) handle(to any, sys, comp uint8, msg message.Message) {
	switch m := msg.(type) {
	case *common.MessageCommandLong:
		if c.commandForUs(uint16(m.Command), m.TargetSystem, m.TargetComponent) {
			r := c.command(to, uint16(m.Command), [7]float64{float64(m.Param1), float64(m.Param2), float64(m.Param3),
				float64(m.Param4), float64(m.Param5), float64(m.Param6), float64(m.Param7)}, frameGlobal)
			c.send(to, &common.MessageCommandAck{Command: m.Command, Result: common.MAV_RESULT(r), TargetSystem: sys, TargetComponent: comp})
			c.onChange() // the new mode's heartbeat right after the ack
		}
	case *common.MessageCommandInt:
		if c.commandForUs(uint16(m.Command), m.TargetSystem, m.TargetComponent) {
			r := c.command(to, uint16(m.Command), [7]float64{float64(m.Param1), float64(m.Param2), float64(m.Param3),
				float64(m.Param4), intDeg(m.X), intDeg(m.Y), float64(m.Z)}, uint8(m.Frame))
			c.send(to, &common.MessageCommandAck{Command: m.Command, Result: common.MAV_RESULT(r), TargetSystem: sys, TargetComponent: comp})
			c.onChange()
		}
	case *common.MessageSetMode:
		if m.TargetSystem == c.sys && m.BaseMode&baseModeCustom != 0 {
			main, sub := px4Split(m.CustomMode)
			c.setMode(main, sub)
			c.onChange()
		}
	case *common.MessageSetPositionTargetLocalNed:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.setpoint(m)
		}
	case *common.MessageMissionCount:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.missionCount(to, sys, comp, m)
		}
	case *common.MessageMissionItemInt:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.missionItem(to, sys, comp, m, false)
		}
	case *common.MessageMissionItem:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.missionItem(to, sys, comp, itemInt(m), true)
		}
	case *common.MessageMissionRequestList:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			n := 0
			if m.MissionType == 0 {
				n = len(c.mission)
			}
			c.send(to, &common.MessageMissionCount{TargetSystem: sys, TargetComponent: comp, Count: uint16(n), MissionType: m.MissionType})
		}
	case *common.MessageMissionRequestInt:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.missionDownload(to, sys, comp, int(m.Seq), uint8(m.MissionType), false)
		}
	case *common.MessageMissionRequest:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.missionDownload(to, sys, comp, int(m.Seq), uint8(m.MissionType), true)
		}
	case *common.MessageMissionSetCurrent:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			// PX4 answers with MISSION_CURRENT, also when it refuses.
			c.setCurrent(int(m.Seq))
			c.send(to, c.missionCurrentMsg())
			c.onChange()
		}
	case *common.MessageMissionClearAll:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			if m.MissionType == 0 {
				c.setMission(nil, nil, nil)
			}
			c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, MissionType: m.MissionType})
		}
	case *common.MessageParamRequestList:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			for i := range c.params {
				c.sendParam(to, i)
			}
		}
	case *common.MessageParamRequestRead:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			if i := c.paramIndex(m.ParamId, int(m.ParamIndex)); i >= 0 {
				c.sendParam(to, i)
			}
		}
	case *common.MessageParamSet:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			if i := c.paramIndex(m.ParamId, -1); i >= 0 {
				c.statusText(4, "param %s is read-only here", c.params[i].name)
				c.sendParam(to, i)
			}
		}
	case *common.MessageTimesync:
		if m.Tc1 == 0 {
			c.send(to, &common.MessageTimesync{Tc1: int64(c.now() * 1e9), Ts1: m.Ts1, TargetSystem: sys, TargetComponent: comp})
		}
	case *common.MessageHeartbeat:
	default:
		c.unsupported++
	}
}

// intDeg converts a COMMAND_INT x or y (degrees × 1e7) to degrees; INT32_MAX
// and 0x7FF80000 (the bits of a float NaN, which PX4 also takes) mean
// unset, as NaN does in COMMAND_LONG.
func intDeg(v int32) float64 {
	if v == math.MaxInt32 || v == 0x7FF80000 {
		return math.NaN()
	}
	return float64(v) / 1e7
}

func (c *core) paramIndex(id string, index int) int {
	id = strings.TrimRight(id, "\x00")
	if index >= 0 && index < len(c.params) {
		return index
	}
	for i, p := range c.params {
		if p.name == id {
			return i
		}
	}
	return -1
}

func (c *core) sendParam(to any, i int) {
	p := c.params[i]
	typ := common.MAV_PARAM_TYPE_REAL32
	v := p.value
	if p.int {
		// PX4 sends integer parameters bytewise in the float field.
		typ = common.MAV_PARAM_TYPE_INT32
		v = math.Float32frombits(uint32(int32(p.value)))
	}
	c.send(to, &common.MessageParamValue{ParamId: p.name, ParamValue: v, ParamType: typ, ParamCount: uint16(len(c.params)), ParamIndex: uint16(i)})
}

// result maps the embedded autopilot's refusals to MAV_RESULT: a refusal
// that depends on the state (armed, landed, no setpoints) is
// TEMPORARILY_REJECTED, as PX4 answers failed arming checks; a bad
// parameter or a motor test while armed is DENIED (px4.md §3.8, §5.2).
func result(err error) uint8 {
	switch {
	case err == nil:
		return ResultAccepted
	case errors.Is(err, autopilot.ErrNotArmed), errors.Is(err, autopilot.ErrInAir), errors.Is(err, autopilot.ErrOnGround),
		errors.Is(err, autopilot.ErrNoSetpoint), errors.Is(err, autopilot.ErrEmptyMission):
		return ResultTemporarilyRejected
	case errors.Is(err, vehicle.ErrUnsupported):
		return ResultUnsupported
	}
	return ResultDenied
}

// command executes one MAV_CMD; p[4], p[5] are latitude and longitude in
// degrees (NaN = unset) for both COMMAND_LONG and COMMAND_INT, and frame is
// the frame of p[6] for the commands that carry a position: COMMAND_LONG's
// is MAV_FRAME_GLOBAL (altitude AMSL, as PX4 takes it), COMMAND_INT's its
// own.
func (c *core) command(to any, cmd uint16, p [7]float64, frame uint8) uint8 {
	ctx := context.Background()
	st := c.ap.Status()
	switch cmd {
	case cmdArmDisarm:
		switch {
		case p[0] == 1 && st.Armed:
			return ResultAccepted // PX4: arming an armed vehicle is accepted
		case p[0] == 1 && c.inAir():
			return ResultTemporarilyRejected // PX4's land detector: not landed
		case p[0] == 1:
			return c.modeChange(c.sim.Arm(ctx), modeOther)
		case p[1] == forceMagic:
			return c.modeChange(c.sim.Kill(ctx), modeOther)
		case !st.Armed:
			return ResultAccepted
		}
		return c.modeChange(c.sim.Disarm(ctx), modeOther)
	case cmdNavTakeoff:
		if !positionFrame(frame) {
			return ResultUnsupportedFrame
		}
		alt := 0.0
		if !math.IsNaN(p[6]) {
			alt = p[6]
			if !relativeFrame(frame) {
				alt -= c.homeAMSL()
			}
			if !(alt > 0 && alt < 1e4) {
				return ResultDenied
			}
		}
		return c.modeChange(c.sim.Takeoff(ctx, alt), modeOther)
	case cmdNavLand:
		return c.modeChange(c.sim.Land(ctx), modeOther)
	case cmdNavReturn:
		return c.modeChange(c.sim.Return(ctx), modeRTL)
	case cmdDoSetMode:
		if int(p[0])&baseModeCustom == 0 || !fin(p[1], p[2]) {
			return ResultDenied
		}
		return c.setMode(uint8(p[1]), uint8(p[2]))
	case cmdMissionStart:
		return c.missionStart(p[0], p[1])
	case cmdDoSetMissionCur:
		return c.setMissionCurrent(p[0], p[1])
	case cmdDoReposition:
		if !positionFrame(frame) {
			return ResultUnsupportedFrame
		}
		return c.reposition(p, relativeFrame(frame))
	case cmdDoPauseContinue:
		switch p[0] {
		case 0:
			return c.modeChange(c.sim.Hold(ctx), modeOther)
		case 1:
			// PX4 continues the mission from its current item.
			if c.inMission {
				return ResultAccepted
			}
			return c.resumeMission()
		}
		return ResultDenied
	case cmdDoFlightTerm:
		if p[0] > 0.5 {
			return c.modeChange(c.sim.Kill(ctx), modeOther)
		}
		return ResultAccepted
	case cmdDoMotorTest:
		return c.motorTest(p)
	case cmdRequestMessage:
		return c.requestMessage(to, p[0])
	case cmdRequestAPVersion:
		c.send(to, c.autopilotVersion())
		return ResultAccepted
	case cmdRequestProtoVers:
		c.send(to, protocolVersion())
		return ResultAccepted
	case cmdGetMsgInterval:
		if !fin(p[0]) || p[0] < 0 || p[0] > math.MaxUint16 {
			return ResultDenied
		}
		c.send(to, c.messageInterval(uint32(p[0])))
		return ResultAccepted
	case cmdSetMsgInterval:
		s, ok := c.streams[uint32(p[0])]
		if !ok || !fin(p[1]) {
			return ResultDenied
		}
		switch {
		case p[1] < 0:
			s.period = 0
		case p[1] == 0:
			for _, d := range streamDefaults {
				if d.id == uint32(p[0]) {
					s.period = 1 / d.hz
				}
			}
		default:
			s.period = math.Max(p[1]/1e6, minStreamPeriodS)
		}
		s.next = c.now()
		return ResultAccepted
	}
	return ResultUnsupported
}

// minStreamPeriodS is the shortest stream period SET_MESSAGE_INTERVAL
// sets: one message per simulation step (200 Hz).
const minStreamPeriodS = 0.005

// protocolVersion is the answer to MAV_CMD_REQUEST_PROTOCOL_VERSION: MAVLink
// 2 (200), down to 1 (100); the hashes are unknown (zero), as allowed.
func protocolVersion() *common.MessageProtocolVersion {
	return &common.MessageProtocolVersion{Version: 200, MinVersion: 100, MaxVersion: 200}
}

// messageInterval is the answer to MAV_CMD_GET_MESSAGE_INTERVAL: the
// stream's period in µs, −1 when it is off, 0 for a message the vehicle
// does not stream.
func (c *core) messageInterval(id uint32) *common.MessageMessageInterval {
	m := &common.MessageMessageInterval{MessageId: uint16(id)}
	if s, ok := c.streams[id]; ok {
		m.IntervalUs = -1
		if s.period > 0 {
			m.IntervalUs = int32(math.Round(s.period * 1e6))
		}
	}
	return m
}

// positionFrame reports whether a command's position can be taken in
// frame: global, with the altitude AMSL or above home.
func positionFrame(f uint8) bool {
	switch f {
	case frameGlobal, frameGlobalInt, frameGlobalRelAlt, frameGlobalRelInt:
		return true
	}
	return false
}

func relativeFrame(f uint8) bool { return f == frameGlobalRelAlt || f == frameGlobalRelInt }

// Mode families a command enters, for the mode the heartbeat reports.
const (
	modeOther = iota
	modeMission
	modeRTL
)

// modeChange answers a command that changes what the vehicle does: when
// it is accepted, it ends a pending offboard-loss failsafe and says which
// PX4 mode the autopilot's take-offs and landings belong to from now on.
func (c *core) modeChange(err error, family int) uint8 {
	if err == nil {
		c.landAt = math.NaN()
		c.inMission, c.inRTL = family == modeMission, family == modeRTL
	}
	return result(err)
}

func (c *core) setMode(main, sub uint8) uint8 {
	ctx := context.Background()
	switch {
	case main == px4Auto && sub == px4AutoLoiter, main == px4PosCtl, main == px4AltCtl:
		if c.ap.Status().Landed && !c.ap.Status().Armed {
			return ResultAccepted // a mode for later, on the ground
		}
		return c.modeChange(c.sim.Hold(ctx), modeOther)
	case main == px4Auto && sub == px4AutoMission:
		if c.inMission {
			return ResultAccepted
		}
		return c.resumeMission()
	case main == px4Auto && sub == px4AutoRTL:
		return c.modeChange(c.sim.Return(ctx), modeRTL)
	case main == px4Auto && sub == px4AutoLand:
		return c.modeChange(c.sim.Land(ctx), modeOther)
	case main == px4Auto && sub == px4AutoTakeoff:
		return c.modeChange(c.sim.Takeoff(ctx, 0), modeOther)
	case main == px4Offboard:
		return c.modeChange(c.ap.EnterOffboard(), modeOther)
	}
	return ResultDenied
}

// reposition is DO_REPOSITION: fly to p[4], p[5] (NaN both: stay over the
// current position) at altitude p[6] (AMSL, or above home when rel; NaN:
// the current altitude) and hold there.
func (c *core) reposition(p [7]float64, rel bool) uint8 {
	cur := c.sim.Telemetry().Pos
	target := cur
	switch {
	case math.IsNaN(p[4]) && math.IsNaN(p[5]):
	case !fin(p[4], p[5]) || math.Abs(p[4]) > 90 || math.Abs(p[5]) > 180:
		return ResultDenied
	default:
		ne := scenario.Project(c.origin, p[4], p[5])
		target.X, target.Y = ne.X, ne.Y
	}
	switch {
	case math.IsNaN(p[6]):
	case !fin(p[6]):
		return ResultDenied
	case rel:
		target.Z = c.home().Z - p[6]
	default:
		target.Z = c.origin.AltM - p[6]
	}
	if !within(maxPosM, target.X, target.Y, target.Z) {
		return ResultDenied
	}
	speed := 0.0
	if p[0] > 0 && fin(p[0]) {
		speed = p[0]
	}
	return c.modeChange(c.sim.Goto(context.Background(), target, speed), modeOther)
}

func (c *core) motorTest(p [7]float64) uint8 {
	if !fin(p[0], p[1], p[2], p[3]) || p[0] < 1 || p[0] > 4 || p[3] <= 0 {
		return ResultDenied
	}
	var thr float64
	switch p[1] {
	case 0: // percent
		thr = p[2] / 100
	case 1: // PWM
		thr = (p[2] - 1000) / 1000
	default:
		return ResultUnsupported
	}
	if !(thr >= 0 && thr <= 1) {
		return ResultDenied
	}
	return result(c.sim.MotorTest(context.Background(), int(p[0])-1, thr, secondsDur(math.Min(p[3], 60))))
}

func (c *core) requestMessage(to any, id float64) uint8 {
	switch id {
	case idAutopilotVers:
		c.send(to, c.autopilotVersion())
	case idHome:
		c.send(to, c.homeMsg())
	case idHeartbeat:
		c.send(to, c.heartbeatMsg())
	case idExtState:
		c.send(to, c.extStateMsg())
	default:
		return ResultDenied
	}
	return ResultAccepted
}

func (c *core) autopilotVersion() *common.MessageAutopilotVersion {
	// MISSION_INT | COMMAND_INT | SET_POSITION_TARGET_LOCAL_NED |
	// FLIGHT_TERMINATION | MAVLINK2 | PARAM_FLOAT | MISSION_FLOAT.
	const caps = 4 | 8 | 128 | 2048 | 8192 | 2 | 1
	return &common.MessageAutopilotVersion{Capabilities: caps,
		FlightSwVersion: 1<<24 | 15<<16 | 255, // reported as PX4 v1.15, official
		Uid:             uint64(c.sys)}
}

// setpoint takes an offboard setpoint in MAV_FRAME_LOCAL_NED; one with a
// partial vector, a non-finite or absurd value, or FORCE_SET is dropped.
func (c *core) setpoint(m *common.MessageSetPositionTargetLocalNed) {
	mask := uint16(m.TypeMask)
	if m.CoordinateFrame != frameLocal || mask&512 != 0 {
		c.unsupported++
		return
	}
	nan := geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()}
	vec := func(bits uint16, x, y, z float32) (geom.Vec3, bool) {
		switch mask & bits {
		case bits:
			return nan, true
		case 0:
			v := geom.Vec3{X: float64(x), Y: float64(y), Z: float64(z)}
			return v, within(maxPosM, v.X, v.Y, v.Z)
		}
		return nan, false
	}
	pos, ok1 := vec(maskPos, m.X, m.Y, m.Z)
	vel, ok2 := vec(maskVel, m.Vx, m.Vy, m.Vz)
	acc, ok3 := vec(maskAcc, m.Afx, m.Afy, m.Afz)
	yaw := math.NaN()
	if mask&maskYaw == 0 {
		yaw = float64(m.Yaw)
	}
	if !ok1 || !ok2 || !ok3 || !(math.IsNaN(yaw) || math.Abs(yaw) <= 2*math.Pi+0.01) || !within(maxVelMS, vel.X, vel.Y, vel.Z) && vel.IsFinite() {
		c.unsupported++
		return
	}
	if err := c.ap.SetOffboard(autopilot.Offboard{Pos: pos, Vel: vel, Acc: acc, Yaw: yaw}); err != nil {
		c.unsupported++
	}
}
