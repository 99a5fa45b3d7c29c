package quad

import (
	"cmp"
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// IMU is one inertial sample in the body frame (FRD).
type IMU struct {
	T     float64   // s, sample time
	Seq   uint64    // samples taken since start (1 = the first); see RangeScan.Seq
	Accel geom.Vec3 // m/s², specific force (acceleration minus gravity), body
	Gyro  geom.Vec3 // rad/s, body rates
}

// GNSS fix types, as MAVLink's GPS_FIX_TYPE.
const (
	FixNone = 0
	Fix3D   = 3
)

// GNSS is one receiver solution, expressed in local NED about the origin.
type GNSS struct {
	T          float64   // s
	Seq        uint64    // solutions since start
	Fix        int       // FixNone or Fix3D
	Satellites int       // satellites used
	EphM, EpvM float64   // reported horizontal and vertical accuracy (1σ-like), m
	Pos        geom.Vec3 // m, NED
	Vel        geom.Vec3 // m/s, NED
}

// Baro is one barometer sample.
type Baro struct {
	T          float64 // s
	Seq        uint64  // samples since start
	PressurePa float64
	TempC      float64
	AltM       float64 // altitude above the origin from the ISA model, m
}

// Battery is the battery monitor's reading.
type Battery struct {
	T         float64 // s
	Seq       uint64  // readings since start
	VoltageV  float64 // terminal voltage under load
	CurrentA  float64
	UsedMAh   float64
	Remaining float64 // state of charge 0..1
	Cells     int
}

// RangeKind selects the range sensor.
type RangeKind int

// Range sensor kinds.
const (
	RangeNone  RangeKind = iota // no range sensor
	RangeDepth                  // forward depth camera: a grid of rays
	RangeLidar                  // planar 360° lidar in the body x–y plane
)

func (k RangeKind) String() string {
	switch k {
	case RangeNone:
		return "none"
	case RangeDepth:
		return "depth"
	case RangeLidar:
		return "lidar"
	}
	return fmt.Sprintf("RangeKind(%d)", int(k))
}

// RangeConfig describes the range sensor. Rays are spread evenly over the
// field of view, column-major from left to right (negative to positive body
// yaw angle) and, within a column, from top to bottom. Each reading is the
// distance along the ray to the first box face or the ground, MaxRangeM when
// nothing is hit, and NaN below MinRangeM (too close to measure).
type RangeConfig struct {
	Kind        RangeKind
	HFOVDeg     float64 // horizontal field of view; lidar: 360
	VFOVDeg     float64 // vertical field of view; 0 with Rows = 1
	Cols, Rows  int
	MinRangeM   float64
	MaxRangeM   float64
	RateHz      float64
	NoiseSigmaM float64 // additive Gaussian noise, m
}

// DepthCamera returns the forward depth camera of Aerialist's
// iris_depth_camera (px4.md §4.1: 1.02974 rad ≈ 59° horizontal, ≈ 46°
// vertical, 20 Hz, clip 0.5–18 m), sampled on cols × rows rays rather than
// its 64 × 48 pixels, to keep the cost of a step low.
func DepthCamera(cols, rows int) RangeConfig {
	return RangeConfig{
		Kind: RangeDepth, HFOVDeg: 1.02974 * 180 / math.Pi, VFOVDeg: 46,
		Cols: cols, Rows: rows, MinRangeM: 0.5, MaxRangeM: 18, RateHz: 20, NoiseSigmaM: 0.007,
	}
}

// Lidar returns a planar lidar with n beams, 0.1–30 m, 10 Hz, 2 cm noise.
func Lidar(n int) RangeConfig {
	return RangeConfig{Kind: RangeLidar, HFOVDeg: 360, Cols: n, Rows: 1, MinRangeM: 0.1, MaxRangeM: 30, RateHz: 10, NoiseSigmaM: 0.02}
}

// Validate reports a range configuration that cannot be simulated.
func (c RangeConfig) Validate() error {
	if c.Kind == RangeNone {
		return nil
	}
	if c.Kind != RangeDepth && c.Kind != RangeLidar {
		return fmt.Errorf("quad: range: unknown kind %d", int(c.Kind))
	}
	if c.Cols < 1 || c.Rows < 1 || c.Cols*c.Rows > 1<<16 {
		return fmt.Errorf("quad: range: %d×%d rays out of range [1, 65536]", c.Cols, c.Rows)
	}
	if !(c.HFOVDeg > 0 && c.HFOVDeg <= 360) || !(c.VFOVDeg >= 0 && c.VFOVDeg < 180) {
		return fmt.Errorf("quad: range: field of view %v×%v° out of range", c.HFOVDeg, c.VFOVDeg)
	}
	if !(c.MinRangeM >= 0 && c.MaxRangeM > c.MinRangeM) || math.IsInf(c.MaxRangeM, 0) {
		return fmt.Errorf("quad: range: range [%v, %v] m is not a finite interval", c.MinRangeM, c.MaxRangeM)
	}
	if !(c.RateHz > 0) || math.IsInf(c.RateHz, 0) || !(c.NoiseSigmaM >= 0) || math.IsInf(c.NoiseSigmaM, 0) {
		return fmt.Errorf("quad: range: rate %v Hz and noise %v m must be finite, rate > 0", c.RateHz, c.NoiseSigmaM)
	}
	return nil
}

// RangeScan is the latest range sensor reading. Ranges and Dirs are owned by
// the simulator and overwritten by the next sample; copy what must be kept.
//
// Seq, here and on the other sensors, counts the samples since start, like
// a ROS header's seq: a reader that polls the latest sample learns how many
// it did not see, so a rate counted from Seq does not depend on how often
// the reader looks.
type RangeScan struct {
	T      float64
	Seq    uint64
	Kind   RangeKind
	Cols   int
	Rows   int
	Ranges []float64   // m, len Cols·Rows
	Dirs   []geom.Vec3 // unit ray directions in the body frame, len Cols·Rows
	MaxM   float64
}

// BatteryConfig is the battery model: a pack of Cells in series whose open-
// circuit voltage falls linearly from VFullCell to VEmptyCell with the state
// of charge, minus the drop across the internal resistance; the current is
// IdleA plus MaxA·(mean motor command)^1.5 (a propeller's power grows with
// thrust^1.5). Zero values take the defaults of DefaultBattery.
type BatteryConfig struct {
	Cells                 int
	CapacityMAh           float64
	VFullCell, VEmptyCell float64
	ResistanceOhm         float64 // whole pack
	IdleA, MaxA           float64
	InitialRemaining      float64 // 0..1; 0 means full
}

// DefaultBattery is a 4S 5000 mAh pack; hover draws about 10 A.
func DefaultBattery() BatteryConfig {
	return BatteryConfig{Cells: 4, CapacityMAh: 5000, VFullCell: 4.2, VEmptyCell: 3.5, ResistanceOhm: 0.04, IdleA: 0.5, MaxA: 30, InitialRemaining: 1}
}

func (c BatteryConfig) withDefaults() BatteryConfig {
	d := DefaultBattery()
	c.Cells = cmp.Or(c.Cells, d.Cells)
	c.CapacityMAh = cmp.Or(c.CapacityMAh, d.CapacityMAh)
	c.VFullCell = cmp.Or(c.VFullCell, d.VFullCell)
	c.VEmptyCell = cmp.Or(c.VEmptyCell, d.VEmptyCell)
	c.ResistanceOhm = cmp.Or(c.ResistanceOhm, d.ResistanceOhm)
	c.IdleA = cmp.Or(c.IdleA, d.IdleA)
	c.MaxA = cmp.Or(c.MaxA, d.MaxA)
	c.InitialRemaining = cmp.Or(c.InitialRemaining, d.InitialRemaining)
	return c
}

// Faults are the failures a test can inject. A dropped-out sensor stops
// producing samples (its last sample ages); GNSSLoss keeps the receiver
// talking but without a fix; a stopped motor produces no thrust.
type Faults struct {
	IMUDropout     bool
	GNSSLoss       bool
	GNSSDropout    bool
	BaroDropout    bool
	BatteryDropout bool
	RangeDropout   bool
	MotorStopped   [4]bool
}
