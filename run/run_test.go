package run_test

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

func builtin(t testing.TB, name string) *scenario.CaseStudy {
	t.Helper()
	cs, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func fly(t testing.TB, cs *scenario.CaseStudy, opt run.Options) *run.Result {
	t.Helper()
	r, _, err := run.FlySim(context.Background(), cs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every built-in mission completes without obstacles, passes each waypoint
// within the case study's NAV_ACC_RAD (0.5 m) and lands on the land item.
func TestBuiltinMissionsComplete(t *testing.T) {
	for _, name := range scenario.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			cs := builtin(t, name)
			r := fly(t, cs, run.Options{Seed: 1})
			if !r.Completed {
				t.Fatalf("not completed: %s", r.Reason)
			}
			if len(r.Collisions) != 0 || r.MinClearanceM != nil {
				t.Errorf("collisions %v, clearance %v without obstacles", r.Collisions, r.MinClearanceM)
			}
			for i, it := range cs.Mission.Items {
				best := math.Inf(1)
				for _, s := range r.Trace {
					d := s.Pos.XY().Dist(it.Pos.XY())
					if it.Kind != scenario.Land {
						d = math.Hypot(d, s.Pos.Z-it.Pos.Z)
					}
					best = math.Min(best, d)
				}
				// The trace is 10 Hz at up to 5 m/s: 0.5 m between samples.
				if best > 0.5+0.25 {
					t.Errorf("item %d (%v at %v): closest pass %.2f m", i, it.Kind, it.Pos, best)
				}
			}
			last := r.Trace[len(r.Trace)-1].Pos
			land := cs.Mission.Items[len(cs.Mission.Items)-1].Pos
			if d := last.XY().Dist(land.XY()); d > 0.5 || last.Z != 0 {
				t.Errorf("ended at %v, %.2f m from the land point %v", last, d, land.XY())
			}
			// Flight time: arm to disarm; the path is at least the planned one.
			planned := cs.Mission.Path()
			xy := make([]geom.Vec2, len(planned))
			for i, p := range planned {
				xy[i] = p.XY()
			}
			if min := geom.PolylineLength(xy) + 20; r.PathLengthM < min-1 {
				t.Errorf("path %.1f m shorter than planned + climb and descent %.1f m", r.PathLengthM, min)
			}
			if r.FlightTimeS < 20 || r.FlightTimeS > 200 {
				t.Errorf("flight time %.1f s out of the plausible range", r.FlightTimeS)
			}
		})
	}
}

// The same seed gives byte-identical trajectory CSVs; another seed does not.
func TestDeterministicTrajectory(t *testing.T) {
	csv := func(seed uint64) []byte {
		cs := builtin(t, "mission3")
		cs.Obstacles = []world.Box{{L: 6, W: 6, H: 20, X: -20, Y: 30}}
		r := fly(t, cs, run.Options{Seed: seed})
		var b bytes.Buffer
		if err := trace.WriteCSV(&b, r.Trace); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b, c := csv(42), csv(42), csv(43)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different trajectory CSV")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave identical trajectories: the noise is not seeded")
	}
}

// A box across the first leg is hit by the plain autopilot (it has no
// avoidance): the flight is a crash into obstacle 1 with clearance 0. The
// avoidance autopilot flies around it.
func TestCrashIntoObstacle(t *testing.T) {
	cs := builtin(t, "mission1")
	cs.Obstacles = []world.Box{{L: 12, W: 4, H: 20, X: 2, Y: 25}}
	r := fly(t, cs, run.Options{Seed: 1, Autopilot: run.AutopilotPlain})
	if r.Completed {
		t.Fatal("flew through a wall")
	}
	if len(r.Collisions) != 1 || r.Collisions[0].Obstacle != 1 {
		t.Fatalf("collisions: got %+v; want one with obstacle 1", r.Collisions)
	}
	if !strings.Contains(r.Reason, "obstacle 1") {
		t.Errorf("reason %q does not name the obstacle", r.Reason)
	}
	// It hits the 0.8-scaled collision box's south face (y = 25 − 1.6) less
	// the vehicle radius.
	if y := r.Collisions[0].Y; math.Abs(y-(25-1.6-0.25)) > 0.1 {
		t.Errorf("collision at y = %.2f; want ≈ %.2f", y, 25-1.6-0.25)
	}
	if r.MinClearanceM == nil || *r.MinClearanceM != 0 {
		t.Errorf("min clearance: got %v; want 0", r.MinClearanceM)
	}
	r = fly(t, cs, run.Options{Seed: 1})
	if !r.Completed || len(r.Collisions) != 0 || *r.MinClearanceM < 1 {
		t.Errorf("with avoidance: completed %v, collisions %v, clearance %.2f m; want around the wall", r.Completed, r.Collisions, *r.MinClearanceM)
	}
}

// The competition README's two-obstacle sample on mission2 (l 10, w 5, h 20
// at (10, 20) and (−10, 20), r 0) is flown to completion by the avoidance
// autopilot, whatever the noise seed.
func TestReadmeSampleCompletes(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		cs := builtin(t, "mission2")
		cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}, {L: 10, W: 5, H: 20, X: -10, Y: 20}}
		r := fly(t, cs, run.Options{Seed: seed})
		if !r.Completed || len(r.Collisions) != 0 {
			t.Errorf("seed %d: %s (collisions %v)", seed, r.Reason, r.Collisions)
		}
	}
}

// Beside the straight mission1 leg, the clearance is the box's distance to
// the leg (the plain autopilot tracks the line to a few centimetres).
func TestClearanceBesideTheLeg(t *testing.T) {
	cs := builtin(t, "mission1")
	// The leg runs from (0, 0) to (3.30, 53.09); a 4×4 box centred 5 m to
	// its west at y = 25 has its east face 3 m from the line.
	leg := geom.Vec2{X: 3.30, Y: 53.09}
	onLeg := leg.Scale(25 / leg.Y)
	west := geom.Vec2{X: -leg.Y, Y: leg.X}.Unit()
	c := onLeg.Add(west.Scale(5))
	box := world.Box{L: 4, W: 4, H: 20, X: c.X, Y: c.Y, R: math.Atan2(leg.Y, leg.X) * 180 / math.Pi}
	cs.Obstacles = []world.Box{box}
	r := fly(t, cs, run.Options{Seed: 1, Autopilot: run.AutopilotPlain})
	if !r.Completed {
		t.Fatalf("not completed: %s", r.Reason)
	}
	if got := *r.MinClearanceM; math.Abs(got-3) > 0.1 {
		t.Errorf("clearance: got %.3f m; want 3 ± 0.1", got)
	}
}

func TestTimeout(t *testing.T) {
	r := fly(t, builtin(t, "mission2"), run.Options{Seed: 1, TimeoutS: 10})
	if r.Completed || !strings.HasPrefix(r.Reason, "timeout") {
		t.Errorf("got completed=%v reason %q; want a timeout", r.Completed, r.Reason)
	}
	if r.SimTimeS != 10 {
		t.Errorf("simulated %v s; want 10", r.SimTimeS)
	}
}

func TestBadOptions(t *testing.T) {
	cs := builtin(t, "mission2")
	for _, to := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, _, err := run.FlySim(context.Background(), cs, run.Options{TimeoutS: to}); err == nil {
			t.Errorf("timeout %v accepted", to)
		}
	}
	cs.Params = map[string]float64{"NOT_A_PARAM": 1}
	if _, _, err := run.FlySim(context.Background(), cs, run.Options{}); err == nil || !strings.Contains(err.Error(), "NOT_A_PARAM") {
		t.Errorf("unknown parameter: got %v; want an error naming it", err)
	}
	if _, _, err := run.FlySim(context.Background(), builtin(t, "mission2"), run.Options{Autopilot: "magic"}); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("unknown autopilot: got %v; want an error naming it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := run.FlySim(ctx, builtin(t, "mission2"), run.Options{}); err == nil {
		t.Error("cancelled context: flight ran anyway")
	}
}

// BenchmarkFlyMission2 is the wall time of the whole obstacle-free mission2
// flight (arm to disarm) with the plain autopilot (about 65 simulated
// seconds at 5 m/s) and with the avoidance autopilot (about 92 s at 2 m/s,
// with the depth camera and the planner running).
func BenchmarkFlyMission2(b *testing.B) {
	cs := builtin(b, "mission2")
	for _, ap := range []string{run.AutopilotPlain, run.AutopilotAvoid} {
		b.Run(ap, func(b *testing.B) {
			b.ReportAllocs()
			var simS float64
			for b.Loop() {
				r := fly(b, cs, run.Options{Seed: 1, Autopilot: ap})
				simS = r.SimTimeS
			}
			b.ReportMetric(simS, "sim-s/op")
			b.ReportMetric(simS/(b.Elapsed().Seconds()/float64(b.N)), "x-realtime")
		})
	}
}

// BenchmarkConstrainedTests flies 40 constrained-random tests of the
// canonical mission one after another (gusts 0.3 m/s, avoidance autopilot)
// and reports the median wall time of one test beside the mean.
func BenchmarkConstrainedTests(b *testing.B) {
	cs := builtin(b, "canonical")
	leg, err := gen.LongestLeg(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		b.Fatal(err)
	}
	g := gen.Generator{Leg: leg, Area: world.DefaultArea}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := make([]*scenario.CaseStudy, 40)
	for i := range cases {
		tc, err := g.Constrained(rng)
		if err != nil {
			b.Fatal(err)
		}
		c := *cs
		c.Obstacles = tc.Obstacles
		cases[i] = &c
	}
	wind := sim.WindConfig{GustSigmaMS: 0.3, GustTauS: 2}
	var durs []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range cases {
			t0 := time.Now()
			if _, _, err := run.FlySim(context.Background(), c, run.Options{Seed: uint64(i), Wind: wind}); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
		}
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "median-ms/test")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(cases)), "mean-ms/test")
}

// BenchmarkFlyMission2Record is BenchmarkFlyMission2 with the flight
// recorded to MCAP in memory; it reports the file size per simulated minute.
func BenchmarkFlyMission2Record(b *testing.B) {
	cs := builtin(b, "mission2")
	b.ReportAllocs()
	var size, simS float64
	for b.Loop() {
		var buf bytes.Buffer
		r, _, err := run.FlySim(context.Background(), cs, run.Options{Seed: 1, Record: &buf})
		if err != nil {
			b.Fatal(err)
		}
		size, simS = float64(buf.Len()), r.SimTimeS
	}
	b.ReportMetric(size/1024/(simS/60), "KiB/sim-min")
}

func TestRecord(t *testing.T) {
	cs := builtin(t, "mission1")
	var buf bytes.Buffer
	r, _, err := run.FlySim(context.Background(), cs, run.Options{Seed: 1, Record: &buf})
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := run.FlySim(context.Background(), cs, run.Options{Seed: 1})
	if r.FlightTimeS != plain.FlightTimeS || r.PathLengthM != plain.PathLengthM {
		t.Errorf("recording changed the flight: %v/%v vs %v/%v", r.FlightTimeS, r.PathLengthM, plain.FlightTimeS, plain.PathLengthM)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("\x89MCAP0\r\n")) {
		t.Errorf("not an MCAP file: % x", buf.Bytes()[:8])
	}
}

// TestFlySpeedChange: a DO_CHANGE_SPEED of a .plan is flown. mission2 with
// its waypoint leg and the landing leg at 2 m/s instead of MPC_XY_CRUISE's
// 5 m/s takes longer by about the legs' length × (1/2 − 1/5) s/m (108 m of
// legs: about 30 s; 15 s is a bound well below, as the legs' acceleration
// phases shorten the difference), with either autopilot.
func TestFlySpeedChange(t *testing.T) {
	for _, ap := range []string{run.AutopilotPlain, run.AutopilotAvoid} {
		base, err := scenario.Builtin("mission2")
		if err != nil {
			t.Fatal(err)
		}
		slow := *base
		slow.Mission.Items = append([]scenario.Item(nil), base.Mission.Items...)
		for i := 1; i < len(slow.Mission.Items); i++ {
			slow.Mission.Items[i].SpeedMS = 2
		}
		opt := run.Options{Seed: 1, Autopilot: ap}
		a, _, err := run.FlySim(context.Background(), base, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := run.FlySim(context.Background(), &slow, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Completed || !b.Completed {
			t.Fatalf("%s: completed %v and %v; want both", ap, a.Completed, b.Completed)
		}
		if d := b.FlightTimeS - a.FlightTimeS; d < 15 {
			t.Errorf("%s: at 2 m/s the flight took %.1f s, at the default %.1f s; want at least 15 s longer", ap, b.FlightTimeS, a.FlightTimeS)
		}
	}
}
