package adapter

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// MaxCatchUp is the most simulated time one Poll steps; a daemon that fell
// further behind lets the simulation lag rather than stall for long.
const MaxCatchUp = 2 * time.Second

// Sim flies the embedded quadrotor (vehicle.Sim: PX4 SIH physics and the
// PX4-like autopilot) through the vehicle.Vehicle interface. Its simulated
// time follows the daemon's clock: real time, or a multiple of it when the
// daemon's clock is scaled.
type Sim struct {
	mu     sync.Mutex
	v      *vehicle.Sim
	stepS  float64
	faults Faults
	t0     float64 // daemon time (s) of the first Poll
	polled bool
	sched  schedule
}

// NewSim returns the sim adapter with a new simulator.
func NewSim(cfg vehicle.SimConfig) (*Sim, error) {
	v, err := vehicle.NewSim(cfg)
	if err != nil {
		return nil, err
	}
	return &Sim{v: v, stepS: v.Quad().StepS()}, nil
}

// Vehicle returns the simulator, for ground truth and fault injection (hold
// no reference across Polls: the adapter steps it under its lock).
func (s *Sim) Vehicle() *vehicle.Sim { return s.v }

// Mode returns "sim".
func (s *Sim) Mode() string { return "sim" }

// SetFaults switches injected faults on and off.
func (s *Sim) SetFaults(f Faults) {
	s.mu.Lock()
	s.faults = f
	s.mu.Unlock()
}

// SetSchedule schedules faults (every kind); ceilingZ is the altitude
// band's ceiling (home_z − max_altitude) that FaultAltitude climbs past.
func (s *Sim) SetSchedule(faults []Fault, ceilingZ float64) error {
	sc, err := newSchedule(faults, ceilingZ, func(FaultKind) bool { return true })
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.sched = sc
	s.mu.Unlock()
	return nil
}

// Execute sends one command to the simulated autopilot. The autopilot runs
// one mode at a time and switches atomically, so Cancel has nothing to wait
// for. Disarm of a vehicle that already disarmed itself after landing
// (COM_DISARM_LAND) succeeds.
func (s *Sim) Execute(ctx context.Context, c mission.Command) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := refused(c, s.faults); err != nil {
		return err
	}
	if err := s.sched.command(c); err != nil {
		return err
	}
	if err, ok := Dispatch(ctx, s.v, c); ok {
		return err
	}
	switch c.Kind {
	case mission.CmdConnect, mission.CmdCancel:
		return ctx.Err()
	}
	return errors.New("adapter: unknown command " + c.Kind.String())
}

// Poll steps the simulator to the daemon time now (at most MaxCatchUp at
// once) and reports its telemetry.
func (s *Sim) Poll(now time.Duration) (mission.Telemetry, bool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.polled {
		s.t0, s.polled = now.Seconds()-s.v.Time(), true
	}
	lag := now.Seconds() - s.t0 - s.v.Time()
	if lag > MaxCatchUp.Seconds() {
		s.t0 += lag - MaxCatchUp.Seconds()
		lag = MaxCatchUp.Seconds()
	}
	for _, f := range s.sched.due(now) {
		s.inject(f)
	}
	if lag >= s.stepS/2 {
		_, _ = s.v.Wait(context.Background(), time.Duration(lag*float64(time.Second)), nil)
	}
	if s.faults.DropTelemetry || s.faults.LinkDown {
		return mission.Telemetry{}, false, !s.faults.LinkDown
	}
	tel := telemetry(s.v.Telemetry())
	s.sched.telemetry(&tel)
	return tel, true, !s.sched.heartbeatLost
}

// inject switches a scheduled fault on, in the simulator where it has a
// physical cause (the climb, the GNSS receiver, the motor).
func (s *Sim) inject(f FaultKind) {
	switch f {
	case FaultAltitude:
		if t := s.v.Telemetry(); !t.Landed {
			_ = s.v.Goto(context.Background(), geom.Vec3{X: t.Pos.X, Y: t.Pos.Y, Z: s.sched.ceilingZ - 5}, 5)
		}
	case FaultRPC:
		s.sched.rpcNext = true
	case FaultTakeoff:
		s.faults.RefuseTakeoff = true
	case FaultBattery:
		s.sched.batteryLow = true
	case FaultLink:
		s.sched.heartbeatLost = true
	case FaultTelemetry:
		s.faults.DropTelemetry = true
	case FaultGNSS:
		s.v.Quad().Faults.GNSSLoss = true
	case FaultMotor:
		s.v.Quad().Faults.MotorStopped[0] = true
	}
}

// telemetry converts the vehicle's telemetry; a battery not yet sampled is
// unknown (NaN), and so is the position accuracy before the first GNSS
// sample. The tilt is the angle of the body's down axis from the vertical.
func telemetry(t vehicle.Telemetry) mission.Telemetry {
	b := t.Battery.Remaining
	if t.Battery.T == 0 && t.Battery.VoltageV == 0 {
		b = math.NaN()
	}
	eph := 0.0
	if t.GNSS.T > 0 {
		eph = t.GNSS.EphM
	}
	tilt := 0.0
	if t.Att.Norm() > 0.5 { // a zero quaternion is no attitude
		down := t.Att.Normalize().Rotate(geom.Vec3{Z: 1})
		tilt = math.Acos(math.Max(-1, math.Min(1, down.Z)))
	}
	return mission.Telemetry{T: t.T, Pos: t.Pos, Vel: t.Vel, Armed: t.Armed, Landed: t.Landed, Battery: b, EphM: eph, TiltRad: tilt}
}

// Close does nothing.
func (s *Sim) Close() error { return nil }
