package rover

import (
	"cmp"
	"errors"
	"fmt"
	"math"
)

// GravityMS2 is standard gravity.
const GravityMS2 = 9.80665

// DefaultStepS is the physics step, 1 ms (Gazebo's default max_step_size).
const DefaultStepS = 0.001

// Unlimited is the blade torque limit of a motor that can stop the blade in
// one physics step, like the first simulated blade motor of the seed.
var Unlimited = math.Inf(1)

// Params are the physical parameters of the mower. The values of
// DefaultParams describe a mid-size robotic mower; where a number matters for
// a result of the seed it says so.
type Params struct {
	MassKg       float64 // whole robot
	IzzKgM2      float64 // yaw inertia of the chassis about the axle centre
	TrackM       float64 // distance between the drive wheels
	WheelRadiusM float64
	FrontM       float64 // front bumper ahead of the axle centre
	RearM        float64 // rear of the body behind the axle centre
	HalfWidthM   float64 // half the body width

	WheelTauS   float64 // time constant of each wheel's speed controller
	WheelAccMS2 float64 // rim acceleration the drive motors can give

	GripMu float64 // tyre–grass friction coefficient for yaw slip

	BladeInertiaKgM2 float64 // blade and motor rotor
	BladeMaxRadS     float64 // full blade speed
	BladeDragNmS     float64 // viscous drag of the blade in the grass, N·m per rad/s
	BladeSoftStartS  float64 // time of the soft-start ramp from 0 to full speed
	BladeTorqueNm    float64 // torque limit of the blade motor; Unlimited for none
}

// DefaultParams returns the default mower. The yaw inertia, grip, blade
// inertia and full speed are chosen together so that the simulator
// reproduces the seed's numbers: an unlimited blade motor stopping the
// blade at 3000 rpm gives an angular impulse of J·ω ≈ 2.5 N·m·s that twists
// the chassis by L²/(2·Izz·μ·m·g·b/2) ≈ 8°; a 3-N·m motor brakes it below
// 10 % in about 0.75 s and never breaks the tyres loose.
func DefaultParams() Params {
	return Params{
		MassKg: 18, IzzKgM2: 0.9, TrackM: 0.40, WheelRadiusM: 0.10,
		FrontM: 0.40, RearM: 0.25, HalfWidthM: 0.28,
		WheelTauS: 0.02, WheelAccMS2: 4,
		GripMu:           0.7,
		BladeInertiaKgM2: 0.008, BladeMaxRadS: 3000 * 2 * math.Pi / 60, BladeDragNmS: 0.0005,
		BladeSoftStartS: 3, BladeTorqueNm: 3,
	}
}

// YawFrictionNm is the largest yaw torque the tyres hold before the chassis
// slips: μ·m·g·b/2, all the weight on the drive wheels.
func (p Params) YawFrictionNm() float64 { return p.GripMu * p.MassKg * GravityMS2 * p.TrackM / 2 }

// Validate reports parameters that cannot be simulated.
func (p Params) Validate() error {
	pos := []struct {
		name string
		v    float64
	}{
		{"mass", p.MassKg}, {"izz", p.IzzKgM2}, {"track", p.TrackM}, {"wheel radius", p.WheelRadiusM},
		{"front", p.FrontM}, {"rear", p.RearM}, {"half width", p.HalfWidthM},
		{"wheel tau", p.WheelTauS}, {"wheel acceleration", p.WheelAccMS2}, {"grip", p.GripMu},
		{"blade inertia", p.BladeInertiaKgM2}, {"blade speed", p.BladeMaxRadS}, {"soft start", p.BladeSoftStartS},
	}
	for _, f := range pos {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("rover: param %s = %v must be a finite number > 0", f.name, f.v)
		}
	}
	if !(p.BladeDragNmS >= 0) || math.IsInf(p.BladeDragNmS, 0) {
		return fmt.Errorf("rover: param blade drag = %v must be a finite number ≥ 0", p.BladeDragNmS)
	}
	if !(p.BladeTorqueNm > 0) {
		return fmt.Errorf("rover: blade torque limit %v must be > 0 (Unlimited for none)", p.BladeTorqueNm)
	}
	if p.BladeTorqueNm < p.BladeInertiaKgM2*p.BladeMaxRadS/p.BladeSoftStartS+p.BladeDragNmS*p.BladeMaxRadS {
		return errors.New("rover: the blade torque limit cannot follow the soft start against the drag")
	}
	return nil
}

// LidarConfig is the planar lidar: Beams rays spread evenly over FOVDeg,
// centred on the forward direction, in a plane HeightM above the ground, from
// a mount X m ahead of the axle centre.
type LidarConfig struct {
	Beams       int
	FOVDeg      float64
	MinM, MaxM  float64
	RateHz      float64
	NoiseSigmaM float64
	MountXM     float64
	HeightM     float64
}

// DefaultLidar is a front-mounted 270° lidar, 1° resolution, 10 Hz, 5 cm to
// 12 m, 1 cm noise, 15 cm above the ground so that it sees a 20-cm box.
func DefaultLidar() LidarConfig {
	return LidarConfig{Beams: 271, FOVDeg: 270, MinM: 0.05, MaxM: 12, RateHz: 10, NoiseSigmaM: 0.01, MountXM: 0.30, HeightM: 0.15}
}

// Validate reports a lidar that cannot be simulated.
func (c LidarConfig) Validate() error {
	if c.Beams < 2 || c.Beams > 1<<14 {
		return fmt.Errorf("rover: lidar: %d beams out of range [2, 16384]", c.Beams)
	}
	if !(c.FOVDeg > 0 && c.FOVDeg <= 360) {
		return fmt.Errorf("rover: lidar: field of view %v° out of range (0, 360]", c.FOVDeg)
	}
	if !(c.MinM >= 0 && c.MaxM > c.MinM) || math.IsInf(c.MaxM, 0) {
		return fmt.Errorf("rover: lidar: range [%v, %v] m is not a finite interval", c.MinM, c.MaxM)
	}
	if !(c.RateHz > 0) || math.IsInf(c.RateHz, 0) || !(c.NoiseSigmaM >= 0) || math.IsInf(c.NoiseSigmaM, 0) {
		return fmt.Errorf("rover: lidar: rate %v Hz and noise %v m must be finite, rate > 0", c.RateHz, c.NoiseSigmaM)
	}
	if !(c.HeightM > 0) || math.IsInf(c.HeightM, 0) || math.IsNaN(c.MountXM) || math.IsInf(c.MountXM, 0) {
		return fmt.Errorf("rover: lidar: mount (%v, height %v) m must be finite, height > 0", c.MountXM, c.HeightM)
	}
	return nil
}

// BatteryConfig is a pack of Cells in series whose open-circuit voltage
// falls linearly from VFullCell to VEmptyCell with the state of charge, less
// the drop across ResistanceOhm. Zero values take DefaultBattery's.
type BatteryConfig struct {
	Cells            int
	CapacityMAh      float64
	VFullCell        float64
	VEmptyCell       float64
	ResistanceOhm    float64
	IdleA            float64 // electronics, lidar, GNSS
	InitialRemaining float64 // 0..1; 0 means DefaultBattery's 0.8
}

// DefaultBattery is a 7S Li-ion pack of 5 Ah, 80 % charged.
func DefaultBattery() BatteryConfig {
	return BatteryConfig{Cells: 7, CapacityMAh: 5000, VFullCell: 4.2, VEmptyCell: 3.2, ResistanceOhm: 0.08, IdleA: 0.6, InitialRemaining: 0.8}
}

func (c BatteryConfig) withDefaults() BatteryConfig {
	d := DefaultBattery()
	c.Cells = cmp.Or(c.Cells, d.Cells)
	c.CapacityMAh = cmp.Or(c.CapacityMAh, d.CapacityMAh)
	c.VFullCell = cmp.Or(c.VFullCell, d.VFullCell)
	c.VEmptyCell = cmp.Or(c.VEmptyCell, d.VEmptyCell)
	c.ResistanceOhm = cmp.Or(c.ResistanceOhm, d.ResistanceOhm)
	c.IdleA = cmp.Or(c.IdleA, d.IdleA)
	c.InitialRemaining = cmp.Or(c.InitialRemaining, d.InitialRemaining)
	return c
}

// Sensor rates, Hz: what the mower's drivers publish.
const (
	IMURateHz     = 100
	GNSSRateHz    = 10
	JointRateHz   = 50
	BatteryRateHz = 2
)
