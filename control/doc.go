// Package control is PX4's multicopter control cascade (px4.md §2), with its
// default gains and limits:
//
//	position P (MPC_XY_P, MPC_Z_P)
//	→ velocity PID with derivative on the measured acceleration (MPC_*_VEL_*_ACC)
//	→ acceleration → thrust vector and attitude (MPC_THR_HOVER, MPC_TILTMAX_AIR)
//	→ attitude P on the quaternion error with yaw de-weighting (MC_*_P, MC_YAW_WEIGHT)
//	→ body-rate PID (MC_*RATE_*)
//	→ mixer for PX4's quad-X motor order.
//
// A Controller is a value updated with Update(state, setpoint, dt): it reads
// no clock and holds only integrators and filter states. Every loop runs at
// the rate Update is called (the simulator's 200 Hz), whereas PX4 runs the
// position loop at the estimator's ~100 Hz; at these gains the difference is
// immaterial.
//
// The state it is fed is the caller's estimate; package autopilot documents
// which estimate that is.
package control
