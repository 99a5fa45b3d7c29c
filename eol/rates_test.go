package eol_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// slowLooker is the simulator read by a loop that looks only every 25 ms
// of vehicle time, whatever it asks for: a runner starved of CPU on a
// loaded machine, reading a sped-up link, sees one IMU sample in five.
type slowLooker struct{ *vehicle.Sim }

func (s slowLooker) Wait(ctx context.Context, d time.Duration, until func(vehicle.Telemetry) bool) (vehicle.Telemetry, error) {
	return s.Sim.Wait(ctx, max(d, 25*time.Millisecond), until)
}

// TestQuadRatesCountUnseenSamples: the sensor-rate rows count the samples
// the sensors took (their Seq), not the ones the runner happened to look
// at: a runner that looks five times less often measures the same rates.
func TestQuadRatesCountUnseenSamples(t *testing.T) {
	rates := func(rep *eol.Report) map[string]eol.Check {
		m := map[string]eol.Check{}
		for _, c := range rep.Checks {
			if strings.HasPrefix(c.ID, "sensors.") && strings.HasSuffix(c.ID, "_rate") {
				m[c.ID] = c
			}
		}
		return m
	}
	want := rates(runQuad(t, newQuad(t, 1), "r"))
	got := rates(runQuad(t, slowLooker{newQuad(t, 1)}, "r"))
	spec := eol.DefaultQuadSpec()
	hz := map[string]float64{"sensors.imu_rate": spec.IMUHz, "sensors.gnss_rate": spec.GNSSHz, "sensors.baro_rate": spec.BaroHz,
		"sensors.battery_rate": spec.BatteryHz, "sensors.range_rate": spec.RangeHz}
	if len(want) != len(hz) {
		t.Fatalf("rate rows %v; want %d", want, len(hz))
	}
	for id, w := range want {
		g := got[id]
		if w.Result != eol.Pass || g.Result != eol.Pass {
			t.Errorf("%s: %s (%s) read every step, %s (%s) read every 25 ms; want PASS for both", id, w.Result, w.Measured, g.Result, g.Measured)
			continue
		}
		// The slow loop ends its listening up to 25 ms later, so the span
		// differs a little; the rate is the sensor's either way.
		if math.Abs(*g.Value-hz[id]) > 0.02*hz[id] || math.Abs(*w.Value-hz[id]) > 0.02*hz[id] {
			t.Errorf("%s: %v Hz read every step, %v Hz read every 25 ms; want %v Hz", id, *w.Value, *g.Value, hz[id])
		}
	}
}
