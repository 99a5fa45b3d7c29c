// Package traj generates the reference trajectories of the path-tracker
// benchmark (Circle, Figure8, Racetrack, Line) with AirStack's exact
// geometry, speeds and accelerations (airstack.md §1.4–1.6:
// fixed_trajectory_task.cpp), and times them the way AirStack's
// trajectory_library does (§3.1).
//
// A generator returns a Path in the body frame at dispatch, as AirStack
// publishes it in base_link: x forward, y left, z up, the drone at the
// origin. Path.World turns it into Shakedown's world frame (local NED) with
// the pose snapshot taken just before dispatch, rotating by the yaw only, as
// the benchmark's ideal path does (§2.3). NewTimed gives a world path its
// time law: duplicate waypoints dropped, each waypoint's velocity the scalar
// speed along the incoming segment, and segment times from the mean of the
// two end speeds.
//
// AirStack's quirks are kept on purpose, so that numbers compare: the Circle
// has 37 loop points (the 37th a float rounding just short of 2π, 5e-14 m
// from the next), the Line stops 0.5 m short of its length and ends at full
// speed, the Racetrack does not close and its second turn points its yaw
// backwards, and the Figure8 ramps its speed up and down at max_acceleration.
//
// The package is pure: no clock, no I/O, no randomness.
package traj
