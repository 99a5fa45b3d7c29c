package mission

import (
	"fmt"
	"math"
	"time"
)

// Config holds the machine's parameters. Start from DefaultConfig; Validate
// says what each field must be. Where a zero disables a check, the field
// says so.
type Config struct {
	// AdapterMode is reported as adapter_mode: "demo", "sim", "state_only"
	// or "mavlink". "" = "state_only".
	AdapterMode string

	MaxAltitudeM float64 // max_altitude: the band above home waypoints must keep to (> 0, ≤ MaxAltitudeLimitM)
	// GroundMarginM is ground_margin: how far above home every waypoint
	// must be, z ≤ home_z − GroundMarginM (≥ 0, below MaxAltitudeM). Home
	// is one telemetry sample, and a waypoint "just above" it can be under
	// the real ground (issue 21: z = 0 flew to 3 cm above it). 0 is the
	// specification's rule z < home_z. Default 0.5 m (Shakedown's choice:
	// a quarter of the 2 m take-off height).
	GroundMarginM float64
	// MaxHorDistM is max_hor_dist, the geofence: the largest horizontal
	// distance from home a waypoint may have; waypoints beyond it are
	// refused (CodeGeofence), and telemetry beyond it by more than
	// AltitudeMarginM fires FAILSAFE geofence_breach. It is PX4's
	// GF_MAX_HOR_DIST, measured from home too, but it cannot be disabled:
	// > 0 and ≤ MaxCoordM. Default 1000 m (Shakedown's choice: PX4's default
	// 0 disables its fence; missions here span tens of metres).
	MaxHorDistM     float64
	AltitudeMarginM float64 // how far telemetry may leave the band before FAILSAFE (overshoot), ≥ 0
	TakeoffAltM     float64 // take-off height above home (> 0, ≤ MaxAltitudeM)
	AirborneTolM    float64 // take-off is confirmed at TakeoffAltM − AirborneTolM (≥ 0, < TakeoffAltM)
	ArrivalRadiusM  float64 // a waypoint is reached within this distance (the specification's 1 m)
	StillSpeedMS    float64 // home is recorded only below this speed

	TelemetryTimeout time.Duration // no telemetry for this long → FAILSAFE
	ConnectTimeout   time.Duration // connect not confirmed (landed and still) → FAILSAFE
	TakeoffTimeout   time.Duration // take-off not confirmed by telemetry → FAILSAFE
	ReturnTimeout    time.Duration // return not settled above home → FAILSAFE
	LandTimeout      time.Duration // landing not confirmed (landed, disarmed) → FAILSAFE

	ReturnMinAltM     float64       // return flies at least this high above home
	ReturnSpeedMS     float64       // speed of the return leg
	ReturnSlowRadiusM float64       // within this horizontal distance of home the return slows down
	ReturnSlowSpeedMS float64       // speed of the final correction above home
	LandPosTolM       float64       // horizontal error above home allowed before landing
	LandSpeedTolMS    float64       // speed allowed before landing
	LandHold          time.Duration // both must hold this long

	// BatteryMin is the remaining charge (0..1) below which FAILSAFE fires
	// and lands; 0 disables the check. Default 0.07, PX4's BAT_CRIT_THR.
	BatteryMin float64
	// LinkLoss is how long the data link may stay down before FAILSAFE; 0
	// disables the check. Default 10 s, PX4's COM_DL_LOSS_T.
	LinkLoss time.Duration
	// PosLossEphM is the horizontal position accuracy (telemetry EphM)
	// above which FAILSAFE position_lost fires in flight and lands; 0
	// disables the check. Default 12.5 m: PX4 invalidates the position at
	// 2.5 × COM_POS_FS_EPH (5 m).
	PosLossEphM float64
	// MaxTiltRad is the tilt (telemetry TiltRad) that, held for TiltHold,
	// fires FAILSAFE attitude_failure in flight and lands; 0 disables the
	// check. Default 60° for 0.3 s: PX4's failure detector FD_FAIL_R/P.
	MaxTiltRad float64
	TiltHold   time.Duration
	// FailsafeLand makes FAILSAFE land instead of holding position (the
	// specification's hover). battery_low always lands, and a FAILSAFE
	// during LANDING keeps landing.
	FailsafeLand bool
}

// DefaultConfig returns the defaults: the specification's values where it
// gives them (1 m arrival, 3 m/s), PX4's where it has one, and Shakedown's
// choice otherwise (named in the comments).
func DefaultConfig() Config {
	return Config{
		AdapterMode:  "state_only",
		MaxAltitudeM: 30, AltitudeMarginM: 0.5, // Shakedown's choice
		GroundMarginM: 0.5, MaxHorDistM: 1000,
		TakeoffAltM: 2, AirborneTolM: 0.5, // the specification's demo flies at z = −2
		ArrivalRadiusM: 1, StillSpeedMS: 0.2,
		TelemetryTimeout: time.Second, ConnectTimeout: 10 * time.Second,
		TakeoffTimeout: 30 * time.Second, ReturnTimeout: 300 * time.Second, LandTimeout: 120 * time.Second,
		ReturnMinAltM: 2, ReturnSpeedMS: DefaultSpeedMS, ReturnSlowRadiusM: 2, ReturnSlowSpeedMS: 0.5,
		LandPosTolM: 0.3, LandSpeedTolMS: 0.2, LandHold: 2 * time.Second,
		BatteryMin: 0.07, LinkLoss: 10 * time.Second,
		PosLossEphM: 12.5, MaxTiltRad: 60 * math.Pi / 180, TiltHold: 300 * time.Millisecond,
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Validate reports the first field that is out of range.
func (c Config) Validate() error {
	pos := func(name string, v float64) error {
		if !finite(v) || v <= 0 {
			return fmt.Errorf("mission: config %s = %v: must be a finite number > 0", name, v)
		}
		return nil
	}
	nonneg := func(name string, v float64) error {
		if !finite(v) || v < 0 {
			return fmt.Errorf("mission: config %s = %v: must be a finite number ≥ 0", name, v)
		}
		return nil
	}
	dur := func(name string, d time.Duration) error {
		if d <= 0 {
			return fmt.Errorf("mission: config %s = %v: must be > 0", name, d)
		}
		return nil
	}
	switch c.AdapterMode {
	case "", "demo", "sim", "state_only", "mavlink":
	default:
		return fmt.Errorf("mission: config AdapterMode %q: want demo, sim, state_only or mavlink", c.AdapterMode)
	}
	for _, e := range []error{
		pos("MaxAltitudeM", c.MaxAltitudeM), nonneg("AltitudeMarginM", c.AltitudeMarginM),
		pos("TakeoffAltM", c.TakeoffAltM), nonneg("AirborneTolM", c.AirborneTolM),
		pos("ArrivalRadiusM", c.ArrivalRadiusM), pos("StillSpeedMS", c.StillSpeedMS),
		dur("TelemetryTimeout", c.TelemetryTimeout), dur("ConnectTimeout", c.ConnectTimeout),
		dur("TakeoffTimeout", c.TakeoffTimeout), dur("ReturnTimeout", c.ReturnTimeout),
		dur("LandTimeout", c.LandTimeout),
		nonneg("ReturnMinAltM", c.ReturnMinAltM), pos("ReturnSpeedMS", c.ReturnSpeedMS),
		nonneg("ReturnSlowRadiusM", c.ReturnSlowRadiusM), pos("ReturnSlowSpeedMS", c.ReturnSlowSpeedMS),
		pos("LandPosTolM", c.LandPosTolM), pos("LandSpeedTolMS", c.LandSpeedTolMS),
		nonneg("BatteryMin", c.BatteryMin),
		nonneg("PosLossEphM", c.PosLossEphM), nonneg("MaxTiltRad", c.MaxTiltRad),
	} {
		if e != nil {
			return e
		}
	}
	if c.LandHold < 0 || c.LinkLoss < 0 || c.TiltHold < 0 {
		return fmt.Errorf("mission: config LandHold %v, LinkLoss %v and TiltHold %v must be ≥ 0", c.LandHold, c.LinkLoss, c.TiltHold)
	}
	if c.MaxAltitudeM > MaxAltitudeLimitM {
		return fmt.Errorf("mission: config MaxAltitudeM %v above %v m", c.MaxAltitudeM, MaxAltitudeLimitM)
	}
	if !finite(c.GroundMarginM) || c.GroundMarginM < 0 || c.GroundMarginM >= c.MaxAltitudeM {
		return fmt.Errorf("mission: config GroundMarginM %v: must be ≥ 0 and below MaxAltitudeM %v", c.GroundMarginM, c.MaxAltitudeM)
	}
	if !finite(c.MaxHorDistM) || c.MaxHorDistM <= 0 || c.MaxHorDistM > MaxCoordM {
		return fmt.Errorf("mission: config MaxHorDistM %v: must be > 0 and at most %v m", c.MaxHorDistM, MaxCoordM)
	}
	if c.ReturnSpeedMS > MaxSpeedMS || c.ReturnSlowSpeedMS > MaxSpeedMS {
		return fmt.Errorf("mission: config ReturnSpeedMS %v and ReturnSlowSpeedMS %v must be at most %v m/s", c.ReturnSpeedMS, c.ReturnSlowSpeedMS, MaxSpeedMS)
	}
	if c.MaxTiltRad > math.Pi {
		return fmt.Errorf("mission: config MaxTiltRad %v above π", c.MaxTiltRad)
	}
	if c.TakeoffAltM > c.MaxAltitudeM {
		return fmt.Errorf("mission: config TakeoffAltM %v above MaxAltitudeM %v", c.TakeoffAltM, c.MaxAltitudeM)
	}
	if c.ReturnMinAltM > c.MaxAltitudeM {
		return fmt.Errorf("mission: config ReturnMinAltM %v above MaxAltitudeM %v", c.ReturnMinAltM, c.MaxAltitudeM)
	}
	if c.AirborneTolM >= c.TakeoffAltM {
		return fmt.Errorf("mission: config AirborneTolM %v must be below TakeoffAltM %v", c.AirborneTolM, c.TakeoffAltM)
	}
	if c.BatteryMin >= 1 {
		return fmt.Errorf("mission: config BatteryMin %v must be below 1", c.BatteryMin)
	}
	return nil
}
