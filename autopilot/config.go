package autopilot

import (
	"fmt"
	"math"
	"sort"

	"github.com/shakedown-robotics/shakedown/control"
)

// Action is what the autopilot does when a failsafe fires.
type Action int

// Failsafe actions (a subset of PX4's, px4.md §3.1).
const (
	ActionHold Action = iota
	ActionLand
	ActionReturn
)

func (a Action) String() string {
	switch a {
	case ActionHold:
		return "hold"
	case ActionLand:
		return "land"
	case ActionReturn:
		return "return"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Config holds the firmware parameters. Every field is named after the PX4
// parameter it models; DefaultConfig gives PX4's defaults.
type Config struct {
	Gains control.Gains

	CruiseMS     float64 // MPC_XY_CRUISE: mission, goto and return speed
	AccHorMS2    float64 // MPC_ACC_HOR
	JerkAutoMS3  float64 // MPC_JERK_AUTO: jerk limit of the auto-mode trajectory
	ZVelUpMS     float64 // MPC_Z_V_AUTO_UP
	ZVelDnMS     float64 // MPC_Z_V_AUTO_DN
	AccUpMS2     float64 // MPC_ACC_UP_MAX
	AccDnMS2     float64 // MPC_ACC_DOWN_MAX
	XYErrMaxM    float64 // MPC_XY_ERR_MAX
	TakeoffMS    float64 // MPC_TKO_SPEED
	TakeoffRampS float64 // MPC_TKO_RAMP_T: the take-off climb's acceleration is MPC_TKO_SPEED over this time
	TakeoffAltM  float64 // MIS_TAKEOFF_ALT: take-off height when none is given
	LandMS       float64 // MPC_LAND_SPEED
	LandAlt1M    float64 // MPC_LAND_ALT1: start slowing down
	LandAlt2M    float64 // MPC_LAND_ALT2: descend at LandMS below
	AccRadM      float64 // NAV_ACC_RAD: horizontal waypoint acceptance radius
	AltRadM      float64 // NAV_MC_ALT_RAD: vertical acceptance radius
	YawToWP      bool    // MPC_YAW_MODE = 0: face the next waypoint
	YawErrRad    float64 // MIS_YAW_ERR: heading acceptance before a leg starts
	YawRateMax   float64 // MPC_YAWRAUTO_MAX, rad/s
	SpoolUpS     float64 // COM_SPOOLUP_TIME
	DisarmLandS  float64 // COM_DISARM_LAND
	DisarmPreS   float64 // COM_DISARM_PRFLT
	OffboardLoss float64 // COM_OF_LOSS_T, s
	OffboardAct  Action  // COM_OBL_RC_ACT (PX4's default, Position mode, acts as hold here)
	RTLAltM      float64 // RTL_RETURN_ALT
	RTLDescendM  float64 // RTL_DESCEND_ALT
	IdleThrust   float64 // motor command while armed on the ground (PWM idle)
	LandZVelMax  float64 // LNDMC_Z_VEL_MAX
	LandXYVelMax float64 // LNDMC_XY_VEL_MAX
	LandRotMax   float64 // LNDMC_ROT_MAX, rad/s
	LandTrigS    float64 // LNDMC_TRIG_TIME
}

func rad(d float64) float64 { return d * math.Pi / 180 }

// DefaultConfig returns PX4's multicopter defaults. MPC_XY_CRUISE is 5 m/s,
// the value of the competition's airframe (1015_iris_obs_avoid).
func DefaultConfig() Config {
	return Config{
		Gains:    control.DefaultGains(),
		CruiseMS: 5, AccHorMS2: 3, JerkAutoMS3: 4, ZVelUpMS: 3, ZVelDnMS: 1.5, AccUpMS2: 4, AccDnMS2: 3,
		XYErrMaxM: 2, TakeoffMS: 1.5, TakeoffRampS: 3, TakeoffAltM: 2.5, LandMS: 0.7, LandAlt1M: 10, LandAlt2M: 5,
		AccRadM: 10, AltRadM: 0.8, YawToWP: true, YawErrRad: rad(12), YawRateMax: rad(45),
		SpoolUpS: 1, DisarmLandS: 2, DisarmPreS: 10, OffboardLoss: 1, OffboardAct: ActionHold,
		RTLAltM: 60, RTLDescendM: 30, IdleThrust: 0.05,
		LandZVelMax: 0.25, LandXYVelMax: 1.5, LandRotMax: rad(20), LandTrigS: 1,
	}
}

// Validate reports a configuration the autopilot cannot fly with.
func (c Config) Validate() error {
	if err := c.Gains.Validate(); err != nil {
		return err
	}
	pos := map[string]float64{
		"MPC_XY_CRUISE": c.CruiseMS, "MPC_ACC_HOR": c.AccHorMS2, "MPC_JERK_AUTO": c.JerkAutoMS3, "MPC_Z_V_AUTO_UP": c.ZVelUpMS,
		"MPC_Z_V_AUTO_DN": c.ZVelDnMS, "MPC_ACC_UP_MAX": c.AccUpMS2, "MPC_ACC_DOWN_MAX": c.AccDnMS2,
		"MPC_XY_ERR_MAX": c.XYErrMaxM, "MPC_TKO_SPEED": c.TakeoffMS, "MPC_TKO_RAMP_T": c.TakeoffRampS, "MIS_TAKEOFF_ALT": c.TakeoffAltM,
		"MPC_LAND_SPEED": c.LandMS, "NAV_ACC_RAD": c.AccRadM, "NAV_MC_ALT_RAD": c.AltRadM,
		"MIS_YAW_ERR": c.YawErrRad, "MPC_YAWRAUTO_MAX": c.YawRateMax, "COM_OF_LOSS_T": c.OffboardLoss,
		"LNDMC_Z_VEL_MAX": c.LandZVelMax, "LNDMC_XY_VEL_MAX": c.LandXYVelMax, "LNDMC_ROT_MAX": c.LandRotMax,
		"LNDMC_TRIG_TIME": c.LandTrigS,
	}
	nonneg := map[string]float64{
		"MPC_LAND_ALT1": c.LandAlt1M, "MPC_LAND_ALT2": c.LandAlt2M, "COM_SPOOLUP_TIME": c.SpoolUpS,
		"COM_DISARM_LAND": c.DisarmLandS, "COM_DISARM_PRFLT": c.DisarmPreS, "RTL_RETURN_ALT": c.RTLAltM,
		"RTL_DESCEND_ALT": c.RTLDescendM, "idle thrust": c.IdleThrust,
	}
	for _, name := range sortedKeys(pos) {
		if v := pos[name]; !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("autopilot: %s = %v must be a finite number > 0", name, v)
		}
	}
	for _, name := range sortedKeys(nonneg) {
		if v := nonneg[name]; !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("autopilot: %s = %v must be a finite number ≥ 0", name, v)
		}
	}
	if c.IdleThrust >= c.Gains.ThrHover {
		return fmt.Errorf("autopilot: idle thrust %v must stay below hover thrust %v", c.IdleThrust, c.Gains.ThrHover)
	}
	return nil
}

func sortedKeys(m map[string]float64) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// param describes how one PX4 parameter maps onto Config.
type param struct {
	set  func(c *Config, v float64)
	noop bool // accepted and recorded, but it changes nothing in the embedded simulator
}

var params = map[string]param{
	"MPC_XY_CRUISE":    {set: func(c *Config, v float64) { c.CruiseMS = v }},
	"MPC_ACC_HOR":      {set: func(c *Config, v float64) { c.AccHorMS2 = v }},
	"MPC_JERK_AUTO":    {set: func(c *Config, v float64) { c.JerkAutoMS3 = v }},
	"MPC_Z_V_AUTO_UP":  {set: func(c *Config, v float64) { c.ZVelUpMS = v }},
	"MPC_Z_V_AUTO_DN":  {set: func(c *Config, v float64) { c.ZVelDnMS = v }},
	"MPC_XY_ERR_MAX":   {set: func(c *Config, v float64) { c.XYErrMaxM = v }},
	"MPC_TKO_SPEED":    {set: func(c *Config, v float64) { c.TakeoffMS = v }},
	"MPC_TKO_RAMP_T":   {set: func(c *Config, v float64) { c.TakeoffRampS = v }},
	"MIS_TAKEOFF_ALT":  {set: func(c *Config, v float64) { c.TakeoffAltM = v }},
	"MPC_LAND_SPEED":   {set: func(c *Config, v float64) { c.LandMS = v }},
	"NAV_ACC_RAD":      {set: func(c *Config, v float64) { c.AccRadM = v }},
	"NAV_MC_ALT_RAD":   {set: func(c *Config, v float64) { c.AltRadM = v }},
	"MIS_YAW_ERR":      {set: func(c *Config, v float64) { c.YawErrRad = rad(v) }},
	"MPC_YAWRAUTO_MAX": {set: func(c *Config, v float64) { c.YawRateMax = rad(v) }},
	// MPC_YAW_MODE 0 (towards waypoint) and 4 (towards waypoint, yaw
	// first) face the waypoint; the others keep the heading.
	"MPC_YAW_MODE":    {set: func(c *Config, v float64) { c.YawToWP = v == 0 || v == 4 }},
	"COM_OF_LOSS_T":   {set: func(c *Config, v float64) { c.OffboardLoss = v }},
	"RTL_RETURN_ALT":  {set: func(c *Config, v float64) { c.RTLAltM = v }},
	"RTL_DESCEND_ALT": {set: func(c *Config, v float64) { c.RTLDescendM = v }},
	"COM_DISARM_LAND": {set: func(c *Config, v float64) { c.DisarmLandS = v }},
	"MPC_XY_VEL_MAX":  {set: func(c *Config, v float64) { c.Gains.XYVelMaxMS = v }},
	"MPC_TILTMAX_AIR": {set: func(c *Config, v float64) { c.Gains.TiltMaxRad = rad(v) }},
	"MPC_THR_HOVER":   {set: func(c *Config, v float64) { c.Gains.ThrHover = v }},
	"MC_ROLL_P":       {set: func(c *Config, v float64) { c.Gains.RollP = v }},
	"MC_PITCH_P":      {set: func(c *Config, v float64) { c.Gains.PitchP = v }},
	"MC_YAW_P":        {set: func(c *Config, v float64) { c.Gains.YawP = v }},
	"MPC_XY_P":        {set: func(c *Config, v float64) { c.Gains.XYP = v }},
	"MPC_Z_P":         {set: func(c *Config, v float64) { c.Gains.ZP = v }},
	// Link-loss actions, logging and avoidance switches: meaningful on PX4,
	// without effect in the embedded simulator (no RC, no GCS link, no logger).
	"NAV_RCL_ACT":    {noop: true},
	"NAV_DLL_ACT":    {noop: true},
	"SDLOG_PROFILE":  {noop: true},
	"COM_OBS_AVOID":  {noop: true},
	"COM_RCL_EXCEPT": {noop: true},
}

// ApplyParams sets the PX4 parameters in p on c. It returns the names that
// are known but have no effect in the embedded simulator, sorted; an unknown
// parameter or a non-finite value is an error that names it, and leaves c
// unchanged.
func ApplyParams(c *Config, p map[string]float64) (ignored []string, err error) {
	next := *c
	for _, name := range sortedKeys(p) {
		v := p[name]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("autopilot: parameter %s = %v is not a finite number", name, v)
		}
		d, ok := params[name]
		if !ok {
			return nil, fmt.Errorf("autopilot: parameter %s is not supported by the embedded autopilot", name)
		}
		if d.noop {
			ignored = append(ignored, name)
			continue
		}
		d.set(&next, v)
	}
	if err := next.Validate(); err != nil {
		return nil, err
	}
	*c = next
	return ignored, nil
}
