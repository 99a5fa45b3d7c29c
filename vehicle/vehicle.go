// Package vehicle is the seam every harness flies through: the Vehicle
// interface (what a harness may see and do with a robot) and Sim, the
// embedded simulator behind it.
//
// A harness sees only the robot's own telemetry (estimated pose, IMU, GNSS,
// barometer, battery, range sensor, armed and landed state) and sends only
// commands a flight controller accepts. It never sees ground truth: scoring
// reads the simulator's own record (Sim.Trace, Sim.Crash) outside this
// interface. Time passes through the vehicle: Wait on the simulator steps it
// as fast as the CPU allows; on a real link it is the wall clock.
package vehicle

import (
	"context"
	"errors"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
)

// ErrUnsupported is returned for a command the vehicle cannot carry out.
var ErrUnsupported = errors.New("vehicle: command not supported")

// ErrTimeout is returned by Wait when the duration passed before the
// condition held.
var ErrTimeout = errors.New("vehicle: wait timed out")

// IMU is an inertial sample in the body frame (FRD).
//
// Seq, here and on the other sensors, counts the samples since start (1 =
// the first), like the mower's Stamp.Seq: Telemetry holds only the latest
// sample, and a reader that does not look at every one (a loaded machine,
// a poll slower than the sensor) still learns how many there were. Over a
// link it counts the samples that arrived.
type IMU struct {
	T     float64   // s, vehicle time of the sample
	Seq   uint64    // samples since start
	Accel geom.Vec3 // m/s², specific force
	Gyro  geom.Vec3 // rad/s
}

// GNSS is a receiver solution in local NED about home.
type GNSS struct {
	T          float64
	Seq        uint64
	Fix        int // 0 none, 3 3-D (GPS_FIX_TYPE)
	Satellites int
	EphM, EpvM float64
	Pos        geom.Vec3
	Vel        geom.Vec3
}

// Baro is a barometer sample.
type Baro struct {
	T          float64
	Seq        uint64
	PressurePa float64
	TempC      float64
	AltM       float64
}

// Battery is the battery monitor's reading.
type Battery struct {
	T         float64
	Seq       uint64
	VoltageV  float64
	CurrentA  float64
	UsedMAh   float64
	Remaining float64 // 0..1
	Cells     int
}

// Range is a range-sensor scan; see quad.RangeConfig for the ray layout.
type Range struct {
	T      float64
	Seq    uint64
	Cols   int
	Rows   int
	Ranges []float64   // m; NaN below the minimum range
	Dirs   []geom.Vec3 // unit ray directions, body frame
	MaxM   float64
}

// Telemetry is everything a vehicle tells about itself. Times are the
// vehicle's clock in seconds; a sensor's age is T minus its sample time.
type Telemetry struct {
	T           float64
	Armed       bool
	Landed      bool
	Mode        string
	Pos         geom.Vec3 // estimated position, m, NED about the origin
	Vel         geom.Vec3 // estimated velocity, m/s, NED
	Att         geom.Quat // estimated attitude, body → NED
	Home        geom.Vec3 // home position (where it was armed), NED
	MissionItem int       // current mission item
	MissionDone bool      // the mission ran to its end
	IMU         IMU
	GNSS        GNSS
	Baro        Baro
	Battery     Battery
	Range       Range // Ranges is nil without a range sensor
}

// Heading returns the estimated yaw, rad, 0 = North, positive toward East.
func (t Telemetry) Heading() float64 { return t.Att.Yaw() }

// AltM returns the estimated height above home, m.
func (t Telemetry) AltM() float64 { return t.Home.Z - t.Pos.Z }

// ItemKind is the kind of a mission item.
type ItemKind int

// Mission item kinds.
const (
	Takeoff ItemKind = iota
	Waypoint
	Land
)

// MissionItem is one item of a mission, in local NED about home (Z is minus
// the altitude above home).
type MissionItem struct {
	Kind          ItemKind
	Pos           geom.Vec3
	AcceptRadiusM float64 // 0 = the vehicle's default
	SpeedMS       float64 // cruise speed to this item (DO_CHANGE_SPEED); 0 = the vehicle's default
}

// Setpoint is an offboard setpoint; NaN components are unused.
type Setpoint struct {
	Pos geom.Vec3 // m, NED
	Vel geom.Vec3 // m/s, NED
	Acc geom.Vec3 // m/s², NED feed-forward; NaN or zero components add nothing
	Yaw float64   // rad; NaN = keep the heading
}

// Vehicle is what a harness flies. Implementations: Sim (embedded simulator)
// and, in package mavlink, real autopilots.
type Vehicle interface {
	// Telemetry returns the latest telemetry.
	Telemetry() Telemetry
	// Arm arms the motors on the ground.
	Arm(ctx context.Context) error
	// Disarm stops the motors on the ground.
	Disarm(ctx context.Context) error
	// Takeoff climbs to altM above home and holds.
	Takeoff(ctx context.Context, altM float64) error
	// Goto flies to p at speedMS (0 = the vehicle's cruise speed) and holds.
	Goto(ctx context.Context, p geom.Vec3, speedMS float64) error
	// Setpoint streams an offboard setpoint and switches to offboard control.
	Setpoint(ctx context.Context, sp Setpoint) error
	// Hold holds the current position.
	Hold(ctx context.Context) error
	// Land lands where the vehicle is.
	Land(ctx context.Context) error
	// Return flies home and lands.
	Return(ctx context.Context) error
	// Kill stops the motors at once, in the air too.
	Kill(ctx context.Context) error
	// UploadMission replaces the vehicle's mission.
	UploadMission(ctx context.Context, items []MissionItem) error
	// StartMission flies the uploaded mission from its first item.
	StartMission(ctx context.Context) error
	// Wait lets d of vehicle time pass, returning early with nil once until
	// (if not nil) holds for the telemetry; ErrTimeout when d passed first.
	Wait(ctx context.Context, d time.Duration, until func(Telemetry) bool) (Telemetry, error)
}
