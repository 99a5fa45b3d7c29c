package eol

import (
	"fmt"
	"strings"
)

// Threshold is one pass limit or test parameter of a profile. Every number
// the runners judge by is in one of the two tables below; a changed limit is
// a change to this file, pinned by testdata/thresholds.golden, so it shows up
// in review as a diff with its source.
type Threshold struct {
	Key     string  // how the runner refers to it
	Value   float64 // in Unit
	Unit    string
	Step    int    // the step it belongs to
	Meaning string // what it limits
	Source  string // where the number comes from
}

// mowerThresholds is the mower's table. "seed" is
// seeds/end-of-line-test.txt; "ours" is a choice made here, with its reason.
var mowerThresholds = []Threshold{
	{"listen_s", 5, "s", 1, "listening time with the robot still", "seed"},
	{"rate_share", 0.90, "", 1, "each sensor's rate, share of its nominal rate (IMU, GNSS, joint states, lidar, battery)", "seed"},
	{"gravity", 9.81, "m/s²", 1, "mean specific force at rest", "seed"},
	{"gravity_tol", 0.3, "m/s²", 1, "tolerance on it", "seed"},
	{"gyro_bias_max", 0.02, "rad/s", 1, "mean gyro rate at rest, magnitude", "seed"},
	{"rtk_fix", 6, "", 1, "GNSS fix type required: RTK fixed (GPS_FIX_TYPE 6)", "seed"},
	{"rtk_sigma_max", 0.05, "m", 1, "reported horizontal accuracy", "seed"},
	{"cells", 7, "", 1, "battery cells in series", "seed"},
	{"cell_min_v", 3.0, "V", 1, "a sane 7S voltage: lowest per-cell voltage (Li-ion cut-off)", "ours: the seed says only \"sane\""},
	{"cell_max_v", 4.25, "V", 1, "a sane 7S voltage: highest per-cell voltage (4.2 V full plus 50 mV)", "ours: the seed says only \"sane\""},
	{"charge_min", 0.30, "", 1, "state of charge", "seed"},
	{"wheel_speed", 0.2, "m/s", 2, "forward speed of the wheel test", "seed"},
	{"pivot_rate", 0.5, "rad/s", 2, "yaw rate of the pivots (wheels at ±0.1 m/s)", "ours"},
	{"wheel_tol", 0.10, "", 2, "each wheel's speed, relative error against what the command implies, right sign", "seed"},
	{"yaw_rate_tol", 0.15, "", 2, "IMU yaw rate during each pivot, relative error against the command", "seed"},
	{"settle_s", 1.0, "s", 2, "time given each wheel-test segment to reach speed before measuring", "ours"},
	{"measure_s", 1.5, "s", 2, "measuring time of each wheel-test segment", "ours"},
	{"heading_tol_deg", 0.5, "°", 2, "turning back to the start heading on the gyro stops within this", "ours"},
	{"blade_up_share", 0.90, "", 3, "spin-up target, share of full blade speed", "seed"},
	{"blade_up_s", 4, "s", 3, "time to reach it (the soft start takes 3 s)", "seed"},
	{"blade_down_share", 0.10, "", 3, "stopped blade, share of full speed", "seed"},
	{"blade_down_s", 2, "s", 3, "time to get below it when commanded off", "seed: our target, not a measured number; gate 3 sets it from the real motor, in writing"},
	{"stop_speed", 0.3, "m/s", 4, "driving speed when STOP is pressed", "seed"},
	{"cruise_s", 2, "s", 4, "driving time before STOP is pressed (and, in step 5, before the driver goes silent)", "ours"},
	{"stop_standstill_s", 1, "s", 4, "STOP to standstill", "seed"},
	{"stop_blade_s", 2, "s", 4, "STOP to blade below blade_down_share", "seed"},
	{"stop_still_s", 3, "s", 4, "time without motion while latched", "seed"},
	{"go_hold_s", 2.2, "s", 4, "how long the test holds GO (the gate releases after 2 s)", "seed: GO held 2 s"},
	{"release_watch_s", 2, "s", 4, "time watched after the release for motion", "ours"},
	{"still_speed", 0.02, "m/s", 4, "standstill: every wheel slower than this", "ours: encoder noise is below 1 mm/s"},
	{"still_yaw_rate", 0.05, "rad/s", 4, "standstill: IMU yaw rate below this (bias removed)", "ours: gyro noise is 3 mrad/s"},
	{"dog_speed", 0.3, "m/s", 5, "driving speed when the driver goes silent", "ours: as step 4"},
	{"dog_drive_s", 1, "s", 5, "silence to standstill (the gate's watchdog is 0.5 s)", "seed"},
	{"dog_blade_s", 3, "s", 5, "silence to blade below blade_down_share", "seed"},
	{"obstacle_speed", 0.3, "m/s", 6, "speed the driver keeps asking for toward the box", "ours: as step 4"},
	{"obstacle_min_m", 0.10, "m", 6, "front bumper to box at rest, on the lidar", "seed"},
	{"obstacle_sector_deg", 30, "°", 6, "the box is looked for within this angle of straight ahead", "ours"},
	{"obstacle_look_m", 6, "m", 6, "and this far: no return there means no box was placed", "ours: the seed places it 3.5 m ahead"},
	{"corridor_margin_m", 0.05, "m", 6, "the box is measured within the body's half width plus this on each side", "ours: as the gate's corridor"},
	{"obstacle_overrun_m", 0.5, "m", 6, "driving this far past where the box was seen is a miss", "ours"},
}

// quadThresholds is the quadrotor's table; "px4" is px4.md with the
// parameter named.
var quadThresholds = []Threshold{
	{"listen_s", 5, "s", 1, "listening time, disarmed on the ground", "seed (as the mower)"},
	{"rate_share", 0.90, "", 1, "each sensor's rate, share of its nominal rate (IMU, GNSS, barometer, battery, range)", "seed (as the mower)"},
	{"gravity", 9.81, "m/s²", 1, "mean specific force at rest", "seed (as the mower)"},
	{"gravity_tol", 0.3, "m/s²", 1, "tolerance on it", "seed (as the mower)"},
	{"gyro_bias_max", 0.02, "rad/s", 1, "mean gyro rate at rest, magnitude", "seed (as the mower)"},
	{"gnss_fix_min", 3, "", 1, "GNSS fix type at least 3-D", "px4 §3.8"},
	{"gnss_sats_min", 6, "", 1, "satellites used", "px4: EKF2_REQ_NSATS"},
	{"gnss_eph_max", 3, "m", 1, "reported horizontal accuracy", "px4: EKF2_REQ_EPH"},
	{"baro_min_pa", 50000, "Pa", 1, "barometer pressure, lowest sane (about 5.5 km)", "ours"},
	{"baro_max_pa", 108500, "Pa", 1, "barometer pressure, highest sane (record sea-level high)", "ours"},
	{"baro_noise_m", 0.5, "m", 1, "barometric altitude standard deviation at rest", "ours: the simulated baro has 1 Pa ≈ 8 cm"},
	{"cells", 4, "", 1, "battery cells in series", "the airframe (SIH's 4S pack)"},
	{"cell_min_v", 3.5, "V", 1, "lowest per-cell voltage", "px4: BAT1_V_EMPTY"},
	{"cell_max_v", 4.25, "V", 1, "highest per-cell voltage (4.2 V full plus 50 mV)", "ours"},
	{"charge_min", 0.30, "", 1, "state of charge", "seed (as the mower)"},
	{"motor_throttle", 0.15, "", 2, "motor-test throttle (MAV_CMD_DO_MOTOR_TEST, percent)", "ours"},
	{"motor_spin_s", 1.5, "s", 2, "motor-test duration per motor", "ours"},
	{"motor_rpm_share", 0.5, "", 2, "the tested motor reaches this share of the rpm its throttle implies", "ours"},
	{"motor_idle_share", 0.05, "", 2, "every other motor stays below this share of full rpm", "ours"},
	{"kill_rpm_share", 0.01, "", 3, "a motor below this share of full rpm is stopped", "ours"},
	{"kill_cut_s", 0.5, "s", 3, "kill to every motor stopped (the motors spin down with τ = 50 ms)", "ours; px4 §3.9: outputs cut immediately"},
	{"kill_latch_s", 3, "s", 3, "time the kill must hold while take-off and setpoints are requested", "ours"},
	{"takeoff_alt_m", 3, "m", 4, "test altitude", "ours"},
	{"offboard_stream_s", 2, "s", 4, "offboard setpoints streamed before the loss", "px4 §3.2: > 1 s at > 2 Hz before the switch"},
	{"offboard_loss_s", 1, "s", 4, "the autopilot's offboard-loss timeout", "px4: COM_OF_LOSS_T"},
	{"offboard_slack_s", 0.2, "s", 4, "allowed lateness of the failsafe after the timeout", "ours"},
	{"cp_dist_m", 2, "m", 5, "collision prevention distance the airframe is configured with", "px4: CP_DIST (−1 = off by default; set for this airframe)"},
	{"cp_min_m", 1.5, "m", 5, "closest the range sensor may see the box", "ours: CP_DIST less 0.5 m"},
	{"cp_speed", 2, "m/s", 5, "speed asked for toward the box", "ours"},
	{"cp_sector_deg", 15, "°", 5, "the box is measured within this angle of straight ahead", "ours"},
	{"cp_rest_speed", 0.2, "m/s", 5, "at rest below this speed", "ours"},
}

// limits is a threshold table ready for lookup.
type limits map[string]float64

func tableLimits(t []Threshold) limits {
	m := limits{}
	for _, th := range t {
		m[th.Key] = th.Value
	}
	return m
}

// v returns the value of key; an unknown key is a programming error.
func (l limits) v(key string) float64 {
	x, ok := l[key]
	if !ok {
		panic("eol: no threshold " + key)
	}
	return x
}

// Thresholds returns a copy of the table of the vehicle ("mower" or
// "quad"), nil for an unknown vehicle.
func Thresholds(vehicle string) []Threshold {
	switch vehicle {
	case "mower":
		return append([]Threshold(nil), mowerThresholds...)
	case "quad":
		return append([]Threshold(nil), quadThresholds...)
	}
	return nil
}

// ThresholdsMarkdown renders a table as Markdown, in the table's order.
func ThresholdsMarkdown(t []Threshold) string {
	var b strings.Builder
	b.WriteString("| Step | Key | Value | Unit | Meaning | Source |\n|---|---|---|---|---|---|\n")
	for _, th := range t {
		fmt.Fprintf(&b, "| %d | %s | %g | %s | %s | %s |\n", th.Step, th.Key, th.Value, th.Unit, mdCell(th.Meaning), mdCell(th.Source))
	}
	return b.String()
}
