package bench

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/bench/metric"
	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// robot is one simulated vehicle of a world, with what the harness keeps
// about it.
type robot struct {
	n   int // 1-based
	sim *vehicle.Sim
	drv driver

	tracker   track.Tracker // non-nil while it flies a trajectory
	capturing bool
	capture   []metric.Sample
}

// world is the robots of one environment, stepped in lockstep.
type world struct {
	ctx      context.Context
	robots   []*robot
	dt       float64
	nextOdom float64
}

// worldSpec says how to build a world.
type worldSpec struct {
	n           int
	seed        uint64
	speedMS     float64              // takeoff and landing speed
	onRecord    []func(*vehicle.Sim) // per robot, the simulators' OnRecord hooks; nil = none
	windMS      float64
	gustMS      float64
	separationM float64
}

// newWorld builds n simulators at separated start points (robot k at
// (k−1)·separation East of the origin), each with its own seed, in one air
// mass: the steady wind is shared (its direction drawn from the seed),
// gusts are drawn per vehicle.
func newWorld(ctx context.Context, s worldSpec) (*world, error) {
	rng := rand.New(rand.NewPCG(s.seed, 0x77696e64))
	dir := 2 * math.Pi * rng.Float64()
	wind := sim.WindConfig{Steady: geom.Vec3{X: s.windMS * math.Cos(dir), Y: s.windMS * math.Sin(dir)}, GustSigmaMS: s.gustMS}
	ap := autopilot.DefaultConfig()
	// AirStack's tasks climb and descend at the asked speed all the way
	// (TakeoffTask, LandTask at velocity_m_s).
	ap.TakeoffMS, ap.ZVelDnMS, ap.LandMS = s.speedMS, s.speedMS, s.speedMS
	w := &world{ctx: ctx}
	for k := range s.n {
		v, err := vehicle.NewSim(vehicle.SimConfig{
			Quad:      quad.Config{Wind: wind, StartPos: geom.Vec3{Y: float64(k) * s.separationM}},
			Autopilot: ap,
			Seed:      mix(s.seed, uint64(k)+1),
			OnRecord:  hook(s.onRecord, k),
		})
		if err != nil {
			return nil, err
		}
		w.robots = append(w.robots, &robot{n: k + 1, sim: v, drv: newDriver(ap.Gains, v.Quad().StepS())})
	}
	w.dt = w.robots[0].sim.Quad().StepS()
	w.nextOdom = w.t()
	return w, nil
}

func hook(hooks []func(*vehicle.Sim), k int) func(*vehicle.Sim) {
	if k < len(hooks) {
		return hooks[k]
	}
	return nil
}

// t returns the world's time.
func (w *world) t() float64 { return w.robots[0].sim.Time() }

// sims returns the simulators.
func (w *world) sims() []*vehicle.Sim {
	s := make([]*vehicle.Sim, len(w.robots))
	for i, r := range w.robots {
		s[i] = r.sim
	}
	return s
}

// step advances every robot one physics step: trackers command first, then
// all simulators step, then odometry is captured at OdomHz.
func (w *world) step() {
	for _, r := range w.robots {
		if r.tracker == nil {
			continue
		}
		tel := r.sim.Telemetry()
		cmd := r.tracker.Update(odom(tel))
		sp := r.drv.setpoint(cmd, tel)
		// Refused only without a position or velocity, which the driver
		// always gives; a refusal would show as a tracking failure.
		_ = r.sim.Setpoint(w.ctx, sp)
	}
	for _, r := range w.robots {
		r.sim.Step()
	}
	if t := w.t(); t+1e-9 >= w.nextOdom {
		w.nextOdom += 1 / OdomHz
		for _, r := range w.robots {
			if r.capturing {
				r.sample()
			}
		}
	}
}

// startCapture begins a capture with a sample now.
func (r *robot) startCapture() {
	r.capture = nil
	r.capturing = true
	r.sample()
}

// stopCapture ends the capture with a sample now (unless one was just
// taken) and returns it.
func (r *robot) stopCapture() []metric.Sample {
	if r.capturing {
		if n := len(r.capture); n == 0 || r.capture[n-1].T < r.sim.Time() {
			r.sample()
		}
	}
	r.capturing = false
	return r.capture
}

func (r *robot) sample() {
	tel := r.sim.Telemetry()
	r.capture = append(r.capture, metric.Sample{T: tel.T, Pos: tel.Pos})
}

// crashed reports the robot's crash, if any.
func (r *robot) crashed() (quad.Crash, bool) { return r.sim.Crash() }

func odom(t vehicle.Telemetry) track.Odom {
	return track.Odom{T: t.T, Pos: t.Pos, Vel: t.Vel, Yaw: t.Heading()}
}

// mix derives a seed from a base seed and indices (SplitMix64 steps).
func mix(seed uint64, xs ...uint64) uint64 {
	h := seed ^ 0x9e3779b97f4a7c15
	for _, x := range xs {
		h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h = splitmix(h)
	}
	return h
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// driver turns a tracker's Command into the vehicle's offboard setpoint.
//
// A motion command passes through. An attitude command (AirStack's PID
// output) is flown through the offboard acceleration setpoint, because the
// Vehicle seam has no attitude setpoint: the acceleration is chosen so that
// the cascade's acceleration-to-attitude step (ControlMath) yields exactly
// the commanded thrust axis and collective thrust, and the velocity
// setpoint is the vehicle's own velocity, so that the cascade's velocity
// loop adds nothing: its P term sees no error, its integrator does not
// move, and its D term (on the measured acceleration) is cancelled by
// mirroring its filter here. The integrator's value at dispatch (the hover
// trim for the thrust mismatch and a steady wind) stays in the loop as a
// constant: it plays the part of AirStack's PID integrators, which have run
// since boot.
type driver struct {
	kd      geom.Vec3
	alpha   float64
	dt      float64
	prevVel geom.Vec3
	deriv   geom.Vec3
	primed  bool
}

func newDriver(g control.Gains, dt float64) driver {
	return driver{
		kd:    geom.Vec3{X: g.XYVelD, Y: g.XYVelD, Z: g.ZVelD},
		alpha: 1 - math.Exp(-2*math.Pi*g.VelDerivLPHz*dt),
		dt:    dt,
	}
}

// maxTiltEmu bounds the emulated tilt, below the cascade's 45° limit.
const maxTiltEmu = 40 * math.Pi / 180

func (d *driver) setpoint(c track.Command, tel vehicle.Telemetry) vehicle.Setpoint {
	// The mirror of the cascade's velocity-derivative filter runs every
	// step, so that it is settled when an attitude command arrives.
	if !d.primed {
		d.prevVel, d.primed = tel.Vel, true
	}
	d.deriv = d.deriv.Add(tel.Vel.Sub(d.prevVel).Scale(1 / d.dt).Sub(d.deriv).Scale(d.alpha))
	d.prevVel = tel.Vel
	if !c.Attitude {
		return vehicle.Setpoint{Pos: c.Pos, Vel: c.Vel, Acc: c.Acc, Yaw: c.Yaw}
	}
	const g = quad.GravityMS2
	bz := c.Att.Rotate(geom.Vec3{Z: 1})
	if tilt := math.Acos(geom.Clamp(bz.Z, -1, 1)); tilt > maxTiltEmu {
		h := math.Hypot(bz.X, bz.Y)
		s, co := math.Sincos(maxTiltEmu)
		bz = geom.Vec3{X: bz.X / h * s, Y: bz.Y / h * s, Z: co}
	}
	acc := geom.Vec3{
		X: -g * bz.X / bz.Z,
		Y: -g * bz.Y / bz.Z,
		Z: g * (1 - c.Thrust*bz.Z),
	}
	acc = acc.Add(d.deriv.Mul(d.kd))
	return vehicle.Setpoint{Pos: nan3, Vel: tel.Vel, Acc: acc, Yaw: c.Att.Yaw()}
}

var nan3 = geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()}
