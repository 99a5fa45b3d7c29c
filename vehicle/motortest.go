package vehicle

import (
	"context"
	"fmt"
	"math"
	"time"
)

// ESC is one electronic speed controller's telemetry (MAVLink ESC_STATUS,
// DroneCAN esc.Status), indexed by the ESC's position on the airframe in
// PX4's quad-X numbering (0 front-right, 1 rear-left, 2 front-left, 3
// rear-right). A field-oriented ESC knows its rotor's direction, so RPM is
// signed: positive counter-clockwise seen from above.
type ESC struct {
	T      float64
	Output float64 // the command the ESC receives, 0..1
	RPM    float64
}

// MotorTester is a vehicle that can spin one motor at a time on the ground
// and report its ESCs.
type MotorTester interface {
	// MotorTest spins output motor (0-based) alone at throttle (0..1) for
	// d, disarmed (MAV_CMD_DO_MOTOR_TEST); refused while armed.
	MotorTest(ctx context.Context, motor int, throttle float64, d time.Duration) error
	// ESCs returns the latest ESC telemetry, one entry per motor position.
	ESCs() []ESC
}

var _ MotorTester = (*Sim)(nil)

// SimMaxRPM is the simulated motors' speed at full command (a 920-kV motor
// on a loaded 4S pack); the rotor speed is proportional to the command.
const SimMaxRPM = 11000

// SimRotorDir is each position's direction of rotation on PX4's quad-X
// (CA_ROTORn_KM > 0 counter-clockwise): +1 counter-clockwise, −1 clockwise.
var SimRotorDir = [4]float64{1, 1, -1, -1}

// simExt is the embedded simulator's state for motor tests, ESC telemetry,
// wiring faults and collision prevention.
type simExt struct {
	perm     [4]int // output j drives the motor at position perm[j]
	permSet  bool
	reversed [4]bool
	escCmd   [4]float64 // command at each position
	escSpin  [4]float64 // spin of reversed rotors, 0..1 (the physics does not model them)
	lastScan float64
	haveScan bool
}

func (x *simExt) pos(j int) int {
	if !x.permSet {
		return j
	}
	return x.perm[j]
}

// wire routes the flight controller's outputs to the motors as the vehicle
// is wired. A reversed rotor gives no lift.
func (s *Sim) wire(u [4]float64) [4]float64 {
	x := &s.x
	var phys [4]float64
	for j := range 4 {
		p := x.pos(j)
		x.escCmd[p] = u[j]
		if !x.reversed[p] {
			phys[p] = u[j]
		}
	}
	if x.reversed != [4]bool{} {
		k := s.q.StepS() / s.q.Config().Params.TauS
		for p := range 4 {
			if x.reversed[p] {
				x.escSpin[p] += k * (math.Max(0, math.Min(1, x.escCmd[p])) - x.escSpin[p])
			}
		}
	}
	return phys
}

// SwapMotors is a fault: outputs a and b are wired to each other's motors.
func (s *Sim) SwapMotors(a, b int) error {
	if a < 0 || a > 3 || b < 0 || b > 3 {
		return fmt.Errorf("vehicle: swap motors %d and %d: want 0..3", a, b)
	}
	x := &s.x
	if !x.permSet {
		x.perm, x.permSet = [4]int{0, 1, 2, 3}, true
	}
	x.perm[a], x.perm[b] = x.perm[b], x.perm[a]
	return nil
}

// ReverseMotor is a fault: the motor at position p turns the wrong way (its
// ESC's direction is misconfigured). It gives no lift; do not fly with it.
func (s *Sim) ReverseMotor(p int) error {
	if p < 0 || p > 3 {
		return fmt.Errorf("vehicle: reverse motor %d: want 0..3", p)
	}
	s.x.reversed[p] = true
	return nil
}

// MotorTest spins one output alone on the ground (MAV_CMD_DO_MOTOR_TEST).
func (s *Sim) MotorTest(ctx context.Context, motor int, throttle float64, d time.Duration) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.ap.MotorTest(motor, throttle, d.Seconds())
}

// ESCs returns the ESC telemetry: each rotor's speed from the simulated
// motor state.
func (s *Sim) ESCs() []ESC {
	m := s.q.Truth().Motor
	e := make([]ESC, 4)
	for p := range 4 {
		spin, dir := m[p], SimRotorDir[p]
		if s.x.reversed[p] {
			spin, dir = s.x.escSpin[p], -dir
		}
		e[p] = ESC{T: s.q.Time(), Output: s.x.escCmd[p], RPM: dir * spin * SimMaxRPM}
	}
	return e
}
