package mavlink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Config configures a Vehicle. Zero values mean the defaults named on each
// field.
type Config struct {
	// URL is the connection (see ParseURL; udp:// with a host dials it).
	// Ignored when Endpoints is set.
	URL string
	// Endpoints replaces URL, e.g. gomavlib.EndpointCustom for in-memory
	// links in tests.
	Endpoints []gomavlib.EndpointConf
	// Dialect is the MAVLink dialect; nil = common. Use
	// ardupilotmega.Dialect to decode ArduPilot's own messages.
	Dialect *dialect.Dialect
	// SystemID and ComponentID are ours; 0 = 255 and 190 (a ground
	// station, MAV_COMP_ID_MISSIONPLANNER).
	SystemID, ComponentID uint8
	// TargetSystem is the autopilot's system id; 0 = the first autopilot
	// heard.
	TargetSystem uint8
	// Clock is the wall clock; nil = RealClock.
	Clock Clock
	// AckTimeout is how long one try of a command waits for its
	// COMMAND_ACK; 0 = 1 s. Tries is the number of tries (the retries carry
	// an incremented confirmation); 0 = 3.
	AckTimeout time.Duration
	Tries      int
	// MissionTimeout is how long the mission upload waits for each request
	// before it repeats its last message; 0 = 1.5 s. MissionRetries bounds
	// the repeats of one step; 0 = 5 (px4.md §5.3).
	MissionTimeout time.Duration
	MissionRetries int
	// LinkTimeout: the link is lost when nothing came from the autopilot
	// for this long (its heartbeat is 1 Hz); 0 = 3 s.
	LinkTimeout time.Duration
	// HeartbeatPeriod is our ground-station heartbeat; 0 = 1 s.
	HeartbeatPeriod time.Duration
	// StreamHz is the rate of the Goto setpoint stream, in wall time and in
	// vehicle time; 0 = 20 Hz. PX4 needs more than 2 Hz (COM_OF_LOSS_T).
	StreamHz float64
	// CruiseMS is the Goto speed when none is given; 0 = 5 m/s
	// (MPC_XY_CRUISE).
	CruiseMS float64
	// ArmRetry is how long, in vehicle time, Arm goes on asking (once a
	// second) while the autopilot answers TEMPORARILY_REJECTED, as PX4 does
	// until its preflight checks pass some seconds after boot; 0 = no
	// retry.
	ArmRetry time.Duration
	// Logf receives diagnostics; nil = none.
	Logf func(format string, args ...any)
}

func (c *Config) defaults() error {
	if c.SystemID == 0 {
		c.SystemID = 255
	}
	if c.ComponentID == 0 {
		c.ComponentID = 190
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	if c.AckTimeout == 0 {
		c.AckTimeout = time.Second
	}
	if c.Tries == 0 {
		c.Tries = 3
	}
	if c.MissionTimeout == 0 {
		c.MissionTimeout = 1500 * time.Millisecond
	}
	if c.MissionRetries == 0 {
		c.MissionRetries = 5
	}
	if c.LinkTimeout == 0 {
		c.LinkTimeout = 3 * time.Second
	}
	if c.HeartbeatPeriod == 0 {
		c.HeartbeatPeriod = time.Second
	}
	if c.StreamHz == 0 {
		c.StreamHz = 20
	}
	if c.CruiseMS == 0 {
		c.CruiseMS = 5
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Dialect == nil {
		c.Dialect = common.Dialect
	}
	switch {
	case c.AckTimeout < 0 || c.MissionTimeout < 0 || c.LinkTimeout < 0 || c.HeartbeatPeriod < 0:
		return errors.New("mavlink: negative timeout in Config")
	case c.ArmRetry < 0:
		return errors.New("mavlink: negative ArmRetry in Config")
	case c.Tries < 0 || c.MissionRetries < 0:
		return errors.New("mavlink: negative tries in Config")
	case !(c.StreamHz > 2) || math.IsInf(c.StreamHz, 0):
		return fmt.Errorf("mavlink: StreamHz %v must be a finite rate above 2 Hz (PX4's offboard minimum)", c.StreamHz)
	case !(c.CruiseMS > 0) || math.IsInf(c.CruiseMS, 0):
		return fmt.Errorf("mavlink: CruiseMS %v must be finite and > 0", c.CruiseMS)
	}
	return nil
}

// Vehicle is a vehicle.Vehicle over a MAVLink link to PX4 or ArduPilot. Its
// methods are safe for concurrent use. Wait measures durations in the
// vehicle's own time (time_boot_ms), so a sped-up simulator runs the
// harness at its pace; link loss is measured on the wall clock.
type Vehicle struct {
	cfg  Config
	node *gomavlib.Node

	mu      sync.Mutex
	t       *telem
	upd     chan struct{} // closed and replaced on every accepted message
	acks    map[uint16]chan uint8
	mission chan message.Message // open only during an upload
	parseE  uint64
	offOK   bool   // our switch to Offboard was accepted, and no other mode since
	offHB   uint64 // heartbeat count when it was accepted
	modeHB  uint64 // heartbeat count when the last mode command was accepted
	stream  *stream

	cmdMu   sync.Mutex // one COMMAND_LONG outstanding at a time
	upMu    sync.Mutex // one mission upload at a time
	closing chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

var (
	_ vehicle.Vehicle     = (*Vehicle)(nil)
	_ vehicle.MotorTester = (*Vehicle)(nil)
)

// New opens the link and starts listening; it does not wait for the
// vehicle (see WaitReady, or Dial).
func New(cfg Config) (*Vehicle, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	eps := cfg.Endpoints
	if len(eps) == 0 {
		ep, err := ParseURL(cfg.URL, Outgoing)
		if err != nil {
			return nil, err
		}
		eps = []gomavlib.EndpointConf{ep}
	}
	node := &gomavlib.Node{
		Endpoints: eps, Dialect: cfg.Dialect, OutVersion: gomavlib.V2,
		OutSystemID: cfg.SystemID, OutComponentID: cfg.ComponentID, HeartbeatDisable: true,
	}
	if err := node.Initialize(); err != nil {
		return nil, fmt.Errorf("mavlink: %w", err)
	}
	t := newTelem()
	t.bindAny = cfg.TargetSystem == 0
	if !t.bindAny {
		t.sys, t.comp = cfg.TargetSystem, 1
	}
	v := &Vehicle{cfg: cfg, node: node, t: t, upd: make(chan struct{}), acks: map[uint16]chan uint8{}, closing: make(chan struct{})}
	v.wg.Add(2)
	go v.read()
	go v.heartbeat()
	return v, nil
}

// Dial opens the link and waits until the vehicle is ready (WaitReady).
func Dial(ctx context.Context, cfg Config) (*Vehicle, error) {
	v, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := v.WaitReady(ctx); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// Close stops the setpoint stream and closes the link.
func (v *Vehicle) Close() error {
	v.once.Do(func() {
		v.stopStream()
		close(v.closing)
		v.node.Close() // closes the event channel: read returns
		v.wg.Wait()
	})
	return nil
}

// read takes every event of the node until it closes.
func (v *Vehicle) read() {
	defer v.wg.Done()
	for ev := range v.node.Events() {
		switch e := ev.(type) {
		case *gomavlib.EventFrame:
			v.frame(e.SystemID(), e.ComponentID(), e.Message())
		case *gomavlib.EventParseError:
			v.mu.Lock()
			v.parseE++
			v.mu.Unlock()
		case *gomavlib.EventChannelOpen:
			v.cfg.Logf("mavlink: link %s open", e.Channel)
		case *gomavlib.EventChannelClose:
			v.cfg.Logf("mavlink: link %s closed: %v", e.Channel, e.Error)
		}
	}
}

// frame handles one decoded message.
func (v *Vehicle) frame(sys, comp uint8, msg message.Message) {
	now := v.cfg.Clock.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	fromTarget := v.t.sys != 0 && sys == v.t.sys
	if fromTarget {
		v.t.lastMsg = now
	}
	switch m := msg.(type) {
	case *common.MessageCommandAck:
		if fromTarget && (m.TargetSystem == 0 || m.TargetSystem == v.cfg.SystemID) {
			if ch := v.acks[uint16(m.Command)]; ch != nil {
				select {
				case ch <- uint8(m.Result):
				default:
				}
			}
		}
		return
	case *common.MessageMissionRequestInt, *common.MessageMissionRequest, *common.MessageMissionAck:
		if fromTarget && v.mission != nil {
			select {
			case v.mission <- msg:
			default:
			}
		}
		return
	}
	accepted := v.t.apply(now, sys, comp, msg)
	if v.t.sys != 0 && sys == v.t.sys {
		v.t.lastMsg = now // also the first frame, which bound the autopilot
	}
	if accepted {
		close(v.upd)
		v.upd = make(chan struct{})
	}
}

// heartbeat sends our ground-station heartbeat: at once (a UDP server
// learns of us only from a packet) and then every HeartbeatPeriod.
func (v *Vehicle) heartbeat() {
	defer v.wg.Done()
	tk := v.cfg.Clock.NewTicker(v.cfg.HeartbeatPeriod)
	defer tk.Stop()
	wasUp := false
	for {
		v.write(&common.MessageHeartbeat{Type: mavTypeGCS, Autopilot: autopilotInvalid, SystemStatus: mavStateActive, MavlinkVersion: 3})
		if l := v.Link(); l.Up != wasUp {
			wasUp = l.Up
			if l.Up {
				v.cfg.Logf("mavlink: link up: %s system %d", l.Flavor, l.SystemID)
			} else {
				v.cfg.Logf("mavlink: link lost: nothing heard for %v", l.MessageAge.Round(time.Millisecond))
			}
		}
		select {
		case <-tk.C():
		case <-v.closing:
			return
		}
	}
}

func (v *Vehicle) write(m message.Message) {
	select {
	case <-v.closing:
		return
	default:
	}
	if err := v.node.WriteMessageAll(m); err != nil {
		v.cfg.Logf("mavlink: write %T: %v", m, err)
	}
}

// updates returns a channel closed at the next accepted message.
func (v *Vehicle) updates() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.upd
}

// Telemetry returns the latest telemetry. Fields not yet received are zero
// (Battery.Remaining NaN); see Age for how old each message is.
func (v *Vehicle) Telemetry() vehicle.Telemetry {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.t.snapshot()
}

// Age returns how long ago (wall time) the last accepted message with id
// (e.g. 32 LOCAL_POSITION_NED) arrived, and whether one ever did.
func (v *Vehicle) Age(id uint32) (time.Duration, bool) {
	v.mu.Lock()
	at, ok := v.t.seen[id]
	v.mu.Unlock()
	if !ok {
		return 0, false
	}
	return v.cfg.Clock.Now().Sub(at), true
}

// LinkStatus describes the link.
type LinkStatus struct {
	Up            bool          // the autopilot's heartbeat was heard, and a frame of it came within LinkTimeout
	MessageAge    time.Duration // wall time since its last frame of any kind
	Flavor        Flavor        // the autopilot family, from its heartbeat
	SystemID      uint8         // the autopilot's system id, 0 before its heartbeat
	HeartbeatAge  time.Duration // wall time since its last heartbeat
	Rejected      uint64        // messages refused as implausible
	ParseErrors   uint64        // frames that did not decode (bad CRC, truncated, …)
	PositionCount uint64        // LOCAL_POSITION_NED accepted
	StatusTexts   []string      // the latest STATUSTEXTs, oldest first
}

// Link returns the link's state.
func (v *Vehicle) Link() LinkStatus {
	now := v.cfg.Clock.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	s := LinkStatus{Flavor: v.t.flavor, SystemID: v.t.sys, Rejected: v.t.rejected, ParseErrors: v.parseE,
		PositionCount: v.t.posSeq, StatusTexts: append([]string(nil), v.t.texts...)}
	if v.t.hbSeq > 0 {
		s.HeartbeatAge = now.Sub(v.t.lastHB)
		s.MessageAge = now.Sub(v.t.lastMsg)
		s.Up = s.MessageAge < v.cfg.LinkTimeout
	}
	return s
}

// ready reports whether the vehicle can be commanded: a heartbeat, a local
// position and a tie to the globe.
func (v *Vehicle) ready() bool {
	return v.t.hbSeq > 0 && v.t.lposOK && v.t.reference().ok
}

// WaitReady waits for the autopilot's heartbeat, a local position and its
// home (asking for HOME_POSITION once a second; a global position will do
// when the autopilot never sends one).
func (v *Vehicle) WaitReady(ctx context.Context) error {
	tk := v.cfg.Clock.NewTicker(time.Second)
	defer tk.Stop()
	for {
		v.mu.Lock()
		ok, hb, home, sys, comp := v.ready(), v.t.hbSeq > 0, v.t.home.ok, v.t.sys, v.t.comp
		up := v.upd
		v.mu.Unlock()
		if ok && home {
			return nil
		}
		if hb && !home {
			v.write(&common.MessageCommandLong{TargetSystem: sys, TargetComponent: comp, Command: cmdRequestMessage, Param1: idHome})
		}
		select {
		case <-up:
		case <-tk.C():
			if ok {
				return nil // no HOME_POSITION: the global position ties the frames
			}
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrNotReady, ctx.Err())
		case <-v.closing:
			return ErrClosed
		}
	}
}

// Command sends a COMMAND_LONG to the autopilot and waits for its
// COMMAND_ACK, repeating it (with confirmation incremented) after each
// AckTimeout, Tries times. IN_PROGRESS restarts the wait. A result other
// than ACCEPTED is a *CommandError; no ack at all is ErrNoAck.
func (v *Vehicle) Command(ctx context.Context, cmd uint16, p [7]float32) error {
	if ctx == nil {
		ctx = context.Background()
	}
	v.cmdMu.Lock()
	defer v.cmdMu.Unlock()
	v.mu.Lock()
	sys, comp := v.t.sys, v.t.comp
	if sys == 0 {
		v.mu.Unlock()
		return ErrNotReady
	}
	ch := make(chan uint8, 4)
	v.acks[cmd] = ch
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		delete(v.acks, cmd)
		v.mu.Unlock()
	}()
	for try := 0; try < v.cfg.Tries; try++ {
		v.write(&common.MessageCommandLong{TargetSystem: sys, TargetComponent: comp, Command: common.MAV_CMD(cmd),
			Confirmation: uint8(try), Param1: p[0], Param2: p[1], Param3: p[2], Param4: p[3], Param5: p[4], Param6: p[5], Param7: p[6]})
		tm := v.cfg.Clock.NewTimer(v.cfg.AckTimeout)
	wait:
		for {
			select {
			case r := <-ch:
				if r == ResultInProgress {
					tm.Stop()
					tm = v.cfg.Clock.NewTimer(v.cfg.AckTimeout)
					continue
				}
				tm.Stop()
				if r == ResultAccepted {
					return nil
				}
				return &CommandError{Command: cmd, Result: r}
			case <-tm.C():
				break wait
			case <-ctx.Done():
				tm.Stop()
				return ctx.Err()
			case <-v.closing:
				tm.Stop()
				return ErrClosed
			}
		}
	}
	return fmt.Errorf("%w for %s after %d tries", ErrNoAck, commandName(cmd), v.cfg.Tries)
}

func nan32() float32 { return float32(math.NaN()) }

func (v *Vehicle) flavor() Flavor {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.t.flavor
}

// setMode switches to a PX4 main/sub mode or an ArduPilot mode number.
func (v *Vehicle) setMode(ctx context.Context, px4Main, px4Sub uint8, ap uint32) error {
	if v.flavor() == FlavorArduPilot {
		return v.Command(ctx, cmdDoSetMode, [7]float32{baseModeCustom, float32(ap)})
	}
	return v.Command(ctx, cmdDoSetMode, [7]float32{baseModeCustom, float32(px4Main), float32(px4Sub)})
}

// modeCommand runs a command that takes the vehicle out of Offboard; the
// setpoint stream stops only once the vehicle accepted it, so that a
// refused command leaves the vehicle on its setpoints.
func (v *Vehicle) modeCommand(ctx context.Context, f func() error) error {
	if err := f(); err != nil {
		return err
	}
	v.stopStream()
	v.mu.Lock()
	v.offOK, v.modeHB = false, v.t.hbSeq
	v.mu.Unlock()
	return nil
}

// Arm arms the motors; while the autopilot answers TEMPORARILY_REJECTED
// it asks again once a second of vehicle time, for Config.ArmRetry.
func (v *Vehicle) Arm(ctx context.Context) error {
	var waited time.Duration
	for {
		err := v.Command(ctx, cmdArmDisarm, [7]float32{1})
		if !errors.Is(err, ErrTemporarilyRejected) || waited >= v.cfg.ArmRetry {
			return err
		}
		if _, werr := v.Wait(ctx, time.Second, nil); werr != nil {
			return fmt.Errorf("%w (then: %w)", err, werr)
		}
		waited += time.Second
	}
}

// Disarm disarms on the ground (the autopilot refuses in the air).
func (v *Vehicle) Disarm(ctx context.Context) error {
	return v.modeCommand(ctx, func() error { return v.Command(ctx, cmdArmDisarm, [7]float32{0}) })
}

// Kill force-disarms (param2 = 21196), in the air too.
func (v *Vehicle) Kill(ctx context.Context) error {
	return v.modeCommand(ctx, func() error { return v.Command(ctx, cmdArmDisarm, [7]float32{0, forceMagic}) })
}

// Takeoff climbs to altM above home (MIS_TAKEOFF_ALT when 0). PX4 takes
// the altitude AMSL (param7, home's altitude added); ArduPilot takes it
// above home, in GUIDED.
func (v *Vehicle) Takeoff(ctx context.Context, altM float64) error {
	if !(altM >= 0) || math.IsInf(altM, 0) {
		return fmt.Errorf("mavlink: take-off altitude %v m must be a finite number ≥ 0", altM)
	}
	v.mu.Lock()
	ref, fl := v.t.reference(), v.t.flavor
	_, _, homeAMSL := ref.toGlobal(v.t.tel.Home)
	v.mu.Unlock()
	return v.modeCommand(ctx, func() error {
		if fl == FlavorArduPilot {
			if err := v.setMode(ctx, 0, 0, apGuided); err != nil {
				return err
			}
			return v.Command(ctx, cmdNavTakeoff, [7]float32{0, 0, 0, nan32(), nan32(), nan32(), float32(altM)})
		}
		p7 := nan32()
		if altM > 0 {
			if !ref.ok {
				return ErrNoHome
			}
			p7 = float32(homeAMSL + altM)
		}
		return v.Command(ctx, cmdNavTakeoff, [7]float32{nan32(), 0, 0, nan32(), nan32(), nan32(), p7})
	})
}

// Hold holds position (PX4 AUTO.LOITER, ArduPilot LOITER).
func (v *Vehicle) Hold(ctx context.Context) error {
	return v.modeCommand(ctx, func() error { return v.setMode(ctx, px4Auto, px4AutoLoiter, apLoiter) })
}

// Land lands where the vehicle is.
func (v *Vehicle) Land(ctx context.Context) error {
	return v.modeCommand(ctx, func() error {
		if v.flavor() == FlavorArduPilot {
			return v.setMode(ctx, 0, 0, apLand)
		}
		return v.Command(ctx, cmdNavLand, [7]float32{0, 0, 0, nan32(), nan32(), nan32(), nan32()})
	})
}

// Return flies home and lands.
func (v *Vehicle) Return(ctx context.Context) error {
	return v.modeCommand(ctx, func() error { return v.Command(ctx, cmdNavReturn, [7]float32{}) })
}

// StartMission starts the uploaded mission from its first item (ArduPilot:
// in AUTO).
func (v *Vehicle) StartMission(ctx context.Context) error {
	return v.modeCommand(ctx, func() error {
		if v.flavor() == FlavorArduPilot {
			if err := v.setMode(ctx, 0, 0, apAuto); err != nil {
				return err
			}
		}
		return v.Command(ctx, cmdMissionStart, [7]float32{})
	})
}

// MotorTest spins output motor (0-based) alone at throttle (0..1) for d
// (MAV_CMD_DO_MOTOR_TEST: instance motor+1, throttle in percent).
func (v *Vehicle) MotorTest(ctx context.Context, motor int, throttle float64, d time.Duration) error {
	if motor < 0 || motor > 254 || !(throttle >= 0 && throttle <= 1) || d <= 0 {
		return fmt.Errorf("mavlink: motor test: motor %d, throttle %v, %v: want motor ≥ 0, throttle in [0, 1], a duration > 0", motor, throttle, d)
	}
	return v.Command(ctx, cmdDoMotorTest, [7]float32{float32(motor + 1), 0, float32(throttle * 100), float32(d.Seconds()), 1, 0})
}

// ESCs returns the latest ESC telemetry (ESC_STATUS rpm, SERVO_OUTPUT_RAW
// outputs), one entry per motor position; unknown values are NaN.
func (v *Vehicle) ESCs() []vehicle.ESC {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]vehicle.ESC(nil), v.t.esc[:]...)
}

// Wait lets d of vehicle time pass (time_boot_ms), returning early with
// nil once until holds after an update of the telemetry; ErrTimeout when d
// passed first, ErrLinkLost when nothing came from the autopilot for LinkTimeout (counted
// from the start of the wait at the earliest).
func (v *Vehicle) Wait(ctx context.Context, d time.Duration, until func(vehicle.Telemetry) bool) (vehicle.Telemetry, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if d < 0 {
		return v.Telemetry(), fmt.Errorf("mavlink: negative wait %v", d)
	}
	v.mu.Lock()
	start, have := v.t.bootS, v.t.haveTime
	v.mu.Unlock()
	// The link gets LinkTimeout from the start of the wait, so that a wait
	// after a loss can see the link come back.
	began := v.cfg.Clock.Now()
	for {
		v.mu.Lock()
		tel, up, lastHB, hb := v.t.snapshot(), v.upd, v.t.lastMsg, v.t.hbSeq > 0
		now, haveT := v.t.bootS, v.t.haveTime
		v.mu.Unlock()
		if !have && haveT {
			start, have = now, true
		}
		if have && now-start >= d.Seconds()-1e-9 {
			if until != nil {
				return tel, vehicle.ErrTimeout
			}
			return tel, nil
		}
		if !hb || lastHB.Before(began) {
			lastHB = began
		}
		left := v.cfg.LinkTimeout - v.cfg.Clock.Now().Sub(lastHB)
		if left <= 0 {
			return tel, ErrLinkLost
		}
		tm := v.cfg.Clock.NewTimer(left)
		select {
		case <-up:
			tm.Stop()
			if until != nil {
				if t := v.Telemetry(); until(t) {
					return t, nil
				}
			}
		case <-tm.C():
		case <-ctx.Done():
			tm.Stop()
			return tel, ctx.Err()
		case <-v.closing:
			tm.Stop()
			return tel, ErrClosed
		}
	}
}

// Setpoint sends one offboard setpoint (SET_POSITION_TARGET_LOCAL_NED,
// NaN components ignored through the type mask) and, unless the vehicle is
// already in Offboard (GUIDED on ArduPilot), switches to it and waits for
// the ack. Like the embedded simulator, the vehicle leaves Offboard when
// the caller stops sending setpoints for COM_OF_LOSS_T: stream them.
func (v *Vehicle) Setpoint(ctx context.Context, sp vehicle.Setpoint) error {
	v.stopStream()
	msg, ok := setpointMsg(sp)
	if !ok {
		return ErrBadSetpoint
	}
	v.sendSetpoint(msg)
	return v.enterOffboard(ctx)
}

func (v *Vehicle) sendSetpoint(m *common.MessageSetPositionTargetLocalNed) {
	v.mu.Lock()
	m.TargetSystem, m.TargetComponent = v.t.sys, v.t.comp
	m.TimeBootMs = uint32(v.t.bootS * 1000)
	v.mu.Unlock()
	v.write(m)
}

// enterOffboard switches to Offboard unless it is on: our switch was
// accepted and no heartbeat since says otherwise, or a heartbeat newer than
// our last mode command says Offboard (an older one may predate it). A
// switch PX4 refuses for want of setpoints (TEMPORARILY_REJECTED) is tried
// again.
func (v *Vehicle) enterOffboard(ctx context.Context) error {
	v.mu.Lock()
	isOff := v.t.tel.Mode == "offboard"
	on := v.offOK && (v.t.hbSeq == v.offHB || isOff) || isOff && v.t.hbSeq > v.modeHB
	v.mu.Unlock()
	if on {
		return nil
	}
	var err error
	for try := 0; try < 3; try++ {
		err = v.setMode(ctx, px4Offboard, 0, apGuided)
		if !errors.Is(err, ErrTemporarilyRejected) {
			break
		}
		tm := v.cfg.Clock.NewTimer(time.Duration(float64(time.Second) / v.cfg.StreamHz))
		select {
		case <-tm.C():
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		}
	}
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.offOK, v.offHB, v.modeHB = true, v.t.hbSeq, v.t.hbSeq
	v.mu.Unlock()
	return nil
}

// Type-mask bits that ignore a field of SET_POSITION_TARGET_LOCAL_NED
// (px4.md §5.4).
const (
	maskPos     = 1 | 2 | 4
	maskVel     = 8 | 16 | 32
	maskAcc     = 64 | 128 | 256
	maskYaw     = 1024
	maskYawRate = 2048
	frameLocal  = 1 // MAV_FRAME_LOCAL_NED
)

func allFinite(v geom.Vec3) bool { return v.IsFinite() && within(maxPosM, v.X, v.Y, v.Z) }

// setpointMsg encodes sp; a vector is sent when all its components are
// finite, otherwise masked out (MAVLink takes all three axes or none).
func setpointMsg(sp vehicle.Setpoint) (*common.MessageSetPositionTargetLocalNed, bool) {
	m := &common.MessageSetPositionTargetLocalNed{CoordinateFrame: frameLocal}
	mask := uint16(maskYawRate)
	if allFinite(sp.Pos) {
		m.X, m.Y, m.Z = float32(sp.Pos.X), float32(sp.Pos.Y), float32(sp.Pos.Z)
	} else {
		mask |= maskPos
	}
	if allFinite(sp.Vel) {
		m.Vx, m.Vy, m.Vz = float32(sp.Vel.X), float32(sp.Vel.Y), float32(sp.Vel.Z)
	} else {
		mask |= maskVel
	}
	if allFinite(sp.Acc) {
		m.Afx, m.Afy, m.Afz = float32(sp.Acc.X), float32(sp.Acc.Y), float32(sp.Acc.Z)
	} else {
		mask |= maskAcc
	}
	if fin(sp.Yaw) {
		m.Yaw = float32(sp.Yaw)
	} else {
		mask |= maskYaw
	}
	m.TypeMask = common.POSITION_TARGET_TYPEMASK(mask)
	return m, mask&maskPos == 0 || mask&maskVel == 0
}
