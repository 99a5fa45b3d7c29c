package vehicle

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/avoid"
	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// SimConfig configures the embedded simulator. Zero values mean the
// defaults named on each field.
type SimConfig struct {
	Quad      quad.Config      // zero = SIH defaults, no range sensor
	Autopilot autopilot.Config // zero = autopilot.DefaultConfig()
	Scene     world.Scene      // obstacles and placement area
	Seed      uint64           // seeds every random draw
	RecordHz  float64          // ground-truth trace rate; 0 = 10 Hz (PX4's logger default)
	EstTauS   float64          // low-pass of the GNSS error in the estimate; 0 = 1 s
	// Avoid, when not nil, runs PX4-Avoidance's local planner on mission
	// legs, fed by the depth camera's point cloud (iris_depth_camera unless
	// Quad.Cloud says otherwise).
	Avoid *avoid.Config
	// OnRecord, when not nil, is called each time the ground-truth trace
	// gets a sample (RecordHz), after that step: a flight recorder's hook.
	OnRecord func(*Sim)
}

// Sim is the embedded simulator as a Vehicle: a quad.Quad flown by an
// autopilot.Autopilot, stepped in lockstep. It also keeps the ground truth
// that scoring needs (Trace, Crash, Events), outside the Vehicle interface.
type Sim struct {
	q     *quad.Quad
	ap    *autopilot.Autopilot
	scene world.Scene
	rng   *rand.Rand

	estPosErr, estVelErr geom.Vec3
	lastGNSS             float64
	estAlpha             float64
	est                  control.State

	recEvery int
	steps    int
	trace    []trace.Sample
	events   []autopilot.Event
	mission  []autopilot.Item
	rangeBuf []float64
	planner  *avoid.Planner
	cloudBuf []geom.Vec3
	lastScan float64
	onRecord func(*Sim)

	x simExt // motor tests, ESC telemetry, wiring faults, collision prevention: see motortest.go
}

var _ Vehicle = (*Sim)(nil)

// NewSim returns a simulator with the vehicle disarmed on the ground.
func NewSim(cfg SimConfig) (*Sim, error) {
	if cfg.Autopilot == (autopilot.Config{}) {
		cfg.Autopilot = autopilot.DefaultConfig()
	}
	if cfg.RecordHz == 0 {
		cfg.RecordHz = 10
	}
	if cfg.EstTauS == 0 {
		cfg.EstTauS = 1
	}
	if !(cfg.RecordHz > 0) || math.IsInf(cfg.RecordHz, 0) || !(cfg.EstTauS > 0) || math.IsInf(cfg.EstTauS, 0) {
		return nil, fmt.Errorf("vehicle: record rate %v Hz and estimator time constant %v s must be finite and > 0", cfg.RecordHz, cfg.EstTauS)
	}
	s := &Sim{scene: cfg.Scene, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5ead)), lastScan: math.Inf(-1), onRecord: cfg.OnRecord}
	s.scene.Boxes = append([]world.Box(nil), cfg.Scene.Boxes...)
	if cfg.Avoid != nil {
		p, err := avoid.New(*cfg.Avoid)
		if err != nil {
			return nil, err
		}
		s.planner = p
		if !cfg.Quad.Cloud.On() {
			cfg.Quad.Cloud = quad.IrisDepthCamera()
		}
	}
	q, err := quad.New(cfg.Quad, &s.scene, s.rng)
	if err != nil {
		return nil, err
	}
	ap, err := autopilot.New(cfg.Autopilot)
	if err != nil {
		return nil, err
	}
	s.q, s.ap = q, ap
	if s.planner != nil {
		ap.SetAvoider(s.planner)
	}
	dt := q.StepS()
	s.recEvery = max(1, int(math.Round(1/(cfg.RecordHz*dt))))
	s.estAlpha = 1 - math.Exp(-dt/cfg.EstTauS)
	s.lastGNSS = math.Inf(-1)
	s.estimate()
	ap.Observe(s.est, q.Time())
	s.record()
	if n := len(q.Range().Ranges); n > 0 {
		s.rangeBuf = make([]float64, n)
	}
	return s, nil
}

// Quad returns the simulated airframe, for fault injection and truth.
func (s *Sim) Quad() *quad.Quad { return s.q }

// Planner returns the obstacle-avoidance planner, nil when flying plain.
func (s *Sim) Planner() *avoid.Planner { return s.planner }

// Autopilot returns the simulated flight controller.
func (s *Sim) Autopilot() *autopilot.Autopilot { return s.ap }

// Scene returns the obstacles the vehicle flies among.
func (s *Sim) Scene() world.Scene { return s.scene }

// Time returns the simulated time, s.
func (s *Sim) Time() float64 { return s.q.Time() }

// Trace returns the recorded ground truth (shared; do not modify).
func (s *Sim) Trace() []trace.Sample { return s.trace }

// Events returns every autopilot event so far.
func (s *Sim) Events() []autopilot.Event { return s.events }

// Crash reports whether and how the vehicle crashed.
func (s *Sim) Crash() (quad.Crash, bool) { return s.q.Crashed() }

// Contacts returns the vehicle's touches of the boxes (shared; do not
// modify).
func (s *Sim) Contacts() []quad.Contact { return s.q.Contacts() }

// estimate forms the controllers' state: truth plus the GNSS error, low-
// passed as an EKF fusing GNSS would carry it (see package autopilot).
func (s *Sim) estimate() {
	tr := s.q.Truth()
	g := s.q.GNSS()
	if g.T != s.lastGNSS && g.Fix >= quad.Fix3D {
		s.lastGNSS = g.T
		ep, ev := g.Pos.Sub(tr.Pos), g.Vel.Sub(tr.Vel)
		// One GNSS period's worth of low-pass per sample.
		a := 1 - math.Pow(1-s.estAlpha, 1/(8*s.q.StepS()))
		s.estPosErr = s.estPosErr.Add(ep.Sub(s.estPosErr).Scale(a))
		s.estVelErr = s.estVelErr.Add(ev.Sub(s.estVelErr).Scale(a))
	}
	s.est = control.State{Pos: tr.Pos.Add(s.estPosErr), Vel: tr.Vel.Add(s.estVelErr), Att: tr.Att, Rate: tr.Rate}
}

func (s *Sim) record() {
	tr := s.q.Truth()
	s.trace = append(s.trace, trace.Sample{T: s.q.Time(), Pos: tr.Pos, Heading: tr.Att.Yaw()})
}

// Step advances the simulation by one physics step: estimate, autopilot,
// physics, and the trace at its rate.
func (s *Sim) Step() {
	if s.planner != nil {
		if t := s.q.CloudT(); t != s.lastScan && s.planner.TakesCloud(t) {
			// The companion gets each new cloud it takes in the local
			// frame of the estimate: the camera's points, shifted by the
			// estimate's error (the cloud is transformed with the
			// estimated pose, as the ROS TF tree does). A frame it would
			// drop is never cast.
			c := s.q.Cloud()
			s.lastScan = c.T
			off := s.est.Pos.Sub(c.Pos)
			s.cloudBuf = s.cloudBuf[:0]
			for _, p := range c.Points {
				s.cloudBuf = append(s.cloudBuf, p.Add(off))
			}
			_ = s.planner.Observe(c.T, s.cloudBuf)
		}
	}
	s.feedObstacles()
	u := s.ap.Update(s.est, s.q.Time(), s.q.StepS())
	if ev := s.ap.Events(); len(ev) > 0 {
		s.events = append(s.events, ev...)
	}
	s.q.SetMotors(s.wire(u))
	s.q.Step()
	s.estimate()
	s.steps++
	if s.steps%s.recEvery == 0 {
		s.record()
		if s.onRecord != nil {
			s.onRecord(s)
		}
	}
}

// Telemetry returns what the vehicle reports about itself.
func (s *Sim) Telemetry() Telemetry {
	st := s.ap.Status()
	home, _ := s.ap.Home()
	r := s.q.Range()
	var rg Range
	if r.Kind != quad.RangeNone {
		copy(s.rangeBuf, r.Ranges)
		rg = Range{T: r.T, Seq: r.Seq, Cols: r.Cols, Rows: r.Rows, Ranges: s.rangeBuf, Dirs: r.Dirs, MaxM: r.MaxM}
	}
	return Telemetry{
		T: s.q.Time(), Armed: st.Armed, Landed: st.Landed, Mode: st.Mode.String(),
		Pos: s.est.Pos, Vel: s.est.Vel, Att: s.est.Att, Home: home,
		MissionItem: st.MissionItem, MissionDone: st.MissionDone,
		IMU: IMU(s.q.IMU()), GNSS: GNSS(s.q.GNSS()), Baro: Baro(s.q.Baro()), Battery: Battery(s.q.Battery()),
		Range: rg,
	}
}

func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// Arm arms the motors.
func (s *Sim) Arm(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Arm()
}

// Disarm disarms on the ground.
func (s *Sim) Disarm(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Disarm()
}

// Takeoff climbs to altM above home.
func (s *Sim) Takeoff(ctx context.Context, altM float64) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Takeoff(altM)
}

// Goto flies to p.
func (s *Sim) Goto(ctx context.Context, p geom.Vec3, speedMS float64) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Goto(p, speedMS)
}

// Setpoint streams an offboard setpoint and enters offboard control.
func (s *Sim) Setpoint(ctx context.Context, sp Setpoint) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := s.ap.SetOffboard(autopilot.Offboard(sp)); err != nil {
		return err
	}
	if s.ap.Status().Mode == autopilot.ModeOffboard {
		return nil
	}
	return s.ap.EnterOffboard()
}

// Hold holds position.
func (s *Sim) Hold(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Hold()
}

// Land lands in place.
func (s *Sim) Land(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Land()
}

// Return returns home and lands.
func (s *Sim) Return(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.Return()
}

// Kill stops the motors.
func (s *Sim) Kill(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	s.ap.Kill()
	return nil
}

// UploadMission stores the mission; it is checked when started.
func (s *Sim) UploadMission(ctx context.Context, items []MissionItem) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	m := make([]autopilot.Item, len(items))
	for i, it := range items {
		if !it.Pos.IsFinite() {
			return fmt.Errorf("vehicle: mission item %d: position %v is not finite", i, it.Pos)
		}
		m[i] = autopilot.Item{Kind: autopilot.ItemKind(it.Kind), Pos: it.Pos, AcceptRadiusM: it.AcceptRadiusM, SpeedMS: it.SpeedMS}
	}
	s.mission = m
	return nil
}

// StartMission starts the uploaded mission.
func (s *Sim) StartMission(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.StartMission(s.mission)
}

// ctxCheckSteps is how often Wait looks at its context (every simulated
// second at 200 Hz): often enough to cancel promptly, rarely enough to cost
// nothing.
const ctxCheckSteps = 200

// Wait steps the simulator until d of simulated time has passed or until
// holds.
func (s *Sim) Wait(ctx context.Context, d time.Duration, until func(Telemetry) bool) (Telemetry, error) {
	if d < 0 {
		return s.Telemetry(), fmt.Errorf("vehicle: negative wait %v", d)
	}
	n := int(math.Round(d.Seconds() / s.q.StepS()))
	for i := 0; i < n; i++ {
		if i%ctxCheckSteps == 0 {
			if err := ctxErr(ctx); err != nil {
				return s.Telemetry(), err
			}
		}
		s.Step()
		if until != nil && until(s.Telemetry()) {
			return s.Telemetry(), nil
		}
	}
	tel := s.Telemetry()
	if until != nil {
		return tel, ErrTimeout
	}
	return tel, nil
}
