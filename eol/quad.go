package eol

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Quad is what the quadrotor's runner may see and do: a vehicle.Vehicle
// (its own telemetry and flight-controller commands) that can also run motor
// tests and report its ESCs.
type Quad interface {
	vehicle.Vehicle
	vehicle.MotorTester
}

var _ Quad = (*vehicle.Sim)(nil)

// QuadSpec is what the runner knows about the quadrotor's build.
type QuadSpec struct {
	IMUHz     float64
	GNSSHz    float64
	BaroHz    float64
	BatteryHz float64
	RangeHz   float64    // 0 = no range sensor: its rows SKIP
	MaxRPM    float64    // rotor speed at full command
	RotorDir  [4]float64 // +1 counter-clockwise, −1 clockwise, by position
}

// DefaultQuadSpec returns the specification of the simulated quadrotor
// (PX4 SIH rates, a 10-Hz planar lidar).
func DefaultQuadSpec() QuadSpec {
	return QuadSpec{IMUHz: 200, GNSSHz: 8, BaroHz: 20, BatteryHz: 10, RangeHz: 10, MaxRPM: vehicle.SimMaxRPM, RotorDir: vehicle.SimRotorDir}
}

// QuadOptions configure a quadrotor run: Options, and the build.
type QuadOptions struct {
	Options
	Quad QuadSpec // zero = DefaultQuadSpec()
}

// Step names of the quadrotor profile.
const (
	stepMotors   = "motors"
	stepKill     = "kill switch"
	stepOffboard = "command loss"
)

// quadTick is the quadrotor runner's look interval: the simulator's step,
// so that every IMU sample is seen.
const quadTick = 5 * time.Millisecond

type quadRun struct {
	ctx  context.Context
	q    Quad
	spec QuadSpec
	lim  limits
	opt  QuadOptions
	rep  *Report
	tel  vehicle.Telemetry

	blocked string // why the flight steps are not flown
}

// RunQuad runs the quadrotor profile on q, disarmed on the ground at the
// start, and returns the report. The error is non-nil only when the run
// could not go on.
func RunQuad(ctx context.Context, q Quad, opt QuadOptions) (*Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := opt.Options.validate(); err != nil {
		return nil, err
	}
	if opt.Quad == (QuadSpec{}) {
		opt.Quad = DefaultQuadSpec()
	}
	r := &quadRun{ctx: ctx, q: q, spec: opt.Quad, lim: tableLimits(quadThresholds), opt: opt,
		rep: &Report{Vehicle: "quad", Serial: opt.Serial, RunID: opt.RunID, Time: opt.Time.UTC(), Source: opt.Source}}
	r.tel = q.Telemetry()
	if r.tel.Armed {
		return nil, errors.New("eol: the quadrotor is armed: start the test disarmed on the ground")
	}
	for _, st := range []func() error{r.sensors, r.motors, r.kill, r.offboard, r.obstacle} {
		if err := st(); err != nil {
			if t := q.Telemetry(); t.Armed && !t.Landed {
				_ = q.Land(context.WithoutCancel(ctx))
			}
			return nil, err
		}
	}
	r.manual()
	r.rep.verdict()
	return r.rep, nil
}

func (r *quadRun) add(c Check) { r.rep.Checks = append(r.rep.Checks, c) }

func (r *quadRun) watch(d float64, f func() bool) (bool, error) {
	end := r.tel.T + d - 1e-9
	for r.tel.T < end {
		t, err := r.q.Wait(r.ctx, quadTick, nil)
		if err != nil {
			return false, err
		}
		r.tel = t
		if f != nil && f() {
			return true, nil
		}
	}
	return false, nil
}

// block marks the flight steps as not to be flown, for why.
func (r *quadRun) block(why string) {
	if r.blocked == "" {
		r.blocked = why
	}
}

// sensors is step 1: listen disarmed on the ground.
func (r *quadRun) sensors() error {
	const st = 1
	L := r.lim
	// The averages take each sample the loop sees (its stamp moved). The
	// rates count the samples in (t0, end] by the sensors' own numbers
	// (Seq): a sample the loop did not see, because several arrived
	// between two looks (a loaded machine reading a sped-up link), still
	// counts.
	last := map[string]float64{}
	seen := func(k string, t float64) bool {
		l, had := last[k]
		if math.IsInf(t, -1) || had && t == l {
			return false
		}
		last[k] = t
		return had
	}
	seqs := func(t vehicle.Telemetry) map[string]uint64 {
		return map[string]uint64{"imu": t.IMU.Seq, "gnss": t.GNSS.Seq, "baro": t.Baro.Seq, "battery": t.Battery.Seq, "range": t.Range.Seq}
	}
	t0 := r.tel
	seq0 := seqs(t0)
	seen("imu", t0.IMU.T)
	seen("gnss", t0.GNSS.T)
	seen("baro", t0.Baro.T)
	seen("battery", t0.Battery.T)
	var acc, gyro geom.Vec3
	var nIMU, nGNSS, nBaro, nBat int
	minFix, minSats, maxEph := math.MaxInt, math.MaxInt, 0.0
	var pMin, pMax = math.Inf(1), math.Inf(-1)
	var altSum, altSq, volts, charge float64
	cells := 0
	if _, err := r.watch(L.v("listen_s"), func() bool {
		t := r.tel
		if seen("imu", t.IMU.T) {
			acc, gyro, nIMU = acc.Add(t.IMU.Accel), gyro.Add(t.IMU.Gyro), nIMU+1
		}
		if seen("gnss", t.GNSS.T) {
			nGNSS++
			minFix, minSats, maxEph = min(minFix, t.GNSS.Fix), min(minSats, t.GNSS.Satellites), math.Max(maxEph, t.GNSS.EphM)
		}
		if seen("baro", t.Baro.T) {
			nBaro++
			pMin, pMax = math.Min(pMin, t.Baro.PressurePa), math.Max(pMax, t.Baro.PressurePa)
			altSum, altSq = altSum+t.Baro.AltM, altSq+t.Baro.AltM*t.Baro.AltM
		}
		if seen("battery", t.Battery.T) {
			nBat++
			volts, charge, cells = volts+t.Battery.VoltageV, t.Battery.Remaining, t.Battery.Cells
		}
		return false
	}); err != nil {
		return err
	}
	span := r.tel.T - t0.T
	share := L.v("rate_share")
	for _, sn := range []struct {
		key, name string
		hz        float64
	}{{"imu", "IMU rate", r.spec.IMUHz}, {"gnss", "GNSS rate", r.spec.GNSSHz}, {"baro", "barometer rate", r.spec.BaroHz},
		{"battery", "battery rate", r.spec.BatteryHz}, {"range", "range sensor rate", r.spec.RangeHz}} {
		k := newCheck(st, stepSensors, "sensors."+sn.key+"_rate", sn.name).limit("≥ %.1f Hz (%.0f %% of %g Hz)", share*sn.hz, share*100, sn.hz)
		if sn.key == "range" && (r.opt.NoLidar || sn.hz == 0) {
			r.add(k.skip("no range sensor fitted"))
			continue
		}
		got := float64(seqs(r.tel)[sn.key]-seq0[sn.key]) / span
		ok := got >= share*sn.hz-1e-9
		r.add(k.val(got, "Hz", "%.1f Hz").pass(ok))
		if !ok && sn.key != "range" && sn.key != "battery" {
			r.block("not flown: " + sn.name + " failed")
		}
	}
	kg := newCheck(st, stepSensors, "sensors.gravity", "gravity").limit("%.2f ± %.2f m/s²", L.v("gravity"), L.v("gravity_tol"))
	kb := newCheck(st, stepSensors, "sensors.gyro_bias", "gyro bias").limit("≤ %.3f rad/s", L.v("gyro_bias_max"))
	if nIMU == 0 {
		r.skipAll("no IMU samples", kg, kb)
	} else {
		g := acc.Scale(1 / float64(nIMU)).Norm()
		b := gyro.Scale(1 / float64(nIMU)).Norm()
		r.add(r.gate(kg.val(g, "m/s²", "%.3f m/s²"), math.Abs(g-L.v("gravity")) <= L.v("gravity_tol")))
		r.add(r.gate(kb.val(b, "rad/s", "%.4f rad/s"), b <= L.v("gyro_bias_max")))
	}
	kn := newCheck(st, stepSensors, "sensors.gnss", "GNSS fix and accuracy").
		limit("fix ≥ 3-D, ≥ %.0f satellites, eph ≤ %.1f m", L.v("gnss_sats_min"), L.v("gnss_eph_max"))
	if nGNSS == 0 {
		r.add(kn.skip("no GNSS samples"))
	} else {
		ok := minFix >= int(L.v("gnss_fix_min")) && minSats >= int(L.v("gnss_sats_min")) && maxEph <= L.v("gnss_eph_max")
		r.add(r.gate(kn.val(maxEph, "m", fmt.Sprintf("fix %d, %d satellites, eph %%.2f m", minFix, minSats)), ok))
	}
	kp := newCheck(st, stepSensors, "sensors.baro", "barometer pressure and noise").
		limit("%.0f–%.0f Pa, altitude σ ≤ %.1f m", L.v("baro_min_pa"), L.v("baro_max_pa"), L.v("baro_noise_m"))
	if nBaro == 0 {
		r.add(kp.skip("no barometer samples"))
	} else {
		mean := altSum / float64(nBaro)
		sd := math.Sqrt(math.Max(0, altSq/float64(nBaro)-mean*mean))
		ok := pMin >= L.v("baro_min_pa") && pMax <= L.v("baro_max_pa") && sd <= L.v("baro_noise_m")
		r.add(r.gate(kp.val(sd, "m", fmt.Sprintf("%.0f–%.0f Pa, σ %%.3f m", pMin, pMax)), ok))
	}
	nc := int(L.v("cells"))
	kv := newCheck(st, stepSensors, "sensors.battery_voltage", "battery voltage").
		limit("%dS: %.2f–%.2f V", nc, float64(nc)*L.v("cell_min_v"), float64(nc)*L.v("cell_max_v"))
	kc := newCheck(st, stepSensors, "sensors.battery_charge", "battery charge").limit("≥ %.0f %%", L.v("charge_min")*100)
	if nBat == 0 {
		r.skipAll("no battery samples", kv, kc)
	} else {
		v := volts / float64(nBat)
		r.add(r.gate(kv.val(v, "V", fmt.Sprintf("%%.2f V (%dS)", cells)), cells == nc && v >= float64(nc)*L.v("cell_min_v") && v <= float64(nc)*L.v("cell_max_v")))
		r.add(r.gate(kc.val(charge*100, "%", "%.0f %%"), charge >= L.v("charge_min")-1e-9))
	}
	return nil
}

// gate finishes a check and, when it fails, keeps the vehicle on the
// ground.
func (r *quadRun) gate(k *check, ok bool) Check {
	c := k.pass(ok)
	if !ok {
		r.block("not flown: " + c.ID + " failed")
	}
	return c
}

func (r *quadRun) skipAll(why string, ks ...*check) {
	for _, k := range ks {
		r.add(k.skip(why))
	}
}

// motors is step 2: each motor spun alone and checked on the ESCs.
func (r *quadRun) motors() error {
	const st = 2
	L := r.lim
	thr := L.v("motor_throttle")
	want := thr * r.spec.MaxRPM
	good := 0
	var txt []string
	for j := range 4 {
		if err := r.q.MotorTest(r.ctx, j, thr, time.Duration(L.v("motor_spin_s")*float64(time.Second))); err != nil {
			return fmt.Errorf("eol: motor test of motor %d: %w", j+1, err)
		}
		if _, err := r.watch(1, nil); err != nil {
			return err
		}
		e := r.q.ESCs()
		spun, best := -1, 0.0
		others := true
		for p := range e {
			if a := math.Abs(e[p].RPM); a > best {
				spun, best = p, a
			}
		}
		for p := range e {
			if p != j && math.Abs(e[p].RPM) >= L.v("motor_idle_share")*r.spec.MaxRPM {
				others = false
			}
		}
		var got float64
		if j < len(e) {
			got = e[j].RPM * r.spec.RotorDir[j]
		}
		switch {
		case j < len(e) && got >= L.v("motor_rpm_share")*want && others:
			good++
			txt = append(txt, fmt.Sprintf("motor %d %+.0f rpm ok", j+1, e[j].RPM))
		case spun >= 0 && spun != j && best >= L.v("motor_rpm_share")*want:
			txt = append(txt, fmt.Sprintf("motor %d spun the motor at position %d (%+.0f rpm): swapped", j+1, spun+1, e[spun].RPM))
		case j < len(e) && -got >= L.v("motor_rpm_share")*want:
			txt = append(txt, fmt.Sprintf("motor %d %+.0f rpm: turns the wrong way", j+1, e[j].RPM))
		case !others:
			txt = append(txt, fmt.Sprintf("motor %d: another motor spun too", j+1))
		default:
			txt = append(txt, fmt.Sprintf("motor %d %+.0f rpm: below %.0f", j+1, got, L.v("motor_rpm_share")*want))
		}
		if _, err := r.watch(L.v("motor_spin_s")-1+0.5, nil); err != nil {
			return err
		}
	}
	k := newCheck(st, stepMotors, "motors.test", "each motor alone: position, direction, speed").
		limit("4 of 4: the right ESC, the right direction, ≥ %.0f %% of %.0f rpm", L.v("motor_rpm_share")*100, want).
		val(float64(good), "", "%.0f of 4 correct").detail("%s", strings.Join(txt, "; "))
	r.add(r.gate(k, good == 4))
	return nil
}

// stopped reports whether every rotor is below kill_rpm_share of full speed.
func (r *quadRun) stopped() bool {
	for _, e := range r.q.ESCs() {
		if math.Abs(e.RPM) > r.lim.v("kill_rpm_share")*r.spec.MaxRPM {
			return false
		}
	}
	return true
}

// kill is step 3: armed on the ground at idle, the kill switch.
func (r *quadRun) kill() error {
	const st = 3
	L := r.lim
	kc := newCheck(st, stepKill, "kill.cut", "kill to motors stopped").limit("≤ %.1f s to < %.0f %% of full rpm", L.v("kill_cut_s"), L.v("kill_rpm_share")*100)
	kl := newCheck(st, stepKill, "kill.latched", "kill stays latched").limit("%.0f s: no motor turns, disarmed, while take-off and setpoints are asked for", L.v("kill_latch_s"))
	if err := r.q.Arm(r.ctx); err != nil {
		r.skipAll("could not arm: "+err.Error(), kc, kl)
		return nil
	}
	if _, err := r.watch(1.5, nil); err != nil {
		return err
	}
	spinning := true
	for _, e := range r.q.ESCs() {
		if math.Abs(e.RPM) < 2*L.v("kill_rpm_share")*r.spec.MaxRPM {
			spinning = false
		}
	}
	if !spinning {
		r.skipAll("the motors did not spin at idle when armed", kc, kl)
		return r.q.Disarm(r.ctx)
	}
	tk := r.tel.T
	if err := r.q.Kill(r.ctx); err != nil {
		return fmt.Errorf("eol: kill: %w", err)
	}
	ok, err := r.watch(2, r.stopped)
	if err != nil {
		return err
	}
	cut := math.NaN()
	if ok {
		cut = r.tel.T - tk
	}
	r.add(kc.val(cut, "s", "%.2f s").pass(ok && cut <= L.v("kill_cut_s")))
	// The kill holds while motion is asked for.
	held := true
	var refusals []string
	next := r.tel.T
	if _, err := r.watch(L.v("kill_latch_s"), func() bool {
		if r.tel.T >= next {
			next += 0.5
			if err := r.q.Takeoff(r.ctx, L.v("takeoff_alt_m")); err != nil && len(refusals) < 2 {
				refusals = append(refusals, "take-off refused: "+err.Error())
			}
			if err := r.q.Setpoint(r.ctx, vehicle.Setpoint{Pos: r.tel.Pos, Vel: nanVec(), Yaw: math.NaN()}); err != nil && len(refusals) < 2 {
				refusals = append(refusals, "setpoint refused: "+err.Error())
			}
		}
		if r.tel.Armed || !r.stopped() {
			held = false
		}
		return false
	}); err != nil {
		return err
	}
	r.add(kl.text("%s", map[bool]string{true: "held", false: "motors restarted"}[held]).detail("%s", strings.Join(refusals, "; ")).pass(held))
	if !held {
		r.block("not flown: the kill did not hold")
		if t := r.q.Telemetry(); t.Armed {
			return r.q.Kill(r.ctx)
		}
	}
	return nil
}

func nanVec() geom.Vec3 { return geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()} }

// offboard is step 4: fly, stream offboard setpoints, stop them.
func (r *quadRun) offboard() error {
	const st = 4
	L := r.lim
	ko := newCheck(st, stepOffboard, "offboard.failsafe", "setpoints stop to failsafe").
		limit("≤ %.1f s (COM_OF_LOSS_T %.1f s + %.1f s), still flying", L.v("offboard_loss_s")+L.v("offboard_slack_s"), L.v("offboard_loss_s"), L.v("offboard_slack_s"))
	if r.blocked != "" {
		r.add(ko.skip(r.blocked))
		return nil
	}
	if err := r.q.Arm(r.ctx); err != nil {
		return fmt.Errorf("eol: arm: %w", err)
	}
	alt := L.v("takeoff_alt_m")
	if err := r.q.Takeoff(r.ctx, alt); err != nil {
		return fmt.Errorf("eol: take-off: %w", err)
	}
	ok, err := r.watch(30, func() bool { return r.tel.Mode == "hold" && r.tel.AltM() > 0.9*alt })
	if err != nil {
		return err
	}
	if !ok {
		r.add(ko.text("no take-off").detail("not holding at %.1f m 30 s after the take-off command (mode %s, %.1f m)", alt, r.tel.Mode, r.tel.AltM()).pass(false))
		r.block("not flown: the take-off did not complete")
		return r.land()
	}
	if _, err := r.watch(1, nil); err != nil {
		return err
	}
	hold := r.tel.Pos
	sp := vehicle.Setpoint{Pos: hold, Vel: nanVec(), Yaw: math.NaN()}
	var last float64
	next := r.tel.T
	var spErr error
	if _, err := r.watch(L.v("offboard_stream_s"), func() bool {
		if r.tel.T >= next-1e-9 {
			next += 0.1
			last = r.tel.T
			spErr = r.q.Setpoint(r.ctx, sp)
		}
		return spErr != nil
	}); err != nil {
		return err
	}
	if spErr != nil {
		return fmt.Errorf("eol: offboard setpoint: %w", spErr)
	}
	if r.tel.Mode != "offboard" {
		r.add(ko.text("no offboard").detail("mode %s after %.0f s of setpoints", r.tel.Mode, L.v("offboard_stream_s")).pass(false))
		return nil
	}
	ok, err = r.watch(L.v("offboard_loss_s")+L.v("offboard_slack_s")+2, func() bool { return r.tel.Mode != "offboard" })
	if err != nil {
		return err
	}
	if !ok {
		r.add(ko.text("no failsafe").detail("still in offboard %.1f s after the last setpoint", r.tel.T-last).pass(false))
		r.block("not flown: no offboard failsafe")
		return r.land()
	}
	dt := r.tel.T - last
	flying := r.tel.Armed && r.tel.AltM() > 0.5*alt
	r.add(ko.val(dt, "s", "%.2f s").detail("offboard → %s at %.1f m", r.tel.Mode, r.tel.AltM()).
		pass(dt <= L.v("offboard_loss_s")+L.v("offboard_slack_s") && flying))
	return nil
}

// rangeFresh reports whether the latest range scan is recent.
func (r *quadRun) rangeFresh() bool {
	return r.tel.Range.Ranges != nil && r.tel.T-r.tel.Range.T < 3/r.spec.RangeHz
}

// forwardRange returns the nearest return of the range sensor within
// sectorDeg of straight ahead, and whether the scan had one.
func forwardRange(t vehicle.Telemetry, sectorDeg float64) (float64, bool) {
	best := math.Inf(1)
	c15 := math.Cos(sectorDeg * math.Pi / 180)
	for i, rg := range t.Range.Ranges {
		if i >= len(t.Range.Dirs) {
			break
		}
		d := t.Range.Dirs[i]
		if d.X < c15 || math.Abs(d.Z) > 0.2 {
			continue
		}
		if math.IsNaN(rg) {
			rg = 0
		}
		if rg < t.Range.MaxM {
			best = math.Min(best, rg)
		}
	}
	return best, !math.IsInf(best, 1)
}

// obstacle is step 5: fly at the box in a position mode and keep asking to
// go on; collision prevention must stop the vehicle.
func (r *quadRun) obstacle() error {
	const st = 5
	L := r.lim
	k := newCheck(st, stepObstacle, "obstacle.cp", "stopped by collision prevention before the box").
		limit("at rest, box ≥ %.1f m on the range sensor (CP_DIST %.1f m)", L.v("cp_min_m"), L.v("cp_dist_m"))
	switch {
	case r.opt.NoLidar || r.spec.RangeHz == 0:
		r.add(k.skip("no range sensor fitted"))
		return r.land()
	case r.blocked != "":
		r.add(k.skip(r.blocked))
		return r.land()
	case !r.rangeFresh():
		r.add(k.skip("no range samples (see sensors.range_rate): not flown at the box"))
		return r.land()
	}
	d0, seen := forwardRange(r.tel, L.v("cp_sector_deg"))
	if !seen {
		r.add(k.text("no box").detail("nothing within %.0f° of straight ahead on the range sensor: place the box", L.v("cp_sector_deg")).pass(false))
		return r.land()
	}
	start := r.tel.Pos
	hd := r.tel.Heading()
	target := start.Add(geom.Vec3{X: math.Cos(hd), Y: math.Sin(hd)}.Scale(d0 + 10))
	if err := r.q.Goto(r.ctx, target, L.v("cp_speed")); err != nil {
		return fmt.Errorf("eol: goto: %w", err)
	}
	minR := d0
	var restFor float64
	stale := false
	ok, err := r.watch(d0/L.v("cp_speed")+20, func() bool {
		if !r.rangeFresh() {
			stale = true
		}
		if f, ok := forwardRange(r.tel, L.v("cp_sector_deg")); ok {
			minR = math.Min(minR, f)
		}
		moved := r.tel.Pos.XY().Dist(start.XY()) > 0.5
		if moved && r.tel.Vel.XY().Norm() < L.v("cp_rest_speed") {
			restFor += quadTick.Seconds()
		} else {
			restFor = 0
		}
		return restFor >= 1-1e-9
	})
	if err != nil {
		return err
	}
	k.val(minR, "m", "%.2f m").detail("box first seen %.1f m ahead; flew %.1f m; mode %s", d0, r.tel.Pos.XY().Dist(start.XY()), r.tel.Mode)
	if !ok {
		k.detail("not at rest after %.0f s; box first seen %.1f m ahead, closest %.2f m", d0/L.v("cp_speed")+20, d0, minR)
	}
	if stale {
		k.detail("the range sensor stopped publishing during the approach; closest seen %.2f m", minR)
	}
	r.add(k.pass(ok && !stale && minR >= L.v("cp_min_m")))
	return r.land()
}

// land lands the vehicle and waits for it to disarm.
func (r *quadRun) land() error {
	t := r.q.Telemetry()
	if !t.Armed {
		return nil
	}
	if t.Landed {
		return r.q.Disarm(r.ctx)
	}
	if err := r.q.Land(r.ctx); err != nil {
		return fmt.Errorf("eol: land: %w", err)
	}
	ok, err := r.watch(60, func() bool { return !r.tel.Armed })
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("eol: the vehicle did not land and disarm within 60 s")
	}
	return nil
}

// manual is step 6: what a script cannot do.
func (r *quadRun) manual() {
	for _, m := range []struct{ id, name, how string }{
		{"props", "propellers", "each propeller the right way round for its motor, and tight"},
		{"rc_kill", "RC kill switch", "the transmitter's kill switch stops the motors (RC_MAP_KILL_SW)"},
		{"rc_loss", "RC loss", "switching the transmitter off triggers the RC-loss failsafe (NAV_RCL_ACT)"},
		{"frame", "frame", "arms locked, no play in the motor mounts, battery strap tight"},
		{"vibration", "vibration", "a hover log shows vibration within the autopilot's limits"},
	} {
		r.add(Check{ID: "manual." + m.id, Step: 6, StepName: stepManual, Name: m.name, Result: Manual,
			Measured: "operator", Limit: m.how})
	}
}
