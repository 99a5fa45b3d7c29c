package control

import (
	"fmt"
	"math"
)

// Gains are the cascade's gains and limits, named after PX4 parameters.
type Gains struct {
	XYP, ZP                   float64    // MPC_XY_P, MPC_Z_P
	XYVelP, XYVelI, XYVelD    float64    // MPC_XY_VEL_P_ACC/I_ACC/D_ACC
	ZVelP, ZVelI, ZVelD       float64    // MPC_Z_VEL_P_ACC/I_ACC/D_ACC
	VelDerivLPHz              float64    // MPC_VELD_LP
	XYVelMaxMS                float64    // MPC_XY_VEL_MAX
	ZVelMaxUpMS, ZVelMaxDnMS  float64    // MPC_Z_VEL_MAX_UP/DN
	TiltMaxRad                float64    // MPC_TILTMAX_AIR
	ThrHover, ThrMin, ThrMax  float64    // MPC_THR_HOVER/MIN/MAX
	ThrXYMargin               float64    // MPC_THR_XY_MARG
	RollP, PitchP, YawP       float64    // MC_ROLL_P, MC_PITCH_P, MC_YAW_P
	YawWeight                 float64    // MC_YAW_WEIGHT
	RollRateMax, PitchRateMax float64    // MC_ROLLRATE_MAX, MC_PITCHRATE_MAX, rad/s
	YawRateMax                float64    // MC_YAWRATE_MAX, rad/s
	RateP, RateI, RateD       [3]float64 // MC_ROLLRATE_P…, MC_YAWRATE_D
	RateIntLim                [3]float64 // MC_RR_INT_LIM, MC_PR_INT_LIM, MC_YR_INT_LIM
	YawTorqueLPHz             float64    // MC_YAW_TQ_CUTOFF
	RateDerivLPHz             float64    // D-term low-pass (IMU_DGYRO_CUTOFF, 30 Hz)
}

func deg(d float64) float64 { return d * math.Pi / 180 }

// DefaultGains returns PX4's defaults (px4.md §2). MC_ROLL_P and MC_PITCH_P
// are 6.5 as in the long-standing v1.1x parameter file; the newest yaml says
// 4.0.
func DefaultGains() Gains {
	return Gains{
		XYP: 0.95, ZP: 1.0,
		XYVelP: 1.8, XYVelI: 0.4, XYVelD: 0.2,
		ZVelP: 4.0, ZVelI: 2.0, ZVelD: 0,
		VelDerivLPHz: 5,
		XYVelMaxMS:   12, ZVelMaxUpMS: 3, ZVelMaxDnMS: 1.5,
		TiltMaxRad: deg(45),
		ThrHover:   0.5, ThrMin: 0.12, ThrMax: 1, ThrXYMargin: 0.3,
		RollP: 6.5, PitchP: 6.5, YawP: 2.8, YawWeight: 0.4,
		RollRateMax: deg(220), PitchRateMax: deg(220), YawRateMax: deg(200),
		RateP:         [3]float64{0.15, 0.15, 0.2},
		RateI:         [3]float64{0.2, 0.2, 0.1},
		RateD:         [3]float64{0.003, 0.003, 0},
		RateIntLim:    [3]float64{0.3, 0.3, 0.3},
		YawTorqueLPHz: 2,
		RateDerivLPHz: 30,
	}
}

// Validate reports gains that are not finite or limits that are not
// positive.
func (g Gains) Validate() error {
	vals := []float64{g.XYP, g.ZP, g.XYVelP, g.XYVelI, g.XYVelD, g.ZVelP, g.ZVelI, g.ZVelD, g.VelDerivLPHz,
		g.XYVelMaxMS, g.ZVelMaxUpMS, g.ZVelMaxDnMS, g.TiltMaxRad, g.ThrHover, g.ThrMin, g.ThrMax, g.ThrXYMargin,
		g.RollP, g.PitchP, g.YawP, g.YawWeight, g.RollRateMax, g.PitchRateMax, g.YawRateMax, g.YawTorqueLPHz, g.RateDerivLPHz}
	for _, a := range [][3]float64{g.RateP, g.RateI, g.RateD, g.RateIntLim} {
		vals = append(vals, a[:]...)
	}
	for i, v := range vals {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("control: gain #%d = %v must be a finite number ≥ 0", i, v)
		}
	}
	if !(g.ThrMin < g.ThrHover && g.ThrHover < g.ThrMax && g.ThrMax <= 1) {
		return fmt.Errorf("control: thrust limits min %v < hover %v < max %v ≤ 1 do not hold", g.ThrMin, g.ThrHover, g.ThrMax)
	}
	if !(g.TiltMaxRad > 0 && g.TiltMaxRad < math.Pi/2) {
		return fmt.Errorf("control: tilt limit %v rad out of range (0, π/2)", g.TiltMaxRad)
	}
	return nil
}
