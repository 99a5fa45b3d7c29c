package autopilot

import (
	"errors"
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
)

// Errors returned by commands the autopilot refuses; its state is unchanged.
var (
	ErrNotArmed     = errors.New("autopilot: not armed")
	ErrArmed        = errors.New("autopilot: already armed")
	ErrInAir        = errors.New("autopilot: in the air")
	ErrNoSetpoint   = errors.New("autopilot: no recent offboard setpoint")
	ErrEmptyMission = errors.New("autopilot: empty mission")
	ErrBadTarget    = errors.New("autopilot: target is not a finite position above the ground")
	ErrOnGround     = errors.New("autopilot: on the ground (take off first)")
)

// Mode is the flight mode.
type Mode int

// Flight modes.
const (
	ModeIdle     Mode = iota // on the ground, armed or not, waiting
	ModeTakeoff              // climbing to the take-off height
	ModeHold                 // holding position
	ModeGoto                 // flying to a position
	ModeMission              // flying the uploaded mission
	ModeOffboard             // following external setpoints
	ModeReturn               // returning home
	ModeLand                 // descending to land
)

var modeNames = [...]string{"idle", "takeoff", "hold", "goto", "mission", "offboard", "return", "land"}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ItemKind is the kind of a mission item.
type ItemKind int

// Mission item kinds (MAV_CMD_NAV_TAKEOFF, _WAYPOINT, _LAND).
const (
	ItemTakeoff ItemKind = iota
	ItemWaypoint
	ItemLand
)

// Item is one mission item. Pos is NED about home; a take-off uses only its
// altitude (−Z), a land item its horizontal position.
type Item struct {
	Kind          ItemKind
	Pos           geom.Vec3
	AcceptRadiusM float64 // 0 = NAV_ACC_RAD
	SpeedMS       float64 // cruise speed of the leg to this item (DO_CHANGE_SPEED); 0 = MPC_XY_CRUISE
}

// Event is something the autopilot reports, like PX4's status texts.
type Event struct {
	T    float64
	Text string
}

// Offboard is an external setpoint; NaN components are unused, as in
// SET_POSITION_TARGET_LOCAL_NED's type mask.
type Offboard struct {
	Pos geom.Vec3
	Vel geom.Vec3
	Acc geom.Vec3 // m/s², NED feed-forward; NaN or zero components add nothing
	Yaw float64
}

// Status is the autopilot's externally visible state.
type Status struct {
	Mode        Mode
	Armed       bool
	Landed      bool
	MissionItem int  // index of the current item; len(items) when finished
	MissionDone bool // the mission ran to its end (landed and disarmed)
	Thrust      float64
}

// Autopilot is the firmware state. Its methods must not be called
// concurrently.
type Autopilot struct {
	cfg  Config
	ctl  *control.Controller
	mode Mode

	armed    bool
	armT     float64
	landed   bool
	landedT  float64
	t        float64
	est      control.State
	home     geom.Vec3
	haveHome bool

	r        ref
	target   geom.Vec3
	legStart geom.Vec3 // the target reached before the current one
	speed    float64
	yawSp    float64
	haveYaw  bool
	aligning bool

	items   []Item
	item    int
	done    bool
	landing bool // the current mission item is a land item and descent started

	rtlPhase int

	off  Offboard
	offT float64

	avoider   Avoider
	avoidUsed bool      // this step's setpoint came from the avoider
	traj      trajState // PX4's smoothed trajectory on avoided legs

	ld     landDetector
	thrust float64
	events []Event

	mt motorTest // see motortest.go
	cp cpState   // see cp.go
}

// New returns an autopilot, disarmed on the ground.
func New(cfg Config) (*Autopilot, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Autopilot{cfg: cfg, ctl: control.New(cfg.Gains), landed: true, offT: math.Inf(-1)}, nil
}

// Config returns the parameters in use.
func (a *Autopilot) Config() Config { return a.cfg }

// SetAvoider hands mission legs to av (nil: fly them straight).
func (a *Autopilot) SetAvoider(av Avoider) { a.avoider = av }

// Status returns the current state.
func (a *Autopilot) Status() Status {
	return Status{Mode: a.mode, Armed: a.armed, Landed: a.landed, MissionItem: a.item, MissionDone: a.done, Thrust: a.thrust}
}

// Events returns and clears what happened since the last call.
func (a *Autopilot) Events() []Event {
	e := a.events
	a.events = nil
	return e
}

func (a *Autopilot) emit(format string, args ...any) {
	a.events = append(a.events, Event{T: a.t, Text: fmt.Sprintf(format, args...)})
}

// Home returns the home position (where the vehicle was armed).
func (a *Autopilot) Home() (geom.Vec3, bool) { return a.home, a.haveHome }

// Observe hands the autopilot the current estimate at time t without
// running a control step, so that commands issued before the first Update
// (Arm records home) see where the vehicle is.
func (a *Autopilot) Observe(est control.State, t float64) { a.t, a.est = t, est }

// Arm arms the motors; they idle for COM_SPOOLUP_TIME before any climb.
func (a *Autopilot) Arm() error {
	if a.armed {
		return ErrArmed
	}
	if !a.landed {
		return ErrInAir
	}
	a.armed, a.armT, a.mode = true, a.t, ModeIdle
	a.home, a.haveHome = a.est.Pos, true
	a.done = false
	a.ctl.Reset()
	a.emit("armed")
	return nil
}

// Disarm stops the motors; refused in the air (use Kill).
func (a *Autopilot) Disarm() error {
	if !a.armed {
		return ErrNotArmed
	}
	if !a.landed {
		return ErrInAir
	}
	a.disarm("disarmed")
	return nil
}

// Kill stops the motors at once, in the air too (flight termination).
func (a *Autopilot) Kill() {
	if a.armed {
		a.disarm("killed: motors stopped")
	}
}

func (a *Autopilot) disarm(why string) {
	a.armed, a.mode = false, ModeIdle
	a.ctl.Reset()
	a.emit("%s", why)
}

func finiteTarget(p geom.Vec3) bool { return p.IsFinite() && p.Z <= 0 }

// Takeoff climbs vertically to altM above home (MIS_TAKEOFF_ALT when 0) and
// holds there.
func (a *Autopilot) Takeoff(altM float64) error {
	if !a.armed {
		return ErrNotArmed
	}
	if altM == 0 {
		altM = a.cfg.TakeoffAltM
	}
	if !(altM > 0) || math.IsInf(altM, 0) {
		return fmt.Errorf("autopilot: take-off altitude %v m must be a finite number > 0", altM)
	}
	a.items, a.item = nil, 0
	a.startTakeoff(geom.Vec3{X: a.est.Pos.X, Y: a.est.Pos.Y, Z: a.home.Z - altM})
	return nil
}

func (a *Autopilot) startTakeoff(target geom.Vec3) {
	a.mode = ModeTakeoff
	a.target = target
	if a.landed {
		a.r = ref{pos: a.est.Pos}
	}
	a.emit("takeoff to %.1f m", a.home.Z-target.Z)
}

// Hold holds the current position.
func (a *Autopilot) Hold() error {
	if !a.armed {
		return ErrNotArmed
	}
	if a.landed {
		return nil
	}
	a.mode = ModeHold
	a.target = a.r.stopPoint(a.lim(0))
	a.emit("hold")
	return nil
}

// Goto flies to p (NED) at speedMS (MPC_XY_CRUISE when 0) and holds there.
func (a *Autopilot) Goto(p geom.Vec3, speedMS float64) error {
	if !a.armed {
		return ErrNotArmed
	}
	if a.landed {
		return ErrOnGround
	}
	if !finiteTarget(p) {
		return ErrBadTarget
	}
	if speedMS < 0 || math.IsNaN(speedMS) || math.IsInf(speedMS, 0) {
		return fmt.Errorf("autopilot: speed %v m/s must be a finite number ≥ 0", speedMS)
	}
	a.mode, a.target, a.speed = ModeGoto, p, speedMS
	a.legStart = a.r.stopPoint(a.lim(speedMS))
	a.aligning = false
	return nil
}

// checkMission refuses a mission the autopilot cannot start: disarmed,
// empty, or an item with a bad target, kind or acceptance radius.
func (a *Autopilot) checkMission(items []Item) error {
	if !a.armed {
		return ErrNotArmed
	}
	if len(items) == 0 {
		return ErrEmptyMission
	}
	for i, it := range items {
		if !finiteTarget(it.Pos) && it.Kind != ItemLand {
			return fmt.Errorf("autopilot: mission item %d: %w", i, ErrBadTarget)
		}
		if it.Kind < ItemTakeoff || it.Kind > ItemLand {
			return fmt.Errorf("autopilot: mission item %d: unknown kind %d", i, int(it.Kind))
		}
		if !(it.AcceptRadiusM >= 0) || math.IsInf(it.AcceptRadiusM, 0) {
			return fmt.Errorf("autopilot: mission item %d: acceptance radius %v", i, it.AcceptRadiusM)
		}
	}
	return nil
}

// StartMission flies items in order from the first. The vehicle must be
// armed; a mission may start on the ground (its first item a take-off) or in
// the air.
func (a *Autopilot) StartMission(items []Item) error {
	if err := a.checkMission(items); err != nil {
		return err
	}
	a.items = append([]Item(nil), items...)
	a.item, a.done, a.landing = 0, false, false
	a.mode = ModeMission
	a.enterItem()
	a.emit("mission started, %d items", len(items))
	return nil
}

// SetOffboard records an external setpoint at time t; the vehicle follows it
// once in ModeOffboard (see EnterOffboard).
func (a *Autopilot) SetOffboard(sp Offboard) error {
	if !(sp.Pos.IsFinite() || sp.Vel.IsFinite()) && !(anyFinite(sp.Pos) || anyFinite(sp.Vel)) {
		return errors.New("autopilot: offboard setpoint has neither position nor velocity")
	}
	a.off, a.offT = sp, a.t
	return nil
}

func anyFinite(v geom.Vec3) bool {
	return !math.IsNaN(v.X) || !math.IsNaN(v.Y) || !math.IsNaN(v.Z)
}

// EnterOffboard switches to offboard control; PX4 requires a setpoint stream
// before the switch, so a setpoint must have arrived within COM_OF_LOSS_T.
func (a *Autopilot) EnterOffboard() error {
	if !a.armed {
		return ErrNotArmed
	}
	if a.t-a.offT > a.cfg.OffboardLoss {
		return ErrNoSetpoint
	}
	a.mode = ModeOffboard
	a.emit("offboard")
	return nil
}

// Land descends at the current position and disarms after touchdown.
func (a *Autopilot) Land() error {
	if !a.armed {
		return ErrNotArmed
	}
	a.mode = ModeLand
	a.target = geom.Vec3{X: a.r.pos.X, Y: a.r.pos.Y, Z: a.home.Z}
	a.emit("landing")
	return nil
}

// Return climbs to RTL_RETURN_ALT (never descending for it), flies home,
// descends to RTL_DESCEND_ALT and lands.
func (a *Autopilot) Return() error {
	if !a.armed {
		return ErrNotArmed
	}
	if a.landed {
		return ErrOnGround
	}
	a.mode, a.rtlPhase = ModeReturn, 0
	a.emit("return to home")
	return nil
}

func (a *Autopilot) enterItem() {
	if a.item >= len(a.items) {
		return
	}
	it := a.items[a.item]
	switch it.Kind {
	case ItemTakeoff:
		a.startTakeoff(geom.Vec3{X: a.est.Pos.X, Y: a.est.Pos.Y, Z: a.home.Z + it.Pos.Z})
	case ItemWaypoint:
		a.target = it.Pos.Add(geom.Vec3{Z: a.home.Z})
		a.aligning = a.cfg.YawToWP
	case ItemLand:
		// Fly to the land position at the current altitude, then descend.
		a.target = geom.Vec3{X: it.Pos.X, Y: it.Pos.Y, Z: a.r.pos.Z}
		a.aligning = a.cfg.YawToWP
		a.landing = false
	}
}

func (a *Autopilot) acceptRadius() float64 {
	if a.item < len(a.items) && a.items[a.item].AcceptRadiusM > 0 {
		return a.items[a.item].AcceptRadiusM
	}
	return a.cfg.AccRadM
}

// itemSpeed is the cruise speed of the current mission leg: the item's
// DO_CHANGE_SPEED speed, or 0 for MPC_XY_CRUISE.
func (a *Autopilot) itemSpeed() float64 {
	if a.item < len(a.items) {
		return a.items[a.item].SpeedMS
	}
	return 0
}

func (a *Autopilot) lim(speed float64) limits {
	v := a.cfg.CruiseMS
	if speed > 0 {
		v = speed
	}
	return limits{vXY: v, vUp: a.cfg.ZVelUpMS, vDn: a.cfg.ZVelDnMS, aXY: a.cfg.AccHorMS2, aUp: a.cfg.AccUpMS2, aDn: a.cfg.AccDnMS2}
}

// Update runs one control step at time t (s) with the estimate est and
// returns the motor commands.
func (a *Autopilot) Update(est control.State, t, dt float64) [4]float64 {
	a.t, a.est = t, est
	if !a.armed {
		a.r = ref{pos: est.Pos}
		a.landed = true
		a.thrust = 0
		return a.motorTestOutput(t)
	}
	if a.landed && (a.mode == ModeIdle || a.mode == ModeHold || a.mode == ModeLand || t-a.armT < a.cfg.SpoolUpS) {
		return a.idle(t)
	}

	sp := control.Setpoint{Pos: a.r.pos, Vel: a.r.vel, Yaw: a.yawSp}
	lag := est.Pos.XY().Dist(a.r.pos.XY())
	a.avoidUsed = false
	switch a.mode {
	case ModeTakeoff:
		if a.items != nil && a.avoider != nil {
			sp = a.avoidTakeoff(dt)
			// The navigator accepts a multicopter's take-off on altitude
			// alone, within NAV_MC_ALT_RAD below the target (half the
			// take-off height if that is less).
			r := a.cfg.AltRadM
			if h := a.home.Z - a.target.Z; h > 0 && h < r {
				r = h / 2
			}
			if est.Pos.Z < a.target.Z+r {
				a.emit("takeoff complete at %.1f m", a.home.Z-est.Pos.Z)
				a.advance()
			}
			break
		}
		l := a.lim(0)
		l.vUp = a.cfg.TakeoffMS
		a.r.step(a.target, l, dt, lag, a.cfg.XYErrMaxM)
		sp = a.refSetpoint()
		if math.Abs(est.Pos.Z-a.target.Z) < a.cfg.AltRadM && a.r.pos == a.target {
			a.emit("takeoff complete at %.1f m", a.home.Z-est.Pos.Z)
			if a.items != nil {
				a.advance()
			} else {
				a.mode = ModeHold
			}
		}
	case ModeHold:
		a.r.step(a.target, a.lim(0), dt, lag, a.cfg.XYErrMaxM)
		sp = a.refSetpoint()
	case ModeGoto:
		sp = a.flyTo(a.target, a.speed, dt, lag)
		if a.r.pos == a.target && est.Pos.Sub(a.target).Norm() < a.cfg.AltRadM {
			a.mode = ModeHold
			a.emit("goto reached")
		}
	case ModeMission:
		sp = a.mission(dt, lag)
	case ModeOffboard:
		sp = a.offboard(t)
	case ModeReturn:
		sp = a.rtl(dt, lag)
	case ModeLand:
		sp = a.descend(dt)
	}
	if !a.avoidUsed {
		a.traj.init = false
	}
	sp = a.preventCollision(sp, t)
	out := a.ctl.Update(est, sp, dt)
	a.thrust = out.Thrust
	a.detectLanding(est, out.Thrust, t, dt)
	return out.Motor
}

// idle keeps the motors at idle on the ground and handles auto-disarm.
func (a *Autopilot) idle(t float64) [4]float64 {
	a.r = ref{pos: a.est.Pos}
	a.ctl.Reset()
	a.thrust = a.cfg.IdleThrust
	if a.mode == ModeIdle || a.mode == ModeHold {
		if t-a.armT > a.cfg.DisarmPreS && t-a.landedT > a.cfg.DisarmPreS {
			a.disarm("auto-disarmed: no take-off")
		}
	}
	if a.mode == ModeLand && t-a.landedT > a.cfg.DisarmLandS {
		a.finishLanding()
	}
	u := a.cfg.IdleThrust
	return [4]float64{u, u, u, u}
}

func (a *Autopilot) finishLanding() {
	a.disarm("auto-disarmed after landing")
	if a.items != nil && a.item < len(a.items) && a.items[a.item].Kind == ItemLand {
		a.item = len(a.items)
		a.done = true
		a.emit("mission complete")
	}
}

func (a *Autopilot) refSetpoint() control.Setpoint {
	return control.Setpoint{Pos: a.r.pos, Vel: a.r.vel, Yaw: a.yaw()}
}

// yaw returns the heading setpoint, captured from the estimate when unset.
func (a *Autopilot) yaw() float64 {
	if !a.haveYaw {
		a.yawSp, a.haveYaw = a.est.Att.Yaw(), true
	}
	return a.yawSp
}

// turnToward moves the yaw setpoint toward heading at MPC_YAWRAUTO_MAX and
// reports whether the vehicle's heading is within MIS_YAW_ERR of it.
func (a *Autopilot) turnToward(heading, dt float64) bool {
	y := a.yaw()
	d := geom.WrapPi(heading - y)
	step := a.cfg.YawRateMax * dt
	a.yawSp = geom.WrapPi(y + geom.Clamp(d, -step, step))
	return math.Abs(geom.WrapPi(heading-a.est.Att.Yaw())) < a.cfg.YawErrRad
}

// flyTo steps the reference toward target, first turning to face it when
// MPC_YAW_MODE = 0 asks for it and the target is far enough to have a
// bearing.
func (a *Autopilot) flyTo(target geom.Vec3, speed, dt, lag float64) control.Setpoint {
	d := target.XY().Sub(a.r.pos.XY())
	if a.cfg.YawToWP && d.Norm() > 1 {
		aligned := a.turnToward(math.Atan2(d.Y, d.X), dt)
		if a.aligning {
			if !aligned {
				// Come to rest at the start of the leg and wait there while
				// turning (PX4's align item).
				a.r.step(a.legStart, a.lim(speed), dt, lag, a.cfg.XYErrMaxM)
				return a.refSetpoint()
			}
			a.aligning = false
		}
	}
	a.r.step(target, a.lim(speed), dt, lag, a.cfg.XYErrMaxM)
	return a.refSetpoint()
}

func (a *Autopilot) mission(dt, lag float64) control.Setpoint {
	if a.item >= len(a.items) {
		a.mode = ModeHold
		a.target = a.r.pos
		return a.refSetpoint()
	}
	it := a.items[a.item]
	switch it.Kind {
	case ItemWaypoint:
		var sp control.Setpoint
		if a.avoider != nil {
			sp = a.avoidLeg(dt)
		} else {
			sp = a.flyTo(a.target, a.itemSpeed(), dt, lag)
		}
		hd := a.est.Pos.XY().Dist(a.target.XY())
		if (hd < a.acceptRadius() || a.avoider != nil && a.pastTarget()) && math.Abs(a.est.Pos.Z-a.target.Z) < a.cfg.AltRadM {
			a.emit("waypoint %d reached", a.item)
			a.advance()
		}
		return sp
	case ItemLand:
		if !a.landing {
			var sp control.Setpoint
			if a.avoider != nil {
				sp = a.avoidLeg(dt)
			} else {
				sp = a.flyTo(a.target, a.itemSpeed(), dt, lag)
			}
			// PX4 flies to a land point as a waypoint (Mission's
			// MOVE_TO_LAND work item), so with an avoider the radius
			// checkAvoidanceProgress widens past the target applies too.
			refThere := a.avoider != nil || a.r.pos.XY() == a.target.XY()
			there := a.est.Pos.XY().Dist(a.target.XY()) < a.acceptRadius() || a.avoider != nil && a.pastTarget()
			if refThere && there {
				a.r = ref{pos: a.est.Pos, vel: a.est.Vel}
				a.landing = true
				a.target.Z = a.home.Z
				a.emit("landing at mission item %d", a.item)
			}
			return sp
		}
		a.tellAvoider(AvoidLand)
		return a.descend(dt)
	}
	return a.refSetpoint()
}

func (a *Autopilot) advance() {
	a.legStart = a.target
	a.item++
	a.mode = ModeMission
	if a.item >= len(a.items) {
		a.emit("mission items finished")
		a.target = a.r.pos
		return
	}
	a.enterItem()
}

// descend is the Land-mode profile: MPC_Z_V_AUTO_DN above MPC_LAND_ALT1,
// MPC_LAND_SPEED below MPC_LAND_ALT2, blended between, holding the
// horizontal position of the reference.
func (a *Autopilot) descend(dt float64) control.Setpoint {
	alt := a.home.Z - a.est.Pos.Z
	v := a.cfg.LandMS
	switch {
	case alt > a.cfg.LandAlt1M:
		v = a.cfg.ZVelDnMS
	case alt > a.cfg.LandAlt2M && a.cfg.LandAlt1M > a.cfg.LandAlt2M:
		f := (alt - a.cfg.LandAlt2M) / (a.cfg.LandAlt1M - a.cfg.LandAlt2M)
		v = a.cfg.LandMS + f*(a.cfg.ZVelDnMS-a.cfg.LandMS)
	}
	vz0 := a.r.vel.Z
	a.r.step(geom.Vec3{X: a.target.X, Y: a.target.Y, Z: a.r.pos.Z}, a.lim(0), dt, 0, 0)
	// Ramp the sink rate at the vertical acceleration limits.
	vz := vz0 + geom.Clamp(v-vz0, -a.cfg.AccUpMS2*dt, a.cfg.AccDnMS2*dt)
	a.r.vel.Z, a.r.pos.Z = vz, a.est.Pos.Z
	v = vz
	return control.Setpoint{Pos: geom.Vec3{X: a.r.pos.X, Y: a.r.pos.Y, Z: math.NaN()}, Vel: geom.Vec3{X: a.r.vel.X, Y: a.r.vel.Y, Z: v}, Yaw: a.yaw()}
}

func (a *Autopilot) offboard(t float64) control.Setpoint {
	if t-a.offT > a.cfg.OffboardLoss {
		a.emit("offboard setpoints lost for %.1f s: %s", t-a.offT, a.cfg.OffboardAct)
		a.r = ref{pos: a.est.Pos}
		switch a.cfg.OffboardAct {
		case ActionLand:
			_ = a.Land()
		case ActionReturn:
			_ = a.Return()
		default:
			a.mode, a.target = ModeHold, a.est.Pos
		}
		return a.refSetpoint()
	}
	sp := control.Setpoint{Pos: a.off.Pos, Vel: a.off.Vel, Acc: a.off.Acc, Yaw: a.off.Yaw}
	if math.IsNaN(sp.Yaw) {
		sp.Yaw = a.yaw()
	} else {
		a.yawSp, a.haveYaw = sp.Yaw, true
	}
	a.r = ref{pos: a.est.Pos, vel: a.est.Vel}
	return sp
}

func (a *Autopilot) rtl(dt, lag float64) control.Setpoint {
	switch a.rtlPhase {
	case 0: // climb, never descending
		alt := math.Max(a.home.Z-a.est.Pos.Z, a.cfg.RTLAltM)
		a.target = geom.Vec3{X: a.r.pos.X, Y: a.r.pos.Y, Z: a.home.Z - alt}
		a.r.step(a.target, a.lim(0), dt, lag, a.cfg.XYErrMaxM)
		if a.r.pos == a.target {
			a.rtlPhase = 1
			a.target = geom.Vec3{X: a.home.X, Y: a.home.Y, Z: a.target.Z}
			a.aligning = a.cfg.YawToWP
		}
		return a.refSetpoint()
	case 1: // fly home at constant altitude
		sp := a.flyTo(a.target, 0, dt, lag)
		if a.r.pos == a.target {
			a.rtlPhase = 2
			alt := math.Min(a.home.Z-a.target.Z, a.cfg.RTLDescendM)
			a.target.Z = a.home.Z - alt
		}
		return sp
	case 2: // descend to RTL_DESCEND_ALT
		a.r.step(a.target, a.lim(0), dt, lag, a.cfg.XYErrMaxM)
		if a.r.pos == a.target {
			a.rtlPhase = 3
			a.mode = ModeLand
			a.emit("landing at home")
		}
		return a.refSetpoint()
	}
	return a.descend(dt)
}
