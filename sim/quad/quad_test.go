package quad_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/world"
)

func newQuad(t testing.TB, cfg quad.Config, scene *world.Scene) *quad.Quad {
	t.Helper()
	q, err := quad.New(cfg, scene, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func steps(q *quad.Quad, seconds float64) {
	for n := int(math.Round(seconds / q.StepS())); n > 0; n-- {
		q.Step()
	}
}

// Free fall with linear drag reaches the terminal speed m·g/KDV; the time
// constant is m/KDV = 1 s, so after 20 s the remaining gap is e^−20.
func TestFreeFallTerminalSpeed(t *testing.T) {
	q := newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -2000}}, nil)
	steps(q, 20)
	p := quad.DefaultParams()
	want := p.MassKg * quad.GravityMS2 / p.KDV
	if got := q.Truth().Vel.Z; math.Abs(got-want) > 1e-6 {
		t.Errorf("terminal speed: got %.9f m/s; want %.9f", got, want)
	}
	if got := q.Truth().Vel.XY().Norm(); got != 0 {
		t.Errorf("horizontal speed in free fall: got %v; want 0", got)
	}
	// After one time constant the speed is (1 − e^−1) of terminal, up to
	// the Euler step's error (dt/2τ relative).
	q = newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -2000}}, nil)
	steps(q, 1)
	if got, w := q.Truth().Vel.Z, want*(1-math.Exp(-1)); math.Abs(got-w)/w > 0.005 {
		t.Errorf("speed after 1 s: got %.4f; want %.4f ± 0.5%%", got, w)
	}
}

// Hover needs m·g/(4·T_max) ≈ 0.49 on each motor: with that command the
// vehicle neither climbs nor sinks.
func TestHoverCommand(t *testing.T) {
	p := quad.DefaultParams()
	u := p.HoverCommand()
	if math.Abs(u-0.4903) > 1e-4 {
		t.Fatalf("hover command: got %.5f; want 0.4903", u)
	}
	q := newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -10}}, nil)
	// Start the motors at hover so the lag does not drop the vehicle.
	q.SetMotors([4]float64{u, u, u, u})
	steps(q, 1) // motors spin up; the vehicle sinks a little meanwhile
	z0 := q.Truth().Pos.Z
	v0 := q.Truth().Vel.Z
	steps(q, 5)
	// With the motors settled the net force is zero: velocity is constant
	// (it decays only through drag toward 0).
	if got := q.Truth().Vel.Z; math.Abs(got) > math.Abs(v0)+1e-9 {
		t.Errorf("vertical speed grew at hover: %v → %v", v0, got)
	}
	if a := q.Truth().Acc.Z; math.Abs(a) > 0.05 {
		t.Errorf("vertical acceleration at hover: got %.4f m/s²; want ≈ 0", a)
	}
	// With the net force zero but for linear drag, the sinking decays
	// exponentially, v(t) = v0·e^(−t/τ), so the height moves by
	// ∫v dt = τ·(v0 − v1) with τ = 5 s / ln(v0/v1): a known answer for
	// z0, to 1 % (the motors' last settling).
	v1 := q.Truth().Vel.Z
	tau := 5 / math.Log(v0/v1)
	if dz, want := q.Truth().Pos.Z-z0, tau*(v0-v1); !(math.Abs(dz-want) <= 0.01*math.Abs(want)) {
		t.Errorf("height moved %.5f m in 5 s at hover; want τ·(v0 − v1) = %.5f m ± 1%% (v0 %.4f, v1 %.4f m/s)", dz, want, v0, v1)
	}
	// 10 % more thrust climbs, 10 % less sinks.
	for _, c := range []struct {
		name string
		k    float64
		up   bool
	}{{"more", 1.1, true}, {"less", 0.9, false}} {
		q := newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -50}}, nil)
		q.SetMotors([4]float64{u * c.k, u * c.k, u * c.k, u * c.k})
		steps(q, 3)
		if up := q.Truth().Vel.Z < 0; up != c.up {
			t.Errorf("%s thrust: climbing = %v; want %v", c.name, up, c.up)
		}
	}
}

// The motor is a first-order lag: after one τ a step reaches 1 − e^−1.
func TestMotorLag(t *testing.T) {
	q := newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -100}}, nil)
	q.SetMotors([4]float64{1, 1, 1, 1})
	steps(q, quad.DefaultParams().TauS)
	got := q.Truth().Motor[0]
	want := 1 - math.Exp(-1)
	if math.Abs(got-want) > 0.02 {
		t.Errorf("motor after τ: got %.4f; want %.4f", got, want)
	}
}

// Torque signs follow PX4's quad-X numbering.
func TestTorqueSigns(t *testing.T) {
	cases := []struct {
		name string
		u    [4]float64
		axis func(geom.Vec3) float64
	}{
		{"roll right: left motors up", [4]float64{0.4, 0.6, 0.6, 0.4}, func(w geom.Vec3) float64 { return w.X }},
		{"pitch up: front motors up", [4]float64{0.6, 0.4, 0.6, 0.4}, func(w geom.Vec3) float64 { return w.Y }},
		{"yaw right: motors 0 and 1 up", [4]float64{0.6, 0.6, 0.4, 0.4}, func(w geom.Vec3) float64 { return w.Z }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -100}}, nil)
			q.SetMotors(c.u)
			steps(q, 0.1)
			if got := c.axis(q.Truth().Rate); !(got > 0.05) {
				t.Errorf("rate about the axis: got %v; want > 0.05 rad/s", got)
			}
		})
	}
}

// On the ground with the motors off the vehicle stays put and the IMU reads
// the specific force of the ground's support, −g along body z.
func TestGroundAndIMUAtRest(t *testing.T) {
	q := newQuad(t, quad.Config{NoNoise: true}, nil)
	steps(q, 2)
	s := q.Truth()
	if s.Pos != (geom.Vec3{}) || !s.Grounded {
		t.Fatalf("at rest: pos %v grounded %v; want origin, grounded", s.Pos, s.Grounded)
	}
	a := q.IMU().Accel
	if math.Abs(a.Z+quad.GravityMS2) > 1e-9 || math.Abs(a.X) > 1e-9 || math.Abs(a.Y) > 1e-9 {
		t.Errorf("IMU at rest: got %v; want (0, 0, −g)", a)
	}
	if b := q.Baro(); math.Abs(b.AltM) > 1e-6 {
		t.Errorf("baro altitude at rest: got %v; want 0", b.AltM)
	}
}

// A fall from 10 m hits the ground at about 8 m/s: a hard landing, a crash.
func TestHardLandingCrashes(t *testing.T) {
	q := newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -10}}, nil)
	steps(q, 5)
	c, ok := q.Crashed()
	if !ok || c.Obstacle != -1 || c.SpeedMS < quad.HardLandingMS {
		t.Fatalf("crash = %+v, %v; want a ground crash above %v m/s", c, ok, quad.HardLandingMS)
	}
	if z := q.Truth().Pos.Z; z != 0 {
		t.Errorf("after the fall: z = %v; want 0 (on the ground)", z)
	}
}

// The forward depth camera sees a wall 8 m ahead; the lidar's rear beam
// sees it behind when turned around.
func TestRangeSensor(t *testing.T) {
	scene := &world.Scene{Boxes: []world.Box{{L: 2, W: 20, H: 20, X: 9, Y: 0}}}
	cfg := quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -5}, Range: quad.DepthCamera(9, 3)}
	q := newQuad(t, cfg, scene)
	r := q.Range()
	if len(r.Ranges) != 27 {
		t.Fatalf("rays: got %d; want 27", len(r.Ranges))
	}
	centre := 4*3 + 1 // middle column, middle row
	if got := r.Ranges[centre]; math.Abs(got-8) > 1e-9 {
		t.Errorf("centre ray: got %v m; want 8", got)
	}
	// The edge columns look 29.5° off axis: 8/cos(29.5°).
	want := 8 / math.Cos(1.02974/2)
	if got := r.Ranges[1]; math.Abs(got-want) > 1e-6 {
		t.Errorf("left edge ray: got %v; want %v", got, want)
	}
	q = newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -5}, StartYawRad: math.Pi, Range: quad.Lidar(4)}, scene)
	// Beams at −180°, −90°, 0°, 90° of body yaw; body faces South, so the −180° beam looks North.
	if got := q.Range().Ranges[0]; math.Abs(got-8) > 1e-9 {
		t.Errorf("lidar beam looking North: got %v; want 8", got)
	}
	if got := q.Range().Ranges[2]; got != 30 {
		t.Errorf("lidar beam looking South: got %v; want 30 (max range)", got)
	}
}

func TestFaults(t *testing.T) {
	q := newQuad(t, quad.Config{StartPos: geom.Vec3{Z: -50}}, nil)
	steps(q, 1)
	if g := q.GNSS(); g.Fix != quad.Fix3D || g.Satellites != 10 {
		t.Fatalf("healthy GNSS: %+v", g)
	}
	q.Faults.GNSSLoss = true
	steps(q, 0.5)
	if g := q.GNSS(); g.Fix != quad.FixNone || g.Satellites != 0 {
		t.Errorf("GNSS loss: fix %d sats %d; want no fix", g.Fix, g.Satellites)
	}
	q.Faults.IMUDropout = true
	before := q.IMU().T
	steps(q, 0.5)
	if got := q.IMU().T; got != before {
		t.Errorf("IMU dropout: sample time moved %v → %v", before, got)
	}
	// A stopped motor: the others at hover spin the vehicle up in yaw and
	// roll it over; it cannot hold altitude.
	q = newQuad(t, quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -50}}, nil)
	u := quad.DefaultParams().HoverCommand()
	q.Faults.MotorStopped[2] = true
	q.SetMotors([4]float64{u, u, u, u})
	steps(q, 1)
	if w := q.Truth().Rate; w.Norm() < 1 {
		t.Errorf("with motor 2 stopped the body rates stay small: %v", w)
	}
}

func TestWindDrift(t *testing.T) {
	// With the motors at hover in a steady 3 m/s wind the vehicle drifts
	// with the air: drag pushes it toward the wind's velocity.
	cfg := quad.Config{NoNoise: true, StartPos: geom.Vec3{Z: -100}, Wind: sim.WindConfig{Steady: geom.Vec3{Y: 3}}}
	q := newQuad(t, cfg, nil)
	u := quad.DefaultParams().HoverCommand()
	q.SetMotors([4]float64{u, u, u, u})
	steps(q, 10)
	if got := q.Truth().Vel.Y; math.Abs(got-3) > 0.01 {
		t.Errorf("drift speed: got %v; want 3 m/s (the wind)", got)
	}
}

func TestDeterminism(t *testing.T) {
	run := func() []float64 {
		cfg := quad.Config{StartPos: geom.Vec3{Z: -20}, Wind: sim.WindConfig{GustSigmaMS: 2}, Range: quad.DepthCamera(8, 2)}
		q, err := quad.New(cfg, &world.Scene{Boxes: []world.Box{{L: 4, W: 4, H: 20, X: 10}}}, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		q.SetMotors([4]float64{0.5, 0.5, 0.52, 0.49})
		steps(q, 3)
		s := q.Truth()
		out := []float64{s.Pos.X, s.Pos.Y, s.Pos.Z, q.IMU().Accel.X, q.GNSS().Pos.X, q.Baro().PressurePa}
		return append(out, q.Range().Ranges...)
	}
	a, b := run(), run()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("value %d differs between runs with the same seed: %v vs %v", i, a[i], b[i])
		}
	}
}

func TestConfigErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	bad := map[string]quad.Config{
		"negative step":     {StepS: -1},
		"huge step":         {StepS: 1},
		"NaN start":         {StartPos: geom.Vec3{X: math.NaN()}},
		"below ground":      {StartPos: geom.Vec3{Z: 1}},
		"zero mass":         {Params: quad.Params{TMaxN: 5}},
		"bad range":         {Range: quad.RangeConfig{Kind: quad.RangeDepth}},
		"negative gust":     {Wind: sim.WindConfig{GustSigmaMS: -1}},
		"too weak to fly":   {Params: func() quad.Params { p := quad.DefaultParams(); p.TMaxN = 2; return p }()},
		"battery over full": {Battery: quad.BatteryConfig{InitialRemaining: 2}},
	}
	for name, cfg := range bad {
		if _, err := quad.New(cfg, nil, rng); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	q := newQuad(t, quad.Config{StartPos: geom.Vec3{Z: -20}, Wind: sim.WindConfig{GustSigmaMS: 1}, Range: quad.DepthCamera(16, 2)},
		&world.Scene{Boxes: []world.Box{{L: 4, W: 4, H: 20, X: 10}}})
	q.SetMotors([4]float64{0.5, 0.5, 0.5, 0.5})
	if n := testing.AllocsPerRun(1000, q.Step); n != 0 {
		t.Errorf("Step allocates %v times per call; want 0", n)
	}
}

// BenchmarkStep measures one physics step with sensors, gusts and a 64-ray
// depth camera at 20 Hz among three boxes.
func BenchmarkStep(b *testing.B) {
	scene := &world.Scene{Boxes: []world.Box{{L: 4, W: 4, H: 20, X: 10}, {L: 6, W: 3, H: 15, X: -5, Y: 20, R: 30}, {L: 10, W: 2, H: 20, X: 0, Y: 30}}}
	q, err := quad.New(quad.Config{StartPos: geom.Vec3{Z: -10}, Wind: sim.WindConfig{GustSigmaMS: 1}, Range: quad.DepthCamera(64, 1)}, scene, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	u := quad.DefaultParams().HoverCommand()
	q.SetMotors([4]float64{u, u, u, u})
	b.ReportAllocs()
	for b.Loop() {
		q.Step()
	}
}

// A depth frame is cast when it is first read, from the pose the camera
// had when the frame was due: read 20 ms late, after the vehicle has
// fallen on, it holds the same points as the frame read at once; CloudT
// names the frame without casting it.
func TestCloudCastWhenRead(t *testing.T) {
	scene := &world.Scene{Boxes: []world.Box{{L: 4, W: 8, H: 250, X: 8, Y: 1}}}
	cfg := quad.Config{Cloud: quad.IrisDepthCamera(), NoNoise: true, StartPos: geom.Vec3{Z: -100}}
	now, late := newQuad(t, cfg, scene), newQuad(t, cfg, scene)
	if plain := newQuad(t, quad.Config{NoNoise: true}, scene); !math.IsInf(plain.CloudT(), -1) || !math.IsInf(plain.Cloud().T, -1) {
		t.Fatalf("without a camera: CloudT %v, Cloud().T %v; want −Inf", plain.CloudT(), plain.Cloud().T)
	}
	compared := 0
	for range int(math.Round(1 / now.StepS())) { // 1 s of falling: 20 frames
		now.Step()
		late.Step()
		if now.CloudT() != now.Time() || now.Time() < 0.5 {
			continue
		}
		c := now.Cloud()
		if len(c.Points) == 0 {
			t.Fatalf("frame at %v s sees nothing of the box", c.T)
		}
		want := append([]geom.Vec3(nil), c.Points...)
		for range int(math.Round(0.02 / late.StepS())) { // within the 50-ms frame period
			late.Step()
		}
		if late.CloudT() != c.T {
			t.Fatalf("CloudT %v; want the frame due at %v", late.CloudT(), c.T)
		}
		if moved := late.Truth().Pos.Sub(c.Pos).Norm(); moved < 0.05 {
			t.Fatalf("the vehicle moved %.3f m in 20 ms; the test needs it to move", moved)
		}
		got := late.Cloud()
		if got.T != c.T || got.Pos != c.Pos || len(got.Points) != len(want) {
			t.Fatalf("read late: T %v pos %v, %d points; want T %v pos %v, %d points", got.T, got.Pos, len(got.Points), c.T, c.Pos, len(want))
		}
		for i := range want {
			if got.Points[i] != want[i] {
				t.Fatalf("point %d read late %v; want %v", i, got.Points[i], want[i])
			}
		}
		compared++
		break
	}
	if compared == 0 {
		t.Fatal("no frame compared")
	}
}
