package adapter

import (
	"context"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mission"
)

// KinematicConfig configures Demo and StateOnly. Zero values mean the
// defaults named on each field.
type KinematicConfig struct {
	Start   geom.Vec3 // where the vehicle stands, NED; its Z is home_z
	ClimbMS float64   // take-off speed; 0 = 1 m/s
	LandMS  float64   // descent speed; 0 = 0.5 m/s
}

// Kinematic is a vehicle without dynamics: it flies straight at the
// commanded speed (Demo) or jumps to where it is sent (StateOnly). It
// reports full battery and a link that is up, unless faults say otherwise.
type Kinematic struct {
	mu      sync.Mutex
	cfg     KinematicConfig
	mode    string
	instant bool

	connected, armed, landed bool
	pos, vel                 geom.Vec3
	task                     mission.CmdKind
	target                   geom.Vec3
	speed                    float64
	last                     time.Duration
	polled                   bool
	faults                   Faults
	sched                    schedule
}

// NewDemo returns the demo adapter: constant-speed motion, no dynamics,
// collisions, terrain or network faults (as in the specification).
func NewDemo(cfg KinematicConfig) *Kinematic { return newKinematic(cfg, "demo", false) }

// NewStateOnly returns the state-only adapter: every command takes effect
// at once, so the machine's transitions follow the commands alone.
func NewStateOnly(cfg KinematicConfig) *Kinematic { return newKinematic(cfg, "state_only", true) }

func newKinematic(cfg KinematicConfig, mode string, instant bool) *Kinematic {
	if cfg.ClimbMS <= 0 {
		cfg.ClimbMS = 1
	}
	if cfg.LandMS <= 0 {
		cfg.LandMS = 0.5
	}
	return &Kinematic{cfg: cfg, mode: mode, instant: instant, landed: true, pos: cfg.Start}
}

// Mode returns "demo" or "state_only".
func (k *Kinematic) Mode() string { return k.mode }

// SetFaults switches injected faults on and off.
func (k *Kinematic) SetFaults(f Faults) {
	k.mu.Lock()
	k.faults = f
	k.mu.Unlock()
}

// SetSchedule schedules faults (all kinds but FaultMotor, which needs
// dynamics); ceilingZ is the altitude band's ceiling (home_z −
// max_altitude) that FaultAltitude climbs past.
func (k *Kinematic) SetSchedule(faults []Fault, ceilingZ float64) error {
	sc, err := newSchedule(faults, ceilingZ, func(f FaultKind) bool { return f != FaultMotor })
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.sched = sc
	k.mu.Unlock()
	return nil
}

// Execute carries out one command. Cancel stops the running flight task at
// once: the motion advances only in Poll, under the same lock, so the task
// has ended when Execute returns.
func (k *Kinematic) Execute(ctx context.Context, c mission.Command) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := refused(c, k.faults); err != nil {
		return err
	}
	if err := k.sched.command(c); err != nil {
		return err
	}
	if c.Kind != mission.CmdConnect && !k.connected {
		return ErrNotConnected
	}
	switch c.Kind {
	case mission.CmdConnect:
		k.connected = true
	case mission.CmdArm:
		switch {
		case k.armed:
			return ErrArmed
		case !k.landed:
			return ErrInAir
		}
		k.armed = true
	case mission.CmdTakeoff:
		if !k.armed {
			return ErrNotArmed
		}
		k.landed = false
		k.fly(mission.CmdTakeoff, geom.Vec3{X: k.pos.X, Y: k.pos.Y, Z: k.cfg.Start.Z - c.AltM}, k.cfg.ClimbMS)
	case mission.CmdGoto:
		switch {
		case !k.armed:
			return ErrNotArmed
		case k.landed:
			return ErrOnGround
		}
		k.fly(mission.CmdGoto, c.Target, c.SpeedMS)
	case mission.CmdHold, mission.CmdCancel:
		if c.Kind == mission.CmdHold && !k.armed {
			return ErrNotArmed
		}
		k.task, k.vel = mission.CmdNone, geom.Vec3{}
	case mission.CmdLand:
		if !k.armed {
			return ErrNotArmed
		}
		k.fly(mission.CmdLand, geom.Vec3{X: k.pos.X, Y: k.pos.Y, Z: k.cfg.Start.Z}, k.cfg.LandMS)
	case mission.CmdDisarm:
		if !k.landed {
			return ErrInAir
		}
		k.armed = false
	}
	return nil
}

func (k *Kinematic) fly(kind mission.CmdKind, target geom.Vec3, speed float64) {
	k.task, k.target, k.speed = kind, target, speed
	if k.instant {
		k.move(0)
	}
}

// move advances the flight task by dt (all the way when instant).
func (k *Kinematic) move(dt time.Duration) {
	if k.task == mission.CmdNone {
		k.vel = geom.Vec3{}
		return
	}
	d := k.target.Sub(k.pos)
	dist := d.Norm()
	step := k.speed * dt.Seconds()
	if k.instant || step >= dist {
		k.pos, k.vel = k.target, geom.Vec3{}
		if k.task == mission.CmdLand {
			k.landed = true
		}
		k.task = mission.CmdNone
		return
	}
	u := d.Scale(1 / dist)
	k.pos, k.vel = k.pos.Add(u.Scale(step)), u.Scale(k.speed)
}

// Poll advances the vehicle to now and reports its telemetry.
func (k *Kinematic) Poll(now time.Duration) (mission.Telemetry, bool, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.polled && now > k.last {
		k.move(now - k.last)
	}
	if !k.polled || now > k.last {
		k.last, k.polled = now, true
	}
	for _, f := range k.sched.due(now) {
		k.inject(f)
	}
	tel := mission.Telemetry{T: now.Seconds(), Pos: k.pos, Vel: k.vel, Armed: k.armed, Landed: k.landed, Battery: 1}
	k.sched.telemetry(&tel)
	if k.faults.DropTelemetry || k.faults.LinkDown {
		return mission.Telemetry{}, false, !k.faults.LinkDown
	}
	return tel, true, !k.sched.heartbeatLost
}

// inject switches a scheduled fault on.
func (k *Kinematic) inject(f FaultKind) {
	switch f {
	case FaultAltitude:
		if !k.landed {
			k.task, k.target, k.speed = mission.CmdGoto, geom.Vec3{X: k.pos.X, Y: k.pos.Y, Z: k.sched.ceilingZ - 5}, 3
		}
	case FaultRPC:
		k.sched.rpcNext = true
	case FaultTakeoff:
		k.faults.RefuseTakeoff = true
	case FaultBattery:
		k.sched.batteryLow = true
	case FaultLink:
		k.sched.heartbeatLost = true
	case FaultTelemetry:
		k.faults.DropTelemetry = true
	case FaultGNSS:
		k.sched.gnssLost = true
	}
}

// Close does nothing.
func (k *Kinematic) Close() error { return nil }
