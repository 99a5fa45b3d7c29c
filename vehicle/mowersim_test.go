package vehicle_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

func newMower(t testing.TB, cfg vehicle.MowerSimConfig) *vehicle.MowerSim {
	t.Helper()
	s, err := vehicle.NewMowerSim(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The gate's ring colours are the ring light's.
func TestRingColoursMatch(t *testing.T) {
	for _, c := range []struct {
		g gate.Ring
		r rover.Ring
	}{{gate.RingOff, rover.RingOff}, {gate.RingGreen, rover.RingGreen}, {gate.RingAmber, rover.RingAmber}, {gate.RingRed, rover.RingRed}} {
		if rover.Ring(c.g) != c.r || c.g.String() != c.r.String() {
			t.Errorf("gate ring %v maps to %v; want %v", c.g, rover.Ring(c.g), c.r)
		}
	}
}

// The box stands 3.5 m ahead of the default mower's bumper, as the seed
// places it.
func TestMowerTestBox(t *testing.T) {
	b := vehicle.MowerTestBox()
	face := b.X - b.L/2
	if got := face - rover.DefaultParams().FrontM; math.Abs(got-vehicle.MowerBoxAheadM) > 1e-12 {
		t.Errorf("box face %.3f m ahead of the bumper; want %.1f", got, vehicle.MowerBoxAheadM)
	}
	if b.H < 0.2 {
		t.Errorf("box %.2f m tall; the seed asks for at least 0.2 m", b.H)
	}
}

// Without a watchdog, a silent driver's last command goes on forever: the
// drive plugin keeps executing it (the seed's eol-1). With the product's
// gate the robot stops.
func TestSilentDriver(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name      string
		gate      gate.Config
		wantSpeed float64
	}{{"no watchdog", gate.Config{NoWatchdog: true}, 0.3}, {"watchdog", gate.Config{}, 0}} {
		t.Run(c.name, func(t *testing.T) {
			s := newMower(t, vehicle.MowerSimConfig{Gate: c.gate, Seed: 3})
			if err := s.Send(ctx, gate.Command{V: 0.3}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Wait(ctx, 5*time.Second, nil); err != nil {
				t.Fatal(err)
			}
			if got := s.Rover().Truth().SpeedMS; math.Abs(got-c.wantSpeed) > 1e-9 {
				t.Errorf("speed 5 s after the last command: got %.3f m/s; want %.1f", got, c.wantSpeed)
			}
		})
	}
}

// STOP pressed through the interface latches the gate; the sensors say so.
func TestMowerStopButton(t *testing.T) {
	ctx := context.Background()
	s := newMower(t, vehicle.MowerSimConfig{Seed: 1})
	if err := s.Press(ctx, vehicle.ButtonStop, true); err != nil {
		t.Fatal(err)
	}
	got, err := s.Wait(ctx, time.Second, func(m vehicle.MowerSensors) bool { return m.Safety.Latched })
	if err != nil {
		t.Fatalf("not latched within 1 s: %v", err)
	}
	if got.Safety.Ring != gate.RingRed || s.Rover().Truth().Ring != rover.RingRed {
		t.Errorf("ring: reported %v, shown %v; want red", got.Safety.Ring, s.Rover().Truth().Ring)
	}
	if err := s.Press(ctx, vehicle.Button(9), true); err == nil {
		t.Errorf("Press accepted an unknown button")
	}
	if _, err := s.Wait(ctx, -time.Second, nil); err == nil {
		t.Errorf("Wait accepted a negative duration")
	}
}

// A box ahead: the gate stops the mower short of it.
func TestMowerObstacleStop(t *testing.T) {
	ctx := context.Background()
	s := newMower(t, vehicle.MowerSimConfig{Scene: world.Scene{Boxes: []world.Box{vehicle.MowerTestBox()}}, Seed: 1})
	for range 200 {
		if err := s.Send(ctx, gate.Command{V: 0.3}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Wait(ctx, 100*time.Millisecond, nil); err != nil {
			t.Fatal(err)
		}
	}
	tr := s.Rover().Truth()
	gap := vehicle.MowerTestBox().X - vehicle.MowerTestBox().L/2 - (tr.Pos.X + rover.DefaultParams().FrontM)
	if tr.Contact >= 0 || gap < 0.1 || gap > 0.4 || math.Abs(tr.SpeedMS) > 1e-3 {
		t.Errorf("after 20 s toward the box: gap %.3f m, speed %.3f, contact %d; want at rest 0.1–0.4 m short", gap, tr.SpeedMS, tr.Contact)
	}
	if got := s.Sensors().Safety.Hold; got != gate.HoldObstacle {
		t.Errorf("gate hold: got %v; want obstacle", got)
	}
}

func TestNewMowerSimRejects(t *testing.T) {
	for _, cfg := range []vehicle.MowerSimConfig{{GateHz: -1}, {RecordHz: math.Inf(1)}, {Gate: gate.Config{WatchdogS: -1}}} {
		if _, err := vehicle.NewMowerSim(cfg); err == nil {
			t.Errorf("NewMowerSim accepted %+v", cfg)
		}
	}
}
