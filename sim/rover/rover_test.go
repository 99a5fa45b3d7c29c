package rover_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/world"
)

func newRover(t testing.TB, cfg rover.Config, scene *world.Scene) *rover.Rover {
	t.Helper()
	r, err := rover.New(cfg, scene, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func steps(r *rover.Rover, seconds float64) {
	for n := int(math.Round(seconds / r.StepS())); n > 0; n-- {
		r.Step()
	}
}

// The drive reaches what the command implies: v for both wheels going
// straight, ±w·b/2 on the wheels and w on the chassis in a pivot.
func TestDriveKnownAnswers(t *testing.T) {
	p := rover.DefaultParams()
	cases := []struct {
		name          string
		v, w          float64
		wantL, wantR  float64 // rim speeds, m/s
		wantV, wantYR float64
	}{
		{"forward", 0.2, 0, 0.2, 0.2, 0.2, 0},
		{"pivot left", 0, -0.5, -0.1, 0.1, 0, -0.5},
		{"pivot right", 0, 0.5, 0.1, -0.1, 0, 0.5},
		{"arc", 0.3, 0.25, 0.35, 0.25, 0.3, 0.25},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRover(t, rover.Config{NoNoise: true}, nil)
			r.SetDrive(c.v, c.w)
			steps(r, 2)
			s := r.Truth()
			if got := s.WheelRadS[0] * p.WheelRadiusM; math.Abs(got-c.wantL) > 1e-6 {
				t.Errorf("left rim speed: got %.6f m/s; want %.6f", got, c.wantL)
			}
			if got := s.WheelRadS[1] * p.WheelRadiusM; math.Abs(got-c.wantR) > 1e-6 {
				t.Errorf("right rim speed: got %.6f m/s; want %.6f", got, c.wantR)
			}
			if math.Abs(s.SpeedMS-c.wantV) > 1e-6 || math.Abs(s.YawRate-c.wantYR) > 1e-6 {
				t.Errorf("chassis: got %.6f m/s, %.6f rad/s; want %.6f, %.6f", s.SpeedMS, s.YawRate, c.wantV, c.wantYR)
			}
			j := r.Joints()
			if got := j.WheelRadS[0] * p.WheelRadiusM; math.Abs(got-c.wantL) > 1e-6 {
				t.Errorf("left encoder: got %.6f m/s; want %.6f", got, c.wantL)
			}
			if got := r.IMU().Gyro.Z; math.Abs(got-c.wantYR) > 1e-9 {
				t.Errorf("gyro z: got %.6f; want %.6f", got, c.wantYR)
			}
		})
	}
}

// The drive plugin keeps executing the last command it got: nothing in the
// simulated robot times a command out (that is the gate's job).
func TestDrivePluginKeepsLastCommand(t *testing.T) {
	r := newRover(t, rover.Config{NoNoise: true}, nil)
	r.SetDrive(0.3, 0)
	r.SetBlade(true)
	steps(r, 30)
	s := r.Truth()
	if math.Abs(s.SpeedMS-0.3) > 1e-9 || math.Abs(s.BladeRadS-rover.DefaultParams().BladeMaxRadS) > 1e-6 {
		t.Errorf("after 30 s without a new command: speed %.3f m/s, blade %.1f rad/s; want 0.3, full", s.SpeedMS, s.BladeRadS)
	}
	if want := 0.3 * 30; math.Abs(s.Pos.X-want) > 0.05 {
		t.Errorf("distance: got %.3f m; want about %.1f", s.Pos.X, want)
	}
}

// firstTime steps until cond holds and returns the time, or NaN after limit.
func firstTime(r *rover.Rover, limit float64, cond func(rover.State) bool) float64 {
	t0 := r.Time()
	for r.Time()-t0 < limit {
		r.Step()
		if cond(r.Truth()) {
			return r.Time() - t0
		}
	}
	return math.NaN()
}

// The soft start ramps the blade to full speed in 3 s: 90 % after 2.7 s,
// one step's tolerance.
func TestBladeSoftStart(t *testing.T) {
	p := rover.DefaultParams()
	r := newRover(t, rover.Config{NoNoise: true}, nil)
	r.SetBlade(true)
	got := firstTime(r, 5, func(s rover.State) bool { return s.BladeRadS >= 0.9*p.BladeMaxRadS })
	if math.Abs(got-0.9*p.BladeSoftStartS) > 2*r.StepS() {
		t.Errorf("time to 90 %%: got %.4f s; want %.4f", got, 0.9*p.BladeSoftStartS)
	}
	if tw := r.Truth().Yaw; tw != 0 {
		t.Errorf("the spin-up turned the chassis by %g rad; want 0", tw)
	}
}

// Braking at the torque limit τ against viscous drag c: J·ω̇ = −τ − c·ω,
// so the time from ω₀ to ω₀/10 is (J/c)·ln((τ + c·ω₀)/(τ + c·ω₀/10)).
// Without a limit the blade stops within one step.
func TestBladeStop(t *testing.T) {
	p := rover.DefaultParams()
	w0 := p.BladeMaxRadS
	analytic := p.BladeInertiaKgM2 / p.BladeDragNmS * math.Log((p.BladeTorqueNm+p.BladeDragNmS*w0)/(p.BladeTorqueNm+p.BladeDragNmS*w0/10))
	cases := []struct {
		name   string
		torque float64
		want   float64
		tol    float64
	}{
		{"limited to 3 N·m", 3, analytic, 3e-3},
		{"unlimited", rover.Unlimited, 0.001, 1e-9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pp := p
			pp.BladeTorqueNm = c.torque
			r := newRover(t, rover.Config{Params: pp, NoNoise: true}, nil)
			r.SetBlade(true)
			steps(r, 4)
			r.SetBlade(false)
			got := firstTime(r, 3, func(s rover.State) bool { return s.BladeRadS < 0.1*w0 })
			if math.Abs(got-c.want) > c.tol {
				t.Errorf("time to 10 %%: got %.4f s; want %.4f ± %g", got, c.want, c.tol)
			}
		})
	}
	if analytic < 0.7 || analytic > 0.8 {
		t.Errorf("the default blade stops in %.3f s; the seed's simulator took about 0.75 s", analytic)
	}
}

// twist returns the chassis rotation caused by stopping the blade at full
// speed, robot standing still.
func twist(t *testing.T, p rover.Params) float64 {
	r := newRover(t, rover.Config{Params: p, NoNoise: true}, nil)
	r.SetBlade(true)
	steps(r, 4)
	y0 := r.Truth().Yaw
	r.SetBlade(false)
	steps(r, 1)
	return r.Truth().Yaw - y0
}

// An unlimited blade motor hands the chassis the blade's angular momentum
// L = J·ω in one step; tyre friction τ_f = μ·m·g·b/2 then stops it after a
// turn of L²/(2·Izz·τ_f), about 8° (the seed's eol-2). A 3-N·m motor never
// breaks the tyres loose.
func TestBladeStopTwist(t *testing.T) {
	p := rover.DefaultParams()
	p.BladeTorqueNm = rover.Unlimited
	got := twist(t, p)
	L := p.BladeInertiaKgM2 * p.BladeMaxRadS
	want := L * L / (2 * p.IzzKgM2 * p.YawFrictionNm())
	if math.Abs(got-want)/want > 0.02 {
		t.Errorf("twist, unlimited motor: got %.4f rad; want %.4f (L²/(2·Izz·τ_f)) ± 2 %%", got, want)
	}
	if deg := got * 180 / math.Pi; deg < 6 || deg > 10 {
		t.Errorf("twist %.1f°; the seed measured about 8°", deg)
	}
	if got := twist(t, rover.DefaultParams()); math.Abs(got) > 1e-12 {
		t.Errorf("twist, 3-N·m motor: got %g rad; want 0", got)
	}
}

// The lidar's straight-ahead beam sees a box's face at its distance from
// the mount; the mower stops against the box, not through it.
func TestLidarAndContact(t *testing.T) {
	box := world.Box{L: 0.4, W: 0.4, H: 0.3, X: 3.2}
	scene := &world.Scene{Boxes: []world.Box{box}}
	r := newRover(t, rover.Config{NoNoise: true}, scene)
	sc := r.Scan()
	mid := int(math.Round(-sc.AngleMinRad / sc.AngleIncRad))
	want := 3.0 - rover.DefaultLidar().MountXM
	if got := sc.Ranges[mid]; math.Abs(got-want) > 1e-9 {
		t.Errorf("beam straight ahead: got %v m; want %v", got, want)
	}
	if got := sc.Ranges[0]; got != rover.DefaultLidar().MaxM {
		t.Errorf("beam 135° to the left: got %v; want max range", got)
	}
	r.SetDrive(0.5, 0)
	steps(r, 10)
	s := r.Truth()
	if s.Contact != 0 {
		t.Fatalf("contact: got %d; want box 0", s.Contact)
	}
	if front := s.Pos.X + rover.DefaultParams().FrontM; front > 3.0+1e-3 || front < 3.0-0.01 {
		t.Errorf("front bumper at %.4f m; want at the box face, 3.0 m", front)
	}
}

// Every sensor publishes at its rate; the IMU at rest reads (0, 0, −g).
func TestSensorRates(t *testing.T) {
	r := newRover(t, rover.Config{NoNoise: true}, nil)
	s0 := []uint64{r.IMU().Seq, r.GNSS().Seq, r.Joints().Seq, r.Scan().Seq, r.Battery().Seq}
	steps(r, 10)
	s1 := []uint64{r.IMU().Seq, r.GNSS().Seq, r.Joints().Seq, r.Scan().Seq, r.Battery().Seq}
	rates := []float64{rover.IMURateHz, rover.GNSSRateHz, rover.JointRateHz, rover.DefaultLidar().RateHz, rover.BatteryRateHz}
	names := []string{"imu", "gnss", "joints", "lidar", "battery"}
	for i := range rates {
		if got, want := float64(s1[i]-s0[i]), 10*rates[i]; math.Abs(got-want) > 1 {
			t.Errorf("%s: got %v samples in 10 s; want %v", names[i], got, want)
		}
	}
	if a := r.IMU().Accel; a != (geom.Vec3{Z: -rover.GravityMS2}) {
		t.Errorf("IMU at rest: got %v; want (0, 0, −g)", a)
	}
	if g := r.GNSS(); g.Fix != rover.FixRTKFixed || g.SigmaM > 0.05 {
		t.Errorf("GNSS: fix %d σ %v; want RTK fixed, σ ≤ 5 cm", g.Fix, g.SigmaM)
	}
	if b := r.Battery(); b.Cells != 7 || b.VoltageV < 7*3.2 || b.VoltageV > 7*4.2 {
		t.Errorf("battery: %d cells %.2f V; want a 7S pack", b.Cells, b.VoltageV)
	}
}

// Faults change what the sensors say, and nothing else.
func TestFaults(t *testing.T) {
	cases := []struct {
		name  string
		f     rover.Faults
		check func(t *testing.T, r *rover.Rover, seq0 []uint64)
	}{
		{"reversed left encoder", rover.Faults{ReversedEncoder: [2]bool{true, false}}, func(t *testing.T, r *rover.Rover, _ []uint64) {
			if j := r.Joints(); !(j.WheelRadS[0] < -1.9 && j.WheelRadS[1] > 1.9) {
				t.Errorf("encoders driving forward: got %v; want left negative, right positive", j.WheelRadS)
			}
			if r.Truth().SpeedMS < 0.19 {
				t.Errorf("the robot does not drive forward")
			}
		}},
		{"upside-down IMU", rover.Faults{IMUUpsideDown: true}, func(t *testing.T, r *rover.Rover, _ []uint64) {
			if a := r.IMU().Accel.Z; math.Abs(a-rover.GravityMS2) > 1e-9 {
				t.Errorf("accel z: got %v; want +g", a)
			}
		}},
		{"IMU dropout", rover.Faults{IMUDropout: true}, func(t *testing.T, r *rover.Rover, seq0 []uint64) {
			if r.IMU().Seq != seq0[0] {
				t.Errorf("IMU sequence moved: %d → %d", seq0[0], r.IMU().Seq)
			}
		}},
		{"GNSS dropout", rover.Faults{GNSSDropout: true}, func(t *testing.T, r *rover.Rover, seq0 []uint64) {
			if r.GNSS().Seq != seq0[1] {
				t.Errorf("GNSS sequence moved")
			}
		}},
		{"RTK float", rover.Faults{RTKFloat: true}, func(t *testing.T, r *rover.Rover, _ []uint64) {
			if g := r.GNSS(); g.Fix != rover.FixRTKFloat || g.SigmaM <= 0.05 {
				t.Errorf("GNSS: fix %d σ %v; want RTK float, σ > 5 cm", g.Fix, g.SigmaM)
			}
		}},
		{"swapped motors", rover.Faults{SwappedMotors: true}, func(t *testing.T, r *rover.Rover, _ []uint64) {
			if math.Abs(r.Truth().SpeedMS-0.2) > 1e-6 {
				t.Errorf("forward speed: got %v; want 0.2 (swapping does not matter going straight)", r.Truth().SpeedMS)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRover(t, rover.Config{NoNoise: true}, nil)
			seq0 := []uint64{r.IMU().Seq, r.GNSS().Seq}
			r.Faults = c.f
			r.SetDrive(0.2, 0)
			steps(r, 2)
			c.check(t, r, seq0)
		})
	}
	// Swapped motors turn the robot the wrong way.
	r := newRover(t, rover.Config{NoNoise: true}, nil)
	r.Faults.SwappedMotors = true
	r.SetDrive(0, -0.5)
	steps(r, 1)
	if got := r.Truth().YawRate; math.Abs(got-0.5) > 1e-6 {
		t.Errorf("pivot left with swapped motors: yaw rate %v; want +0.5 (right)", got)
	}
}

// The same seed gives the same sensor data; another seed does not.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) []float64 {
		r, err := rover.New(rover.Config{}, &world.Scene{Boxes: []world.Box{{L: 1, W: 1, H: 1, X: 3}}}, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		r.SetDrive(0.2, 0.1)
		r.SetBlade(true)
		var out []float64
		for range 2000 {
			r.Step()
			out = append(out, r.IMU().Gyro.Z, r.GNSS().Pos.X, r.Scan().Ranges[135], r.Joints().BladeRadS)
		}
		return out
	}
	a, b, c := run(7), run(7), run(8)
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			t.Fatalf("sample %d differs between two runs with seed 7: %v vs %v", i, a[i], b[i])
		}
	}
	same := true
	for i := range a {
		if a[i] != c[i] {
			same = false
		}
	}
	if same {
		t.Errorf("seeds 7 and 8 gave identical data")
	}
}

func TestNewRejects(t *testing.T) {
	bad := func(f func(*rover.Config)) rover.Config {
		c := rover.Config{Params: rover.DefaultParams()}
		f(&c)
		return c
	}
	cases := []struct {
		name string
		cfg  rover.Config
	}{
		{"negative mass", bad(func(c *rover.Config) { c.Params.MassKg = -1 })},
		{"NaN track", bad(func(c *rover.Config) { c.Params.TrackM = math.NaN() })},
		{"zero torque limit", bad(func(c *rover.Config) { c.Params.BladeTorqueNm = -3 })},
		{"torque below the soft start", bad(func(c *rover.Config) { c.Params.BladeTorqueNm = 0.1 })},
		{"step too long", bad(func(c *rover.Config) { c.StepS = 0.1 })},
		{"one-beam lidar", bad(func(c *rover.Config) { c.Lidar = rover.DefaultLidar(); c.Lidar.Beams = 1 })},
		{"infinite start", bad(func(c *rover.Config) { c.StartPos.X = math.Inf(1) })},
		{"empty battery", bad(func(c *rover.Config) { c.Battery.InitialRemaining = 2 })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := rover.New(c.cfg, nil, rand.New(rand.NewPCG(1, 1))); err == nil {
				t.Errorf("New accepted %+v", c.cfg)
			}
		})
	}
	if _, err := rover.New(rover.Config{}, nil, nil); err == nil {
		t.Errorf("New accepted a nil random source")
	}
}

// Step allocates nothing, lidar scans included.
func TestStepAllocs(t *testing.T) {
	r := newRover(t, rover.Config{}, &world.Scene{Boxes: []world.Box{{L: 1, W: 1, H: 1, X: 3}}})
	r.SetDrive(0.2, 0.1)
	r.SetBlade(true)
	if n := testing.AllocsPerRun(1000, r.Step); n != 0 {
		t.Errorf("Step allocates %v times per call; want 0", n)
	}
}

func BenchmarkStep(b *testing.B) {
	r := newRover(b, rover.Config{}, &world.Scene{Boxes: []world.Box{{L: 1, W: 1, H: 1, X: 3}}})
	r.SetDrive(0.2, 0.1)
	r.SetBlade(true)
	b.ReportAllocs()
	for b.Loop() {
		r.Step()
	}
}

func TestRingNames(t *testing.T) {
	for _, c := range []struct {
		r    rover.Ring
		want string
	}{{rover.RingOff, "off"}, {rover.RingGreen, "green"}, {rover.RingAmber, "amber"}, {rover.RingRed, "red"}, {rover.Ring(9), "Ring(9)"}} {
		if got := c.r.String(); got != c.want {
			t.Errorf("Ring(%d): got %q; want %q", int(c.r), got, c.want)
		}
	}
}
