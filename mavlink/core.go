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
	askedT    float64
	retries   int
}

// core is the simulated PX4: the simulator and the MAVLink behaviour
// around it, with no I/O, no goroutine and no clock of its own. handle
// takes one received message, advance steps the simulation; both return
// what to send.
type core struct {
	sim         *vehicle.Sim
	ap          *autopilot.Autopilot
	sys, comp   uint8
	origin      scenario.LatLonAlt
	failDelayS  float64
	startHome   geom.Vec3
	streams     map[uint32]*streamState
	mission     []*common.MessageMissionItemInt
	up          *uploadState
	evIdx       int
	landAt      float64 // offboard-loss failsafe: land at this vehicle time (NaN = none)
	lastBase    uint8
	lastCustom  uint32
	lastLanded  uint8
	lastItem    int
	lastMState  uint8
	lastBaroT   float64
	wall        time.Time
	params      []param
	outs        []out
	unsupported int // messages not handled
}

type param struct {
	name  string
	value float32
	int   bool
}

func newCore(sim *vehicle.Sim, sys, comp uint8, origin scenario.LatLonAlt, failDelayS float64) *core {
	c := &core{sim: sim, ap: sim.Autopilot(), sys: sys, comp: comp, origin: origin, failDelayS: failDelayS,
		streams: map[uint32]*streamState{}, landAt: math.NaN(), lastItem: -1}
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

// forUs reports whether a message addressed to (sys, comp) is ours.
func (c *core) forUs(sys, comp uint8) bool {
	return (sys == 0 || sys == c.sys) && (comp == 0 || comp == c.comp)
}

// handle takes one message from (sys, comp), received on link to.
func (c *core) handle(to any, sys, comp uint8, msg message.Message) {
	switch m := msg.(type) {
	case *common.MessageCommandLong:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			r := c.command(to, uint16(m.Command), [7]float64{float64(m.Param1), float64(m.Param2), float64(m.Param3),
				float64(m.Param4), float64(m.Param5), float64(m.Param6), float64(m.Param7)})
			c.send(to, &common.MessageCommandAck{Command: m.Command, Result: common.MAV_RESULT(r), TargetSystem: sys, TargetComponent: comp})
			c.onChange() // the new mode's heartbeat right after the ack
		}
	case *common.MessageCommandInt:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			r := c.command(to, uint16(m.Command), [7]float64{float64(m.Param1), float64(m.Param2), float64(m.Param3),
				float64(m.Param4), float64(m.X) / 1e7, float64(m.Y) / 1e7, float64(m.Z)})
			c.send(to, &common.MessageCommandAck{Command: m.Command, Result: common.MAV_RESULT(r), TargetSystem: sys, TargetComponent: comp})
			c.onChange()
		}
	case *common.MessageSetMode:
		if m.TargetSystem == c.sys && m.BaseMode&baseModeCustom != 0 {
			main, sub := px4Split(m.CustomMode)
			c.setMode(main, sub)
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
			c.missionItem(to, sys, comp, m)
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
			c.missionDownload(to, sys, comp, int(m.Seq), uint8(m.MissionType))
		}
	case *common.MessageMissionRequest:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			c.missionDownload(to, sys, comp, int(m.Seq), uint8(m.MissionType))
		}
	case *common.MessageMissionClearAll:
		if c.forUs(m.TargetSystem, m.TargetComponent) {
			if m.MissionType == 0 {
				c.mission = nil
				_ = c.sim.UploadMission(context.Background(), nil)
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
// degrees for both COMMAND_LONG and COMMAND_INT.
func (c *core) command(to any, cmd uint16, p [7]float64) uint8 {
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
			return c.modeChange(c.sim.Arm(ctx))
		case p[1] == forceMagic:
			return c.modeChange(c.sim.Kill(ctx))
		case !st.Armed:
			return ResultAccepted
		}
		return c.modeChange(c.sim.Disarm(ctx))
	case cmdNavTakeoff:
		alt := 0.0
		if !math.IsNaN(p[6]) {
			alt = p[6] - c.homeAMSL()
			if !(alt > 0 && alt < 1e4) {
				return ResultDenied
			}
		}
		return c.modeChange(c.sim.Takeoff(ctx, alt))
	case cmdNavLand:
		return c.modeChange(c.sim.Land(ctx))
	case cmdNavReturn:
		return c.modeChange(c.sim.Return(ctx))
	case cmdDoSetMode:
		if int(p[0])&baseModeCustom == 0 || !fin(p[1], p[2]) {
			return ResultDenied
		}
		return c.setMode(uint8(p[1]), uint8(p[2]))
	case cmdMissionStart:
		if len(c.mission) == 0 {
			return ResultDenied
		}
		return c.modeChange(c.sim.StartMission(ctx))
	case cmdDoReposition:
		return c.reposition(p)
	case cmdDoPauseContinue:
		if p[0] == 0 {
			return c.modeChange(c.sim.Hold(ctx))
		}
		return ResultUnsupported
	case cmdDoFlightTerm:
		if p[0] > 0.5 {
			return c.modeChange(c.sim.Kill(ctx))
		}
		return ResultAccepted
	case cmdDoMotorTest:
		return c.motorTest(p)
	case cmdRequestMessage:
		return c.requestMessage(to, p[0])
	case cmdRequestAPVersion:
		c.send(to, c.autopilotVersion())
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
			s.period = math.Max(p[1]/1e6, 0.005)
		}
		s.next = c.now()
		return ResultAccepted
	}
	return ResultUnsupported
}

// modeChange answers a command that changes what the vehicle does: it
// ends a pending offboard-loss failsafe when accepted.
func (c *core) modeChange(err error) uint8 {
	if err == nil {
		c.landAt = math.NaN()
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
		return c.modeChange(c.sim.Hold(ctx))
	case main == px4Auto && sub == px4AutoMission:
		if len(c.mission) == 0 {
			return ResultDenied
		}
		return c.modeChange(c.sim.StartMission(ctx))
	case main == px4Auto && sub == px4AutoRTL:
		return c.modeChange(c.sim.Return(ctx))
	case main == px4Auto && sub == px4AutoLand:
		return c.modeChange(c.sim.Land(ctx))
	case main == px4Auto && sub == px4AutoTakeoff:
		return c.modeChange(c.sim.Takeoff(ctx, 0))
	case main == px4Offboard:
		return c.modeChange(c.ap.EnterOffboard())
	}
	return ResultDenied
}

func (c *core) reposition(p [7]float64) uint8 {
	if !fin(p[4], p[5], p[6]) || math.Abs(p[4]) > 90 || math.Abs(p[5]) > 180 {
		return ResultDenied
	}
	ne := scenario.Project(c.origin, p[4], p[5])
	target := geom.Vec3{X: ne.X, Y: ne.Y, Z: c.origin.AltM - p[6]}
	if !within(maxPosM, target.X, target.Y, target.Z) {
		return ResultDenied
	}
	speed := 0.0
	if p[0] > 0 && fin(p[0]) {
		speed = p[0]
	}
	return c.modeChange(c.sim.Goto(context.Background(), target, speed))
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

const maxMissionItems = 1000

func (c *core) missionCount(to any, sys, comp uint8, m *common.MessageMissionCount) {
	if m.MissionType != 0 {
		// Fences and rally points are not modelled: take none.
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: 3 /* UNSUPPORTED */, MissionType: m.MissionType})
		return
	}
	if m.Count > maxMissionItems {
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: 4 /* NO_SPACE */})
		return
	}
	if m.Count == 0 {
		c.mission = nil
		_ = c.sim.UploadMission(context.Background(), nil)
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp})
		return
	}
	c.up = &uploadState{to: to, sys: sys, comp: comp, count: int(m.Count)}
	c.requestItem()
}

func (c *core) requestItem() {
	u := c.up
	u.askedT = c.now()
	c.send(u.to, &common.MessageMissionRequestInt{TargetSystem: u.sys, TargetComponent: u.comp, Seq: uint16(len(u.items))})
}

// missionItem takes the next item of an upload; items out of sequence are
// asked for again.
func (c *core) missionItem(to any, sys, comp uint8, m *common.MessageMissionItemInt) {
	u := c.up
	if u == nil || m.MissionType != 0 || sys != u.sys {
		return
	}
	if int(m.Seq) != len(u.items) {
		c.requestItem()
		return
	}
	if code := c.checkItem(m); code != 0 {
		c.up = nil
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: common.MAV_MISSION_RESULT(code)})
		return
	}
	it := *m
	u.items = append(u.items, &it)
	u.retries = 0
	if len(u.items) < u.count {
		c.requestItem()
		return
	}
	c.up = nil
	items, code := c.vehicleItems(u.items)
	if code == 0 {
		if err := c.sim.UploadMission(context.Background(), items); err != nil {
			code = 5 // INVALID
		}
	}
	if code == 0 {
		c.mission = u.items
	}
	c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: common.MAV_MISSION_RESULT(code)})
}

// checkItem returns 0 or the MAV_MISSION_RESULT that refuses the item.
func (c *core) checkItem(m *common.MessageMissionItemInt) uint8 {
	switch uint8(m.Frame) {
	case frameGlobal, frameGlobalRelAlt, frameGlobalRelInt, 5 /* GLOBAL_INT */ :
	default:
		return 2 // UNSUPPORTED_FRAME
	}
	cmd := uint16(m.Command)
	if cmd >= 80 {
		return 0 // DO_ and CONDITION_ items: accepted, not flown
	}
	if cmd != cmdNavTakeoff && cmd != cmdNavWaypoint && cmd != cmdNavLand {
		return 3 // UNSUPPORTED
	}
	if !validLatLon(m.X, m.Y) && cmd != cmdNavTakeoff {
		return 10 // INVALID_PARAM5_X
	}
	if !fin(float64(m.Z)) || math.Abs(float64(m.Z)) > 1e5 {
		return 12 // INVALID_PARAM7
	}
	if p2 := float64(m.Param2); cmd == cmdNavWaypoint && (!fin(p2) || p2 < 0 || p2 > 1e4) {
		return 7 // INVALID_PARAM2
	}
	return 0
}

// vehicleItems converts the flown items to the simulator's: local NED,
// X and Y in the local frame, Z minus the height above home.
func (c *core) vehicleItems(ms []*common.MessageMissionItemInt) ([]vehicle.MissionItem, uint8) {
	var items []vehicle.MissionItem
	home := c.home()
	for _, m := range ms {
		var kind vehicle.ItemKind
		switch uint16(m.Command) {
		case cmdNavTakeoff:
			kind = vehicle.Takeoff
		case cmdNavWaypoint:
			kind = vehicle.Waypoint
		case cmdNavLand:
			kind = vehicle.Land
		default:
			continue
		}
		var p geom.Vec3
		if validLatLon(m.X, m.Y) {
			ne := scenario.Project(c.origin, float64(m.X)/1e7, float64(m.Y)/1e7)
			p.X, p.Y = ne.X, ne.Y
		} else {
			p.X, p.Y = home.X, home.Y
		}
		switch uint8(m.Frame) {
		case frameGlobal, 5:
			p.Z = -(float64(m.Z) - c.homeAMSL())
		default:
			p.Z = -float64(m.Z)
		}
		if kind == vehicle.Land {
			p.Z = 0
		}
		if !within(maxPosM, p.X, p.Y, p.Z) {
			return nil, 5
		}
		it := vehicle.MissionItem{Kind: kind, Pos: p}
		if kind == vehicle.Waypoint {
			it.AcceptRadiusM = float64(m.Param2)
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, 5
	}
	return items, 0
}

func (c *core) missionDownload(to any, sys, comp uint8, seq int, mt uint8) {
	if mt != 0 || seq < 0 || seq >= len(c.mission) {
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: 13 /* INVALID_SEQUENCE */, MissionType: common.MAV_MISSION_TYPE(mt)})
		return
	}
	it := *c.mission[seq]
	it.TargetSystem, it.TargetComponent = sys, comp
	c.send(to, &it)
}

// advance steps the simulation to vehicle time t (s), then sends what is
// due: messages on change (heartbeat, landed state, mission progress,
// status texts) and the telemetry streams.
func (c *core) advance(t float64, wall time.Time) {
	c.wall = wall
	dt := c.sim.Quad().StepS()
	for c.sim.Time()+dt/2 <= t {
		c.sim.Step()
	}
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
	c.onChange()
	if c.up != nil && now-c.up.askedT > 1.5 {
		if c.up.retries++; c.up.retries > 5 {
			u := c.up
			c.up = nil
			c.send(u.to, &common.MessageMissionAck{TargetSystem: u.sys, TargetComponent: u.comp, Type: 15 /* OPERATION_CANCELLED */})
		} else {
			c.requestItem()
		}
	}
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

// onChange sends the heartbeat, the landed state and the mission progress
// as soon as they change, as PX4 does, so that a ground station sees
// arming and mode changes without waiting a period.
func (c *core) onChange() {
	hb := c.heartbeatMsg()
	if uint8(hb.BaseMode) != c.lastBase || hb.CustomMode != c.lastCustom {
		c.lastBase, c.lastCustom = uint8(hb.BaseMode), hb.CustomMode
		c.send(nil, hb)
		c.send(nil, c.homeMsg())
	}
	if es := c.extStateMsg(); uint8(es.LandedState) != c.lastLanded {
		c.lastLanded = uint8(es.LandedState)
		c.send(nil, es)
	}
	st := c.ap.Status()
	if st.MissionItem != c.lastItem && len(c.mission) > 0 && c.lastItem >= 0 && st.MissionItem > c.lastItem {
		for i := c.lastItem; i < st.MissionItem && i < len(c.mission); i++ {
			c.send(nil, &common.MessageMissionItemReached{Seq: uint16(i)})
		}
	}
	c.lastItem = st.MissionItem
	if mc := c.missionCurrentMsg(); uint8(mc.MissionState) != c.lastMState {
		c.lastMState = uint8(mc.MissionState)
		c.send(nil, mc)
	}
}

func (c *core) heartbeatMsg() *common.MessageHeartbeat {
	st := c.ap.Status()
	custom, base := simPX4Mode(st.Mode)
	state := uint8(mavStateStandby)
	if st.Armed {
		base |= baseModeArmed
		state = mavStateActive
		if !math.IsNaN(c.landAt) {
			state = mavStateCritical
		}
	}
	return &common.MessageHeartbeat{Type: mavTypeQuadrotor, Autopilot: autopilotPX4, BaseMode: common.MAV_MODE_FLAG(base),
		CustomMode: custom, SystemStatus: common.MAV_STATE(state), MavlinkVersion: 3}
}

func (c *core) extStateMsg() *common.MessageExtendedSysState {
	st := c.ap.Status()
	ls := uint8(landedInAir)
	switch {
	case st.Landed:
		ls = landedOnGround
	case st.Mode == autopilot.ModeTakeoff:
		ls = landedTakeoff
	case st.Mode == autopilot.ModeLand:
		ls = landedLanding
	}
	return &common.MessageExtendedSysState{LandedState: common.MAV_LANDED_STATE(ls)}
}

func (c *core) homeMsg() *common.MessageHomePosition {
	h := c.home()
	lat, lon, amsl := c.toGlobal(h)
	return &common.MessageHomePosition{Latitude: int32(math.Round(lat * 1e7)), Longitude: int32(math.Round(lon * 1e7)),
		Altitude: int32(math.Round(amsl * 1000)), X: float32(h.X), Y: float32(h.Y), Z: float32(h.Z), Q: [4]float32{1, 0, 0, 0},
		ApproachX: float32(math.NaN()), ApproachY: float32(math.NaN()), ApproachZ: float32(math.NaN()), TimeUsec: uint64(c.now() * 1e6)}
}

func (c *core) missionCurrentMsg() *common.MessageMissionCurrent {
	st := c.ap.Status()
	n := len(c.mission)
	m := &common.MessageMissionCurrent{Total: uint16(n), MissionState: missionStateNone}
	if n == 0 {
		return m
	}
	m.Seq = uint16(min(st.MissionItem, n-1))
	switch {
	case st.MissionDone:
		m.MissionState = missionStateDone
	case st.Mode == autopilot.ModeMission:
		m.MissionState = missionStateActive
	default:
		m.MissionState = missionStateWaiting
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
		return &common.MessageBatteryStatus{Voltages: v, CurrentBattery: clampI16(b.CurrentA * 100), CurrentConsumed: int32(b.UsedMAh),
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
