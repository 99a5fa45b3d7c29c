package quad

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/world"
)

// DefaultStepS is the fixed physics step: PX4 SITL's lockstep rate of
// 200 Hz (px4.md §1.5).
const DefaultStepS = 0.005

// Config configures a simulated quadrotor. Zero values mean the defaults
// named on each field.
type Config struct {
	Params  Params         // zero = DefaultParams()
	StepS   float64        // physics step; 0 = DefaultStepS
	Wind    sim.WindConfig // zero = calm
	Range   RangeConfig    // zero = no range sensor
	Cloud   CloudConfig    // zero = no depth point cloud (IrisDepthCamera for PX4-Avoidance)
	Battery BatteryConfig  // zero fields = DefaultBattery's
	NoNoise bool           // true turns all sensor noise off (known-answer tests)

	StartPos    geom.Vec3 // m, NED; zero = on the ground at the origin
	StartYawRad float64

	HomeAltMSL float64 // origin altitude above sea level for the barometer; 0 = 489.4 m (SIH_LOC_H0)
}

// State is the true rigid-body state.
type State struct {
	Pos      geom.Vec3 // m, NED
	Vel      geom.Vec3 // m/s, NED
	Acc      geom.Vec3 // m/s², NED, from the last step
	Att      geom.Quat // body FRD → NED
	Rate     geom.Vec3 // rad/s, body FRD
	Motor    [4]float64
	Grounded bool
}

// Crash says how the flight ended in a crash.
type Crash struct {
	T        float64
	Obstacle int // index into the scene's boxes, −1 for the ground
	Pos      geom.Vec3
	SpeedMS  float64
}

// HardLandingMS is the touchdown speed above which hitting the ground counts
// as a crash (not in SIH, which has no crash model; a landing gear takes
// about this much).
const HardLandingMS = 4.0

// Quad is a simulated quadrotor. Its methods must not be called
// concurrently.
type Quad struct {
	cfg   Config
	p     Params
	scene *world.Scene
	rng   *rand.Rand
	wind  sim.Wind

	t   float64
	n   int64 // steps taken; t = n·dt exactly, without accumulated rounding
	s   State
	cmd [4]float64

	Faults Faults // switch faults on and off between steps

	crashed  bool
	crash    Crash
	contacts []Contact
	touching int     // the box of the current contact, −1 for none
	touchT   float64 // when it was last touched

	imu     IMU
	gnss    GNSS
	baro    Baro
	bat     Battery
	scan    RangeScan
	gpsPos  [3]sim.GaussMarkov
	gpsVel  [3]sim.GaussMarkov
	gnssT   sim.Every
	baroT   sim.Every
	batT    sim.Every
	rangeT  sim.Every
	cloudT  sim.Every
	cloud   *cloudCam
	soc     float64
	usedMAh float64
	batCfg  BatteryConfig
}

// New returns a quadrotor at rest on the ground (or at cfg.StartPos), flying
// in scene (nil for an empty world) and drawing its noise from rng.
func New(cfg Config, scene *world.Scene, rng *rand.Rand) (*Quad, error) {
	if rng == nil {
		return nil, errors.New("quad: nil random source")
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
	if !(cfg.StepS > 0 && cfg.StepS <= 0.02) {
		return nil, fmt.Errorf("quad: step %v s out of range (0, 0.02]", cfg.StepS)
	}
	if err := cfg.Wind.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Range.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Cloud.Validate(); err != nil {
		return nil, err
	}
	if !cfg.StartPos.IsFinite() || cfg.StartPos.Z > 0 || math.IsNaN(cfg.StartYawRad) || math.IsInf(cfg.StartYawRad, 0) {
		return nil, fmt.Errorf("quad: start pose %v yaw %v must be finite and not below the ground", cfg.StartPos, cfg.StartYawRad)
	}
	if cfg.HomeAltMSL == 0 {
		cfg.HomeAltMSL = 489.4
	}
	if scene == nil {
		scene = &world.Scene{}
	}
	bc := cfg.Battery.withDefaults()
	if bc.Cells < 1 || !(bc.CapacityMAh > 0) || !(bc.VFullCell > bc.VEmptyCell) || !(bc.InitialRemaining > 0 && bc.InitialRemaining <= 1) {
		return nil, fmt.Errorf("quad: battery %+v is not a usable pack", bc)
	}
	q := &Quad{cfg: cfg, p: cfg.Params, scene: scene, rng: rng, wind: sim.NewWind(cfg.Wind), batCfg: bc, soc: bc.InitialRemaining}
	q.s.Pos = cfg.StartPos
	q.touching = -1
	q.s.Att = geom.QuatEuler(0, 0, cfg.StartYawRad)
	q.s.Grounded = cfg.StartPos.Z >= 0
	// GPS error processes of PX4's sensor_gps_sim (px4.md §1.4), per 8-Hz sample.
	for i := range 3 {
		k, kv := 1.0, 1.0
		if i == 2 {
			k, kv = 1.5, 1.2
		}
		q.gpsPos[i] = sim.GaussMarkov{A: 0.76, S: 0.02 * 0.8 * k}
		q.gpsVel[i] = sim.GaussMarkov{A: 0.54, S: 0.4 * 0.05 * kv}
	}
	q.gnssT.PeriodS = 1.0 / 8
	q.baroT.PeriodS = 1.0 / 20
	q.batT.PeriodS = 1.0 / 10
	if cfg.Range.Kind != RangeNone {
		n := cfg.Range.Cols * cfg.Range.Rows
		q.rangeT.PeriodS = 1 / cfg.Range.RateHz
		q.scan = RangeScan{Kind: cfg.Range.Kind, Cols: cfg.Range.Cols, Rows: cfg.Range.Rows,
			Ranges: make([]float64, n), Dirs: rayDirs(cfg.Range), MaxM: cfg.Range.MaxRangeM, T: math.Inf(-1)}
	}
	if cfg.Cloud.On() {
		q.cloud = newCloudCam(cfg.Cloud)
		q.cloudT.PeriodS = 1 / cfg.Cloud.RateHz
	}
	q.imu.T, q.gnss.T, q.baro.T, q.bat.T = math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
	q.sample()
	return q, nil
}

// rayDirs spreads the sensor's rays over its field of view in the body frame.
func rayDirs(c RangeConfig) []geom.Vec3 {
	d := make([]geom.Vec3, 0, c.Cols*c.Rows)
	h := c.HFOVDeg * math.Pi / 180
	v := c.VFOVDeg * math.Pi / 180
	for i := range c.Cols {
		var az float64
		switch {
		case c.Kind == RangeLidar && c.HFOVDeg == 360:
			az = -math.Pi + 2*math.Pi*float64(i)/float64(c.Cols)
		case c.Cols > 1:
			az = -h/2 + h*float64(i)/float64(c.Cols-1)
		}
		for j := range c.Rows {
			var el float64 // positive = up
			if c.Rows > 1 {
				el = v/2 - v*float64(j)/float64(c.Rows-1)
			}
			ce := math.Cos(el)
			d = append(d, geom.Vec3{X: ce * math.Cos(az), Y: ce * math.Sin(az), Z: -math.Sin(el)})
		}
	}
	return d
}

// Config returns the configuration in use, defaults filled in.
func (q *Quad) Config() Config { return q.cfg }

// StepS returns the fixed physics step.
func (q *Quad) StepS() float64 { return q.cfg.StepS }

// Time returns the simulated time in seconds.
func (q *Quad) Time() float64 { return q.t }

// Truth returns the true state.
func (q *Quad) Truth() State { return q.s }

// Crashed returns the crash, if the vehicle has crashed.
func (q *Quad) Crashed() (Crash, bool) { return q.crash, q.crashed }

// WindVelocity returns the air velocity at the vehicle, NED.
func (q *Quad) WindVelocity() geom.Vec3 { return q.wind.Velocity() }

// SetMotors sets the motor commands (0..1, clamped; NaN counts as 0) that
// the next steps apply.
func (q *Quad) SetMotors(u [4]float64) {
	for i, v := range u {
		if !(v > 0) {
			v = 0
		}
		q.cmd[i] = math.Min(v, 1)
	}
}

// IMU returns the latest IMU sample.
func (q *Quad) IMU() IMU { return q.imu }

// GNSS returns the latest GNSS solution.
func (q *Quad) GNSS() GNSS { return q.gnss }

// Baro returns the latest barometer sample.
func (q *Quad) Baro() Baro { return q.baro }

// Battery returns the latest battery reading.
func (q *Quad) Battery() Battery { return q.bat }

// Range returns the latest range scan (zero Kind without a range sensor).
func (q *Quad) Range() RangeScan { return q.scan }

// Cloud returns the latest depth point cloud (T = −Inf before the first
// scan or without a depth camera). Its Points are overwritten by the next
// scan. The rays are cast when the cloud is first asked for, from the pose
// the camera had when the frame was due, so a frame nobody reads costs
// nothing and one that is read is the same as if cast at once.
func (q *Quad) Cloud() CloudScan {
	if q.cloud == nil {
		return CloudScan{T: math.Inf(-1)}
	}
	if c := q.cloud; c.pending {
		c.pending = false
		c.capture(c.due.T, c.due.Pos, c.due.Att, q.scene)
	}
	return q.cloud.scan
}

// CloudT returns the time of the latest depth frame (−Inf before the first
// or without a depth camera) without casting its rays: Cloud does that.
func (q *Quad) CloudT() float64 {
	switch {
	case q.cloud == nil:
		return math.Inf(-1)
	case q.cloud.pending:
		return q.cloud.due.T
	}
	return q.cloud.scan.T
}

// Step advances the simulation by one fixed step. It allocates nothing.
func (q *Quad) Step() {
	dt := q.cfg.StepS
	p := &q.p
	s := &q.s
	q.n++
	q.t = float64(q.n) * dt
	q.wind.Step(dt, q.rng)

	// Motor lag (forward Euler, SIH_T_TAU). A crashed or stopped motor spins down.
	var sum float64
	for i := range 4 {
		c := q.cmd[i]
		if q.crashed || q.Faults.MotorStopped[i] {
			c = 0
		}
		s.Motor[i] += dt / p.TauS * (c - s.Motor[i])
		sum += s.Motor[i]
	}
	u := s.Motor
	thrustB := geom.Vec3{Z: -p.TMaxN * sum}
	torque := geom.Vec3{
		X: p.LRollM * p.TMaxN * (-u[0] + u[1] + u[2] - u[3]),
		Y: p.LPitchM * p.TMaxN * (u[0] - u[1] + u[2] - u[3]),
		Z: p.QMaxNm * (u[0] + u[1] - u[2] - u[3]),
	}

	// Translation: m·a = R·T_B − KDV·(v − v_wind) + m·g·down (+ ground).
	f := s.Att.Rotate(thrustB).
		Sub(s.Vel.Sub(q.wind.Velocity()).Scale(p.KDV)).
		Add(geom.Vec3{Z: p.MassKg * GravityMS2})
	if s.Pos.Z >= 0 && (f.Z >= 0 || s.Vel.Z > 0) {
		// SIH ground: at or below the ground, moving or pushed down, the
		// ground cancels the whole net force and, on the first contact step,
		// the velocity.
		if !s.Grounded {
			q.touchdown()
		}
		s.Grounded = true
		f = geom.Vec3{}
		s.Vel = geom.Vec3{}
	} else if f.Z < 0 || s.Pos.Z < 0 {
		s.Grounded = false
	}
	acc := f.Scale(1 / p.MassKg)
	vNew := s.Vel.Add(acc.Scale(dt))
	s.Pos = s.Pos.Add(s.Vel.Add(vNew).Scale(dt / 2))
	s.Vel = vNew
	s.Acc = acc
	if s.Pos.Z > 0 {
		s.Pos.Z = 0
	}

	// Rotation: ω̇ = I⁻¹ (M_t − KDW·ω − ω × Iω).
	w := s.Rate
	iw := geom.Vec3{X: p.Ixx * w.X, Y: p.Iyy * w.Y, Z: p.Izz * w.Z}
	m := torque.Sub(w.Scale(p.KDW)).Sub(w.Cross(iw))
	wdot := geom.Vec3{X: m.X / p.Ixx, Y: m.Y / p.Iyy, Z: m.Z / p.Izz}
	if s.Grounded {
		// No tip-over on the ground: the gear holds the attitude.
		s.Rate = geom.Vec3{}
	} else {
		s.Att = s.Att.Integrate(w, dt)
		w = w.Add(wdot.Scale(dt))
		w.X = geom.Clamp(w.X, -p.MaxRateRadS, p.MaxRateRadS)
		w.Y = geom.Clamp(w.Y, -p.MaxRateRadS, p.MaxRateRadS)
		w.Z = geom.Clamp(w.Z, -p.MaxRateRadS, p.MaxRateRadS)
		s.Rate = w
	}

	q.collide()
	q.drainBattery(dt, sum/4)
	q.sample()
}

// collide resolves contact with the boxes' collision volumes as Gazebo's
// rigid bodies do: the vehicle is pushed back out of the volume and loses
// the part of its velocity that goes into the wall; the flight goes on. A
// new contact is recorded with the speed into the wall; an impact faster
// than CrashImpactMS breaks the propellers (a crash: the motors stop and the
// vehicle falls).
func (q *Quad) collide() {
	s := &q.s
	pen, hit := q.scene.Penetrate(s.Pos, q.p.RadiusM)
	if !hit {
		if q.touching >= 0 && q.t-q.touchT > contactGapS {
			q.touching = -1
		}
		return
	}
	if pen.Obstacle == q.touching {
		q.touchT = q.t
	}
	s.Pos = s.Pos.Add(pen.Normal.Scale(pen.DepthM))
	vn := s.Vel.Dot(pen.Normal)
	if vn < 0 {
		s.Vel = s.Vel.Sub(pen.Normal.Scale(vn))
	}
	if q.touching != pen.Obstacle {
		q.touching, q.touchT = pen.Obstacle, q.t
		c := Contact{T: q.t, Obstacle: pen.Obstacle, Pos: s.Pos, SpeedMS: math.Max(0, -vn)}
		if len(q.contacts) < maxContacts {
			q.contacts = append(q.contacts, c)
		}
		if c.SpeedMS > CrashImpactMS && !q.crashed {
			q.crashed = true
			q.crash = Crash{T: q.t, Obstacle: pen.Obstacle, Pos: s.Pos, SpeedMS: c.SpeedMS}
		}
	}
}

// Contact is the start of a touch between the vehicle and a box's
// collision volume.
type Contact struct {
	T        float64
	Obstacle int // index into the scene's boxes
	Pos      geom.Vec3
	SpeedMS  float64 // speed into the wall at first touch
}

// CrashImpactMS is the speed into a wall above which a contact breaks the
// propellers and the vehicle falls. Gazebo's iris collides as a rigid body
// with no rotor model: a touch pushes it back and it flies on, as PX4 +
// PX4-Avoidance do in the competition's flights that graze a box. Only an
// impact faster than PX4-Avoidance's cruise speed (3 m/s) is taken to
// tumble it. With 1 m/s the embedded vehicle fell after touches that PX4
// flew on from, and its airborne time on the reference flights was half of
// PX4's (median ratio 0.51 on the 30 normal and crash tests; 0.89 with
// 3 m/s).
const CrashImpactMS = 3.0

// contactGapS is how long the vehicle must be clear of a box before a touch
// counts as a new contact (a vehicle sliding or falling along a wall
// touches it on and off).
const contactGapS = 1.0

// maxContacts bounds the contact log of one flight.
const maxContacts = 1024

// Contacts returns every contact so far, oldest first (shared; do not
// modify).
func (q *Quad) Contacts() []Contact { return q.contacts }

// touchdown is called on the first ground-contact step.
func (q *Quad) touchdown() {
	if v := q.s.Vel.Norm(); v > HardLandingMS && !q.crashed {
		q.crashed = true
		q.crash = Crash{T: q.t, Obstacle: -1, Pos: q.s.Pos, SpeedMS: v}
	}
}

func (q *Quad) drainBattery(dt, meanU float64) {
	c := &q.batCfg
	i := c.IdleA + c.MaxA*meanU*math.Sqrt(meanU)
	q.usedMAh += i * dt / 3.6
	q.soc = math.Max(0, q.soc-i*dt/3.6/c.CapacityMAh)
	q.bat.CurrentA = i
}

// sample updates every sensor whose sample is due at the current time.
func (q *Quad) sample() {
	s := &q.s
	noise := !q.cfg.NoNoise
	if !q.Faults.IMUDropout {
		// Specific force: (a − g) in the body frame; noise per Bulka & Nahon as SIH.
		f := s.Att.RotateInv(s.Acc.Sub(geom.Vec3{Z: GravityMS2}))
		g := s.Rate
		if noise {
			as, gs := geom.Vec3{X: 0.1, Y: 0.1, Z: 0.1}, geom.Vec3{X: 0.01, Y: 0.01, Z: 0.01}
			if s.Motor[0]+s.Motor[1]+s.Motor[2]+s.Motor[3] > 0.05 {
				as, gs = geom.Vec3{X: 0.5, Y: 1.7, Z: 1.4}, geom.Vec3{X: 0.14, Y: 0.07, Z: 0.03}
			}
			f = f.Add(q.gauss3().Mul(as))
			g = g.Add(q.gauss3().Mul(gs))
		}
		q.imu = IMU{T: q.t, Seq: q.imu.Seq + 1, Accel: f, Gyro: g}
	}
	if q.gnssT.Due(q.t) && !q.Faults.GNSSDropout {
		var ep, ev geom.Vec3
		if noise {
			ep = geom.Vec3{X: q.gpsPos[0].Next(q.rng), Y: q.gpsPos[1].Next(q.rng), Z: q.gpsPos[2].Next(q.rng)}
			ev = geom.Vec3{X: q.gpsVel[0].Next(q.rng), Y: q.gpsVel[1].Next(q.rng), Z: q.gpsVel[2].Next(q.rng)}
		}
		if q.Faults.GNSSLoss {
			q.gnss = GNSS{T: q.t, Seq: q.gnss.Seq + 1, Fix: FixNone, Satellites: 0, EphM: 100, EpvM: 100}
		} else {
			q.gnss = GNSS{T: q.t, Seq: q.gnss.Seq + 1, Fix: Fix3D, Satellites: 10, EphM: 0.9, EpvM: 1.78, Pos: s.Pos.Add(ep), Vel: s.Vel.Add(ev)}
		}
	}
	if q.baroT.Due(q.t) && !q.Faults.BaroDropout {
		h := q.cfg.HomeAltMSL - s.Pos.Z
		tk := 288.15 - 0.0065*h
		pa := 101325 * math.Pow(tk/288.15, 5.2559)
		if noise {
			pa += q.rng.NormFloat64() // 1 Pa RMS (sensor_baro_sim)
		}
		alt := 288.15/0.0065*(1-math.Pow(pa/101325, 1/5.2559)) - q.cfg.HomeAltMSL
		q.baro = Baro{T: q.t, Seq: q.baro.Seq + 1, PressurePa: pa, TempC: tk - 273.15, AltM: alt}
	}
	if q.batT.Due(q.t) && !q.Faults.BatteryDropout {
		c := &q.batCfg
		ocv := float64(c.Cells) * (c.VEmptyCell + (c.VFullCell-c.VEmptyCell)*q.soc)
		q.bat = Battery{T: q.t, Seq: q.bat.Seq + 1, VoltageV: ocv - q.bat.CurrentA*c.ResistanceOhm, CurrentA: q.bat.CurrentA,
			UsedMAh: q.usedMAh, Remaining: q.soc, Cells: c.Cells}
	}
	if q.cfg.Range.Kind != RangeNone && q.rangeT.Due(q.t) && !q.Faults.RangeDropout {
		q.castRays(noise)
	}
	if q.cloud != nil && q.cloudT.Due(q.t) && !q.Faults.RangeDropout {
		q.cloud.due = CloudScan{T: q.t, Pos: s.Pos, Att: s.Att}
		q.cloud.pending = true
	}
}

func (q *Quad) castRays(noise bool) {
	rc := &q.cfg.Range
	for i, d := range q.scan.Dirs {
		dir := q.s.Att.Rotate(d)
		r, _ := q.scene.Raycast(q.s.Pos, dir, rc.MaxRangeM)
		if noise && rc.NoiseSigmaM > 0 && r < rc.MaxRangeM {
			r = math.Min(math.Max(r+rc.NoiseSigmaM*q.rng.NormFloat64(), 0), rc.MaxRangeM)
		}
		if r < rc.MinRangeM {
			r = math.NaN()
		}
		q.scan.Ranges[i] = r
	}
	q.scan.T = q.t
	q.scan.Seq++
}

func (q *Quad) gauss3() geom.Vec3 {
	return geom.Vec3{X: q.rng.NormFloat64(), Y: q.rng.NormFloat64(), Z: q.rng.NormFloat64()}
}
