// Package rover is the simulated robotic mower of the end-of-line test
// (seeds/end-of-line-test.txt): a differential-drive chassis with wheel
// encoders, an IMU, an RTK GNSS receiver, a planar lidar, a 7-cell battery, a
// blade motor with a soft start and a torque limit, a STOP and a GO button
// and a status ring light.
//
// The drive plugin behaves like Gazebo's diff-drive plugin and like many
// real motor controllers: it keeps executing the last command it got until
// another arrives. Nothing in this package times commands out; that is the
// job of the safety gate (package gate), which is part of the product.
//
// The chassis moves on flat ground in the NED plane. Its pose is the centre
// of the drive axle; the body frame is FRD (x forward, y right, z down), so a
// positive yaw rate turns right, clockwise seen from above. The wheels roll
// without slipping along their axis; the chassis yaw is held to what the
// wheels imply by tyre friction up to a limit μ·m·g·b/2 and slips beyond it.
// That limit is what the blade's reaction torque meets when the blade is
// stopped: a torque-limited blade motor (±3 N·m by default) stays far below
// it, an unlimited one stops the blade within one physics step and the
// impulse twists the chassis by several degrees (the seed's run eol-2).
//
// Like every simulator in Shakedown it advances only through Step, reads no
// clock and draws every random number from the *rand.Rand it is given. The
// physics step is 1 ms, Gazebo's default. Step allocates nothing.
package rover
