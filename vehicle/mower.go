package vehicle

import (
	"context"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/geom"
)

// Stamp is a sample's time on the vehicle's clock (s) and its sequence
// number: how many samples the sensor has published since start, like a ROS
// header's. Counting Seq gives a sensor's rate without seeing every sample.
type Stamp struct {
	T   float64
	Seq uint64
}

// MowerIMU is an inertial sample in the body frame (FRD).
type MowerIMU struct {
	Stamp
	Accel geom.Vec3 // m/s², specific force
	Gyro  geom.Vec3 // rad/s
}

// RTK fix types, as MAVLink's GPS_FIX_TYPE.
const (
	FixRTKFloat = 5
	FixRTKFixed = 6
)

// RTK is an RTK GNSS solution in local NED about the base station.
type RTK struct {
	Stamp
	Fix    int     // GPS_FIX_TYPE
	SigmaM float64 // reported horizontal accuracy, 1σ, m
	Pos    geom.Vec2
}

// JointStates are the drive wheels' encoders (left, right; positive rolling
// forward) and the blade motor's speed.
type JointStates struct {
	Stamp
	WheelRad  [2]float64 // rad
	WheelRadS [2]float64 // rad/s
	BladeRadS float64
}

// LidarScan is a planar scan: beam i looks AngleMinRad + i·AngleIncRad from
// the forward direction, positive to the right; NaN below MinM, MaxM when
// nothing is hit. Ranges is valid until the next Wait; copy what must be
// kept. A mower without a lidar reports nil Ranges.
type LidarScan struct {
	Stamp
	AngleMinRad float64
	AngleIncRad float64
	Ranges      []float64
	MinM, MaxM  float64
	MountXM     float64 // lidar ahead of the axle centre, m
}

// MowerBattery is the battery monitor's reading.
type MowerBattery struct {
	Stamp
	VoltageV  float64
	CurrentA  float64
	Remaining float64 // 0..1
	Cells     int
}

// SafetyStatus is what the safety gate publishes about itself and shows on
// the ring light.
type SafetyStatus struct {
	Latched bool
	Ring    gate.Ring
	Hold    gate.Hold
}

// MowerSensors is everything a mower tells about itself: its own sensors
// and its safety gate's status. There is no pose in it: a mower's position
// is what its GNSS says.
type MowerSensors struct {
	T       float64 // the vehicle's clock, s
	IMU     MowerIMU
	GNSS    RTK
	Joints  JointStates
	Lidar   LidarScan
	Battery MowerBattery
	Safety  SafetyStatus
}

// Button is one of the mower's buttons.
type Button int

// The mower's buttons.
const (
	ButtonStop Button = iota // latching STOP
	ButtonGo                 // GO: held 2 s, releases the STOP latch
)

// Mower is what a harness drives a mower through. Every command goes through
// the robot's safety gate, exactly as a mowing mission's would.
// Implementations: MowerSim (embedded simulator); on a real robot an adapter
// whose Press asks the operator to press the button and returns once the
// robot reports it.
type Mower interface {
	// Sensors returns the latest sensor samples.
	Sensors() MowerSensors
	// Send hands the safety gate a driver's request. A driver that wants
	// motion must repeat it at least every 0.5 s.
	Send(ctx context.Context, c gate.Command) error
	// Press holds a button down (true) or lets it go (false).
	Press(ctx context.Context, b Button, down bool) error
	// Wait lets d of vehicle time pass, returning early with nil once until
	// (if not nil) holds; ErrTimeout when d passed first.
	Wait(ctx context.Context, d time.Duration, until func(MowerSensors) bool) (MowerSensors, error)
}
