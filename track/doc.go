// Package track holds the path trackers of the benchmark behind one small
// interface, so that the harness never changes when a tracker does.
//
//   - airstack is a replica of AirStack's trajectory_controller (sphere-
//     intersection pure pursuit with virtual time, 20 Hz) feeding its
//     pid_controller (position P → velocity PI → roll/pitch/thrust with the
//     trajectory's yaw), with AirStack's parameters and gains and its
//     quirks (airstack.md §3–4); see AirStack.
//   - feedforward, the default, tracks a time-parameterised reference along
//     the same polyline: a speed profile limited by the waypoint speeds, the
//     corners and the acceleration, ending at rest, fed to the vehicle's own
//     position controller with velocity and acceleration feed-forward; see
//     Feedforward.
//
// A tracker sees only the vehicle's own estimate (Odom) and answers with a
// Command: a motion setpoint for the vehicle's position controller or an
// attitude setpoint for its attitude controller. The package is pure.
package track
