// Package gate is the mower's safety gate: every motion and blade command
// passes through it, in a mowing mission as in the end-of-line test, before
// it reaches the drive and the blade motor.
//
// It does three things (seeds/end-of-line-test.txt):
//
//   - a watchdog: a driver that wants motion (a non-zero drive command or
//     the blade on) must say so at least every 0.5 s, or the gate sends zero
//     and the blade off. The drive plugin behind the gate keeps executing
//     the last command it got, so without this nothing stops a robot whose
//     driver died (the seed's run eol-1);
//   - the STOP latch: pressing STOP cuts motion and blade at once and keeps
//     them cut, ring red, until GO is held for 2 s. Releasing the latch does
//     not restart anything: the gate then waits for the driver to ask for
//     nothing (an idle command) before it passes motion again, so a driver
//     that kept commanding through the STOP does not drive off on release;
//   - an obstacle stop from the planar lidar: forward motion stops when a
//     return inside the robot's corridor ahead comes within the stop
//     distance StopM + v·LatencyS + v²/(2·BrakeMS2), so the robot comes to
//     rest about StopM (25 cm by default, at least 10 cm) before an
//     obstacle. A lidar that stops publishing blocks forward motion.
//
// A Gate is a value: Request records what the driver asks at time t, Step
// advances it to time t with the buttons and the latest scan and returns what
// the motors get. It reads no clock and starts no goroutine.
package gate
