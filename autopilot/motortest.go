package autopilot

import (
	"errors"
	"fmt"
	"math"
)

// ErrMotorTestDenied is returned for a motor test while armed: PX4 denies
// MAV_CMD_DO_MOTOR_TEST and MAV_CMD_ACTUATOR_TEST then (px4.md §5.2).
var ErrMotorTestDenied = errors.New("autopilot: motor test denied while armed")

// MotorTestMaxS caps a motor test's duration, as PX4 caps
// MAV_CMD_ACTUATOR_TEST's timeout at 3 s.
const MotorTestMaxS = 3

// motorTest is a running motor test: one output driven alone until end.
type motorTest struct {
	motor    int
	throttle float64
	end      float64
}

// MotorTest spins motor (0-based, PX4's quad-X output order) alone at
// throttle (0..1) for timeoutS seconds (at most MotorTestMaxS), on the
// ground and disarmed, as MAV_CMD_DO_MOTOR_TEST does. A throttle of 0 stops
// a running test; the outputs of an armed vehicle are the controller's.
func (a *Autopilot) MotorTest(motor int, throttle, timeoutS float64) error {
	if a.armed {
		return ErrMotorTestDenied
	}
	if motor < 0 || motor > 3 {
		return fmt.Errorf("autopilot: motor test: no motor %d (want 0..3)", motor)
	}
	if !(throttle >= 0 && throttle <= 1) {
		return fmt.Errorf("autopilot: motor test: throttle %v out of [0, 1]", throttle)
	}
	if !(timeoutS > 0) || math.IsInf(timeoutS, 0) {
		return fmt.Errorf("autopilot: motor test: timeout %v s must be a finite number > 0", timeoutS)
	}
	a.mt = motorTest{motor: motor, throttle: throttle, end: a.t + math.Min(timeoutS, MotorTestMaxS)}
	a.emit("motor test: motor %d at %.0f %% for %.1f s", motor+1, throttle*100, math.Min(timeoutS, MotorTestMaxS))
	return nil
}

// motorTestOutput returns the outputs while disarmed: zero, except the
// motor under test until its test ends.
func (a *Autopilot) motorTestOutput(t float64) [4]float64 {
	var u [4]float64
	if a.mt.throttle > 0 && t < a.mt.end {
		u[a.mt.motor] = a.mt.throttle
	}
	return u
}
