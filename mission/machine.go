package mission

import (
	"fmt"
	"math"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
)

// tag says which tracked command a wanted command becomes when dispatched.
type tag uint8

const (
	tagNone   tag = iota
	tagLeg        // the goto whose acceptance arrival and return wait on
	tagLand       // the land command of LANDING
	tagDisarm     // the disarm command of LANDING
)

// leg is the goto the machine waits on: accepted, and the telemetry count
// at acceptance (only later samples are fresh for it).
type leg struct {
	id       uint64
	accepted bool
	seq      uint64
}

// Machine is the mission safety state machine. The zero value is not
// usable; call New. Its methods must not be called concurrently.
type Machine struct {
	cfg Config
	now time.Duration

	state, prev State
	moved       bool // a transition happened: prev is meaningful
	stateAt     time.Duration
	reason      string
	detail      string
	rpcErr      string

	connected  bool
	connectSeq uint64
	home       geom.Vec3
	haveHome   bool

	tel        Telemetry
	telSeq     uint64
	telAt      time.Duration
	linkUp     bool
	linkDownAt time.Duration

	nextID     uint64
	pending    Command
	hasPending bool
	want       Command
	hasWant    bool
	wantTag    tag
	active     CmdKind

	armSent     bool
	armOK       bool
	armSeq      uint64
	takeoffRPC  int8 // 0 unknown, 1 accepted, −1 refused
	takeoffSeq  uint64
	airborne    bool
	airborneReq bool

	target    Waypoint
	hasTarget bool
	leg       leg
	q         queue

	retTarget   geom.Vec3
	retSlow     bool
	settling    bool
	settleSince time.Duration

	landPhase uint8 // 0 land wanted, 1 disarm wanted, 2 disarm accepted
	landID    uint64
	landOK    bool
	landSeq   uint64
	disarmID  uint64
	disarmSeq uint64

	goal      goal   // the current (or last) goal: the queue loaded last
	goalN     uint64 // goals ever accepted; IDs are 1..goalN
	tilting   bool   // telemetry tilt above MaxTiltRad …
	tiltSince time.Duration

	out Ready
}

// New returns a machine in IDLE.
func New(cfg Config) (*Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.AdapterMode == "" {
		cfg.AdapterMode = "state_only"
	}
	return &Machine{cfg: cfg, linkUp: true}, nil
}

// Config returns the parameters in use.
func (m *Machine) Config() Config { return m.cfg }

// State returns the current state.
func (m *Machine) State() State { return m.state }

// Queue returns the queue's status.
func (m *Machine) Queue() QueueStatus { return m.q.status() }

// Step feeds one input at time now (a monotonic offset chosen by the
// caller; it never goes backwards) and returns what it produced. Operator
// commands are accepted or refused (Ready.Err); a refused command changes
// no state. Other inputs also run the failsafe checks and the progress of
// the current state.
func (m *Machine) Step(now time.Duration, ev Event) Ready {
	m.out.Err = nil
	m.out.Commands = m.out.Commands[:0]
	m.out.Records = m.out.Records[:0]
	m.out.Changed = false
	m.out.Goal = 0
	if now > m.now {
		m.now = now
	}
	switch e := ev.(type) {
	case nil:
		m.out.Err = &ParseError{Err: ErrUnknownEvent, Detail: "nil event"}
		return m.out
	case Telemetry:
		m.telemetry(e)
	case Result:
		m.result(e)
	case Link:
		if e.Up != m.linkUp {
			m.linkUp = e.Up
			m.linkDownAt = m.now
			m.out.Changed = true
		}
	case Tick:
	default:
		m.command(ev)
		m.pump()
		return m.out
	}
	m.watch()
	m.progress()
	m.pump()
	return m.out
}

// command applies an operator command and records it first.
func (m *Machine) command(ev Event) {
	before := m.state
	n := len(m.out.Records)
	err := m.apply(ev)
	m.out.Err = err
	detail := describe(ev)
	code := Code(err)
	if err != nil {
		detail += ": rejected (" + code + "): " + err.Error()
	} else {
		detail += ": accepted"
		m.out.Changed = true
	}
	m.out.Records = append(m.out.Records, Record{})
	copy(m.out.Records[n+1:], m.out.Records[n:])
	m.out.Records[n] = Record{Kind: KindCommand, State: before, Detail: detail, Command: ev.Name(), Code: code}
}

func describe(ev Event) string {
	switch e := ev.(type) {
	case Goto:
		return "goto " + e.Waypoint.String()
	case Load:
		return "mission of " + plural(len(e.Waypoints), "waypoint")
	case CancelGoal:
		return fmt.Sprintf("cancel_goal %d", e.ID)
	}
	return ev.Name()
}

func (m *Machine) wrong(ev Event) error {
	return fmt.Errorf("%w: %s in %s", ErrWrongState, ev.Name(), m.state)
}

// fresh reports whether telemetry arrived within the timeout.
func (m *Machine) fresh() bool {
	return m.telSeq > 0 && m.now-m.telAt <= m.cfg.TelemetryTimeout
}

func (m *Machine) apply(ev Event) error {
	switch e := ev.(type) {
	case Connect:
		if m.state != StateIdle && m.state != StateLanded {
			return m.wrong(ev)
		}
		m.resetFlight()
		m.telAt = m.now
		m.setWant(Command{Kind: CmdConnect}, tagNone)
		m.transition(StateConnecting, "")
	case Arm:
		if m.state != StateArming {
			return m.wrong(ev)
		}
		if m.armSent {
			return fmt.Errorf("%w: arming already requested", ErrNotReady)
		}
		m.armSent = true
		m.setWant(Command{Kind: CmdArm}, tagNone)
	case Airborne:
		if m.state != StateTakeoff {
			return m.wrong(ev)
		}
		m.airborneReq = true
		if m.airborne {
			m.transition(StateExecuting, "take-off confirmed by telemetry")
		}
	case Goto:
		if m.state != StateExecuting {
			return m.wrong(ev)
		}
		if m.q.state.Live() {
			return fmt.Errorf("%w: goto while the queue is %s", ErrQueueBusy, m.q.state)
		}
		w := e.Waypoint
		if err := ValidateBand(m.home.Z, m.cfg.MaxAltitudeM); err != nil {
			return err
		}
		if err := m.cfg.Fence(m.home).Check(w, ""); err != nil {
			return err
		}
		w.SpeedMS = w.speed()
		m.target, m.hasTarget = w, true
		m.wantGoto(w, -1, false)
	case Load:
		if m.state != StateExecuting {
			return m.wrong(ev)
		}
		if m.q.state.Live() {
			return fmt.Errorf("%w: mission while the queue is %s", ErrQueueBusy, m.q.state)
		}
		if m.hasTarget {
			return fmt.Errorf("%w: mission while flying to %s", ErrTargetActive, m.target)
		}
		if err := m.cfg.Fence(m.home).CheckMission(e.Waypoints); err != nil {
			return err
		}
		wps := make([]Waypoint, len(e.Waypoints))
		for i, w := range e.Waypoints {
			w.SpeedMS = w.speed()
			wps[i] = w
		}
		m.q = queue{state: QueueRunning, wps: wps}
		m.goalN++
		m.goal = goal{id: m.goalN, state: GoalAccepted}
		m.out.Goal = m.goalN
		m.record(KindMissionLoaded, plural(len(wps), "waypoint"))
		m.goalFeedback("accepted")
		m.target, m.hasTarget = wps[0], true
		m.wantGoto(wps[0], 0, false)
	case Pause:
		if m.state != StateExecuting {
			return m.wrong(ev)
		}
		paused := m.q.state == QueueRunning
		if paused {
			m.q.state = QueuePaused
		}
		m.leg = leg{}
		m.wantHold()
		m.transition(StatePaused, m.keptTarget())
		if paused {
			m.goalFeedback("paused")
		}
	case Resume:
		if m.state != StatePaused {
			return m.wrong(ev)
		}
		resumed := m.q.state == QueuePaused
		if resumed {
			m.q.state = QueueRunning
		}
		m.transition(StateExecuting, m.keptTarget())
		if resumed {
			m.goalFeedback("resumed")
		}
		if m.hasTarget {
			idx := -1
			if m.q.state == QueueRunning {
				idx = m.q.index
			}
			m.wantGoto(m.target, idx, true)
		}
	case Cancel:
		if m.state != StateExecuting && m.state != StatePaused {
			return m.wrong(ev)
		}
		if !m.hasTarget && !m.q.state.Live() {
			return fmt.Errorf("%w: no target and no queue", ErrNothingToCancel)
		}
		m.clearTarget()
		m.endQueue(QueueCanceled, CancelByCancel)
		if m.state == StateExecuting {
			m.wantHold()
		}
	case CancelGoal:
		switch {
		case e.ID == 0 || e.ID > m.goalN:
			return fmt.Errorf("%w: goal %d", ErrNoGoal, e.ID)
		case e.ID != m.goal.id || m.goal.state.Terminal():
			st := "ended"
			if e.ID == m.goal.id {
				st = m.goal.state.String()
			}
			return fmt.Errorf("%w: goal %d is %s", ErrGoalDone, e.ID, st)
		case m.state != StateExecuting && m.state != StatePaused:
			return m.wrong(ev) // unreachable: a live queue exists only in these states
		}
		m.clearTarget()
		m.endQueue(QueueCanceled, CancelByCancel)
		if m.state == StateExecuting {
			m.wantHold()
		}
	case ReturnHome:
		if m.state != StateExecuting && m.state != StatePaused && m.state != StateFailsafe {
			return m.wrong(ev)
		}
		if err := m.canFly(); err != nil {
			return err
		}
		m.clearTarget()
		m.endQueue(QueueCanceled, CancelByReturnHome)
		z := math.Min(m.tel.Pos.Z, m.home.Z-m.cfg.ReturnMinAltM)
		z = math.Max(z, m.home.Z-m.cfg.MaxAltitudeM)
		m.retTarget = geom.Vec3{X: m.home.X, Y: m.home.Y, Z: z}
		m.retSlow, m.settling = false, false
		m.setWant(m.gotoCmd(m.retTarget, m.cfg.ReturnSpeedMS, -1, false), tagLeg)
		m.transition(StateReturning, fmt.Sprintf("to (%s, %s, %s)", num(m.retTarget.X), num(m.retTarget.Y), num(m.retTarget.Z)))
	case Land:
		switch m.state {
		case StateTakeoff, StateExecuting, StatePaused, StateReturning:
		case StateFailsafe:
			if m.fresh() && m.tel.Landed && !m.tel.Armed {
				return fmt.Errorf("%w: on the ground and disarmed (use reset)", ErrNotReady)
			}
		default:
			return m.wrong(ev)
		}
		m.clearTarget()
		m.endQueue(QueueCanceled, CancelByLand)
		m.startLanding("")
	case Reset:
		switch m.state {
		case StateLanded:
		case StateFailsafe:
			onGround := m.fresh() && m.tel.Landed && !m.tel.Armed
			if !onGround && (m.armSent || m.telSeq > 0) {
				return fmt.Errorf("%w: fresh telemetry must show the vehicle landed and disarmed", ErrNotReady)
			}
		default:
			return m.wrong(ev)
		}
		m.hasWant = false
		m.q = queue{}
		m.transition(StateIdle, "")
	default:
		return &ParseError{Err: ErrUnknownEvent, Detail: ev.Name()}
	}
	return nil
}

// canFly checks that a return can be flown: home known, telemetry fresh,
// vehicle in the air.
func (m *Machine) canFly() error {
	switch {
	case !m.haveHome:
		return fmt.Errorf("%w: home is not known", ErrNotReady)
	case !m.fresh():
		return fmt.Errorf("%w: telemetry is stale", ErrNotReady)
	case m.state == StateFailsafe && m.tel.Landed:
		return fmt.Errorf("%w: on the ground", ErrNotReady)
	}
	return nil
}

func (m *Machine) keptTarget() string {
	if !m.hasTarget {
		return "no target"
	}
	return "target " + m.target.String()
}

// resetFlight forgets everything about the previous flight but the queue.
func (m *Machine) resetFlight() {
	m.reason, m.detail, m.rpcErr = "", "", ""
	m.connected, m.haveHome, m.home = false, false, geom.Vec3{}
	m.armSent, m.armOK, m.takeoffRPC = false, false, 0
	m.airborne, m.airborneReq = false, false
	m.clearTarget()
	m.landPhase, m.landOK = 0, false
}

func (m *Machine) telemetry(t Telemetry) {
	if !t.Pos.IsFinite() || !t.Vel.IsFinite() {
		return // a broken sample is no sample; the timeout covers a stream of them
	}
	m.tel = t
	m.telSeq++
	m.telAt = m.now
	m.out.Changed = true
	over := m.cfg.MaxTiltRad > 0 && t.TiltRad > m.cfg.MaxTiltRad
	if over && !m.tilting {
		m.tiltSince = m.now
	}
	m.tilting = over
}

func (m *Machine) result(r Result) {
	if !m.hasPending || r.ID != m.pending.ID {
		return // not the outstanding command: stale or unknown
	}
	c := m.pending
	m.hasPending = false
	m.out.Changed = true
	if r.Err != nil {
		if c.Kind == CmdTakeoff {
			m.takeoffRPC = -1
		}
		m.rpcErr = fmt.Sprintf("%s #%d: %v", c.Kind, c.ID, r.Err)
		if !m.state.active() {
			m.hasWant = false // nothing to retry outside a flight
			return
		}
		reason := ReasonRPC
		if c.Kind == CmdTakeoff {
			reason = ReasonTakeoffRejected
		}
		m.failsafe(reason, m.rpcErr)
		return
	}
	switch c.Kind {
	case CmdCancel:
		m.active = CmdNone
	case CmdConnect:
		m.connected, m.connectSeq = true, m.telSeq
	case CmdArm:
		m.armOK, m.armSeq = true, m.telSeq
		switch m.state {
		case StateArming:
			m.setWant(Command{Kind: CmdTakeoff, AltM: m.cfg.TakeoffAltM}, tagNone)
			m.transition(StateTakeoff, "armed")
		case StateFailsafe:
			m.setWant(Command{Kind: CmdDisarm}, tagNone) // armed after the failsafe: stand down
		}
	case CmdTakeoff:
		m.takeoffRPC, m.takeoffSeq, m.active = 1, m.telSeq, CmdTakeoff
		if m.state == StateFailsafe {
			m.setWant(Command{Kind: CmdLand}, tagNone) // climbing after the failsafe: come back down
		}
	case CmdGoto, CmdHold:
		m.active = c.Kind
	case CmdLand:
		m.active = CmdLand
		if c.ID == m.landID {
			m.landOK, m.landSeq = true, m.telSeq
		}
	case CmdDisarm:
		if c.ID == m.disarmID && m.landPhase == 1 {
			m.landPhase, m.disarmSeq = 2, m.telSeq
		}
	}
	if c.Kind == CmdGoto && c.ID == m.leg.id {
		m.leg.accepted, m.leg.seq = true, m.telSeq
	}
	if c.Kind == CmdGoto && c.Waypoint >= 0 && m.q.state.Live() && m.goal.state == GoalAccepted {
		m.goal.state = GoalExecuting
		m.goalFeedback("executing")
	}
}

// watch runs the failsafe checks.
func (m *Machine) watch() {
	if !m.state.active() {
		return
	}
	cfg := &m.cfg
	if age := m.now - m.telAt; age > cfg.TelemetryTimeout {
		m.failsafe(ReasonTelemetryTimeout, fmt.Sprintf("no telemetry for %s s (timeout %s s)", num(age.Seconds()), num(cfg.TelemetryTimeout.Seconds())))
		return
	}
	if cfg.LinkLoss > 0 && !m.linkUp && m.now-m.linkDownAt >= cfg.LinkLoss {
		m.failsafe(ReasonLinkLost, fmt.Sprintf("link down for %s s", num((m.now-m.linkDownAt).Seconds())))
		return
	}
	in := m.now - m.stateAt
	switch {
	case m.state == StateConnecting && in > cfg.ConnectTimeout:
		m.failsafe(ReasonConnectTimeout, fmt.Sprintf("no connected, landed and still vehicle after %s s", num(in.Seconds())))
		return
	case m.state == StateTakeoff && !m.airborne && in > cfg.TakeoffTimeout:
		m.failsafe(ReasonTakeoffTimeout, fmt.Sprintf("take-off not confirmed after %s s", num(in.Seconds())))
		return
	case m.state == StateReturning && in > cfg.ReturnTimeout:
		m.failsafe(ReasonReturnTimeout, fmt.Sprintf("not settled above home after %s s", num(in.Seconds())))
		return
	case m.state == StateLanding && in > cfg.LandTimeout:
		m.failsafe(ReasonLandingTimeout, fmt.Sprintf("landing not confirmed after %s s", num(in.Seconds())))
		return
	}
	if !m.state.flying() || !m.haveHome || m.telSeq == 0 {
		return
	}
	z := m.tel.Pos.Z
	if ceil, floor := m.home.Z-cfg.MaxAltitudeM-cfg.AltitudeMarginM, m.home.Z+cfg.AltitudeMarginM; z < ceil || z > floor {
		bound := floor
		if z < ceil {
			bound = ceil
		}
		m.failsafe(ReasonAltitude, fmt.Sprintf("z = %s outside [%s, %s] (home_z %s, max_altitude %s, margin %s)",
			numPast(z, bound), num(ceil), num(floor), num(m.home.Z), num(cfg.MaxAltitudeM), num(cfg.AltitudeMarginM)))
		return
	}
	if d := math.Hypot(m.tel.Pos.X-m.home.X, m.tel.Pos.Y-m.home.Y); d > cfg.MaxHorDistM+cfg.AltitudeMarginM {
		m.failsafe(ReasonGeofence, fmt.Sprintf("%s m from home, beyond max_hor_dist %s m (margin %s)",
			numPast(d, cfg.MaxHorDistM+cfg.AltitudeMarginM), num(cfg.MaxHorDistM), num(cfg.AltitudeMarginM)))
		return
	}
	if e := m.tel.EphM; cfg.PosLossEphM > 0 && e > cfg.PosLossEphM {
		m.failsafe(ReasonPositionLost, fmt.Sprintf("position accuracy %s m above %s m", num(e), num(cfg.PosLossEphM)))
		return
	}
	if m.tilting && m.now-m.tiltSince >= cfg.TiltHold {
		m.failsafe(ReasonAttitude, fmt.Sprintf("tilt %s° above %s° for %s s", num(m.tel.TiltRad*180/math.Pi),
			num(cfg.MaxTiltRad*180/math.Pi), num((m.now-m.tiltSince).Seconds())))
		return
	}
	if b := m.tel.Battery; cfg.BatteryMin > 0 && b < cfg.BatteryMin {
		m.failsafe(ReasonBatteryLow, fmt.Sprintf("battery %s below %s", num(b), num(cfg.BatteryMin)))
		return
	}
	if m.state != StateLanding && m.armOK && m.telSeq > m.armSeq && !m.tel.Armed {
		m.failsafe(ReasonVehicleDisarmed, "telemetry shows the vehicle disarmed in flight")
	}
}

// progress moves the current state on from telemetry and time.
func (m *Machine) progress() {
	cfg := &m.cfg
	switch m.state {
	case StateConnecting:
		if m.connected && m.telSeq > m.connectSeq && m.tel.Landed && m.tel.Vel.Norm() <= cfg.StillSpeedMS {
			m.home, m.haveHome = m.tel.Pos, true
			m.transition(StateArming, fmt.Sprintf("home (%s, %s, %s)", num(m.home.X), num(m.home.Y), num(m.home.Z)))
		}
	case StateTakeoff:
		if !m.airborne && m.takeoffRPC == 1 && m.telSeq > m.takeoffSeq && !m.tel.Landed &&
			m.home.Z-m.tel.Pos.Z >= cfg.TakeoffAltM-cfg.AirborneTolM {
			m.airborne = true
			m.out.Changed = true
		}
		if m.airborne && m.airborneReq {
			m.transition(StateExecuting, "take-off confirmed by telemetry")
		}
	case StateExecuting:
		m.arrive()
	case StateReturning:
		m.returning()
	case StateLanding:
		switch {
		case m.landPhase == 0 && m.landOK && m.telSeq > m.landSeq && m.tel.Landed:
			m.active = CmdNone // the land task ended on the ground
			m.landPhase = 1
			m.airborne = false
			m.setWant(Command{Kind: CmdDisarm}, tagDisarm)
		case m.landPhase == 2 && m.telSeq > m.disarmSeq && m.tel.Landed && !m.tel.Armed:
			m.transition(StateLanded, "disarmed, confirmed by telemetry")
		}
	}
}

// arrive completes the target when fresh telemetry is within the arrival
// radius, and dispatches the next waypoint of a running queue.
func (m *Machine) arrive() {
	if !m.hasTarget || !m.leg.accepted || m.telSeq <= m.leg.seq {
		return
	}
	if m.tel.Pos.Sub(m.target.Pos()).Norm() > m.cfg.ArrivalRadiusM {
		return
	}
	if m.q.state != QueueRunning {
		m.record(KindWaypointReached, "goto "+m.target.String())
		m.clearTarget()
		return
	}
	i := m.q.index
	m.q.completed++
	m.q.index++
	m.record(KindWaypointReached, fmt.Sprintf("waypoint %d %s, %d/%d", i, m.target, m.q.completed, len(m.q.wps)))
	if m.q.index < len(m.q.wps) {
		m.goalFeedback(fmt.Sprintf("waypoint %d reached", i))
		m.target = m.q.wps[m.q.index]
		m.wantGoto(m.target, m.q.index, false)
		return
	}
	m.q.state = QueueCompleted
	m.clearTarget()
	m.record(KindMissionCompleted, fmt.Sprintf("%d/%d waypoints", m.q.completed, len(m.q.wps)))
	m.goalEnd(GoalSucceeded, "")
	m.wantHold()
}

// returning runs the return: the leg above home, the slow correction, and
// the settling gate before landing.
func (m *Machine) returning() {
	cfg := &m.cfg
	if !m.leg.accepted || m.telSeq <= m.leg.seq {
		m.settling = false
		return
	}
	d := m.tel.Pos.Sub(m.retTarget)
	hd := math.Hypot(d.X, d.Y)
	if !m.retSlow {
		if hd <= cfg.ReturnSlowRadiusM && math.Abs(d.Z) <= cfg.ArrivalRadiusM {
			m.retSlow = true
			m.setWant(m.gotoCmd(m.retTarget, cfg.ReturnSlowSpeedMS, -1, false), tagLeg)
		}
		return
	}
	if hd <= cfg.LandPosTolM && math.Abs(d.Z) <= cfg.ArrivalRadiusM && m.tel.Vel.Norm() <= cfg.LandSpeedTolMS {
		if !m.settling {
			m.settling, m.settleSince = true, m.now
		}
		if m.now-m.settleSince >= cfg.LandHold {
			m.startLanding(fmt.Sprintf("settled above home for %s s", num((m.now - m.settleSince).Seconds())))
		}
		return
	}
	m.settling = false
}

func (m *Machine) startLanding(detail string) {
	m.landPhase, m.landOK = 0, false
	m.setWant(Command{Kind: CmdLand}, tagLand)
	m.transition(StateLanding, detail)
}

// failsafe enters FAILSAFE with a reason: the queue is aborted, the target
// dropped, and the vehicle asked to hold (or land, or disarm on the ground).
func (m *Machine) failsafe(reason, detail string) {
	if m.state == StateFailsafe {
		return
	}
	from := m.state
	m.clearTarget()
	m.reason, m.detail = reason, detail
	switch {
	case from < StateTakeoff || (m.telSeq > 0 && m.tel.Landed && !m.airborne):
		if m.armOK && m.tel.Armed {
			m.setWant(Command{Kind: CmdDisarm}, tagNone)
		} else {
			m.hasWant = false
		}
	case from == StateLanding || m.cfg.FailsafeLand || landingReason(reason):
		m.setWant(Command{Kind: CmdLand}, tagNone)
	default:
		m.wantHold()
	}
	m.transition(StateFailsafe, "reason="+reason+": "+detail)
	m.endQueue(QueueAborted, reason)
}

// landingReason reports whether a failsafe for reason lands instead of
// holding: a critical battery (PX4's COM_LOW_BAT_ACT land), and a position
// or attitude that can no longer be held (PX4 falls back from Hold along
// its failsafe chain, px4.md §3.1).
func landingReason(reason string) bool {
	return reason == ReasonBatteryLow || reason == ReasonPositionLost || reason == ReasonAttitude
}

// cancelText is the wording of the mission_canceled milestone per cancel
// reason, as the black box has always shown it.
var cancelText = map[string]string{CancelByCancel: "canceled", CancelByReturnHome: "return home", CancelByLand: "land"}

// endQueue ends a live queue in st (CANCELED or ABORTED) and its goal with
// reason (a CancelBy* value or the failsafe reason).
func (m *Machine) endQueue(st QueueState, reason string) {
	done, total := m.q.completed, len(m.q.wps)
	if !m.q.end(st) {
		return
	}
	if st == QueueCanceled {
		m.record(KindMissionCanceled, fmt.Sprintf("%s: %d/%d waypoints done, %d dropped", cancelText[reason], done, total, total-done))
		m.goalEnd(GoalCanceled, reason)
		return
	}
	m.goalEnd(GoalAborted, reason)
}

func (m *Machine) clearTarget() {
	m.hasTarget, m.target, m.leg = false, Waypoint{}, leg{}
}

func (m *Machine) gotoCmd(p geom.Vec3, speed float64, wp int, resend bool) Command {
	return Command{Kind: CmdGoto, Target: p, SpeedMS: speed, Waypoint: wp, Resend: resend}
}

func (m *Machine) wantGoto(w Waypoint, wp int, resend bool) {
	m.setWant(m.gotoCmd(w.Pos(), w.speed(), wp, resend), tagLeg)
}

// wantHold asks for a hold unless the vehicle is already holding with
// nothing outstanding.
func (m *Machine) wantHold() {
	if !m.hasPending && m.active == CmdHold {
		m.hasWant = false
		return
	}
	m.setWant(Command{Kind: CmdHold}, tagNone)
}

// setWant makes c the next command, replacing one not yet dispatched.
func (m *Machine) setWant(c Command, t tag) {
	if c.Kind != CmdGoto {
		c.Waypoint = -1
	}
	m.want, m.hasWant, m.wantTag = c, true, t
	if t == tagLeg {
		m.leg = leg{}
	}
}

// pump dispatches the wanted command when nothing is outstanding, first
// cancelling a flight task that is still running.
func (m *Machine) pump() {
	if m.hasPending || !m.hasWant {
		return
	}
	if m.want.Kind.Task() && m.active != CmdNone {
		m.dispatch(Command{Kind: CmdCancel, Waypoint: -1})
		return
	}
	c := m.want
	m.hasWant = false
	m.dispatch(c)
	switch m.wantTag {
	case tagLeg:
		m.leg = leg{id: m.pending.ID}
	case tagLand:
		m.landID = m.pending.ID
	case tagDisarm:
		m.disarmID = m.pending.ID
	}
}

func (m *Machine) dispatch(c Command) {
	m.nextID++
	c.ID = m.nextID
	m.pending, m.hasPending = c, true
	m.out.Commands = append(m.out.Commands, c)
	m.out.Changed = true
}

func (m *Machine) record(kind, detail string) {
	m.out.Records = append(m.out.Records, Record{Kind: kind, State: m.state, Detail: detail})
	m.out.Changed = true
}

func (m *Machine) transition(to State, detail string) {
	d := m.state.String() + "->" + to.String()
	if detail != "" {
		d += " " + detail
	}
	m.prev, m.state, m.stateAt, m.moved = m.state, to, m.now, true
	m.record(KindTransition, d)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
