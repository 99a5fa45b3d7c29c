package eol

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Mower is what the mower's runner may see and do: the robot's own sensors,
// requests through its safety gate, its buttons, and time passing. It is
// vehicle.Mower; the runner needs nothing else.
type Mower interface {
	Sensors() vehicle.MowerSensors
	Send(ctx context.Context, c gate.Command) error
	Press(ctx context.Context, b vehicle.Button, down bool) error
	Wait(ctx context.Context, d time.Duration, until func(vehicle.MowerSensors) bool) (vehicle.MowerSensors, error)
}

var _ Mower = vehicle.Mower(nil)

// MowerSpec is what the runner knows about the mower's build: its geometry
// and its sensors' nominal rates. DefaultMowerSpec is the Mowlark mower the
// simulator models.
type MowerSpec struct {
	WheelRadiusM  float64
	TrackM        float64 // between the drive wheels
	FrontM        float64 // front bumper ahead of the axle centre
	HalfWidthM    float64
	BladeFullRadS float64 // full blade speed
	IMUHz         float64
	GNSSHz        float64
	JointHz       float64
	LidarHz       float64
	BatteryHz     float64
}

// DefaultMowerSpec returns the specification of the default mower.
func DefaultMowerSpec() MowerSpec {
	return MowerSpec{WheelRadiusM: 0.10, TrackM: 0.40, FrontM: 0.40, HalfWidthM: 0.28, BladeFullRadS: 3000 * 2 * math.Pi / 60,
		IMUHz: 100, GNSSHz: 10, JointHz: 50, LidarHz: 10, BatteryHz: 2}
}

// Options configure a run.
type Options struct {
	Serial  string    // the robot's serial number; required
	RunID   string    // required
	Time    time.Time // start of the run, from the caller's clock
	Source  string    // how the robot was reached; "" = "simulator"
	NoBlade bool      // blade disconnected (blade:=false): its rows SKIP
	NoLidar bool      // no lidar (the quadrotor: no range sensor) fitted (lidar:=false): its rows SKIP
	Mower   MowerSpec // zero = DefaultMowerSpec()
	// Halt stops commanding motion and the blade as soon as a safety check
	// (blade.stop and steps 4 to 6) fails: the runner sends the idle request,
	// stops repeating the driver's command, presses no GO, and the later
	// motion steps report SKIP. Set it on a real robot; false runs every step
	// whatever failed before, as the simulator's seed runs do. The mower only.
	Halt bool
}

// ErrBadOptions wraps every problem with Options.
var ErrBadOptions = errors.New("eol: bad options")

func (o *Options) validate() error {
	if err := ValidateSerial(o.Serial); err != nil {
		return err
	}
	if err := ValidateRunID(o.RunID); err != nil {
		return err
	}
	if o.Source == "" {
		o.Source = "simulator"
	}
	if o.Mower == (MowerSpec{}) {
		o.Mower = DefaultMowerSpec()
	}
	return nil
}

// ValidateSerial reports a serial number that cannot go in a build record:
// empty, longer than 64 bytes, or with characters other than letters,
// digits, '-', '_' and '.'.
func ValidateSerial(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty serial", ErrBadOptions)
	}
	if len(s) > 64 || !safeName(s) {
		return fmt.Errorf("%w: serial %q: want 1 to 64 letters, digits, '-', '_' or '.'", ErrBadOptions, s)
	}
	return nil
}

// ValidateRunID reports a run id that cannot name a report file: the rules
// of ValidateSerial, and not starting with '.'.
func ValidateRunID(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty run id", ErrBadOptions)
	}
	if len(s) > 64 || !safeName(s) || s[0] == '.' {
		return fmt.Errorf("%w: run id %q: want 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'", ErrBadOptions, s)
	}
	return nil
}

func safeName(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// Step names of the mower profile.
const (
	stepSensors  = "sensors"
	stepWheels   = "wheels"
	stepBlade    = "blade"
	stepStop     = "STOP"
	stepWatchdog = "watchdog"
	stepObstacle = "obstacle"
	stepManual   = "manual"
)

// The runner's loop: it looks at the sensors every tick and repeats the
// driver's command every resendS, well inside the gate's 0.5-s watchdog.
const (
	tick    = 10 * time.Millisecond
	resendS = 0.1
)

// mowerRun is one run of the mower profile.
type mowerRun struct {
	ctx  context.Context
	m    Mower
	opt  Options
	spec MowerSpec
	lim  limits
	rep  *Report

	s        vehicle.MowerSensors
	cmd      gate.Command
	refresh  bool    // repeat cmd every resendS
	lastSend float64 // vehicle time of the last request sent

	imuSeq  uint64
	imuT    float64
	gyroZ   float64 // the last sample's yaw rate
	psi     float64 // heading from the gyro since the start, rad, bias removed
	bias    float64 // gyro z bias measured in step 1
	imuOK   bool    // the IMU published during step 1
	jointOK bool

	halted string // the failed safety check after which motion stopped (Options.Halt)
}

// RunMower runs the mower's seven steps on m and returns the report. The
// error is non-nil only when the run could not go on (bad options, a
// refused command, the context ended); findings are rows of the report.
func RunMower(ctx context.Context, m Mower, opt Options) (*Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := opt.validate(); err != nil {
		return nil, err
	}
	r := &mowerRun{ctx: ctx, m: m, opt: opt, spec: opt.Mower, lim: tableLimits(mowerThresholds),
		rep: &Report{Vehicle: "mower", Serial: opt.Serial, RunID: opt.RunID, Time: opt.Time.UTC(), Source: opt.Source}}
	r.observe(m.Sensors())
	steps := []func() error{r.sensors, r.wheels, r.blade, r.stop, r.watchdog, r.obstacle}
	for _, st := range steps {
		if err := st(); err != nil {
			// Leave the robot at rest before giving up.
			_ = m.Send(context.WithoutCancel(ctx), gate.Command{})
			return nil, err
		}
	}
	if err := r.send(gate.Command{}); err != nil {
		return nil, err
	}
	r.manual()
	r.rep.verdict()
	return r.rep, nil
}

func (r *mowerRun) add(c Check) { r.rep.Checks = append(r.rep.Checks, c) }

// observe takes a new sensor reading and integrates the gyro heading.
func (r *mowerRun) observe(s vehicle.MowerSensors) {
	if s.IMU.Seq != r.imuSeq {
		if r.imuSeq != 0 && s.IMU.T > r.imuT {
			// Trapezoids: the twist of a blade stop lasts ten samples.
			r.psi += ((s.IMU.Gyro.Z+r.gyroZ)/2 - r.bias) * (s.IMU.T - r.imuT)
		}
		r.imuSeq, r.imuT, r.gyroZ = s.IMU.Seq, s.IMU.T, s.IMU.Gyro.Z
	}
	r.s = s
}

// send hands the gate a request now; drive also keeps repeating it.
func (r *mowerRun) send(c gate.Command) error {
	r.cmd, r.refresh = c, !c.Idle()
	r.lastSend = r.s.T
	return r.m.Send(r.ctx, c)
}

func (r *mowerRun) drive(c gate.Command) error { return r.send(c) }

// halt ends the run's motion after the failed check id (Options.Halt):
// the idle request now, nothing repeated, and no later step moves.
func (r *mowerRun) halt(id string) error {
	r.halted = id
	return r.send(gate.Command{})
}

// mustHalt reports whether a failed check now ends the run's motion.
func (r *mowerRun) mustHalt() bool { return r.opt.Halt && r.halted == "" }

// haltedWhy is the reason rows are skipped after a halt.
func (r *mowerRun) haltedWhy() string {
	return r.halted + " failed: the runner stopped commanding motion and the blade (Halt)"
}

// silence stops repeating the request, as a driver that died.
func (r *mowerRun) silence() { r.refresh = false }

// step lets one tick pass.
func (r *mowerRun) step() error {
	s, err := r.m.Wait(r.ctx, tick, nil)
	if err != nil {
		return err
	}
	r.observe(s)
	if r.refresh && r.s.T-r.lastSend >= resendS-1e-9 {
		r.lastSend = r.s.T
		if err := r.m.Send(r.ctx, r.cmd); err != nil {
			return err
		}
	}
	return nil
}

// watch steps for up to d seconds, calling f after each tick until it
// returns true; it reports whether f did.
func (r *mowerRun) watch(d float64, f func() bool) (bool, error) {
	end := r.s.T + d - 1e-9
	for r.s.T < end {
		if err := r.step(); err != nil {
			return false, err
		}
		if f != nil && f() {
			return true, nil
		}
	}
	return false, nil
}

func (r *mowerRun) pause(d float64) error {
	_, err := r.watch(d, nil)
	return err
}

// wheelSpeeds returns the wheels' rim speeds from the encoders, m/s.
func (r *mowerRun) wheelSpeeds() (l, rt float64) {
	w := r.s.Joints.WheelRadS
	return w[0] * r.spec.WheelRadiusM, w[1] * r.spec.WheelRadiusM
}

// imuFresh reports whether the latest IMU sample is recent.
func (r *mowerRun) imuFresh() bool {
	return r.s.IMU.Seq > 0 && r.s.T-r.s.IMU.T < 3/r.spec.IMUHz
}

func (r *mowerRun) yawRate() float64 { return r.s.IMU.Gyro.Z - r.bias }

// still reports a standstill on the robot's own sensors: every wheel slower
// than still_speed and, with a working IMU, the yaw rate below
// still_yaw_rate.
func (r *mowerRun) still() bool {
	l, rt := r.wheelSpeeds()
	if math.Max(math.Abs(l), math.Abs(rt)) > r.lim.v("still_speed") {
		return false
	}
	if r.imuFresh() && math.Abs(r.yawRate()) > r.lim.v("still_yaw_rate") {
		return false
	}
	return true
}

func (r *mowerRun) bladeShare() float64 { return r.s.Joints.BladeRadS / r.spec.BladeFullRadS }

// jointFresh reports whether the latest joint-state sample is recent.
func (r *mowerRun) jointFresh() bool {
	return r.s.Joints.Seq > 0 && r.s.T-r.s.Joints.T < 3/r.spec.JointHz
}

// lidarFresh reports whether the latest scan is recent.
func (r *mowerRun) lidarFresh() bool {
	return r.s.Lidar.Seq > 0 && r.s.T-r.s.Lidar.T < 3/r.spec.LidarHz
}

// skipAll adds the rows as skipped for why.
func (r *mowerRun) skipAll(why string, ks ...*check) {
	for _, k := range ks {
		r.add(k.skip(why))
	}
}

// noJoints is why rows that need the encoders are skipped: the runner does
// not drive a robot it cannot see moving.
const noJoints = "no joint-state samples (see sensors.joint_rate): not driven"

// moving reports whether both wheels turn at least half of v, either way
// (a reversed encoder is step 2's finding, not this step's).
func (r *mowerRun) moving(v float64) bool {
	l, rt := r.wheelSpeeds()
	return math.Abs(l) >= v/2 && math.Abs(rt) >= v/2
}

// notMoving says why the robot did not drive when asked.
func (r *mowerRun) notMoving(v float64) string {
	if h := r.s.Safety.Hold; h != gate.HoldNone {
		return fmt.Sprintf("the robot did not drive: the safety gate held it (%s)", h)
	}
	return fmt.Sprintf("the robot did not reach %.2f m/s", v)
}

// rateCounter counts a sensor's samples over a window by sequence number.
type rateCounter struct {
	seq0, seq uint64
	t0        float64
}

func (c *rateCounter) rate(t float64) float64 {
	if t <= c.t0 {
		return 0
	}
	return float64(c.seq-c.seq0) / (t - c.t0)
}

// sensors is step 1: listen for listen_s with the robot still.
func (r *mowerRun) sensors() error {
	const st = 1
	L := r.lim
	t0 := r.s.T
	s0 := r.s
	cnt := map[string]*rateCounter{
		"imu": {seq0: s0.IMU.Seq, seq: s0.IMU.Seq, t0: t0}, "gnss": {seq0: s0.GNSS.Seq, seq: s0.GNSS.Seq, t0: t0},
		"joint": {seq0: s0.Joints.Seq, seq: s0.Joints.Seq, t0: t0}, "lidar": {seq0: s0.Lidar.Seq, seq: s0.Lidar.Seq, t0: t0},
		"battery": {seq0: s0.Battery.Seq, seq: s0.Battery.Seq, t0: t0},
	}
	var acc, gyro geom.Vec3
	var nIMU, nGNSS, nBat int
	fixOK := true
	var sigmaMax, volts, charge float64
	cells := 0
	latched := s0.Safety.Latched
	lastIMU, lastGNSS, lastBat := s0.IMU.Seq, s0.GNSS.Seq, s0.Battery.Seq
	_, err := r.watch(L.v("listen_s"), func() bool {
		s := r.s
		cnt["imu"].seq, cnt["gnss"].seq, cnt["joint"].seq = s.IMU.Seq, s.GNSS.Seq, s.Joints.Seq
		cnt["lidar"].seq, cnt["battery"].seq = s.Lidar.Seq, s.Battery.Seq
		if s.IMU.Seq != lastIMU {
			lastIMU = s.IMU.Seq
			acc, gyro = acc.Add(s.IMU.Accel), gyro.Add(s.IMU.Gyro)
			nIMU++
		}
		if s.GNSS.Seq != lastGNSS {
			lastGNSS = s.GNSS.Seq
			nGNSS++
			if s.GNSS.Fix != int(L.v("rtk_fix")) {
				fixOK = false
			}
			sigmaMax = math.Max(sigmaMax, s.GNSS.SigmaM)
		}
		if s.Battery.Seq != lastBat {
			lastBat = s.Battery.Seq
			nBat++
			volts += s.Battery.VoltageV
			charge = s.Battery.Remaining
			cells = s.Battery.Cells
		}
		latched = latched || s.Safety.Latched
		return false
	})
	if err != nil {
		return err
	}
	t1 := r.s.T
	share := L.v("rate_share")
	for _, sn := range []struct {
		key, name string
		hz        float64
	}{
		{"imu", "IMU rate", r.spec.IMUHz}, {"gnss", "GNSS rate", r.spec.GNSSHz}, {"joint", "joint-state rate", r.spec.JointHz},
		{"lidar", "lidar rate", r.spec.LidarHz}, {"battery", "battery rate", r.spec.BatteryHz},
	} {
		k := newCheck(st, stepSensors, "sensors."+sn.key+"_rate", sn.name).limit("≥ %.1f Hz (%.0f %% of %g Hz)", share*sn.hz, share*100, sn.hz)
		if sn.key == "lidar" && r.opt.NoLidar {
			r.add(k.skip("lidar:=false: no lidar fitted"))
			continue
		}
		got := cnt[sn.key].rate(t1)
		r.add(k.val(got, "Hz", "%.1f Hz").pass(got >= share*sn.hz-1e-9))
	}
	r.imuOK = nIMU > 0
	r.jointOK = r.s.Joints.Seq > s0.Joints.Seq
	kg := newCheck(st, stepSensors, "sensors.gravity", "gravity").limit("%.2f ± %.2f m/s²", L.v("gravity"), L.v("gravity_tol"))
	kb := newCheck(st, stepSensors, "sensors.gyro_bias", "gyro bias").limit("≤ %.3f rad/s", L.v("gyro_bias_max"))
	if nIMU == 0 {
		r.add(kg.skip("no IMU samples"))
		r.add(kb.skip("no IMU samples"))
	} else {
		g := acc.Scale(1 / float64(nIMU)).Norm()
		r.add(kg.val(g, "m/s²", "%.3f m/s²").pass(math.Abs(g-L.v("gravity")) <= L.v("gravity_tol")))
		bv := gyro.Scale(1 / float64(nIMU))
		r.bias = bv.Z
		r.add(kb.val(bv.Norm(), "rad/s", "%.4f rad/s").pass(bv.Norm() <= L.v("gyro_bias_max")))
	}
	kr := newCheck(st, stepSensors, "sensors.rtk", "RTK fix and accuracy").limit("RTK fixed, σ ≤ %.3f m", L.v("rtk_sigma_max"))
	if nGNSS == 0 {
		r.add(kr.skip("no GNSS samples"))
	} else {
		fix := "RTK fixed"
		if !fixOK {
			fix = fmt.Sprintf("fix type %d", r.s.GNSS.Fix)
		}
		r.add(kr.val(sigmaMax, "m", fix+", σ %.3f m").pass(fixOK && sigmaMax <= L.v("rtk_sigma_max")))
	}
	nc := int(L.v("cells"))
	kv := newCheck(st, stepSensors, "sensors.battery_voltage", "battery voltage").
		limit("%dS: %.2f–%.2f V", nc, float64(nc)*L.v("cell_min_v"), float64(nc)*L.v("cell_max_v"))
	kc := newCheck(st, stepSensors, "sensors.battery_charge", "battery charge").limit("≥ %.0f %%", L.v("charge_min")*100)
	if nBat == 0 {
		r.add(kv.skip("no battery samples"))
		r.add(kc.skip("no battery samples"))
	} else {
		v := volts / float64(nBat)
		ok := cells == nc && v >= float64(nc)*L.v("cell_min_v") && v <= float64(nc)*L.v("cell_max_v")
		r.add(kv.val(v, "V", fmt.Sprintf("%%.2f V (%dS)", cells)).pass(ok))
		r.add(kc.val(charge*100, "%", "%.0f %%").pass(charge >= L.v("charge_min")-1e-9))
	}
	ks := newCheck(st, stepSensors, "sensors.stop", "STOP not latched").limit("not latched")
	if latched {
		r.add(ks.text("latched").pass(false))
	} else {
		r.add(ks.text("not latched").pass(true))
	}
	r.psi = 0 // the start heading
	return nil
}

// segment is one leg of the wheel test.
type segment struct {
	name string
	v, w float64
}

// wheels is step 2: forward, pivot left, pivot right, then back to the
// start heading on the gyro.
func (r *mowerRun) wheels() error {
	const st = 2
	L := r.lim
	half := r.spec.TrackM / 2
	segs := []segment{{"forward", L.v("wheel_speed"), 0}, {"pivot left", 0, -L.v("pivot_rate")}, {"pivot right", 0, L.v("pivot_rate")}}
	kw := newCheck(st, stepWheels, "wheels.speed", "each wheel's speed and sign").limit("within %.0f %% of the command, right sign", L.v("wheel_tol")*100)
	ky := newCheck(st, stepWheels, "wheels.yaw_rate", "IMU yaw rate in the pivots").limit("within %.0f %% of the command", L.v("yaw_rate_tol")*100)
	if !r.jointFresh() {
		r.skipAll(noJoints, kw, ky)
		return nil
	}
	worstWheel, worstYaw := 0.0, 0.0
	var wheelTxt, yawTxt []string
	noIMU := false
	held := gate.HoldNone
	for _, sg := range segs {
		if err := r.drive(gate.Command{V: sg.v, W: sg.w}); err != nil {
			return err
		}
		if err := r.pause(L.v("settle_s")); err != nil {
			return err
		}
		var sumL, sumR, sumYaw float64
		var nJ, nI int
		lastJ, lastI := r.s.Joints.Seq, r.s.IMU.Seq
		if _, err := r.watch(L.v("measure_s"), func() bool {
			if r.s.Joints.Seq != lastJ {
				lastJ = r.s.Joints.Seq
				l, rt := r.wheelSpeeds()
				sumL, sumR, nJ = sumL+l, sumR+rt, nJ+1
			}
			if r.s.IMU.Seq != lastI {
				lastI = r.s.IMU.Seq
				sumYaw, nI = sumYaw+r.yawRate(), nI+1
			}
			if h := r.s.Safety.Hold; h != gate.HoldNone {
				held = h
			}
			return false
		}); err != nil {
			return err
		}
		if err := r.send(gate.Command{}); err != nil {
			return err
		}
		if _, err := r.watch(2, r.still); err != nil {
			return err
		}
		wantL, wantR := sg.v+sg.w*half, sg.v-sg.w*half
		if nJ > 0 {
			gl, gr := sumL/float64(nJ), sumR/float64(nJ)
			worstWheel = math.Max(worstWheel, math.Max(relErr(gl, wantL), relErr(gr, wantR)))
			wheelTxt = append(wheelTxt, fmt.Sprintf("%s L %+.3f R %+.3f m/s (want %+.3f, %+.3f)", sg.name, nz0(gl), nz0(gr), nz0(wantL), nz0(wantR)))
		}
		if nI == 0 {
			noIMU = true
		} else {
			gy := sumYaw / float64(nI)
			if sg.w != 0 {
				worstYaw = math.Max(worstYaw, relErr(gy, sg.w))
			}
			yawTxt = append(yawTxt, fmt.Sprintf("%s %+.3f rad/s (want %+.3f)", sg.name, nz0(gy), nz0(sg.w)))
		}
	}
	if held != gate.HoldNone {
		r.skipAll(fmt.Sprintf("the safety gate held the robot (%s)", held), kw, ky)
		return nil
	}
	r.add(kw.val(worstWheel*100, "%", "worst %.1f %%").detail("%s", strings.Join(wheelTxt, "; ")).pass(worstWheel <= L.v("wheel_tol")))
	if noIMU {
		r.add(ky.skip("no IMU samples"))
		return nil
	}
	r.add(ky.val(worstYaw*100, "%", "worst %.1f %%").detail("%s", strings.Join(yawTxt, "; ")).pass(worstYaw <= L.v("yaw_rate_tol")))
	return r.align()
}

// relErr is |got − want| / |want|; a wrong sign is at least 100 %.
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// align turns the robot back to the start heading on the gyro.
func (r *mowerRun) align() error {
	if !r.imuOK {
		return nil
	}
	tol := r.lim.v("heading_tol_deg") * math.Pi / 180
	maxW := r.lim.v("pivot_rate")
	for range 3 {
		var sendErr error
		done, err := r.watch(10, func() bool {
			e := geom.WrapPi(-r.psi)
			if math.Abs(e) < tol {
				return true
			}
			w := geom.Clamp(2*e, -maxW, maxW)
			if math.Abs(w) < 0.05 {
				w = math.Copysign(0.05, w)
			}
			if w != r.cmd.W {
				sendErr = r.send(gate.Command{W: w})
			}
			return sendErr != nil
		})
		if err == nil {
			err = sendErr
		}
		if err != nil {
			return err
		}
		if err := r.send(gate.Command{}); err != nil {
			return err
		}
		if _, err := r.watch(2, r.still); err != nil {
			return err
		}
		if !done || math.Abs(geom.WrapPi(r.psi)) < 2*tol {
			return nil
		}
	}
	return nil
}

// spinUp switches the blade on, the robot standing, and waits for it to
// reach blade_up_share; it returns the time it took, or NaN.
func (r *mowerRun) spinUp(limitS float64) (float64, error) {
	t0 := r.s.T
	if err := r.drive(gate.Command{Blade: true}); err != nil {
		return math.NaN(), err
	}
	ok, err := r.watch(limitS, func() bool { return r.bladeShare() >= r.lim.v("blade_up_share") })
	if err != nil || !ok {
		return math.NaN(), err
	}
	return r.s.T - t0, nil
}

// blade is step 3: spin up with the soft start, then command the blade off.
func (r *mowerRun) blade() error {
	const st = 3
	L := r.lim
	ku := newCheck(st, stepBlade, "blade.spin_up", "blade to 90 % (soft start)").limit("≤ %.1f s", L.v("blade_up_s"))
	kd := newCheck(st, stepBlade, "blade.stop", "blade below 10 % when commanded off").limit("≤ %.1f s", L.v("blade_down_s"))
	if r.opt.NoBlade {
		r.skipAll("blade:=false: blade disconnected", ku, kd)
		return nil
	}
	if !r.jointFresh() {
		r.skipAll("no joint-state samples (see sensors.joint_rate): blade not run", ku, kd)
		return nil
	}
	up, err := r.spinUp(L.v("blade_up_s") + 2)
	if err != nil {
		return err
	}
	r.add(ku.val(up, "s", "%.2f s").pass(up <= L.v("blade_up_s")))
	if err := r.pause(1); err != nil {
		return err
	}
	t0 := r.s.T
	if err := r.send(gate.Command{}); err != nil {
		return err
	}
	ok, err := r.watch(L.v("blade_down_s")+2, func() bool { return r.bladeShare() < L.v("blade_down_share") })
	if err != nil {
		return err
	}
	down := math.NaN()
	if ok {
		down = r.s.T - t0
	}
	r.add(kd.val(down, "s", "%.2f s").pass(ok && down <= L.v("blade_down_s")))
	if !(ok && down <= L.v("blade_down_s")) && r.mustHalt() {
		if err := r.halt(kd.c.ID); err != nil {
			return err
		}
	}
	_, err = r.watch(2, r.still)
	return err
}

// stop is step 4: STOP pressed at stop_speed with the blade on while the
// driver keeps commanding motion.
func (r *mowerRun) stop() error {
	const st = 4
	L := r.lim
	ks := newCheck(st, stepStop, "stop.standstill", "STOP to standstill").limit("≤ %.1f s", L.v("stop_standstill_s"))
	kb := newCheck(st, stepStop, "stop.blade", "STOP to blade below 10 %").limit("≤ %.1f s", L.v("stop_blade_s"))
	kl := newCheck(st, stepStop, "stop.latched_still", "no motion while latched").
		limit("%.0f s: wheels ≤ %.2f m/s, yaw ≤ %.2f rad/s", L.v("stop_still_s"), L.v("still_speed"), L.v("still_yaw_rate"))
	kg := newCheck(st, stepStop, "stop.ring", "ring light while latched").limit("red")
	kr := newCheck(st, stepStop, "stop.release", "release (GO held) leaves it stopped").
		limit("unlatched; wheels ≤ %.2f m/s for %.0f s", L.v("still_speed"), L.v("release_watch_s"))
	switch {
	case r.halted != "":
		r.skipAll(r.haltedWhy(), ks, kb, kl, kg, kr)
		return nil
	case !r.jointFresh():
		r.skipAll(noJoints, ks, kb, kl, kg, kr)
		return nil
	}
	// Steps 4 to 6 are one straight run at the box from the start heading.
	if err := r.align(); err != nil {
		return err
	}
	blade := !r.opt.NoBlade
	if blade {
		if _, err := r.spinUp(L.v("blade_up_s") + 2); err != nil {
			return err
		}
	}
	if err := r.drive(gate.Command{V: L.v("stop_speed"), Blade: blade}); err != nil {
		return err
	}
	if err := r.pause(L.v("cruise_s")); err != nil {
		return err
	}
	if !r.moving(L.v("stop_speed")) {
		r.skipAll(r.notMoving(L.v("stop_speed")), ks, kb, kl, kg, kr)
		if err := r.send(gate.Command{}); err != nil {
			return err
		}
		_, err := r.watch(3, r.still)
		return err
	}
	tp := r.s.T
	if err := r.m.Press(r.ctx, vehicle.ButtonStop, true); err != nil {
		return err
	}
	stillAt, bladeAt := math.NaN(), math.NaN()
	released := false
	var pressErr error
	if _, err := r.watch(3, func() bool {
		if !released && r.s.T-tp >= 0.2-1e-9 {
			released = true
			if pressErr = r.m.Press(r.ctx, vehicle.ButtonStop, false); pressErr != nil {
				return true
			}
		}
		if math.IsNaN(stillAt) && r.still() {
			stillAt = r.s.T - tp
		}
		if math.IsNaN(bladeAt) && r.bladeShare() < L.v("blade_down_share") {
			bladeAt = r.s.T - tp
		}
		if r.mustHalt() {
			// A limit passed without the stop: the driver stops asking now.
			switch {
			case math.IsNaN(stillAt) && r.s.T-tp > L.v("stop_standstill_s")+1e-9:
				pressErr = r.halt(ks.c.ID)
				return true
			case blade && math.IsNaN(bladeAt) && r.s.T-tp > L.v("stop_blade_s")+1e-9:
				pressErr = r.halt(kb.c.ID)
				return true
			}
		}
		return released && !math.IsNaN(stillAt) && (!blade || !math.IsNaN(bladeAt))
	}); err != nil {
		return err
	}
	if pressErr != nil {
		return pressErr
	}
	if !released {
		if err := r.m.Press(r.ctx, vehicle.ButtonStop, false); err != nil {
			return err
		}
	}
	r.add(ks.val(stillAt, "s", "%.2f s").pass(stillAt <= L.v("stop_standstill_s")))
	switch {
	case !blade:
		r.add(kb.skip("blade:=false: blade disconnected"))
	case r.halted == ks.c.ID && math.IsNaN(bladeAt):
		r.add(kb.skip(r.haltedWhy() + " before the blade's limit"))
	default:
		r.add(kb.val(bladeAt, "s", "%.2f s").pass(bladeAt <= L.v("stop_blade_s")))
	}
	if r.halted != "" {
		r.skipAll(r.haltedWhy(), kl, kg, kr)
		_, err := r.watch(3, r.still)
		return err
	}
	// Nothing moves while latched; the ring is red.
	maxV, maxW := 0.0, 0.0
	allRed, allLatched := true, true
	latchedStill := func() bool {
		return maxV <= L.v("still_speed") && maxW <= L.v("still_yaw_rate") && allLatched
	}
	if _, err := r.watch(L.v("stop_still_s"), func() bool {
		l, rt := r.wheelSpeeds()
		maxV = math.Max(maxV, math.Max(math.Abs(l), math.Abs(rt)))
		if r.imuFresh() {
			maxW = math.Max(maxW, math.Abs(r.yawRate()))
		}
		allRed = allRed && r.s.Safety.Ring == gate.RingRed
		allLatched = allLatched && r.s.Safety.Latched
		return r.mustHalt() && !latchedStill()
	}); err != nil {
		return err
	}
	r.add(kl.val(maxV, "m/s", "wheels ≤ %.3f m/s").detail("yaw rate ≤ %.3f rad/s; latched throughout: %v", maxW, allLatched).
		pass(latchedStill()))
	if !latchedStill() && r.mustHalt() {
		if err := r.halt(kl.c.ID); err != nil {
			return err
		}
		r.skipAll(r.haltedWhy(), kg, kr)
		_, err := r.watch(3, r.still)
		return err
	}
	ring := "red"
	if !allRed {
		ring = "not red throughout (" + r.s.Safety.Ring.String() + " at the end)"
	}
	r.add(kg.text("%s", ring).pass(allRed))
	if !allRed && r.mustHalt() {
		// The latch is not released on a robot whose STOP does not show.
		if err := r.halt(kg.c.ID); err != nil {
			return err
		}
		r.skipAll(r.haltedWhy(), kr)
		_, err := r.watch(3, r.still)
		return err
	}
	// Release: GO held; the driver still commands motion; nothing moves.
	if err := r.m.Press(r.ctx, vehicle.ButtonGo, true); err != nil {
		return err
	}
	if err := r.pause(L.v("go_hold_s")); err != nil {
		return err
	}
	if err := r.m.Press(r.ctx, vehicle.ButtonGo, false); err != nil {
		return err
	}
	unlatched := !r.s.Safety.Latched
	maxV = 0
	if _, err := r.watch(L.v("release_watch_s"), func() bool {
		l, rt := r.wheelSpeeds()
		maxV = math.Max(maxV, math.Max(math.Abs(l), math.Abs(rt)))
		unlatched = unlatched && !r.s.Safety.Latched
		return r.mustHalt() && !(unlatched && maxV <= L.v("still_speed"))
	}); err != nil {
		return err
	}
	kr.val(maxV, "m/s", "wheels ≤ %.3f m/s")
	if !unlatched {
		kr.detail("still latched after GO held %.1f s", L.v("go_hold_s"))
	}
	r.add(kr.pass(unlatched && maxV <= L.v("still_speed")))
	if !(unlatched && maxV <= L.v("still_speed")) && r.mustHalt() {
		if err := r.halt(kr.c.ID); err != nil {
			return err
		}
		_, err := r.watch(3, r.still)
		return err
	}
	// The driver stops asking; an idle request re-enables the gate.
	if err := r.send(gate.Command{}); err != nil {
		return err
	}
	_, err := r.watch(2, r.still)
	return err
}

// watchdog is step 5: drive with the blade on, then the driver goes silent.
func (r *mowerRun) watchdog() error {
	const st = 5
	L := r.lim
	kd := newCheck(st, stepWatchdog, "watchdog.drive", "driver silent to standstill").limit("≤ %.1f s", L.v("dog_drive_s"))
	kb := newCheck(st, stepWatchdog, "watchdog.blade", "driver silent to blade below 10 %").limit("≤ %.1f s", L.v("dog_blade_s"))
	switch {
	case r.halted != "":
		r.skipAll(r.haltedWhy(), kd, kb)
		return nil
	case !r.jointFresh():
		r.skipAll(noJoints, kd, kb)
		return nil
	}
	blade := !r.opt.NoBlade
	if blade {
		if _, err := r.spinUp(L.v("blade_up_s") + 2); err != nil {
			return err
		}
	}
	if err := r.drive(gate.Command{V: L.v("dog_speed"), Blade: blade}); err != nil {
		return err
	}
	if err := r.pause(L.v("cruise_s")); err != nil {
		return err
	}
	if !r.moving(L.v("dog_speed")) {
		r.skipAll(r.notMoving(L.v("dog_speed")), kd, kb)
		if err := r.send(gate.Command{Blade: blade}); err != nil {
			return err
		}
		_, err := r.watch(3, r.still)
		return err
	}
	r.silence()
	ts := r.lastSend
	stillAt, bladeAt := math.NaN(), math.NaN()
	window := math.Max(L.v("dog_drive_s"), L.v("dog_blade_s"))
	var haltErr error
	if _, err := r.watch(window-(r.s.T-ts), func() bool {
		if math.IsNaN(stillAt) && r.still() {
			stillAt = r.s.T - ts
		}
		if math.IsNaN(bladeAt) && r.bladeShare() < L.v("blade_down_share") {
			bladeAt = r.s.T - ts
		}
		if r.mustHalt() {
			switch {
			case math.IsNaN(stillAt) && r.s.T-ts > L.v("dog_drive_s")+1e-9:
				haltErr = r.halt(kd.c.ID)
				return true
			case blade && math.IsNaN(bladeAt) && r.s.T-ts > L.v("dog_blade_s")+1e-9:
				haltErr = r.halt(kb.c.ID)
				return true
			}
		}
		return !math.IsNaN(stillAt) && (!blade || !math.IsNaN(bladeAt))
	}); err != nil {
		return err
	}
	if haltErr != nil {
		return haltErr
	}
	if math.IsNaN(stillAt) {
		kd.detail("still moving %.1f s after the last command: nothing timed the command out", r.s.T-ts)
	}
	r.add(kd.val(stillAt, "s", "%.2f s").pass(stillAt <= L.v("dog_drive_s")))
	switch {
	case !blade:
		r.add(kb.skip("blade:=false: blade disconnected"))
	case r.halted == kd.c.ID && math.IsNaN(bladeAt):
		r.add(kb.skip(r.haltedWhy() + " before the blade's limit"))
	default:
		if math.IsNaN(bladeAt) {
			kb.detail("blade still at %.0f %% %.1f s after the last command", r.bladeShare()*100, r.s.T-ts)
		}
		r.add(kb.val(bladeAt, "s", "%.2f s").pass(bladeAt <= L.v("dog_blade_s")))
	}
	if r.halted != "" {
		_, err := r.watch(3, r.still)
		return err
	}
	// The driver comes back: no motion, the blade as step 6 wants it.
	if err := r.send(gate.Command{Blade: blade}); err != nil {
		return err
	}
	_, err := r.watch(3, r.still)
	return err
}

// corridor returns the free distance from the front bumper to the nearest
// lidar return inside the robot's corridor ahead (half width plus 5 cm), and
// the nearest return within sector of straight ahead, measured from the
// bumper; +Inf when none.
func (r *mowerRun) corridor(sectorRad float64) (inCorridor, inSector float64) {
	sc := r.s.Lidar
	inCorridor, inSector = math.Inf(1), math.Inf(1)
	half := r.spec.HalfWidthM + r.lim.v("corridor_margin_m")
	for i, d := range sc.Ranges {
		if math.IsNaN(d) {
			d = 0
		}
		if d >= sc.MaxM {
			continue
		}
		a := sc.AngleMinRad + float64(i)*sc.AngleIncRad
		x, y := sc.MountXM+d*math.Cos(a), d*math.Sin(a)
		if x < sc.MountXM {
			continue
		}
		if math.Abs(y) <= half {
			inCorridor = math.Min(inCorridor, math.Max(0, x-r.spec.FrontM))
		}
		if math.Abs(a) <= sectorRad {
			inSector = math.Min(inSector, math.Max(0, x-r.spec.FrontM))
		}
	}
	return inCorridor, inSector
}

// obstacle is step 6: drive at the box and keep asking to drive on.
func (r *mowerRun) obstacle() error {
	const st = 6
	L := r.lim
	k := newCheck(st, stepObstacle, "obstacle.stop", "stopped by the gate before the box").limit("at rest, ≥ %.2f m from the box", L.v("obstacle_min_m"))
	switch {
	case r.halted != "":
		r.add(k.skip(r.haltedWhy()))
		return nil
	case r.opt.NoLidar:
		r.add(k.skip("lidar:=false: no lidar fitted"))
		return nil
	case !r.jointFresh():
		r.add(k.skip(noJoints))
		return nil
	case !r.lidarFresh():
		r.add(k.skip("no lidar scans (see sensors.lidar_rate): not driven at the box"))
		return nil
	}
	blade := !r.opt.NoBlade
	if blade && r.bladeShare() < L.v("blade_up_share") {
		if _, err := r.spinUp(L.v("blade_up_s") + 2); err != nil {
			return err
		}
	}
	_, d0 := r.corridor(L.v("obstacle_sector_deg") * math.Pi / 180)
	if math.IsInf(d0, 1) || d0 > L.v("obstacle_look_m") {
		r.add(k.text("no box").detail("no obstacle within %.0f m and %.0f° of straight ahead: place the box", L.v("obstacle_look_m"), L.v("obstacle_sector_deg")).pass(false))
		return nil
	}
	if err := r.drive(gate.Command{V: L.v("obstacle_speed"), Blade: blade}); err != nil {
		return err
	}
	var dist, stillFor float64
	moved := false
	outcome := ""
	limitS := d0/L.v("obstacle_speed") + 10
	t0 := r.s.T
	lastJ := r.s.Joints.Seq
	lastT := r.s.Joints.T
	if _, err := r.watch(limitS, func() bool {
		if r.s.Joints.Seq != lastJ {
			l, rt := r.wheelSpeeds()
			dist += (math.Abs(l) + math.Abs(rt)) / 2 * (r.s.Joints.T - lastT)
			lastJ, lastT = r.s.Joints.Seq, r.s.Joints.T
		}
		if dist > 0.05 {
			moved = true
		}
		if dist > d0+L.v("obstacle_overrun_m") {
			outcome = "past"
			return true
		}
		if free, _ := r.corridor(0); r.mustHalt() && free < L.v("obstacle_min_m") && !r.still() {
			outcome = "close"
			return true
		}
		if r.still() && (moved || r.s.T-t0 > 2) {
			stillFor += tick.Seconds()
			if stillFor >= 1-1e-9 {
				outcome = "stopped"
				return true
			}
		} else {
			stillFor = 0
		}
		return false
	}); err != nil {
		return err
	}
	hold := r.s.Safety.Hold
	free, _ := r.corridor(0)
	if err := r.send(gate.Command{}); err != nil {
		return err
	}
	switch outcome {
	case "stopped":
		k.val(free, "m", "%.3f m").detail("box first seen %.2f m ahead; drove %.2f m; gate holding: %s", d0, dist, hold)
		r.add(k.pass(free >= L.v("obstacle_min_m") && hold == gate.HoldObstacle))
	case "close":
		r.add(k.val(free, "m", "%.3f m, moving").detail("box first seen %.2f m ahead; drove %.2f m; closer than %.2f m and still moving: the runner stopped asking (Halt)", d0, dist, L.v("obstacle_min_m")).pass(false))
	case "past":
		r.add(k.text("drove past").detail("box first seen %.2f m ahead, drove %.2f m without being stopped", d0, dist).pass(false))
	default:
		r.add(k.text("not at rest").detail("still moving %.0f s after the start; drove %.2f m", r.s.T-t0, dist).pass(false))
	}
	_, err := r.watch(3, r.still)
	return err
}

// manual is step 7: what a script cannot do. An operator does these from
// gate 3 (hardware/safety.md) and signs each on the build record.
func (r *mowerRun) manual() {
	for _, m := range []struct{ id, name, how string }{
		{"lift", "lift", "lifting the robot stops blade and drive"},
		{"tilt", "tilt", "tilting the robot past its limit stops blade and drive"},
		{"bumper", "bumper", "pressing the bumper stops the drive"},
		{"interlocks", "interlock connectors", "unplugging each interlock connector stops blade and drive"},
		{"mcu_hang", "microcontroller hang", "hanging the safety microcontroller stops blade and drive"},
	} {
		r.add(Check{ID: "manual." + m.id, Step: 7, StepName: stepManual, Name: m.name, Result: Manual,
			Measured: "operator", Limit: m.how + " (gate 3, hardware/safety.md)"})
	}
}
