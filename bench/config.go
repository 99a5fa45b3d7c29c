package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/traj"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Marks of the two suites, as AirStack's pytest marks.
const (
	MarkAutonomy         = "autonomy"           // the fixed-trajectory benchmark
	MarkTakeoffHoverLand = "takeoff_hover_land" // the takeoff / hover / land suite
)

// SimName is the simulator's name in test ids, where AirStack has isaacsim
// or msairsim.
const SimName = "shakedown"

// Constants of AirStack's test modules (airstack.md §2.1, §6).
const (
	TargetAltM         = 10.0  // TARGET_ALTITUDE_M
	ReadyTimeoutS      = 300.0 // PX4_READY_TIMEOUT_S, here in simulated seconds
	ReadyMinS          = 2.0   // the estimator runs this long before ready (AirStack polls every 2 s)
	TrajTimeoutS       = 180.0 // TRAJ_EXEC_TIMEOUT_S
	CrossTrackTolM     = 5.0   // CROSS_TRACK_TOLERANCE_M
	AltTolFrac         = 0.10  // takeoff: |altitude error| ≤ 10 % of the target
	HoverDurationS     = 10.0  // HOVER_DURATION_S
	HoverTolM          = 0.5   // hover_altitude_mean_error_m bound
	TrajSpeedMS        = 1.0   // takeoff and landing speed of the fixed-trajectory module
	TakeoffAcceptM     = 0.3   // takeoff_acceptance_distance
	TakeoffAcceptS     = 1.0   // takeoff_acceptance_time
	TakeoffCheckHz     = 10.0  // the takeoff task checks its acceptance at 10 Hz
	TaskPollHz         = 5.0   // FixedTrajectoryTask polls completion at 5 Hz
	OdomHz             = 30.0  // MAVROS local_position/odom rate
	DefaultSeparationM = 40.0  // distance between robots' start points (East)
)

// PhaseTimeoutS is the takeoff and landing action timeout at speed v:
// max(30, 10/v + 15) s.
func PhaseTimeoutS(v float64) float64 { return math.Max(30, TargetAltM/v+15) }

// Config is one campaign. Zero values mean the defaults named.
type Config struct {
	// Types are the trajectory types, in order; nil = Circle, Figure8,
	// Racetrack, Line.
	Types []string
	// Params override generator attributes per type (see traj.Resolve).
	Params map[string]map[string]float64
	// NumRobots are the robot counts; nil = 1, 3. Each count is one world
	// with that many robots flying together.
	NumRobots []int
	// Iterations is --stress-iterations; 0 = 1.
	Iterations int
	// Tracker names the tracker (track.Names); "" = track.Default. With
	// NewTracker it is only the name the results carry.
	Tracker string
	// NewTracker, when not nil, makes the tracker of each robot (1-based)
	// for each trajectory instead of track.New(Tracker): the built-in
	// trackers with parameters (track.NewWith) or one outside the process
	// (package track/extern). A tracker with an Err() error method that
	// reports an error when it is done failed the trajectory; one with a
	// Close() error method is closed after it.
	NewTracker func(robot int) (track.Tracker, error)
	// Seed seeds every random draw: sensor noise, gusts, the wind's
	// direction. Each (suite, robot count, iteration, robot) gets its own
	// stream derived from it.
	Seed uint64
	// Marks is -m, over the suites' marks; "" = "autonomy".
	Marks string
	// Keyword is -k, over the test ids; "" selects all.
	Keyword string
	// TakeoffVelocities are the takeoff_hover_land suite's speeds; nil = 0.5.
	TakeoffVelocities []float64
	// WindMS is the steady wind's speed; its direction is drawn per world
	// from the seed. GustMS is the gusts' standard deviation (sim.WindConfig).
	WindMS, GustMS float64
	// SeparationM is the distance between the robots' start points;
	// 0 = DefaultSeparationM.
	SeparationM float64
	// Workers is how many worlds fly at once; 0 = 1.
	Workers int

	// Now is the wall clock (ready_duration_sys_s, JUnit times); nil =
	// time.Now.
	Now func() time.Time
	// Progress, if set, is called after each phase.
	Progress func(Progress)
	// Inject, if set, is called before each phase with the world's
	// simulators: a hook for fault injection in tests and drills.
	Inject func(p PhaseInfo, robots []*vehicle.Sim)
	// Record, if set, records every robot of every environment as an MCAP
	// flight log (package flightlog) into the writer it returns for the
	// environment's name (as in "shakedown-rob#3-iter0", the ready phase's
	// parameter) and the robot's number (1-based). The writers are not
	// closed.
	Record func(env string, robot int) (io.Writer, error)
}

// Progress reports a finished phase.
type Progress struct {
	Done, Total int
	Case        string // the test id just finished
}

// Errors of Validate.
var ErrConfig = errors.New("bench: bad configuration")

// normalize fills in defaults and validates; it returns the resolved
// generator attributes per type.
func (c *Config) normalize() (map[string]map[string]float64, error) {
	if c.Types == nil {
		c.Types = traj.Types()
	}
	if c.NumRobots == nil {
		c.NumRobots = []int{1, 3}
	}
	if c.Iterations == 0 {
		c.Iterations = 1
	}
	if c.Tracker == "" {
		c.Tracker = track.Default
	}
	if c.Marks == "" {
		c.Marks = MarkAutonomy
	}
	if c.TakeoffVelocities == nil {
		c.TakeoffVelocities = []float64{0.5}
	}
	if c.SeparationM == 0 {
		c.SeparationM = DefaultSeparationM
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if len(c.Types) == 0 {
		return nil, fmt.Errorf("%w: no trajectory types", ErrConfig)
	}
	seen := map[string]bool{}
	for _, t := range c.Types {
		if _, err := traj.Defaults(t); err != nil {
			return nil, err
		}
		if seen[t] {
			return nil, fmt.Errorf("%w: trajectory type %s given twice", ErrConfig, t)
		}
		seen[t] = true
	}
	attrs := map[string]map[string]float64{}
	for t := range c.Params {
		if _, err := traj.Defaults(t); err != nil {
			return nil, err
		}
		if !seen[t] {
			return nil, fmt.Errorf("%w: parameters given for %s, which is not swept", ErrConfig, t)
		}
	}
	for _, t := range c.Types {
		m, err := traj.Resolve(t, c.Params[t])
		if err != nil {
			return nil, err
		}
		attrs[t] = m
	}
	if len(c.NumRobots) == 0 {
		return nil, fmt.Errorf("%w: no robot counts", ErrConfig)
	}
	for _, n := range c.NumRobots {
		if n < 1 || n > 64 {
			return nil, fmt.Errorf("%w: robot count %d out of range 1..64", ErrConfig, n)
		}
	}
	if c.Iterations < 1 || c.Iterations > 10000 {
		return nil, fmt.Errorf("%w: stress iterations %d out of range 1..10000", ErrConfig, c.Iterations)
	}
	if _, err := track.New(c.Tracker); err != nil && c.NewTracker == nil {
		return nil, err
	}
	for _, v := range c.TakeoffVelocities {
		if !(v > 0) || v > 5 {
			return nil, fmt.Errorf("%w: takeoff velocity %v must be > 0 and at most 5 m/s", ErrConfig, v)
		}
	}
	for name, v := range map[string]float64{"wind": c.WindMS, "gust": c.GustMS} {
		if !(v >= 0) || v > 15 {
			return nil, fmt.Errorf("%w: %s %v m/s must be in [0, 15]", ErrConfig, name, v)
		}
	}
	if !(c.SeparationM > 0) || math.IsInf(c.SeparationM, 0) {
		return nil, fmt.Errorf("%w: robot separation %v m must be > 0", ErrConfig, c.SeparationM)
	}
	if c.Workers < 1 {
		return nil, fmt.Errorf("%w: workers %d must be ≥ 1", ErrConfig, c.Workers)
	}
	if _, err := ParseExpr(c.Marks); err != nil {
		return nil, err
	}
	if _, err := ParseExpr(c.Keyword); err != nil {
		return nil, err
	}
	return attrs, nil
}

// Meta is the campaign's description, written to run_meta.json: what was
// asked for, and the fingerprint of what makes two runs comparable.
type Meta struct {
	SchemaVersion     int                           `json:"schema_version"`
	Outcome           string                        `json:"outcome"`
	FailureClass      string                        `json:"failure_class"`
	Sim               string                        `json:"sim"`
	Tracker           string                        `json:"tracker"`
	Seed              uint64                        `json:"seed"`
	Types             []string                      `json:"trajectory_types"`
	Params            map[string]map[string]float64 `json:"trajectory_params"`
	NumRobots         []int                         `json:"num_robots"`
	Iterations        int                           `json:"stress_iterations"`
	Marks             string                        `json:"marks"`
	Keyword           string                        `json:"keyword"`
	TakeoffVelocities []float64                     `json:"takeoff_velocities"`
	WindMS            float64                       `json:"wind_m_s"`
	GustMS            float64                       `json:"gust_m_s"`
	SeparationM       float64                       `json:"separation_m"`
	Counts            Counts                        `json:"counts"`
	Selected          []string                      `json:"selected_ids"`
	Fingerprint       string                        `json:"campaign_fingerprint"`
	Started           string                        `json:"started"`
}

// Counts are the test outcomes.
type Counts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Total   int `json:"total"`
}

// CampaignFingerprint returns the SHA-256 (hex) over the sorted selected test ids and
// every option that changes what is flown or measured: trajectory types and
// their resolved attributes, robot counts, iterations, marks, keyword,
// takeoff velocities, wind, gusts and separation. The tracker and the seed
// are not part of it: comparing trackers, and seeds, is what the compare is
// for.
func (m *Meta) CampaignFingerprint() string {
	h := sha256.New()
	ids := append([]string(nil), m.Selected...)
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(h, "id %s\n", id)
	}
	for _, k := range m.ConfigKeys() {
		fmt.Fprintf(h, "%s\n", k)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ConfigKeys returns the behaviour-changing options as "name value" lines,
// in a fixed order; two runs compare when these (and the ids) agree.
func (m *Meta) ConfigKeys() []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var out []string
	out = append(out, "sim "+m.Sim, "trajectory_types "+strings.Join(m.Types, ","))
	types := make([]string, 0, len(m.Params))
	for t := range m.Params {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		names := make([]string, 0, len(m.Params[t]))
		for n := range m.Params[t] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, fmt.Sprintf("trajectory_param %s.%s %s", t, n, f(m.Params[t][n])))
		}
	}
	robots := make([]string, len(m.NumRobots))
	for i, n := range m.NumRobots {
		robots[i] = strconv.Itoa(n)
	}
	vels := make([]string, len(m.TakeoffVelocities))
	for i, v := range m.TakeoffVelocities {
		vels[i] = f(v)
	}
	out = append(out,
		"num_robots "+strings.Join(robots, ","),
		"stress_iterations "+strconv.Itoa(m.Iterations),
		"marks "+m.Marks,
		"keyword "+m.Keyword,
		"takeoff_velocities "+strings.Join(vels, ","),
		"wind_m_s "+f(m.WindMS),
		"gust_m_s "+f(m.GustMS),
		"separation_m "+f(m.SeparationM),
	)
	return out
}
