// Package run flies one test: a case study (mission plus obstacles) on any
// vehicle.Vehicle (the embedded simulator, or an autopilot over MAVLink),
// judged the way Aerialist judges a flight.
//
// It is the harness behind `shakedown fly` and every engine: Fly uploads the
// mission, arms the vehicle, starts the mission, lets vehicle time pass
// until the mission ends, the vehicle crashes or the competition's 500-s
// timeout runs out, and Judge gives the verdict: completed or not and why,
// flight time, path length, the minimum clearance to each obstacle (the
// trajectory resampled into 0.5-s bins, competition.md §3.1–3.2) and
// collisions. Judge is a pure function of the case study, the trajectory and
// the contacts; Fly reads them from the simulator's ground truth (Truth)
// when the vehicle has it, and from the vehicle's own estimate otherwise.
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
	"github.com/shakedown-robotics/shakedown/score"
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

// DefaultGustMS is the gust level (m/s, 1σ) of test runs, datasets,
// generations and campaigns: calm air, as in Aerialist's Gazebo world.
// Repeated runs of a test still differ through the seeded sensor noise, and
// by as much as PX4's do: on the 197 layouts of px4-reference's wide/ set
// that PX4 flew twice (boxes within 0.2 m), |Δ clearance| between the two
// flights has mean 0.23 m (quartiles 0.03, 0.09, 0.27 m) on PX4 and 0.22 m
// (0.05, 0.15, 0.31 m) here in calm air, against 0.36 m (0.14, 0.33,
// 0.49 m) with gusts of 0.3 m/s, the earlier default.
const DefaultGustMS float64 = 0

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
	// PreArmS is how long the vehicle sits disarmed on the ground before
	// it is armed, inside the log: PX4's logs, and so Aerialist's flight
	// times, start about 20 s before take-off (DefaultPreArmS). 0 arms at
	// once.
	PreArmS float64
	// AerialistUnspawned reproduces Aerialist's quirk: a box whose rotation
	// Python prints in exponent notation is never spawned in Gazebo (see
	// scenario.AerialistSpawns); it is left out of the flight but still
	// scored.
	AerialistUnspawned bool
}

// GazeboStartYawRad is the heading the vehicle starts with: Gazebo spawns
// PX4's iris with its body x along the world's x axis, which is East in
// Gazebo's ENU frame, so PX4 reads a heading of 90°.
const GazeboStartYawRad = math.Pi / 2

// DefaultPreArmS is the time from the start of a PX4 log to arming in the
// competition's flights (take-off is 20–22 s into the log, arming about a
// second before; px4-reference/README.md).
const DefaultPreArmS = 19

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
	AirborneS     float64         `json:"airborne_s"`      // from lift-off to the last touchdown (or the end)
	Points        int             `json:"points"`          // competition points of this run (score.Points)
	Verdict       string          `json:"verdict"`         // VerdictPass, VerdictSoftFail or VerdictHardFail
	Closest       *world.Approach `json:"-"`               // the closest approach to MinObstacle, for plots
	Ignored       []string        `json:"ignored_params,omitempty"`
	Trace         []trace.Sample  `json:"-"`
	// Resampled is Trace in Aerialist's ResamplePeriodS bins, the
	// trajectory the clearances were computed on: resampled once, by the
	// judge, for every consumer (scores, campaign results, comparisons).
	Resampled []trace.Sample `json:"-"`
}

// CriticalM is the competition's safe distance: a run that comes closer to
// an obstacle is a (soft) failure (competition.md §3.4).
const CriticalM = score.CriticalM

// Verdicts of a run, as the competition tells failures apart.
const (
	VerdictPass     = "pass"      // kept CriticalM from every obstacle
	VerdictSoftFail = "soft-fail" // came closer than CriticalM without touching
	VerdictHardFail = "hard-fail" // collided (with an obstacle or the ground)
)

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
		out[i] = vehicle.MissionItem{Kind: k, Pos: it.Pos, AcceptRadiusM: it.AcceptRadiusM, SpeedMS: it.SpeedMS}
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
		Quad:      quad.Config{Wind: opt.Wind, Range: opt.Range, StartYawRad: GazeboStartYawRad},
		Autopilot: ap,
		Scene:     world.Scene{Boxes: spawned(cs.Obstacles, opt.AerialistUnspawned), Area: world.DefaultArea},
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

// Truth is the ground truth of a simulated flight, read for scoring outside
// vehicle.Vehicle: Fly judges a vehicle that has it (vehicle.Sim) on its true
// trajectory and contacts, any other on the vehicle's own estimate.
type Truth interface {
	// Time is the simulated time, s.
	Time() float64
	// Trace is the true trajectory from the start, local NED about home.
	Trace() []trace.Sample
	// Events are the autopilot's events (auto-disarm, kill), in order.
	Events() []autopilot.Event
	// Crash reports whether and how the vehicle crashed.
	Crash() (quad.Crash, bool)
	// Contacts are the vehicle's touches of the boxes, in order.
	Contacts() []quad.Contact
}

var _ Truth = (*vehicle.Sim)(nil)

// Ending is how a flight ended, as the harness saw it: what the judge reads
// beside the trajectory and the contacts.
type Ending struct {
	T float64 // s from the start to the end of the flight (the last sample)
	// MotorsOffT is when the motors stopped (auto-disarmed after landing,
	// or killed), s from the start; 0 when not seen.
	MotorsOffT float64
	Last       vehicle.Telemetry // the last telemetry (mission progress, position)
	TimedOut   bool              // stopped at the time limit
	// Note, when not empty, is added to the reason in parentheses: how the
	// flight was observed when that was not the simulator's ground truth.
	Note string
}

// EstimatedNote is the note of a flight judged on the vehicle's estimate.
const EstimatedNote = "judged on the vehicle's estimated position; collisions are not seen over MAVLink"

// Fly flies the case study's mission once on v and judges the flight:
// upload, arm, start, then vehicle time passes until the mission is done,
// the vehicle disarms, crashes (plus crashSettleS) or opt.TimeoutS runs out.
// Of opt, Fly reads TimeoutS and Seed (written into the result); the other
// fields configure the simulator (NewSim). A vehicle with ground truth
// (Truth) is judged on it; any other on its estimated position, sampled at
// 10 Hz of vehicle time, with no contacts seen.
//
// An error means the flight could not be run (bad configuration, a command
// refused, a cancelled context); a crash or a timeout is a Result with
// Completed false.
func Fly(ctx context.Context, v vehicle.Vehicle, cs *scenario.CaseStudy, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opt.TimeoutS == 0 {
		opt.TimeoutS = DefaultTimeoutS
	}
	if err := checkTimeout(opt.TimeoutS); err != nil {
		return nil, err
	}
	items, err := Items(cs.Mission)
	if err != nil {
		return nil, err
	}
	if err := v.UploadMission(ctx, items); err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	if opt.PreArmS > 0 {
		if !(opt.PreArmS <= 600) {
			return nil, fmt.Errorf("run: pre-arm time %v s out of range [0, 600]", opt.PreArmS)
		}
		if _, err := v.Wait(ctx, time.Duration(opt.PreArmS*float64(time.Second)), nil); err != nil {
			return nil, err
		}
	}
	// A vehicle that refuses to arm or to start is a finding, not a broken
	// run: the result says so and the mission is not completed.
	if err := v.Arm(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return refused(cs, opt, "the vehicle refused to arm: "+err.Error()), nil
	}
	if err := v.StartMission(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return refused(cs, opt, "the vehicle refused to start the mission: "+err.Error()), nil
	}
	// The time limit counts from the start of the log, pre-arm included.
	limit := math.Max(opt.TimeoutS-opt.PreArmS, 1)
	var r *Result
	if t, ok := v.(Truth); ok {
		r, err = flyTruth(ctx, v, t, cs, limit)
	} else {
		r, err = flyEstimated(ctx, v, cs, limit)
	}
	if err != nil {
		return nil, err
	}
	r.Seed = opt.Seed
	return r, nil
}

func checkTimeout(timeoutS float64) error {
	if !(timeoutS > 0) || math.IsInf(timeoutS, 0) || timeoutS > 1e6 {
		return fmt.Errorf("run: timeout %v s out of range (0, 1e6]", timeoutS)
	}
	return nil
}

// flyTruth waits for the end of a flight on a simulator and judges it on the
// simulator's ground truth.
func flyTruth(ctx context.Context, v vehicle.Vehicle, s Truth, cs *scenario.CaseStudy, timeoutS float64) (*Result, error) {
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
	d := time.Duration(timeoutS * float64(time.Second))
	tel, err := v.Wait(ctx, d, end)
	timedOut := errors.Is(err, vehicle.ErrTimeout)
	if err != nil && !timedOut {
		return nil, err
	}
	e := Ending{T: s.Time(), Last: tel, TimedOut: timedOut}
	for _, ev := range s.Events() {
		if ev.Text == "auto-disarmed after landing" || ev.Text == "killed: motors stopped" {
			e.MotorsOffT = ev.T
		}
	}
	return Judge(cs, s.Trace(), Contacts(s), e, timeoutS), nil
}

// Contacts returns the contacts a simulator saw, in the result's frame
// (competition.md: z up): every touch of a box, and a hard landing on the
// ground.
func Contacts(s Truth) []Collision {
	var out []Collision
	for _, c := range s.Contacts() {
		out = append(out, Collision{Obstacle: c.Obstacle + 1, T: c.T, X: c.Pos.X, Y: c.Pos.Y, Z: -c.Pos.Z, SpeedMS: c.SpeedMS})
	}
	if c, ok := s.Crash(); ok && c.Obstacle < 0 {
		out = append(out, Collision{T: c.T, X: c.Pos.X, Y: c.Pos.Y, Z: -c.Pos.Z, SpeedMS: c.SpeedMS})
	}
	return out
}

// estimatedPeriodS is the sampling period of the estimated trajectory of a
// vehicle without ground truth (10 Hz, the simulator's trace rate).
const estimatedPeriodS = 0.1

// flyEstimated flies a vehicle without ground truth (over MAVLink): it
// samples the estimated position about home at 10 Hz of vehicle time until
// the mission is done, the vehicle disarms (after the first second, which
// a link may need to report the arming) or the time runs out.
func flyEstimated(ctx context.Context, v vehicle.Vehicle, cs *scenario.CaseStudy, timeoutS float64) (*Result, error) {
	start := v.Telemetry()
	home := start.Home
	var tr []trace.Sample
	sample := func(t vehicle.Telemetry) {
		tr = append(tr, trace.Sample{T: t.T - start.T, Pos: t.Pos.Sub(home), Heading: t.Heading()})
	}
	sample(start)
	next := start.T + estimatedPeriodS
	tel := start
	timedOut := false
	for {
		var err error
		tel, err = v.Wait(ctx, time.Duration(estimatedPeriodS*float64(time.Second)), nil)
		if err != nil && !errors.Is(err, vehicle.ErrTimeout) {
			return nil, err
		}
		if tel.T >= next {
			sample(tel)
			next = tel.T + estimatedPeriodS
		}
		if tel.MissionDone || !tel.Armed && tel.T-start.T > 1 {
			break
		}
		if tel.T-start.T > timeoutS {
			timedOut = true
			break
		}
	}
	last := tel
	last.Pos = tel.Pos.Sub(home)
	return Judge(cs, tr, nil, Ending{T: tel.T - start.T, Last: last, TimedOut: timedOut, Note: EstimatedNote}, timeoutS), nil
}

// Judge is the verdict on a flight of cs: a pure function of the trajectory
// tr (local NED about home, from the start), the contacts seen (the first
// one ends the flight) and how it ended. Clearances are Aerialist's rule:
// the trajectory resampled into ResamplePeriodS bins, then the least
// distance to each obstacle (competition.md §3.1–3.2).
func Judge(cs *scenario.CaseStudy, tr []trace.Sample, contacts []Collision, e Ending, timeoutS float64) *Result {
	r := &Result{Mission: cs.Name, SimTimeS: e.T, Trace: tr, Collisions: []Collision{}, Resampled: trace.Resample(tr, ResamplePeriodS)}
	r.PathLengthM = trace.PathLength(r.Trace)
	r.FlightTimeS = e.T
	if e.MotorsOffT > 0 {
		r.FlightTimeS = e.MotorsOffT
	}
	r.AirborneS = Airborne(tr)
	tel := e.Last
	// A contact does not end the flight (Gazebo pushes the vehicle back; it
	// flies on, or falls when the impact broke it): the reason names the
	// first one, then how the flight ended.
	r.Collisions = append(r.Collisions, contacts...)
	prefix := ""
	if len(contacts) > 0 {
		col := contacts[0]
		if col.Obstacle > 0 {
			prefix = fmt.Sprintf("touched obstacle %d at t=%.1f s (%.1f m/s)", col.Obstacle, col.T, col.SpeedMS)
		} else {
			prefix = fmt.Sprintf("hit the ground at %.1f m/s at t=%.1f s", col.SpeedMS, col.T)
		}
		if n := len(contacts); n > 1 {
			prefix += fmt.Sprintf(" and %d more contact(s)", n-1)
		}
		prefix += "; "
	}
	switch {
	case tel.MissionDone:
		r.Completed = true
		r.Reason = fmt.Sprintf("mission complete: landed and disarmed at (%.2f, %.2f)", tel.Pos.X, tel.Pos.Y)
	case e.TimedOut:
		r.TimedOut = true
		r.Reason = fmt.Sprintf("timeout: mission not finished after %g s (at item %d of %d)", timeoutS, tel.MissionItem+1, len(cs.Mission.Items))
	default:
		r.Reason = fmt.Sprintf("disarmed before the mission ended (at item %d of %d)", tel.MissionItem+1, len(cs.Mission.Items))
	}
	r.Reason = prefix + r.Reason
	if n := len(cs.Obstacles); n > 0 && len(tr) > 0 {
		path := trace.Positions(r.Resampled)
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
		r.Points = int(score.Points(m))
	}
	switch {
	case len(r.Collisions) > 0:
		r.Verdict = VerdictHardFail
	case r.MinClearanceM != nil && *r.MinClearanceM < CriticalM:
		r.Verdict = VerdictSoftFail
	default:
		r.Verdict = VerdictPass
	}
	if e.Note != "" {
		r.Reason += " (" + e.Note + ")"
	}
	r.round()
	return r
}

// FlySim builds the embedded simulator for cs with opt (NewSim), records the
// flight to opt.Record when set, flies it (Fly) and returns the verdict, the
// parameters the simulator ignored in it, and the simulator.
func FlySim(ctx context.Context, cs *scenario.CaseStudy, opt Options) (*Result, *vehicle.Sim, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if opt.TimeoutS != 0 {
		if err := checkTimeout(opt.TimeoutS); err != nil {
			return nil, nil, err
		}
	}
	var rec *recorder
	if opt.Record != nil {
		var err error
		if rec, err = newRecorder(opt.Record, cs); err != nil {
			return nil, nil, err
		}
	}
	s, ignored, err := newSim(cs, opt, rec)
	if err != nil {
		return nil, nil, err
	}
	r, err := Fly(ctx, s, cs, opt)
	if err != nil {
		return nil, nil, err
	}
	r.Ignored = ignored
	if rec != nil {
		if err := rec.finish(s, r); err != nil {
			return nil, nil, err
		}
	}
	return r, s, nil
}

// spawned returns the boxes that appear in the simulation: all of them,
// or with quirk those that Aerialist manages to spawn in Gazebo.
func spawned(boxes []world.Box, quirk bool) []world.Box {
	if !quirk {
		return boxes
	}
	out := make([]world.Box, 0, len(boxes))
	for _, b := range boxes {
		if scenario.AerialistSpawns(b) {
			out = append(out, b)
		}
	}
	return out
}

// refused is the result of a flight the vehicle refused before take-off:
// nothing flown, not completed, the refusal as the reason.
func refused(cs *scenario.CaseStudy, opt Options, why string) *Result {
	r := Judge(cs, nil, nil, Ending{}, opt.TimeoutS)
	r.Reason, r.Seed = why, opt.Seed
	return r
}

// airborneAltM is the height above the start that counts as airborne.
const airborneAltM = 0.3

// Airborne is the time in the air of a trajectory (local NED, from the
// start): from the first sample more than 0.3 m above the first sample to
// the last such sample, s; 0 when the vehicle never left the ground.
// Result.AirborneS is this of the flight's trace.
func Airborne(tr []trace.Sample) float64 {
	if len(tr) == 0 {
		return 0
	}
	z0 := tr[0].Pos.Z
	first, last := -1, -1
	for i, s := range tr {
		if z0-s.Pos.Z > airborneAltM {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0
	}
	return tr[last].T - tr[first].T
}

// round keeps the reported numbers to what they mean (0.1 mm, 1 ms) so that
// the JSON and text outputs are short and byte-stable.
func (r *Result) round() {
	r.FlightTimeS = roundTo(r.FlightTimeS, 1e3)
	r.AirborneS = roundTo(r.AirborneS, 1e3)
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
