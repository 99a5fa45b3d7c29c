package eol_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// cut is a blade stop found in the simulator's ground truth.
type cut struct {
	T        float64
	TwistDeg float64 // largest heading change within 0.3 s of the cut
	Cause    string  // "STOP", "watchdog" or "" (commanded)
}

// bladeCuts finds every blade stop in the trace (the motor commanded on,
// then off) and the twist of the chassis that followed, and names the gate
// event that caused it. This reads ground truth: it is the test's
// measurement, not the runner's.
func bladeCuts(s *vehicle.MowerSim) []cut {
	tr := s.Trace()
	var cuts []cut
	for i := 1; i < len(tr); i++ {
		if !tr[i-1].BladeOn || tr[i].BladeOn {
			continue
		}
		c := cut{T: tr[i].T}
		for j := i; j < len(tr) && tr[j].T <= tr[i].T+0.3; j++ {
			if d := math.Abs(tr[j].Yaw-tr[i-1].Yaw) * 180 / math.Pi; d > c.TwistDeg {
				c.TwistDeg = d
			}
		}
		for _, e := range s.Events() {
			if math.Abs(e.T-c.T) < 0.025 {
				switch {
				case strings.HasPrefix(e.Text, "STOP latched"):
					c.Cause = "STOP"
				case strings.HasPrefix(e.Text, "watchdog"):
					c.Cause = "watchdog"
				}
			}
		}
		cuts = append(cuts, c)
	}
	return cuts
}

// twistsBy returns the twists of the cuts with cause.
func twistsBy(cuts []cut, cause string) []float64 {
	var out []float64
	for _, c := range cuts {
		if c.Cause == cause {
			out = append(out, c.TwistDeg)
		}
	}
	return out
}

// headingAtObstacleDeg returns the true heading, degrees, while the robot
// drives at the box in step 6: the heading just before the run's last blade
// cut (the runner stops the blade when the run ends).
func headingAtObstacleDeg(s *vehicle.MowerSim) float64 {
	tr := s.Trace()
	for i := len(tr) - 1; i > 0; i-- {
		if tr[i-1].BladeOn && !tr[i].BladeOn {
			return tr[i-1].Yaw * 180 / math.Pi
		}
	}
	return math.NaN()
}

func value(t *testing.T, rep *eol.Report, id string) float64 {
	t.Helper()
	c, ok := rep.Check(id)
	if !ok || c.Value == nil {
		t.Fatalf("check %s: no value (%+v)", id, c)
	}
	return *c.Value
}

// TestSeedRuns reproduces the seed's three simulator runs
// (seeds/end-of-line-test.txt, "What it found in the simulator"):
//
//   - eol-1, no watchdog in the gate: the robot carries on when the driver
//     goes silent; the watchdog rows fail, everything else passes; the STOP's
//     blade cut twists the robot by about 8° (the watchdog never cuts the
//     blade);
//   - eol-2, the watchdog but an unlimited blade torque: each blade cut
//     twists the robot by about 8°; after STOP and the watchdog it points
//     about 16° off and drives past the box;
//   - eol-3, the torque-limited blade: everything passes, the blade stops in
//     about 0.75 s and the twists stay under 0.1°.
//
// The twist is measured from the simulator's trace, by this test.
func TestSeedRuns(t *testing.T) {
	type want struct {
		failed      []string
		stopTwist   [2]float64 // range of the STOP cut's twist, °
		dogTwist    [2]float64 // range of the watchdog cut's twist, ° (NaN: no watchdog cut)
		heading     [2]float64 // true heading while driving at the box, °
		bladeStop   [2]float64 // commanded blade stop, s
		dogStandstl [2]float64 // watchdog: drive stops, s (NaN: never)
	}
	nan := [2]float64{math.NaN(), math.NaN()}
	cases := []struct {
		name string
		mc   mowerCase
		want want
	}{
		{"eol-1", mowerCase{noDog: true, unlimited: true}, want{
			failed:    []string{"watchdog.drive", "watchdog.blade"},
			stopTwist: [2]float64{6, 10}, dogTwist: nan, heading: [2]float64{6, 10},
			bladeStop: [2]float64{0, 0.05}, dogStandstl: nan}},
		{"eol-2", mowerCase{unlimited: true}, want{
			failed:    []string{"obstacle.stop"},
			stopTwist: [2]float64{6, 10}, dogTwist: [2]float64{6, 10}, heading: [2]float64{12, 20},
			bladeStop: [2]float64{0, 0.05}, dogStandstl: [2]float64{0.5, 0.7}}},
		{"eol-3", mowerCase{}, want{
			failed:    nil,
			stopTwist: [2]float64{0, 0.1}, dogTwist: [2]float64{0, 0.1}, heading: [2]float64{-0.5, 0.5},
			bladeStop: [2]float64{0.70, 0.80}, dogStandstl: [2]float64{0.5, 0.7}}},
	}
	in := func(v float64, r [2]float64) bool {
		if math.IsNaN(r[0]) {
			return math.IsNaN(v)
		}
		return v >= r[0] && v <= r[1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newMower(t, c.mc)
			rep := runMower(t, s, c.mc, c.name)
			if got := ids(rep, eol.Fail); !slices.Equal(got, c.want.failed) {
				t.Errorf("failed checks: got %v; want %v", got, c.want.failed)
			}
			cuts := bladeCuts(s)
			stop, dog := twistsBy(cuts, "STOP"), twistsBy(cuts, "watchdog")
			if len(stop) != 1 || !in(stop[0], c.want.stopTwist) {
				t.Errorf("STOP cut twist: got %v°; want one in %v", stop, c.want.stopTwist)
			}
			switch {
			case math.IsNaN(c.want.dogTwist[0]) && len(dog) != 0:
				t.Errorf("watchdog cuts: got %v; want none (the watchdog never cut the blade)", dog)
			case !math.IsNaN(c.want.dogTwist[0]) && (len(dog) != 1 || !in(dog[0], c.want.dogTwist)):
				t.Errorf("watchdog cut twist: got %v°; want one in %v", dog, c.want.dogTwist)
			}
			hd := headingAtObstacleDeg(s)
			if !in(math.Abs(hd), c.want.heading) {
				t.Errorf("heading while driving at the box: got %.2f°; want |·| in %v", hd, c.want.heading)
			}
			if got := value(t, rep, "blade.stop"); !in(got, c.want.bladeStop) {
				t.Errorf("blade stop (commanded): got %.3f s; want in %v", got, c.want.bladeStop)
			}
			ds, _ := rep.Check("watchdog.drive")
			dsv := math.NaN()
			if ds.Value != nil {
				dsv = *ds.Value
			}
			if !in(dsv, c.want.dogStandstl) {
				t.Errorf("watchdog drive stop: got %v s; want in %v", dsv, c.want.dogStandstl)
			}
			ob, _ := rep.Check("obstacle.stop")
			t.Logf("%s: %s; watchdog drive stop %s; blade stop (commanded) %.2f s; twists STOP %s watchdog %s; heading at the box %.2f°; obstacle %s (%s)",
				c.name, rep.Result, ds.Measured, value(t, rep, "blade.stop"), degs(stop), degs(dog), hd, ob.Measured, ob.Detail)
			if c.name == "eol-2" && ob.Measured != "drove past" {
				t.Errorf("eol-2 obstacle: got %q; want \"drove past\"", ob.Measured)
			}
		})
	}
}

// The gate the seed's eol-1 ran with is only a test configuration: the
// product's gate has the watchdog.
func TestProductGateHasWatchdog(t *testing.T) {
	g, err := gate.New(gate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Config().NoWatchdog || g.Config().WatchdogS != 0.5 {
		t.Errorf("default gate: %+v; want the 0.5-s watchdog", g.Config())
	}
}

func degs(v []float64) string {
	if len(v) == 0 {
		return "none"
	}
	p := make([]string, len(v))
	for i, x := range v {
		p[i] = strconv.FormatFloat(x, 'f', 3, 64) + "°"
	}
	return strings.Join(p, ", ")
}
