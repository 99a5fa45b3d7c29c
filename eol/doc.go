// Package eol is the end-of-line test (seeds/end-of-line-test.txt): one run
// on the finished robot that checks every sensor, every actuator and the
// safety chain through the robot's own sensors, and writes a pass/fail
// report and the end_of_line entry of the robot's build record.
//
// The runners talk to the robot only through small interfaces defined here
// (Mower, Quad) that expose what the robot reports about itself and the
// commands it accepts; they never see the simulator's ground truth, so the
// run that passes in the simulator is the one that runs on the real robot.
// Every command goes through the robot's safety chain exactly as a
// mission's would: the mower's safety gate (package gate), the quadrotor's
// autopilot.
//
// The mower's seven steps: 1 sensors (5 s at rest: rates, gravity, gyro
// bias, RTK, battery, STOP not latched); 2 wheels (forward, pivot left,
// pivot right, each wheel and the IMU yaw rate against the command, then back
// to the start heading on the gyro); 3 blade (soft start to 90 % within 4 s,
// below 10 % within 2 s when commanded off); 4 STOP (pressed at 0.3 m/s with
// the blade on while the driver keeps commanding motion); 5 watchdog (the
// driver goes silent); 6 obstacle (the driver keeps asking to drive on
// toward a box; the gate must stop the robot at least 10 cm short); 7 the
// manual list. Steps 4 to 6 are one straight run at the box: before it the
// runner turns the robot back to its start heading on the gyro, and then
// steers no more.
//
// The quadrotor profile has the same shape: 1 sensors, 2 motors (each
// spun alone by a motor test and checked on the ESC telemetry: a swapped or
// reversed motor shows), 3 kill switch, 4 command-stream loss (offboard
// setpoints stop; the failsafe must act within COM_OF_LOSS_T), 5 obstacle
// stop in position mode (collision prevention, CP_DIST) and 6 the manual
// list. The flight steps are not flown after a failed sensor or motor
// check: they report SKIP.
//
// Every pass limit and test parameter is in one table per profile
// (Thresholds); a change to a limit is a reviewed change to that table.
// A finding is a row of the report, not an error: the runners return an
// error only when they could not run (the vehicle refused a command, the
// context ended).
package eol
