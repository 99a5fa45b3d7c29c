package vehicle

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/world"
)

// MowerSimConfig configures the embedded mower. Zero values mean the
// defaults named on each field.
type MowerSimConfig struct {
	Rover    rover.Config // zero = the default mower
	Gate     gate.Config  // zero = the product's gate; Gate.NoLidar follows Rover.NoLidar
	Scene    world.Scene  // the lawn's obstacles
	Seed     uint64       // seeds every random draw
	GateHz   float64      // the gate's loop rate; 0 = 50 Hz
	RecordHz float64      // ground-truth trace rate; 0 = 100 Hz
}

// MowerBoxAheadM is where the end-of-line test's box stands in the
// simulator: its near face this far ahead of the front bumper of a mower at
// the origin facing North (seeds/end-of-line-test.txt: "a box is placed
// 3.5 m ahead for step 6").
const MowerBoxAheadM = 3.5

// MowerTestBox returns the end-of-line test's box: 40 cm deep, 40 cm wide,
// 30 cm tall (the seed asks for at least 20 cm), its near face
// MowerBoxAheadM ahead of the default mower's front bumper.
func MowerTestBox() world.Box {
	front := rover.DefaultParams().FrontM
	return world.Box{L: 0.4, W: 0.4, H: 0.3, X: front + MowerBoxAheadM + 0.2}
}

// MowerSample is one recorded ground-truth state of the mower.
type MowerSample struct {
	T         float64
	Pos       geom.Vec2 // axle centre, NED
	Yaw       float64   // rad
	SpeedMS   float64
	YawRate   float64
	BladeRadS float64
	BladeOn   bool // the blade motor is commanded on
	Contact   int  // box in contact, −1 for none
}

// MowerSim is the embedded mower as a Mower: a rover.Rover whose drive and
// blade motor are commanded by a gate.Gate, stepped in lockstep. It keeps the
// ground truth tests need (Trace, Events) outside the Mower interface.
type MowerSim struct {
	r     *rover.Rover
	g     *gate.Gate
	scene world.Scene

	gateEvery, recEvery int
	steps               int
	out                 gate.Output
	sent                gate.Command
	haveSent            bool
	stop, goHeld        bool
	trace               []MowerSample
	events              []gate.Event
}

var _ Mower = (*MowerSim)(nil)

// NewMowerSim returns a mower at rest, its gate unlatched.
func NewMowerSim(cfg MowerSimConfig) (*MowerSim, error) {
	if cfg.GateHz == 0 {
		cfg.GateHz = 50
	}
	if cfg.RecordHz == 0 {
		cfg.RecordHz = 100
	}
	if !(cfg.GateHz > 0) || math.IsInf(cfg.GateHz, 0) || !(cfg.RecordHz > 0) || math.IsInf(cfg.RecordHz, 0) {
		return nil, fmt.Errorf("vehicle: gate rate %v Hz and record rate %v Hz must be finite and > 0", cfg.GateHz, cfg.RecordHz)
	}
	s := &MowerSim{scene: cfg.Scene}
	s.scene.Boxes = append([]world.Box(nil), cfg.Scene.Boxes...)
	r, err := rover.New(cfg.Rover, &s.scene, rand.New(rand.NewPCG(cfg.Seed, 0x30e1)))
	if err != nil {
		return nil, err
	}
	gc := cfg.Gate
	if cfg.Rover.NoLidar {
		gc.NoLidar = true
	}
	if gc.Obstacle.MountXM == 0 {
		gc.Obstacle.MountXM = r.Config().Lidar.MountXM
	}
	g, err := gate.New(gc)
	if err != nil {
		return nil, err
	}
	s.r, s.g = r, g
	dt := r.StepS()
	s.gateEvery = max(1, int(math.Round(1/(cfg.GateHz*dt))))
	s.recEvery = max(1, int(math.Round(1/(cfg.RecordHz*dt))))
	s.runGate()
	s.record()
	return s, nil
}

// Rover returns the simulated mower, for fault injection and truth.
func (s *MowerSim) Rover() *rover.Rover { return s.r }

// Gate returns the safety gate.
func (s *MowerSim) Gate() *gate.Gate { return s.g }

// Scene returns the lawn's obstacles.
func (s *MowerSim) Scene() world.Scene { return s.scene }

// Time returns the simulated time, s.
func (s *MowerSim) Time() float64 { return s.r.Time() }

// Trace returns the recorded ground truth (shared; do not modify).
func (s *MowerSim) Trace() []MowerSample { return s.trace }

// Events returns every gate event so far.
func (s *MowerSim) Events() []gate.Event { return s.events }

func (s *MowerSim) record() {
	tr := s.r.Truth()
	s.trace = append(s.trace, MowerSample{T: s.r.Time(), Pos: tr.Pos, Yaw: tr.Yaw, SpeedMS: tr.SpeedMS, YawRate: tr.YawRate,
		BladeRadS: tr.BladeRadS, BladeOn: tr.BladeOn, Contact: tr.Contact})
}

// runGate runs one loop of the gate and publishes its output to the drive
// plugin and the blade motor when it changed: the plugin keeps executing the
// last command it got.
func (s *MowerSim) runGate() {
	sc := s.r.Scan()
	stop, goHeld := s.r.Buttons()
	in := gate.Inputs{Stop: stop, Go: goHeld}
	if sc.Ranges != nil && sc.Seq > 0 {
		in.Scan = gate.Scan{T: sc.T, AngleMinRad: sc.AngleMinRad, AngleIncRad: sc.AngleIncRad, Ranges: sc.Ranges, MountXM: sc.MountXM}
	}
	s.out = s.g.Step(s.r.Time(), in)
	if ev := s.g.Events(); len(ev) > 0 {
		s.events = append(s.events, ev...)
	}
	if !s.haveSent || s.out.Drive != s.sent {
		s.r.SetDrive(s.out.Drive.V, s.out.Drive.W)
		s.r.SetBlade(s.out.Drive.Blade)
		s.sent, s.haveSent = s.out.Drive, true
	}
	s.r.SetRing(rover.Ring(s.out.Ring))
}

// Step advances the simulation by one physics step.
func (s *MowerSim) Step() {
	s.r.Step()
	s.steps++
	if s.steps%s.gateEvery == 0 {
		s.runGate()
	}
	if s.steps%s.recEvery == 0 {
		s.record()
	}
}

// Sensors returns what the mower reports about itself.
func (s *MowerSim) Sensors() MowerSensors {
	imu, gn, j, sc, b := s.r.IMU(), s.r.GNSS(), s.r.Joints(), s.r.Scan(), s.r.Battery()
	return MowerSensors{
		T:       s.r.Time(),
		IMU:     MowerIMU{Stamp: Stamp{imu.T, imu.Seq}, Accel: imu.Accel, Gyro: imu.Gyro},
		GNSS:    RTK{Stamp: Stamp{gn.T, gn.Seq}, Fix: gn.Fix, SigmaM: gn.SigmaM, Pos: gn.Pos},
		Joints:  JointStates{Stamp: Stamp{j.T, j.Seq}, WheelRad: j.WheelRad, WheelRadS: j.WheelRadS, BladeRadS: j.BladeRadS},
		Lidar:   LidarScan{Stamp: Stamp{sc.T, sc.Seq}, AngleMinRad: sc.AngleMinRad, AngleIncRad: sc.AngleIncRad, Ranges: sc.Ranges, MinM: sc.MinM, MaxM: sc.MaxM, MountXM: sc.MountXM},
		Battery: MowerBattery{Stamp: Stamp{b.T, b.Seq}, VoltageV: b.VoltageV, CurrentA: b.CurrentA, Remaining: b.Remaining, Cells: b.Cells},
		Safety:  SafetyStatus{Latched: s.out.Latched, Ring: s.out.Ring, Hold: s.out.Hold},
	}
}

// Send hands the gate a driver's request.
func (s *MowerSim) Send(ctx context.Context, c gate.Command) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	s.g.Request(s.r.Time(), c)
	s.runGate() // the gate acts on a request as it arrives
	return nil
}

// Press holds a button down or lets it go.
func (s *MowerSim) Press(ctx context.Context, b Button, down bool) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	switch b {
	case ButtonStop:
		s.stop = down
	case ButtonGo:
		s.goHeld = down
	default:
		return fmt.Errorf("vehicle: unknown button %d", int(b))
	}
	s.r.SetButtons(s.stop, s.goHeld)
	s.runGate() // and on a button as it changes
	return nil
}

// mowerCtxCheckSteps is how often Wait looks at its context: every simulated
// second at 1 kHz.
const mowerCtxCheckSteps = 1000

// Wait steps the simulator until d of simulated time has passed or until
// holds.
func (s *MowerSim) Wait(ctx context.Context, d time.Duration, until func(MowerSensors) bool) (MowerSensors, error) {
	if d < 0 {
		return s.Sensors(), fmt.Errorf("vehicle: negative wait %v", d)
	}
	n := int(math.Round(d.Seconds() / s.r.StepS()))
	for i := 0; i < n; i++ {
		if i%mowerCtxCheckSteps == 0 {
			if err := ctxErr(ctx); err != nil {
				return s.Sensors(), err
			}
		}
		s.Step()
		if until != nil && until(s.Sensors()) {
			return s.Sensors(), nil
		}
	}
	if until != nil {
		return s.Sensors(), ErrTimeout
	}
	return s.Sensors(), nil
}
