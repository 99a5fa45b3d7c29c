// Package autopilot is the flight-controller firmware on top of package
// control: arming, take-off, hold, goto, missions, offboard setpoints,
// return, land and the land detector, with PX4's parameter names and
// defaults (px4.md §2.6, §3.2, §3.7, §3.10).
//
// An Autopilot is a value. Commands (Arm, Takeoff, Goto, StartMission, …)
// change its mode; Update(estimate, t, dt) runs one control step and returns
// the motor commands. It reads no clock: time comes in as t and dt.
//
// Auto modes do not hand the cascade a step in position. A reference
// generator moves a setpoint toward the target with a trapezoidal speed
// profile bounded by the cruise speed and the acceleration limits
// (MPC_XY_CRUISE, MPC_ACC_HOR, MPC_Z_V_AUTO_*), and the cascade tracks it with
// velocity feed-forward; PX4 uses a jerk-limited generator for the same job.
// The reference waits when the vehicle falls more than MPC_XY_ERR_MAX behind.
//
// Which estimate: the autopilot controls on what its caller hands it. The
// embedded simulator (package vehicle) hands it the true state plus an error
// that is consistent with the simulated GNSS (PX4's Gauss–Markov model,
// low-passed as an EKF would), not a real EKF over the noisy IMU.
package autopilot
