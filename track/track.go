package track

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

// Errors.
var (
	ErrUnknown    = errors.New("track: unknown tracker")
	ErrNotWorld   = errors.New("track: path is not in the world frame")
	ErrNotStarted = errors.New("track: tracker not started")
)

// Odom is what a tracker sees of the vehicle: its own estimate, as AirStack's
// trackers see the odometry topic.
type Odom struct {
	T   float64   // s, vehicle time
	Pos geom.Vec3 // m, NED
	Vel geom.Vec3 // m/s, NED
	Yaw float64   // rad, heading
}

// Command is what a tracker asks of the vehicle. It is one of two kinds:
//
//   - a motion setpoint (Attitude false): Pos, Vel and Acc (NED; NaN
//     components unused, as in PX4's SET_POSITION_TARGET_LOCAL_NED) and Yaw
//     for the vehicle's own position controller;
//   - an attitude setpoint (Attitude true): Att and Thrust for the vehicle's
//     attitude controller, the interface through which AirStack's
//     pid_controller drives PX4 (MAVROS AttitudeTarget). Pos and Vel then
//     carry the tracking point, for the record only.
type Command struct {
	Attitude bool

	Pos, Vel, Acc geom.Vec3
	Yaw           float64 // rad, heading; NaN keeps the heading

	Att    geom.Quat // body FRD → NED
	Thrust float64   // collective specific thrust as a multiple of the hover thrust (1 = hover)
}

// Tracker follows a path. The harness calls Start once at dispatch and then
// Update at every simulation step (or at whatever rate the vehicle link
// allows); a tracker keeps its own rate internally. Done is the action's
// completion: AirStack's FixedTrajectoryTask succeeds when it turns true.
type Tracker interface {
	// Name returns the name the tracker is selected by.
	Name() string
	// Start begins following p (world frame) with the vehicle at o.
	Start(p traj.Path, o Odom) error
	// Update returns the command for the vehicle at o.
	Update(o Odom) Command
	// Progress returns the tracker's completion, 0..1.
	Progress() float64
	// Done reports whether the tracker has finished the path.
	Done() bool
}

// Default is the name of the default tracker.
const Default = "feedforward"

var registry = map[string]func() Tracker{
	"airstack":    func() Tracker { return NewAirStack(AirStackConfig{}) },
	"feedforward": func() Tracker { return NewFeedforward(FeedforwardConfig{}) },
}

// Names returns the tracker names, sorted.
func Names() []string {
	n := make([]string, 0, len(registry))
	for k := range registry {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// New returns a new tracker of the named kind with its default
// configuration.
func New(name string) (Tracker, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// timed checks p and times it with AirStack's time law.
func timed(p traj.Path) (*traj.Timed, error) {
	if p.Frame != traj.World {
		return nil, ErrNotWorld
	}
	return traj.NewTimed(p.Waypoints)
}
