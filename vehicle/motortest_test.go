package vehicle_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// spinning returns the positions whose rotor turns faster than 5 % of full.
func spinning(s *vehicle.Sim) map[int]float64 {
	m := map[int]float64{}
	for p, e := range s.ESCs() {
		if math.Abs(e.RPM) > 0.05*vehicle.SimMaxRPM {
			m[p] = e.RPM
		}
	}
	return m
}

// A motor test spins one motor alone, in its direction; a swapped or
// reversed motor shows on the ESCs.
func TestMotorTest(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		fault func(*vehicle.Sim) error
		motor int
		want  map[int]float64 // position → rpm
	}{
		{"motor 1", nil, 0, map[int]float64{0: 1650}},
		{"motor 3 turns clockwise", nil, 2, map[int]float64{2: -1650}},
		{"1 and 3 swapped", func(s *vehicle.Sim) error { return s.SwapMotors(0, 2) }, 0, map[int]float64{2: -1650}},
		{"motor 2 reversed", func(s *vehicle.Sim) error { return s.ReverseMotor(1) }, 1, map[int]float64{1: -1650}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, vehicle.SimConfig{Seed: 1})
			if c.fault != nil {
				if err := c.fault(s); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.MotorTest(ctx, c.motor, 0.15, 2*time.Second); err != nil {
				t.Fatal(err)
			}
			wait(t, s, time.Second, nil)
			got := spinning(s)
			if len(got) != len(c.want) {
				t.Fatalf("spinning: got %v; want %v", got, c.want)
			}
			for p, rpm := range c.want {
				if math.Abs(got[p]-rpm) > 5 {
					t.Errorf("position %d: got %.0f rpm; want %.0f", p, got[p], rpm)
				}
			}
			wait(t, s, 2*time.Second, nil)
			if got := spinning(s); len(got) != 0 {
				t.Errorf("after the test's timeout: still spinning %v", got)
			}
			if s.Quad().Truth().Pos != (geom.Vec3{}) {
				t.Errorf("the vehicle moved during the motor test: %v", s.Quad().Truth().Pos)
			}
		})
	}
	s := newSim(t, vehicle.SimConfig{Seed: 1})
	if err := s.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.MotorTest(ctx, 0, 0.15, time.Second); err != autopilot.ErrMotorTestDenied {
		t.Errorf("motor test while armed: got %v; want %v", err, autopilot.ErrMotorTestDenied)
	}
	for _, bad := range []func() error{
		func() error { return s.SwapMotors(0, 4) },
		func() error { return s.ReverseMotor(-1) },
	} {
		if bad() == nil {
			t.Errorf("a fault with a motor out of range was accepted")
		}
	}
}

// Collision prevention stops a vehicle flying at a wall in a position mode
// near CP_DIST; without it the vehicle hits the wall.
func TestCollisionPrevention(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		cpDist  float64
		wantHit bool
	}{{"CP_DIST 2 m", 2, false}, {"off (PX4's default)", 0, true}} {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, vehicle.SimConfig{Quad: quad.Config{Range: quad.Lidar(72)}, Scene: world.Scene{Boxes: []world.Box{vehicle.QuadTestBox()}}, Seed: 1})
			if err := s.Autopilot().SetCollisionPrevention(autopilot.CollisionPrevention{DistM: c.cpDist}); err != nil {
				t.Fatal(err)
			}
			if err := s.Arm(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.Takeoff(ctx, 3); err != nil {
				t.Fatal(err)
			}
			wait(t, s, 10*time.Second, nil)
			if err := s.Goto(ctx, geom.Vec3{X: 20, Z: -3}, 2); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Wait(ctx, 20*time.Second, nil); err != nil {
				t.Fatal(err)
			}
			// A 2-m/s goto into the box touches it (a contact, not a crash:
			// only an impact faster than quad.CrashImpactMS breaks the
			// vehicle).
			hit := len(s.Contacts()) > 0
			if hit != c.wantHit {
				t.Fatalf("touched the box: got %v; want %v", hit, c.wantHit)
			}
			if hit {
				return
			}
			face := vehicle.QuadTestBox().X - vehicle.QuadTestBox().L/2
			closest := math.Inf(1)
			for _, smp := range s.Trace() {
				closest = math.Min(closest, face-smp.Pos.X)
			}
			final := face - s.Trace()[len(s.Trace())-1].Pos.X
			if closest < 1.5 || math.Abs(final-2) > 0.3 {
				t.Errorf("closest %.2f m, at rest %.2f m from the wall; want ≥ 1.5 and about 2", closest, final)
			}
		})
	}
}
