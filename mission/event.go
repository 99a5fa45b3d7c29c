package mission

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
)

// DefaultSpeedMS is the speed of a waypoint that names none (the
// specification's 3 m/s).
const DefaultSpeedMS = 3.0

// MaxWaypoints is the most waypoints one mission may hold.
const MaxWaypoints = 100

// Bounds every coordinate and speed is held to when it is parsed, so that
// no finite number the API accepts can overflow a distance, a rounding or
// the status JSON (1e200 squared is +Inf; 1.8e305 × 1000 too).
const (
	// MaxCoordM bounds |x|, |y| and |z| of a waypoint, home_z and the
	// geofence, m: 100 km, the range the case-study codecs accept from home
	// (scenario.MaxRangeM), far beyond any geofence a mission flies in.
	MaxCoordM = 100e3
	// MaxSpeedMS bounds a waypoint's speed, m/s: 50 m/s is above PX4's
	// largest MPC_XY_VEL_MAX (20 m/s) and any multirotor Shakedown flies.
	MaxSpeedMS = 50.0
	// MaxAltitudeLimitM bounds max_altitude, m: 10 km, the upper end of
	// PX4's GF_MAX_VER_DIST.
	MaxAltitudeLimitM = 10e3
)

// Waypoint is a target in local NED (z down, metres) and the speed to fly
// there; SpeedMS 0 means DefaultSpeedMS.
type Waypoint struct {
	X, Y, Z float64
	SpeedMS float64
}

// Pos returns the waypoint's position.
func (w Waypoint) Pos() geom.Vec3 { return geom.Vec3{X: w.X, Y: w.Y, Z: w.Z} }

func (w Waypoint) speed() float64 {
	if w.SpeedMS == 0 {
		return DefaultSpeedMS
	}
	return w.SpeedMS
}

// String renders the waypoint with its numbers exactly as given (the
// shortest text that parses back to them): an operator's −30.0001 is not
// shown as −30.
func (w Waypoint) String() string {
	return fmt.Sprintf("(%s, %s, %s) %s m/s", exact(w.X), exact(w.Y), exact(w.Z), exact(w.speed()))
}

// exact formats f as the shortest decimal that parses back to it.
func exact(f float64) string {
	if !finite(f) {
		return fmt.Sprint(f)
	}
	return trimZeros(strconv.FormatFloat(f, 'f', -1, 64))
}

// short formats f as the shortest text that parses back to it, with an
// exponent for large values: messages about out-of-range numbers use it.
func short(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// num formats a float compactly and stably: at most three decimals.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	s := fmt.Sprintf("%.3f", f)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// numPast formats v like num, with as many more decimals as it takes for
// the text to stay on v's side of bound: −30.0001 against a bound of −30
// prints as "-30.0001", not "-30". Messages about a broken bound use it.
func numPast(v, bound float64) string {
	if !finite(v) || !finite(bound) || v == bound {
		return num(v)
	}
	for d := 3; d <= 17; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		p, _ := strconv.ParseFloat(s, 64)
		if (v < bound) == (p < bound) && p != bound {
			return trimZeros(s)
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Event is one input of Step: an operator command (Connect, Arm, Airborne,
// Goto, Load, Pause, Resume, Cancel, ReturnHome, Land, Reset) or a report
// from the vehicle side (Telemetry, Result, Link, Tick). The set is closed.
type Event interface {
	// Name is the event's name on the command API ("connect", "mission", …)
	// or, for vehicle-side inputs, a lower-case label.
	Name() string
	isEvent()
}

// Operator commands. Their names are those of the command API.
type (
	// Connect connects to the vehicle and records home (IDLE or LANDED).
	Connect struct{}
	// Arm ("armed") arms the vehicle and takes off (ARMING).
	Arm struct{}
	// Airborne ("airborne") moves to EXECUTING once telemetry confirms the
	// take-off (TAKEOFF).
	Airborne struct{}
	// Goto flies to one waypoint (EXECUTING, no queue running).
	Goto struct{ Waypoint Waypoint }
	// Load ("mission") loads and starts a waypoint queue (EXECUTING, no
	// target).
	Load struct{ Waypoints []Waypoint }
	// Pause holds position, keeping the target (EXECUTING).
	Pause struct{}
	// Resume re-sends the kept target (PAUSED).
	Resume struct{}
	// Cancel drops the target and the rest of the queue and holds
	// (EXECUTING or PAUSED; PAUSED stays PAUSED).
	Cancel struct{}
	// ReturnHome ("return_home") flies above home and lands.
	ReturnHome struct{}
	// Land lands where the vehicle is.
	Land struct{}
	// Reset goes back to IDLE from LANDED or FAILSAFE once the vehicle is on
	// the ground and disarmed.
	Reset struct{}
	// CancelGoal ("cancel_goal") cancels the goal with ID as Cancel does,
	// refused unless that goal is the current, still running one.
	CancelGoal struct{ ID uint64 }
)

// Inputs from the vehicle side.
type (
	// Telemetry is a sample the adapter received from the vehicle.
	Telemetry struct {
		T       float64   // vehicle time, s (informative)
		Pos     geom.Vec3 // m, local NED
		Vel     geom.Vec3 // m/s, NED
		Armed   bool
		Landed  bool
		Battery float64 // remaining charge 0..1; NaN = unknown
		// EphM is the horizontal accuracy of the position, m (GNSS eph); 0
		// = not reported.
		EphM float64
		// TiltRad is the angle between the body's down axis and the local
		// vertical, rad; 0 = level or not reported.
		TiltRad float64
	}
	// Result reports how the command with ID ended: Err nil means the
	// vehicle accepted it.
	Result struct {
		ID  uint64
		Err error
	}
	// Link reports the data link going up or down (for example MAVLink
	// heartbeats lost).
	Link struct{ Up bool }
	// Tick lets time pass; timeouts are checked on every Step.
	Tick struct{}
)

func (Connect) Name() string    { return "connect" }
func (Arm) Name() string        { return "armed" }
func (Airborne) Name() string   { return "airborne" }
func (Goto) Name() string       { return "goto" }
func (Load) Name() string       { return "mission" }
func (Pause) Name() string      { return "pause" }
func (Resume) Name() string     { return "resume" }
func (Cancel) Name() string     { return "cancel" }
func (ReturnHome) Name() string { return "return_home" }
func (Land) Name() string       { return "land" }
func (Reset) Name() string      { return "reset" }
func (CancelGoal) Name() string { return "cancel_goal" }
func (Telemetry) Name() string  { return "telemetry" }
func (Result) Name() string     { return "result" }
func (Link) Name() string       { return "link" }
func (Tick) Name() string       { return "tick" }

func (Connect) isEvent()    {}
func (Arm) isEvent()        {}
func (Airborne) isEvent()   {}
func (Goto) isEvent()       {}
func (Load) isEvent()       {}
func (Pause) isEvent()      {}
func (Resume) isEvent()     {}
func (Cancel) isEvent()     {}
func (ReturnHome) isEvent() {}
func (Land) isEvent()       {}
func (Reset) isEvent()      {}
func (CancelGoal) isEvent() {}
func (Telemetry) isEvent()  {}
func (Result) isEvent()     {}
func (Link) isEvent()       {}
func (Tick) isEvent()       {}

// IsCommand reports whether ev is an operator command (as opposed to an
// input from the vehicle side).
func IsCommand(ev Event) bool {
	switch ev.(type) {
	case Telemetry, Result, Link, Tick:
		return false
	}
	return ev != nil
}

// CmdKind is the kind of a vehicle command.
type CmdKind uint8

// Vehicle commands. Takeoff, Goto, Hold and Land are flight tasks: the
// vehicle keeps flying them after it accepts them, and the machine sends
// CmdCancel (and waits for its result) before it dispatches another.
const (
	CmdNone CmdKind = iota
	CmdConnect
	CmdArm
	CmdTakeoff
	CmdGoto
	CmdHold
	CmdLand
	CmdDisarm
	CmdCancel
)

var cmdNames = [...]string{"none", "connect", "arm", "takeoff", "goto", "hold", "land", "disarm", "cancel"}

// String returns the command's name, e.g. "goto".
func (k CmdKind) String() string {
	if int(k) < len(cmdNames) {
		return cmdNames[k]
	}
	return fmt.Sprintf("CmdKind(%d)", int(k))
}

// Task reports whether k is a flight task.
func (k CmdKind) Task() bool {
	return k == CmdTakeoff || k == CmdGoto || k == CmdHold || k == CmdLand
}

// Command is an order for the vehicle adapter. The adapter executes the
// commands of a Ready in order and reports each with a Result carrying its
// ID; the machine dispatches the next command only after that.
type Command struct {
	ID      uint64
	Kind    CmdKind
	Target  geom.Vec3 // CmdGoto: where, NED
	SpeedMS float64   // CmdGoto: how fast (> 0)
	AltM    float64   // CmdTakeoff: height above home
	// Waypoint is the queue index a CmdGoto flies to, −1 when it is not a
	// queue waypoint.
	Waypoint int
	// Resend marks a CmdGoto that re-sends a target after a pause.
	Resend bool
}

// String renders the command for logs and scenario scripts.
func (c Command) String() string {
	s := fmt.Sprintf("#%d %s", c.ID, c.Kind)
	switch c.Kind {
	case CmdGoto:
		s += fmt.Sprintf(" (%s, %s, %s) %s m/s", num(c.Target.X), num(c.Target.Y), num(c.Target.Z), num(c.SpeedMS))
		if c.Waypoint >= 0 {
			s += fmt.Sprintf(" wp=%d", c.Waypoint)
		}
		if c.Resend {
			s += " resend"
		}
	case CmdTakeoff:
		s += fmt.Sprintf(" %s m", num(c.AltM))
	}
	return s
}

// Record kinds: what the black box keeps.
const (
	KindTransition       = "transition"
	KindCommand          = "command"
	KindMissionLoaded    = "mission_loaded"
	KindWaypointReached  = "waypoint_reached"
	KindMissionCompleted = "mission_completed"
	KindMissionCanceled  = "mission_canceled"
	KindGoalFeedback     = "goal_feedback"
	KindGoalResult       = "goal_result"
)

// Record is an entry for the flight recorder: a real state transition (a
// FAILSAFE one carries "reason=<code>"), a mission milestone, or an operator
// command with its outcome. State is the state after the record's event, or
// for a command the state it arrived in.
type Record struct {
	Kind   string
	State  State
	Detail string
	// Command is the command's name (KindCommand only), e.g. "pause".
	Command string
	// Code is "" for an accepted command and the refusal code (see Code)
	// for a refused one (KindCommand only).
	Code string
	// Goal is the goal's status after the record (KindGoalFeedback and
	// KindGoalResult only).
	Goal *GoalStatus
}

// Ready is what one Step produced. Its slices are reused by the next Step:
// copy what must outlive it.
type Ready struct {
	// Err is nil when the input was accepted; for a refused operator
	// command it says why (see Code), and the machine's state is unchanged.
	Err error
	// Commands to execute in order (at most one per Step, since one command
	// is outstanding at a time).
	Commands []Command
	// Records for the flight recorder.
	Records []Record
	// Changed reports whether the Status may have changed.
	Changed bool
	// Goal is the ID of the goal this step's Load created, 0 if none.
	Goal uint64
}
