package rover

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/world"
)

// Config configures a simulated mower. Zero values mean the defaults named
// on each field.
type Config struct {
	Params  Params        // zero = DefaultParams()
	StepS   float64       // physics step; 0 = DefaultStepS
	Lidar   LidarConfig   // zero = DefaultLidar()
	Battery BatteryConfig // zero fields = DefaultBattery's
	NoNoise bool          // true turns all sensor noise off (known-answer tests)
	NoBlade bool          // the blade is disconnected from its motor (the seed's H2 robots)
	NoLidar bool          // no lidar fitted

	StartPos    geom.Vec2 // m, NED; the axle centre
	StartYawRad float64
}

// Ring is the colour of the status ring light.
type Ring int

// Ring colours.
const (
	RingOff Ring = iota
	RingGreen
	RingAmber
	RingRed
)

var ringNames = [...]string{"off", "green", "amber", "red"}

func (r Ring) String() string {
	if r >= 0 && int(r) < len(ringNames) {
		return ringNames[r]
	}
	return fmt.Sprintf("Ring(%d)", int(r))
}

// Faults are the failures a test can inject. A dropped-out sensor stops
// publishing (its sequence number stops); a reversed encoder reports its
// wheel turning the other way; swapped drive motors are wired to the
// opposite wheels; an upside-down IMU is mounted rolled by 180°; an open
// STOP contact (a broken wire) never tells the safety gate that STOP is
// pressed.
type Faults struct {
	IMUDropout      bool
	GNSSDropout     bool
	JointDropout    bool
	LidarDropout    bool
	BatteryDropout  bool
	RTKFloat        bool    // the receiver never gets an RTK fixed solution
	ReversedEncoder [2]bool // left, right
	SwappedMotors   bool
	IMUUpsideDown   bool
	GyroBiasRadS    float64 // added to the gyro's z axis
	StopOpen        bool    // the STOP button's contact is open: pressing it reaches nothing
}

// State is the true state of the mower.
type State struct {
	Pos        geom.Vec2 // axle centre, m, NED
	Yaw        float64   // rad, 0 = North, positive turning right
	SpeedMS    float64   // forward speed
	YawRate    float64   // rad/s
	AccMS2     float64   // forward acceleration of the last step
	WheelRadS  [2]float64
	WheelRad   [2]float64 // wheel angles
	BladeRadS  float64
	BladeRef   float64 // the blade motor's speed reference, rad/s
	BladeNm    float64 // torque of the blade motor on the blade (its reaction acts on the chassis)
	Slipping   bool    // the tyres slip in yaw
	Contact    int     // index of the box in contact, −1 for none
	DriveV     float64 // the command the drive plugin executes
	DriveW     float64
	BladeOn    bool
	Stop, Go   bool // the buttons as pressed
	Ring       Ring
	BatterySoC float64
}

// Rover is a simulated mower. Its methods must not be called concurrently.
type Rover struct {
	cfg    Config
	p      Params
	scene  *world.Scene
	rng    *rand.Rand
	batCfg BatteryConfig
	yawF   float64 // yaw friction limit

	t float64
	n int64
	s State

	Faults Faults // switch faults on and off between steps

	gyroBias geom.Vec3
	gpsErr   [2]sim.GaussMarkov
	currentA float64
	usedMAh  float64

	imu   IMU
	gnss  GNSS
	joint Joints
	scan  Scan
	bat   Battery

	imuT, gnssT, jointT, lidarT, batT sim.Every
	prevWheel                         [2]float64 // encoder positions at the last joint sample
	contactCmd                        [2]float64 // the drive command that pushed into a box
	lidarDirs                         []geom.Vec2
}

// New returns a mower at rest at cfg.StartPos in scene (nil for an empty
// lawn), drawing its noise from rng.
func New(cfg Config, scene *world.Scene, rng *rand.Rand) (*Rover, error) {
	if rng == nil {
		return nil, errors.New("rover: nil random source")
	}
	if cfg.Params == (Params{}) {
		cfg.Params = DefaultParams()
	}
	if err := cfg.Params.Validate(); err != nil {
		return nil, err
	}
	if cfg.StepS == 0 {
		cfg.StepS = DefaultStepS
	}
	if !(cfg.StepS > 0 && cfg.StepS <= 0.005) {
		return nil, fmt.Errorf("rover: step %v s out of range (0, 0.005]", cfg.StepS)
	}
	if cfg.Lidar == (LidarConfig{}) {
		cfg.Lidar = DefaultLidar()
	}
	if err := cfg.Lidar.Validate(); err != nil {
		return nil, err
	}
	if !cfg.StartPos.IsFinite() || math.IsNaN(cfg.StartYawRad) || math.IsInf(cfg.StartYawRad, 0) {
		return nil, fmt.Errorf("rover: start pose %v yaw %v must be finite", cfg.StartPos, cfg.StartYawRad)
	}
	bc := cfg.Battery.withDefaults()
	if bc.Cells < 1 || !(bc.CapacityMAh > 0) || !(bc.VFullCell > bc.VEmptyCell) || !(bc.VEmptyCell > 0) ||
		!(bc.InitialRemaining > 0 && bc.InitialRemaining <= 1) || !(bc.ResistanceOhm >= 0) || !(bc.IdleA >= 0) {
		return nil, fmt.Errorf("rover: battery %+v is not a usable pack", bc)
	}
	if scene == nil {
		scene = &world.Scene{}
	}
	r := &Rover{cfg: cfg, p: cfg.Params, scene: scene, rng: rng, batCfg: bc}
	r.yawF = r.p.YawFrictionNm()
	r.s = State{Pos: cfg.StartPos, Yaw: geom.WrapPi(cfg.StartYawRad), Contact: -1, BatterySoC: bc.InitialRemaining, Ring: RingGreen}
	if !cfg.NoNoise {
		// A MEMS gyro's turn-on bias, a few mrad/s.
		r.gyroBias = geom.Vec3{X: 0.002 * rng.NormFloat64(), Y: 0.002 * rng.NormFloat64(), Z: 0.002 * rng.NormFloat64()}
	}
	// RTK position error: 1 cm, correlated over about a second at 10 Hz.
	for i := range r.gpsErr {
		r.gpsErr[i] = sim.GaussMarkov{A: 0.9, S: 0.01 * math.Sqrt(1-0.81)}
	}
	r.imuT.PeriodS = 1.0 / IMURateHz
	r.gnssT.PeriodS = 1.0 / GNSSRateHz
	r.jointT.PeriodS = 1.0 / JointRateHz
	r.batT.PeriodS = 1.0 / BatteryRateHz
	if !cfg.NoLidar {
		lc := cfg.Lidar
		r.lidarT.PeriodS = 1 / lc.RateHz
		fov := lc.FOVDeg * math.Pi / 180
		inc := fov / float64(lc.Beams-1)
		if lc.FOVDeg == 360 {
			inc = fov / float64(lc.Beams)
		}
		r.scan = Scan{AngleMinRad: -fov / 2, AngleIncRad: inc, Ranges: make([]float64, lc.Beams), MinM: lc.MinM, MaxM: lc.MaxM, MountXM: lc.MountXM}
		r.lidarDirs = make([]geom.Vec2, lc.Beams)
		for i := range r.lidarDirs {
			a := r.scan.AngleMinRad + float64(i)*inc
			r.lidarDirs[i] = geom.Vec2{X: math.Cos(a), Y: math.Sin(a)}
		}
	}
	r.sample()
	return r, nil
}

// Config returns the configuration in use, defaults filled in.
func (r *Rover) Config() Config { return r.cfg }

// StepS returns the physics step.
func (r *Rover) StepS() float64 { return r.cfg.StepS }

// Time returns the simulated time, s.
func (r *Rover) Time() float64 { return r.t }

// Truth returns the true state.
func (r *Rover) Truth() State { return r.s }

// Scene returns the lawn's obstacles.
func (r *Rover) Scene() *world.Scene { return r.scene }

// SetDrive gives the drive plugin a new command: forward speed v (m/s) and
// yaw rate w (rad/s, positive turning right). The plugin executes it until
// the next one, as Gazebo's diff-drive plugin does. NaN counts as 0.
func (r *Rover) SetDrive(v, w float64) {
	r.s.DriveV, r.s.DriveW = nz(v), nz(w)
}

// SetBlade switches the blade motor on (soft start to full speed) or off
// (braking at the torque limit).
func (r *Rover) SetBlade(on bool) { r.s.BladeOn = on }

// SetButtons sets whether the STOP and GO buttons are held down.
func (r *Rover) SetButtons(stop, goHeld bool) { r.s.Stop, r.s.Go = stop, goHeld }

// Buttons returns what the buttons' contacts tell the safety gate: as held,
// unless a fault opens a contact (Faults.StopOpen).
func (r *Rover) Buttons() (stop, goHeld bool) { return r.s.Stop && !r.Faults.StopOpen, r.s.Go }

// SetRing sets the colour of the status ring light.
func (r *Rover) SetRing(c Ring) { r.s.Ring = c }

func nz(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Step advances the simulation by one physics step. It allocates nothing.
func (r *Rover) Step() {
	dt := r.cfg.StepS
	p := &r.p
	s := &r.s
	r.n++
	r.t = float64(r.n) * dt

	// Drive plugin: wheel speed targets from the last command, each wheel a
	// first-order speed loop limited by the motor's acceleration.
	half := p.TrackM / 2
	target := [2]float64{(s.DriveV + s.DriveW*half) / p.WheelRadiusM, (s.DriveV - s.DriveW*half) / p.WheelRadiusM}
	if r.Faults.SwappedMotors {
		target[0], target[1] = target[1], target[0]
	}
	if s.Contact >= 0 && s.DriveV == r.contactCmd[0] && s.DriveW == r.contactCmd[1] {
		// Pushing against the box: the wheels stall until the command changes.
		target = [2]float64{}
		s.WheelRadS = [2]float64{}
	} else {
		s.Contact = -1
	}
	aMax := p.WheelAccMS2 / p.WheelRadiusM * dt
	for i := range 2 {
		dw := geom.Clamp((target[i]-s.WheelRadS[i])*dt/p.WheelTauS, -aMax, aMax)
		s.WheelRadS[i] += dw
		s.WheelRad[i] += s.WheelRadS[i] * dt
	}
	v := p.WheelRadiusM * (s.WheelRadS[0] + s.WheelRadS[1]) / 2
	rKin := p.WheelRadiusM * (s.WheelRadS[0] - s.WheelRadS[1]) / p.TrackM

	// Blade motor: the reference follows the soft-start ramp while on and
	// drops to zero when off; the motor applies what reaches the reference in
	// one step plus the drag, within its torque limit.
	var tauM float64
	if r.cfg.NoBlade {
		s.BladeRef, s.BladeRadS = 0, 0
	} else {
		if s.BladeOn {
			s.BladeRef = math.Min(math.Max(s.BladeRef, s.BladeRadS)+p.BladeMaxRadS/p.BladeSoftStartS*dt, p.BladeMaxRadS)
		} else {
			s.BladeRef = 0
		}
		drag := p.BladeDragNmS * s.BladeRadS
		tauM = geom.Clamp(p.BladeInertiaKgM2*(s.BladeRef-s.BladeRadS)/dt+drag, -p.BladeTorqueNm, p.BladeTorqueNm)
		s.BladeRadS += (tauM - drag) / p.BladeInertiaKgM2 * dt
		if s.BladeRef == 0 && math.Abs(s.BladeRadS) < 1e-9 {
			s.BladeRadS = 0
		}
	}
	s.BladeNm = tauM

	// Chassis yaw: the tyres hold the rate the wheels imply if the torque
	// that takes is within the friction limit; otherwise the chassis slips
	// and friction acts at its limit. The blade spins about body z (down),
	// so its motor's reaction is −τ about z.
	react := -tauM
	need := p.IzzKgM2*(rKin-s.YawRate)/dt - react
	if math.Abs(need) <= r.yawF {
		s.YawRate = rKin
		s.Slipping = false
	} else {
		s.YawRate += (react + math.Copysign(r.yawF, need)) / p.IzzKgM2 * dt
		s.Slipping = true
	}

	// Translation along the heading; a box in the way stops the robot.
	prev := s.Pos
	prevYaw := s.Yaw
	s.Yaw = geom.WrapPi(s.Yaw + s.YawRate*dt)
	s.Pos = s.Pos.Add(geom.Vec2{X: math.Cos(s.Yaw), Y: math.Sin(s.Yaw)}.Scale(v * dt))
	s.AccMS2 = (v - s.SpeedMS) / dt
	s.SpeedMS = v
	if s.Contact < 0 {
		if i := r.contact(); i >= 0 {
			s.Pos, s.Yaw = prev, prevYaw
			s.SpeedMS, s.YawRate, s.AccMS2 = 0, 0, 0
			s.WheelRadS = [2]float64{}
			s.Contact = i
			r.contactCmd = [2]float64{s.DriveV, s.DriveW}
		}
	}

	r.drainBattery(dt, tauM)
	r.sample()
}

// contact returns the box the footprint overlaps, or −1.
func (r *Rover) contact() int {
	if len(r.scene.Boxes) == 0 {
		return -1
	}
	fp := r.Footprint()
	for i, b := range r.scene.Boxes {
		bc := b.Corners()
		if polysOverlap(fp[:], bc[:]) {
			return i
		}
	}
	return -1
}

// Footprint returns the corners of the body's footprint, NED, counter-
// clockwise seen from below (front-left, front-right, rear-right, rear-left).
func (r *Rover) Footprint() [4]geom.Vec2 {
	p, s := &r.p, &r.s
	c := s.Pos
	pts := [4]geom.Vec2{{X: p.FrontM, Y: -p.HalfWidthM}, {X: p.FrontM, Y: p.HalfWidthM}, {X: -p.RearM, Y: p.HalfWidthM}, {X: -p.RearM, Y: -p.HalfWidthM}}
	for i := range pts {
		pts[i] = c.Add(pts[i].Rotate(s.Yaw))
	}
	return pts
}

// polysOverlap reports whether two convex quadrilaterals overlap, by the
// separating axis test on the edges of both.
func polysOverlap(a, b []geom.Vec2) bool {
	for _, poly := range [2][]geom.Vec2{a, b} {
		for i := range poly {
			e := poly[(i+1)%len(poly)].Sub(poly[i])
			n := geom.Vec2{X: -e.Y, Y: e.X}
			amin, amax := project(a, n)
			bmin, bmax := project(b, n)
			if amax < bmin || bmax < amin {
				return false
			}
		}
	}
	return true
}

func project(poly []geom.Vec2, n geom.Vec2) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range poly {
		d := p.Dot(n)
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo, hi
}

// drainBattery draws the electronics' idle current, the drive's (about 2 A
// per m/s and per m/s² of rim acceleration) and the blade motor's power.
func (r *Rover) drainBattery(dt, bladeNm float64) {
	c := &r.batCfg
	volts := float64(c.Cells) * (c.VEmptyCell + (c.VFullCell-c.VEmptyCell)*r.s.BatterySoC)
	i := c.IdleA + 2*math.Abs(r.s.SpeedMS) + 0.5*math.Abs(r.s.AccMS2) + math.Max(0, bladeNm*r.s.BladeRadS)/volts
	r.currentA = i
	r.usedMAh += i * dt / 3.6
	r.s.BatterySoC = math.Max(0, r.s.BatterySoC-i*dt/3.6/c.CapacityMAh)
}
