package bench

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shakedown-robotics/shakedown/bench/metric"
	"github.com/shakedown-robotics/shakedown/geom"
)

// Modules and classes of the two suites, as AirStack names them.
const (
	ModuleTrajectory = "test_fixed_trajectory"
	ClassTrajectory  = "TestFixedTrajectory"
	ModuleHover      = "test_takeoff_hover_land"
	ClassHover       = "TestTakeoffHoverLand"
)

// Phase tests.
const (
	TestReady      = "test_px4_ready"
	TestTakeoff    = "test_takeoff"
	TestTrajectory = "test_fixed_trajectory"
	TestHover      = "test_hover"
	TestLanding    = "test_landing"
)

// Status is a test's outcome.
type Status string

// Outcomes.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
)

// Case is one test: one phase of one (suite, robot count, trajectory type
// or takeoff velocity, iteration).
type Case struct {
	Module, Class, Test string
	Param               string // e.g. "shakedown-rob#1-trajCircle-iter0"
	Status              Status
	Message             string  // why it failed or was skipped
	WallS               float64 // wall-clock duration, s
	SimS                float64 // simulated duration, s
}

// ID returns the test id as AirStack writes it into metrics.json: the
// pytest node id with ".py::" and "::" turned into ".".
func (c Case) ID() string {
	return c.Module + "." + c.Class + "." + c.Test + "[" + c.Param + "]"
}

// Name returns the JUnit test name, test[param].
func (c Case) Name() string { return c.Test + "[" + c.Param + "]" }

// Direction says which way a metric is better.
type Direction string

// Directions. Informational metrics are reported and never judged: a
// signed bias, or a wall-clock time that depends on the machine.
const (
	LowerIsBetter  Direction = "lower_is_better"
	HigherIsBetter Direction = "higher_is_better"
	Informational  Direction = "informational"
)

// Metric is one recorded number, or a sentinel ("timeout", "aborted") where
// a number could not be had.
type Metric struct {
	Value     float64
	Sentinel  string
	Unit      string
	Direction Direction
}

// IsNumber reports whether the metric holds a number.
func (m Metric) IsNumber() bool { return m.Sentinel == "" }

// String formats the value as summary.txt does (%g with the unit).
func (m Metric) String() string {
	if !m.IsNumber() {
		return m.Sentinel
	}
	s := strconv.FormatFloat(m.Value, 'g', -1, 64)
	if m.Unit != "" {
		s += " " + m.Unit
	}
	return s
}

// Flight is one robot's trajectory phase, kept for plots and CSV.
type Flight struct {
	Case   string // the trajectory test's id
	Param  string
	Type   string
	Robot  int         // 1-based
	Ideal  []geom.Vec3 // the ideal vertex list, NED
	Flown  []metric.Sample
	Series []metric.Point
}

// Result is a finished campaign.
type Result struct {
	Meta    Meta
	Started time.Time
	Cases   []Case
	// Metrics maps a test id to its metrics, keyed "robot_N.<key>".
	Metrics map[string]map[string]Metric
	Flights []Flight
}

// param returns the parameter id of a fixed-trajectory test.
func trajParam(robots int, typ string, iter int) string {
	return fmt.Sprintf("%s-rob#%d-traj%s-iter%d", SimName, robots, typ, iter)
}

// hoverParam returns the parameter id of a takeoff_hover_land test.
func hoverParam(robots int, v float64, iter int) string {
	return fmt.Sprintf("%s-rob#%d-vel%s-iter%d", SimName, robots, strconv.FormatFloat(v, 'g', -1, 64), iter)
}

// robotKey returns "robot_N.key".
func robotKey(robot int, key string) string { return "robot_" + strconv.Itoa(robot) + "." + key }
