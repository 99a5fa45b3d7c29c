// Package run flies one test: a case study (mission plus obstacles) on the
// embedded simulator, judged the way Aerialist judges a flight.
//
// It is the harness behind `shakedown fly`: it arms the vehicle, starts the
// mission, lets simulated time pass until the mission ends, the vehicle
// crashes or the competition's 500-s timeout runs out, and then reads the
// simulator's ground truth for the verdict: completed or not and why, flight
// time, path length, the minimum clearance to each obstacle (the trajectory
// resampled into 0.5-s bins, competition.md §3.1–3.2) and collisions.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/avoid"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// DefaultTimeoutS is the competition's SIMULATION_TIMEOUT (competition.md
// §3.3), counted here in simulated seconds.
const DefaultTimeoutS = 500

// ResamplePeriodS is Aerialist's TRJ_SMPL_PRD (0.5 s).
const ResamplePeriodS = 0.5

// crashSettleS is how long the simulation goes on after a crash, so that the
// trace shows the fall; the verdict does not change.
const crashSettleS = 5

// Autopilots that can fly a case study.
const (
	AutopilotAvoid = "avoid" // PX4-like autopilot with the obstacle-avoidance planner (the default)
	AutopilotPlain = "plain" // the PX4-like autopilot alone: legs are flown straight
)

// Options configure a flight. Zero values mean the defaults named.
type Options struct {
	Autopilot string        // AutopilotAvoid ("" too) or AutopilotPlain
	Avoid     *avoid.Config // the planner's parameters; nil = avoid.DefaultConfig()
	// Record, when not nil, receives the flight as an MCAP file (package
	// flightlog): poses, paths, scene, events and telemetry at 10 Hz.
	Record   io.Writer
	Seed     uint64         // seeds the simulator's noise and gusts
	TimeoutS float64        // simulated seconds; 0 = DefaultTimeoutS
	Wind     sim.WindConfig // zero = calm air
	Range    quad.RangeConfig
}

// Collision is a contact between the vehicle and an obstacle or the ground.
type Collision struct {
	Obstacle int     `json:"obstacle"` // 1-based; 0 for the ground
	T        float64 `json:"t"`        // s
	X        float64 `json:"x"`        // m, North
	Y        float64 `json:"y"`        // m, East
	Z        float64 `json:"z"`        // m, up
	SpeedMS  float64 `json:"speed"`
}

// Result is the verdict on one flight.
type Result struct {
	Mission       string          `json:"mission"`
	Seed          uint64          `json:"seed"`
	Completed     bool            `json:"completed"`
	TimedOut      bool            `json:"timed_out"` // stopped at the time limit; the partial flight is still judged
	Reason        string          `json:"reason"`
	FlightTimeS   float64         `json:"flight_time_s"`
	SimTimeS      float64         `json:"sim_time_s"`
	PathLengthM   float64         `json:"path_length_m"`
	Clearances    []float64       `json:"clearance_m"`     // per obstacle, Aerialist's rule
	MinClearanceM *float64        `json:"min_clearance_m"` // nil without obstacles
	MinObstacle   int             `json:"min_obstacle"`    // 1-based; 0 without obstacles
	Collisions    []Collision     `json:"collisions"`      // empty when none
	Points        int             `json:"points"`          // competition points of this run (Points)
	Verdict       string          `json:"verdict"`         // VerdictPass, VerdictSoftFail or VerdictHardFail
	Closest       *world.Approach `json:"-"`               // the closest approach to MinObstacle, for plots
	Ignored       []string        `json:"ignored_params,omitempty"`
	Trace         []trace.Sample  `json:"-"`
}

// CriticalM is the competition's safe distance: a run that comes closer to
// an obstacle is a (soft) failure (competition.md §3.4).
const CriticalM = 1.5

// Verdicts of a run, as the competition tells failures apart.
const (
	VerdictPass     = "pass"      // kept CriticalM from every obstacle
	VerdictSoftFail = "soft-fail" // came closer than CriticalM without touching
	VerdictHardFail = "hard-fail" // collided (with an obstacle or the ground)
)

// Points are the competition's points for one run with minimum distance d
// (competition.md §4): 5 below 0.25 m, 2 below 1 m, 1 below 1.5 m, else 0.
func Points(d float64) int {
	switch {
	case d < 0.25:
		return 5
	case d < 1:
		return 2
	case d < CriticalM:
		return 1
	}
	return 0
}

// Items converts a scenario mission to the vehicle's mission items.
func Items(m scenario.Mission) ([]vehicle.MissionItem, error) {
	out := make([]vehicle.MissionItem, len(m.Items))
	for i, it := range m.Items {
		var k vehicle.ItemKind
		switch it.Kind {
		case scenario.Takeoff:
			k = vehicle.Takeoff
		case scenario.Waypoint:
			k = vehicle.Waypoint
		case scenario.Land:
			k = vehicle.Land
		default:
			return nil, fmt.Errorf("run: mission item %d: unknown kind %v", i, it.Kind)
		}
		out[i] = vehicle.MissionItem{Kind: k, Pos: it.Pos, AcceptRadiusM: it.AcceptRadiusM}
	}
	return out, nil
}

// NewSim builds the simulator for a case study: its obstacles in the scene,
// its PX4 parameters applied to the autopilot. The ignored parameters are
// those with no effect in the embedded simulator.
func NewSim(cs *scenario.CaseStudy, opt Options) (*vehicle.Sim, []string, error) {
	return newSim(cs, opt, nil)
}

func newSim(cs *scenario.CaseStudy, opt Options, rec *recorder) (*vehicle.Sim, []string, error) {
	ap := autopilot.DefaultConfig()
	ignored, err := autopilot.ApplyParams(&ap, cs.Params)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cs.Name, err)
	}
	cfg := vehicle.SimConfig{
		Quad:      quad.Config{Wind: opt.Wind, Range: opt.Range},
		Autopilot: ap,
		Scene:     world.Scene{Boxes: cs.Obstacles, Area: world.DefaultArea},
		Seed:      opt.Seed,
	}
	if rec != nil {
		cfg.OnRecord = rec.sample
	}
	switch opt.Autopilot {
	case "", AutopilotAvoid:
		ac := avoid.DefaultConfig()
		if opt.Avoid != nil {
			ac = *opt.Avoid
		}
		cfg.Avoid = &ac
	case AutopilotPlain:
	default:
		return nil, nil, fmt.Errorf("run: unknown autopilot %q (want %s or %s)", opt.Autopilot, AutopilotAvoid, AutopilotPlain)
	}
	s, err := vehicle.NewSim(cfg)
	return s, ignored, err
}

// Fly flies the case study once and judges the flight. An error means the
// flight could not be run (bad configuration, cancelled context); a crash or
// a timeout is a Result with Completed false.
func Fly(ctx context.Context, cs *scenario.CaseStudy, opt Options) (*Result, *vehicle.Sim, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if opt.TimeoutS == 0 {
		opt.TimeoutS = DefaultTimeoutS
	}
	if !(opt.TimeoutS > 0) || math.IsInf(opt.TimeoutS, 0) || opt.TimeoutS > 1e6 {
		return nil, nil, fmt.Errorf("run: timeout %v s out of range (0, 1e6]", opt.TimeoutS)
	}
	items, err := Items(cs.Mission)
	if err != nil {
		return nil, nil, err
	}
	var rec *recorder
	if opt.Record != nil {
		if rec, err = newRecorder(opt.Record, cs); err != nil {
			return nil, nil, err
		}
	}
	s, ignored, err := newSim(cs, opt, rec)
	if err != nil {
		return nil, nil, err
	}
	if err := s.UploadMission(ctx, items); err != nil {
		return nil, nil, err
	}
	if err := s.Arm(ctx); err != nil {
		return nil, nil, err
	}
	if err := s.StartMission(ctx); err != nil {
		return nil, nil, err
	}
	var crashT float64
	crashed := false
	end := func(t vehicle.Telemetry) bool {
		if t.MissionDone || !t.Armed {
			return true
		}
		if c, ok := s.Crash(); ok {
			if !crashed {
				crashed, crashT = true, c.T
			}
			return t.T-crashT >= crashSettleS
		}
		return false
	}
	d := time.Duration(opt.TimeoutS * float64(time.Second))
	tel, err := s.Wait(ctx, d, end)
	timedOut := errors.Is(err, vehicle.ErrTimeout)
	if err != nil && !timedOut {
		return nil, nil, err
	}
	r := judge(cs, s, tel, timedOut, opt.TimeoutS)
	r.Seed, r.Ignored = opt.Seed, ignored
	if rec != nil {
		if err := rec.finish(s, r); err != nil {
			return nil, nil, err
		}
	}
	return r, s, nil
}

func judge(cs *scenario.CaseStudy, s *vehicle.Sim, tel vehicle.Telemetry, timedOut bool, timeoutS float64) *Result {
	r := &Result{Mission: cs.Name, SimTimeS: s.Time(), Trace: s.Trace(), Collisions: []Collision{}}
	r.PathLengthM = trace.PathLength(r.Trace)
	r.FlightTimeS = s.Time()
	for _, e := range s.Events() {
		if e.Text == "auto-disarmed after landing" || e.Text == "killed: motors stopped" {
			r.FlightTimeS = e.T
		}
	}
	c, crashed := s.Crash()
	switch {
	case crashed:
		col := Collision{T: c.T, X: c.Pos.X, Y: c.Pos.Y, Z: -c.Pos.Z, SpeedMS: c.SpeedMS}
		if c.Obstacle >= 0 {
			col.Obstacle = c.Obstacle + 1
			r.Reason = fmt.Sprintf("crashed into obstacle %d at t=%.1f s (%.1f m/s)", col.Obstacle, c.T, c.SpeedMS)
		} else {
			r.Reason = fmt.Sprintf("hit the ground at %.1f m/s at t=%.1f s", c.SpeedMS, c.T)
		}
		r.Collisions = append(r.Collisions, col)
		r.FlightTimeS = c.T
	case tel.MissionDone:
		r.Completed = true
		r.Reason = fmt.Sprintf("mission complete: landed and disarmed at (%.2f, %.2f)", tel.Pos.X, tel.Pos.Y)
	case timedOut:
		r.TimedOut = true
		r.Reason = fmt.Sprintf("timeout: mission not finished after %g s (at item %d of %d)", timeoutS, tel.MissionItem+1, len(cs.Mission.Items))
	default:
		r.Reason = fmt.Sprintf("disarmed before the mission ended (at item %d of %d)", tel.MissionItem+1, len(cs.Mission.Items))
	}
	if n := len(cs.Obstacles); n > 0 {
		path := trace.Positions(trace.Resample(r.Trace, ResamplePeriodS))
		r.Clearances = make([]float64, n)
		m := world.MinClearance(cs.Obstacles, path, r.Clearances)
		r.MinClearanceM = &m
		for i, v := range r.Clearances {
			if v == m {
				r.MinObstacle = i + 1
				break
			}
		}
		a := world.ClosestApproach(cs.Obstacles[r.MinObstacle-1], path)
		r.Closest = &a
		r.Points = Points(m)
	}
	switch {
	case len(r.Collisions) > 0:
		r.Verdict = VerdictHardFail
	case r.MinClearanceM != nil && *r.MinClearanceM < CriticalM:
		r.Verdict = VerdictSoftFail
	default:
		r.Verdict = VerdictPass
	}
	r.round()
	return r
}

// round keeps the reported numbers to what they mean (0.1 mm, 1 ms) so that
// the JSON and text outputs are short and byte-stable.
func (r *Result) round() {
	r.FlightTimeS = roundTo(r.FlightTimeS, 1e3)
	r.SimTimeS = roundTo(r.SimTimeS, 1e3)
	r.PathLengthM = roundTo(r.PathLengthM, 1e4)
	for i := range r.Clearances {
		r.Clearances[i] = roundTo(r.Clearances[i], 1e4)
	}
	if r.MinClearanceM != nil {
		m := roundTo(*r.MinClearanceM, 1e4)
		r.MinClearanceM = &m
	}
	for i := range r.Collisions {
		c := &r.Collisions[i]
		c.T, c.SpeedMS = roundTo(c.T, 1e3), roundTo(c.SpeedMS, 1e3)
		c.X, c.Y, c.Z = roundTo(c.X, 1e4), roundTo(c.Y, 1e4), roundTo(c.Z, 1e4)
	}
}

func roundTo(v, k float64) float64 { return math.Round(v*k) / k }

// RunSeed is the noise seed of repetition i of a test flown with base seed
// s: repetitions differ in sensor noise and gusts, and the same (s, i)
// always gives the same flight.
func RunSeed(s uint64, i int) uint64 { return s*1_000_003 + uint64(i) }

// Summary aggregates repeated runs of one test the way the competition
// scores them: points averaged over runs.
type Summary struct {
	Runs          int      `json:"runs"`
	MinClearanceM *float64 `json:"min_clearance_m"` // the least over runs; nil without obstacles
	MeanPoints    float64  `json:"mean_points"`
	MeanTimeS     float64  `json:"mean_flight_time_s"`
	HardFails     int      `json:"hard_fails"`
	SoftFails     int      `json:"soft_fails"`
	Completed     int      `json:"completed"`
	Verdict       string   `json:"verdict"` // the worst verdict over runs
}

// Summarize aggregates rs (at least one result).
func Summarize(rs []*Result) Summary {
	s := Summary{Runs: len(rs), Verdict: VerdictPass}
	for _, r := range rs {
		if m := r.MinClearanceM; m != nil && (s.MinClearanceM == nil || *m < *s.MinClearanceM) {
			v := *m
			s.MinClearanceM = &v
		}
		s.MeanPoints += float64(r.Points)
		s.MeanTimeS += r.FlightTimeS
		switch r.Verdict {
		case VerdictHardFail:
			s.HardFails++
			s.Verdict = VerdictHardFail
		case VerdictSoftFail:
			s.SoftFails++
			if s.Verdict == VerdictPass {
				s.Verdict = VerdictSoftFail
			}
		}
		if r.Completed {
			s.Completed++
		}
	}
	if n := float64(len(rs)); n > 0 {
		s.MeanPoints /= n
		s.MeanTimeS = roundTo(s.MeanTimeS/n, 1e3)
	}
	return s
}
