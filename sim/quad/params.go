package quad

import (
	"errors"
	"fmt"
	"math"
)

// GravityMS2 is the standard gravity used by the flat-earth model. PX4 SIH
// uses the Somigliana formula, about 9.807 at the default latitude.
const GravityMS2 = 9.80665

// Params are the physical parameters, named after PX4's SIH_* parameters.
type Params struct {
	MassKg        float64 // SIH_MASS
	Ixx, Iyy, Izz float64 // SIH_IXX/IYY/IZZ, kg·m² (cross terms are 0)
	TMaxN         float64 // SIH_T_MAX, max thrust per rotor
	QMaxNm        float64 // SIH_Q_MAX, max reaction torque per rotor
	LRollM        float64 // SIH_L_ROLL, moment arm for roll
	LPitchM       float64 // SIH_L_PITCH, moment arm for pitch
	KDV           float64 // SIH_KDV, linear drag, N/(m/s)
	KDW           float64 // SIH_KDW, angular damping, N·m/(rad/s)
	TauS          float64 // SIH_T_TAU, motor time constant
	MaxRateRadS   float64 // body-rate clamp, ±6π rad/s in SIH
	RadiusM       float64 // vehicle radius for collisions (not in SIH; an iris is about 0.25 m)
}

// DefaultParams returns PX4 SIH's defaults (sih_params.yaml).
func DefaultParams() Params {
	return Params{
		MassKg: 1.0,
		Ixx:    0.025, Iyy: 0.025, Izz: 0.030,
		TMaxN:       5.0,
		QMaxNm:      0.1,
		LRollM:      0.2,
		LPitchM:     0.2,
		KDV:         1.0,
		KDW:         0.025,
		TauS:        0.05,
		MaxRateRadS: 6 * math.Pi,
		RadiusM:     0.25,
	}
}

// HoverCommand returns the motor command (0..1, the same on all four) that
// balances gravity: m·g / (4·T_max). About 0.49 with the defaults.
func (p Params) HoverCommand() float64 { return p.MassKg * GravityMS2 / (4 * p.TMaxN) }

// Validate reports parameters that cannot be simulated.
func (p Params) Validate() error {
	pos := []struct {
		name string
		v    float64
	}{
		{"mass", p.MassKg}, {"ixx", p.Ixx}, {"iyy", p.Iyy}, {"izz", p.Izz},
		{"t_max", p.TMaxN}, {"q_max", p.QMaxNm}, {"l_roll", p.LRollM}, {"l_pitch", p.LPitchM},
		{"tau", p.TauS}, {"max_rate", p.MaxRateRadS},
	}
	for _, f := range pos {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("quad: param %s = %v must be a finite number > 0", f.name, f.v)
		}
	}
	nonneg := []struct {
		name string
		v    float64
	}{{"kdv", p.KDV}, {"kdw", p.KDW}, {"radius", p.RadiusM}}
	for _, f := range nonneg {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("quad: param %s = %v must be a finite number ≥ 0", f.name, f.v)
		}
	}
	if 4*p.TMaxN <= p.MassKg*GravityMS2 {
		return errors.New("quad: total thrust does not exceed the weight; the vehicle cannot fly")
	}
	return nil
}
