// Package quad is a 6-DOF rigid-body quadrotor with the equations and default
// parameters of PX4's SIH simulator (px4.md §1.2–1.3): four motors with a
// first-order lag, thrust linear in the motor command, linear drag against the
// apparent air velocity, linear angular damping, a flat ground that stops the
// vehicle, and forward-Euler / trapezoid integration at a fixed step (5 ms by
// default, the SITL lockstep rate).
//
// Sensors are sampled at their own rates with seeded noise: IMU (every step),
// GNSS (8 Hz), barometer (20 Hz), battery, and a range sensor ray-cast against
// the scene's boxes (a forward depth camera like iris_depth_camera, or a
// planar lidar). Faults switch sensors off or stop a motor.
//
// The frames are NED for the world and FRD for the body. Motor numbering is
// PX4's quad-X: 0 front-right, 1 rear-left, 2 front-left, 3 rear-right; 0 and
// 1 spin so that their reaction torque yaws the body positively.
//
// Step allocates nothing.
package quad
