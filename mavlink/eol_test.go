package mavlink

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

var _ eol.Quad = (*Vehicle)(nil)

// TestEOLOverLink runs the end-of-line test's quadrotor profile (package
// eol, unchanged) through the adapter on the served simulator, and on the
// simulator in-process: the harness code is the same, and so are the
// verdicts of its checks.
func TestEOLOverLink(t *testing.T) {
	opt := eol.QuadOptions{Options: eol.Options{Serial: "SD-Q-0001", RunID: "mav-1", Time: time.Unix(0, 0).UTC(), NoLidar: true}}
	// The sensors as a MAVLink link shows them (PX4's stream rates:
	// HIGHRES_IMU 50 Hz, GPS_RAW_INT 5 Hz, the barometer's own 20 Hz through
	// HIGHRES_IMU's updated flags, SYS_STATUS and BATTERY_STATUS 1 Hz).
	opt.Quad = eol.DefaultQuadSpec()
	opt.Quad.IMUHz, opt.Quad.GNSSHz, opt.Quad.BatteryHz, opt.Quad.RangeHz = 50, 5, 1, 0
	verdicts := func(r *eol.Report) string {
		var b strings.Builder
		for _, c := range r.Checks {
			b.WriteString(c.ID + "=" + string(c.Result) + " ")
		}
		return b.String()
	}
	var inProc, overLink string
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	simOpt := opt
	simOpt.Quad = eol.DefaultQuadSpec()
	simOpt.Quad.RangeHz = 0
	rep, err := eol.RunQuad(context.Background(), sim, simOpt)
	if err != nil {
		t.Fatal(err)
	}
	inProc = verdicts(rep)
	// At ×1, and at ×10 as `shakedown sitl --speed 10` serves it: the
	// streams keep their rates in vehicle time (issue 17 item 11).
	for _, speed := range []float64{1, 10} {
		synctest.Test(t, func(t *testing.T) {
			r := newRigAt(t, vehicle.SimConfig{Seed: 11}, Config{}, speed)
			rep, err := eol.RunQuad(context.Background(), r.v, opt)
			if err != nil {
				t.Fatal(err)
			}
			overLink = verdicts(rep)
			t.Logf("over MAVLink at ×%g (%+v):\n%s", speed, r.v.Link(), rep.Summary())
		})
		if inProc != overLink {
			t.Errorf("×%g: check verdicts differ:\n in-process %s\n MAVLink    %s", speed, inProc, overLink)
		}
	}
}
