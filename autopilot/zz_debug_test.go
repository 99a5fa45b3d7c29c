package autopilot_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

func tiltOf(q geom.Quat) float64 { return math.Acos(q.Rotate(geom.Vec3{Z: 1}).Z) * 180 / math.Pi }

func TestZZDebug(t *testing.T) {
	f := newFlight(t, vehicle.SimConfig{Seed: 1})
	f.ap.Arm()
	f.ap.Takeoff(10)
	f.runUntil(20, func(s autopilot.Status) bool { return s.Mode == autopilot.ModeHold })
	f.ap.Goto(geom.Vec3{X: 100, Z: -10}, 0)
	f.runUntil(10, func(autopilot.Status) bool { return false })
	var maxT, maxA float64
	for _, s := range f.log[len(f.log)-600:] {
		maxT = math.Max(maxT, tiltOf(s.truth.Att))
		maxA = math.Max(maxA, s.truth.Acc.XY().Norm())
	}
	fmt.Printf("cruise: v=%.2f tilt max %.1f acc max %.2f\n", f.s.Quad().Truth().Vel.Norm(), maxT, maxA)
	n0 := len(f.log)
	f.ap.Hold()
	f.runUntil(8, func(autopilot.Status) bool { return false })
	maxT, maxA = 0, 0
	for _, s := range f.log[n0:] {
		maxT = math.Max(maxT, tiltOf(s.truth.Att))
		maxA = math.Max(maxA, s.truth.Acc.XY().Norm())
	}
	fmt.Printf("hold: tilt max %.1f acc max %.2f overshoot x %.2f\n", maxT, maxA, f.s.Quad().Truth().Pos.X-f.log[n0].truth.Pos.X)

	// mission with default NAV_ACC_RAD 10
	f = newFlight(t, vehicle.SimConfig{Seed: 1})
	f.ap.Arm()
	f.ap.StartMission(mission)
	f.runUntil(150, func(s autopilot.Status) bool { return s.MissionDone })
	maxT, maxA = 0, 0
	for _, s := range f.log {
		if -s.truth.Pos.Z > 9 {
			maxT = math.Max(maxT, tiltOf(s.truth.Att))
			maxA = math.Max(maxA, s.truth.Acc.XY().Norm())
		}
	}
	fmt.Printf("mission default radius: done %v t %.1f tilt max %.1f acc max %.2f\n", f.ap.Status().MissionDone, f.s.Time(), maxT, maxA)
	for _, e := range f.s.Events() {
		fmt.Printf("  %.2f %s pos %+.3v\n", e.T, e.Text, f.at(e.T).truth.Pos)
	}
}
