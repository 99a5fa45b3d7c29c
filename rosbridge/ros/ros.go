// Package ros holds the standard ROS 2 message types as Go structs, with
// the JSON field names rosbridge uses (the .msg field names): std_msgs,
// builtin_interfaces, geometry_msgs, sensor_msgs, nav_msgs, std_srvs and
// action_msgs. Frames follow REP 103 (ENU for world frames, FLU for body
// frames); this package converts nothing: conversions to Shakedown's NED
// live in the adapters.
package ros

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Type names, as rosbridge's type fields spell them for ROS 2.
const (
	TypeString        = "std_msgs/msg/String"
	TypeBool          = "std_msgs/msg/Bool"
	TypeFloat64       = "std_msgs/msg/Float64"
	TypeEmpty         = "std_msgs/msg/Empty"
	TypeImu           = "sensor_msgs/msg/Imu"
	TypeNavSatFix     = "sensor_msgs/msg/NavSatFix"
	TypeJointState    = "sensor_msgs/msg/JointState"
	TypeLaserScan     = "sensor_msgs/msg/LaserScan"
	TypeBatteryState  = "sensor_msgs/msg/BatteryState"
	TypeOdometry      = "nav_msgs/msg/Odometry"
	TypePath          = "nav_msgs/msg/Path"
	TypeTwist         = "geometry_msgs/msg/Twist"
	TypePoseStamped   = "geometry_msgs/msg/PoseStamped"
	TypeTwistStamped  = "geometry_msgs/msg/TwistStamped"
	TypeAccelStamped  = "geometry_msgs/msg/AccelStamped"
	TypeTrigger       = "std_srvs/srv/Trigger"
	TypeSetBool       = "std_srvs/srv/SetBool"
	TypeGoalStatus    = "action_msgs/msg/GoalStatus"
	TypeGoalStatusArr = "action_msgs/msg/GoalStatusArray"
)

// Time is builtin_interfaces/Time.
type Time struct {
	Sec     int32  `json:"sec"`
	Nanosec uint32 `json:"nanosec"`
}

// TimeOf returns the stamp of t seconds (a vehicle's clock), rounded to the
// nanosecond.
func TimeOf(t float64) Time {
	if !(t >= 0) {
		return Time{}
	}
	sec := math.Floor(t)
	ns := math.Round((t - sec) * 1e9)
	if ns >= 1e9 {
		sec++
		ns -= 1e9
	}
	return Time{Sec: int32(sec), Nanosec: uint32(ns)}
}

// Seconds returns the stamp in seconds.
func (t Time) Seconds() float64 { return float64(t.Sec) + float64(t.Nanosec)*1e-9 }

// Header is std_msgs/Header.
type Header struct {
	Stamp   Time   `json:"stamp"`
	FrameID string `json:"frame_id"`
}

// String is std_msgs/String.
type String struct {
	Data string `json:"data"`
}

// Bool is std_msgs/Bool.
type Bool struct {
	Data bool `json:"data"`
}

// Float64 is std_msgs/Float64.
type Float64 struct {
	Data float64 `json:"data"`
}

// Vector3 is geometry_msgs/Vector3.
type Vector3 struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
}

// Point is geometry_msgs/Point.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
}

// Quaternion is geometry_msgs/Quaternion (x, y, z, w).
type Quaternion struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
	W float64 `json:"w"`
}

// Pose is geometry_msgs/Pose.
type Pose struct {
	Position    Point      `json:"position"`
	Orientation Quaternion `json:"orientation"`
}

// PoseStamped is geometry_msgs/PoseStamped.
type PoseStamped struct {
	Header Header `json:"header"`
	Pose   Pose   `json:"pose"`
}

// Twist is geometry_msgs/Twist.
type Twist struct {
	Linear  Vector3 `json:"linear"`
	Angular Vector3 `json:"angular"`
}

// TwistStamped is geometry_msgs/TwistStamped.
type TwistStamped struct {
	Header Header `json:"header"`
	Twist  Twist  `json:"twist"`
}

// Accel is geometry_msgs/Accel.
type Accel struct {
	Linear  Vector3 `json:"linear"`
	Angular Vector3 `json:"angular"`
}

// AccelStamped is geometry_msgs/AccelStamped.
type AccelStamped struct {
	Header Header `json:"header"`
	Accel  Accel  `json:"accel"`
}

// Covariance is a row-major 6×6 covariance (float64[36]).
type Covariance [36]float64

// Covariance9 is a row-major 3×3 covariance (float64[9]).
type Covariance9 [9]float64

// PoseWithCovariance is geometry_msgs/PoseWithCovariance.
type PoseWithCovariance struct {
	Pose       Pose       `json:"pose"`
	Covariance Covariance `json:"covariance"`
}

// TwistWithCovariance is geometry_msgs/TwistWithCovariance.
type TwistWithCovariance struct {
	Twist      Twist      `json:"twist"`
	Covariance Covariance `json:"covariance"`
}

// Imu is sensor_msgs/Imu: orientation of the body (FLU) in the world
// (ENU), angular velocity and linear acceleration in the body frame.
// Covariance[0] = −1 marks an estimate the sensor does not give.
type Imu struct {
	Header                       Header      `json:"header"`
	Orientation                  Quaternion  `json:"orientation"`
	OrientationCovariance        Covariance9 `json:"orientation_covariance"`
	AngularVelocity              Vector3     `json:"angular_velocity"`
	AngularVelocityCovariance    Covariance9 `json:"angular_velocity_covariance"`
	LinearAcceleration           Vector3     `json:"linear_acceleration"`
	LinearAccelerationCovariance Covariance9 `json:"linear_acceleration_covariance"`
}

// NavSatStatus is sensor_msgs/NavSatStatus.
type NavSatStatus struct {
	Status  int8   `json:"status"`
	Service uint16 `json:"service"`
}

// NavSatStatus values.
const (
	NavSatNoFix  int8  = -1
	NavSatFixed  int8  = 0
	NavSatSBAS   int8  = 1
	NavSatGBAS   int8  = 2 // ground-based augmentation: RTK
	ServiceGPS         = 1
	CovKnownDiag uint8 = 2 // COVARIANCE_TYPE_DIAGONAL_KNOWN
)

// NavSatFix is sensor_msgs/NavSatFix.
type NavSatFix struct {
	Header                 Header       `json:"header"`
	Status                 NavSatStatus `json:"status"`
	Latitude               float64      `json:"latitude"`
	Longitude              float64      `json:"longitude"`
	Altitude               float64      `json:"altitude"`
	PositionCovariance     Covariance9  `json:"position_covariance"`
	PositionCovarianceType uint8        `json:"position_covariance_type"`
}

// JointState is sensor_msgs/JointState.
type JointState struct {
	Header   Header   `json:"header"`
	Name     []string `json:"name"`
	Position Floats   `json:"position"`
	Velocity Floats   `json:"velocity"`
	Effort   Floats   `json:"effort"`
}

// LaserScan is sensor_msgs/LaserScan: angles counter-clockwise from the
// sensor's x axis (REP 103); ranges outside [RangeMin, RangeMax] are not
// returns.
type LaserScan struct {
	Header         Header  `json:"header"`
	AngleMin       float64 `json:"angle_min"`
	AngleMax       float64 `json:"angle_max"`
	AngleIncrement float64 `json:"angle_increment"`
	TimeIncrement  float64 `json:"time_increment"`
	ScanTime       float64 `json:"scan_time"`
	RangeMin       float64 `json:"range_min"`
	RangeMax       float64 `json:"range_max"`
	Ranges         Floats  `json:"ranges"`
	Intensities    Floats  `json:"intensities"`
}

// BatteryState is sensor_msgs/BatteryState (the fields a monitor fills).
type BatteryState struct {
	Header                Header  `json:"header"`
	Voltage               float64 `json:"voltage"`
	Temperature           float64 `json:"temperature"`
	Current               float64 `json:"current"`
	Charge                float64 `json:"charge"`
	Capacity              float64 `json:"capacity"`
	DesignCapacity        float64 `json:"design_capacity"`
	Percentage            float64 `json:"percentage"`
	PowerSupplyStatus     uint8   `json:"power_supply_status"`
	PowerSupplyHealth     uint8   `json:"power_supply_health"`
	PowerSupplyTechnology uint8   `json:"power_supply_technology"`
	Present               bool    `json:"present"`
	CellVoltage           Floats  `json:"cell_voltage"`
	CellTemperature       Floats  `json:"cell_temperature"`
	Location              string  `json:"location"`
	SerialNumber          string  `json:"serial_number"`
}

// BatteryState technologies (POWER_SUPPLY_TECHNOLOGY_*).
const (
	TechUnknown uint8 = 0
	TechNiMH    uint8 = 1
	TechLiON    uint8 = 2
	TechLiPo    uint8 = 3
	TechLiFe    uint8 = 4
)

// Odometry is nav_msgs/Odometry: the pose of ChildFrameID in
// Header.FrameID, the twist in ChildFrameID.
type Odometry struct {
	Header       Header              `json:"header"`
	ChildFrameID string              `json:"child_frame_id"`
	Pose         PoseWithCovariance  `json:"pose"`
	Twist        TwistWithCovariance `json:"twist"`
}

// Path is nav_msgs/Path.
type Path struct {
	Header Header        `json:"header"`
	Poses  []PoseStamped `json:"poses"`
}

// TriggerResponse is std_srvs/Trigger's response (its request is empty).
type TriggerResponse struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// SetBoolRequest is std_srvs/SetBool's request.
type SetBoolRequest struct {
	Data bool `json:"data"`
}

// SetBoolResponse is std_srvs/SetBool's response.
type SetBoolResponse = TriggerResponse

// UUID is unique_identifier_msgs/UUID.
type UUID struct {
	UUID [16]uint8 `json:"uuid"`
}

// GoalInfo is action_msgs/GoalInfo.
type GoalInfo struct {
	GoalID UUID `json:"goal_id"`
	Stamp  Time `json:"stamp"`
}

// GoalStatus is action_msgs/GoalStatus.
type GoalStatus struct {
	GoalInfo GoalInfo `json:"goal_info"`
	Status   int8     `json:"status"`
}

// GoalStatusArray is action_msgs/GoalStatusArray.
type GoalStatusArray struct {
	StatusList []GoalStatus `json:"status_list"`
}

// Floats is a float array whose NaN and infinite values travel as null
// (JSON has no NaN; rosbridge's own encoder writes null for them too) and
// read back as NaN.
type Floats []float64

// MarshalJSON writes non-finite values as null.
func (f Floats) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("[]"), nil
	}
	b := make([]byte, 0, 2+len(f)*8)
	b = append(b, '[')
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads null as NaN.
func (f *Floats) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*f = nil
		return nil
	}
	var raw []*float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Floats, len(raw))
	for i, p := range raw {
		if p == nil {
			out[i] = math.NaN()
		} else {
			out[i] = *p
		}
	}
	*f = out
	return nil
}
