package fidelity

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

func TestSpearmanByHand(t *testing.T) {
	// y's ranks with the tie: 1, 2, 3.5, 5, 3.5; Pearson with 1…5 is
	// 8/√(10·9.5).
	rho, _ := Spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 0, nil)
	if want := 8 / math.Sqrt(95); math.Abs(rho-want) > 1e-12 {
		t.Errorf("rho = %v; want %v", rho, want)
	}
	rho, p := Spearman([]float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{8, 7, 6, 5, 4, 3, 2, 1}, 4000, rand.New(rand.NewPCG(1, 1)))
	if rho != -1 {
		t.Errorf("reversed: rho = %v; want -1", rho)
	}
	// Two of the 8! orders reach |ρ| = 1: p ≈ 2/40320 plus the observed one.
	if p > 0.002 {
		t.Errorf("reversed: p = %v; want < 0.002", p)
	}
	if r, _ := Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}, 0, nil); !math.IsNaN(r) {
		t.Errorf("constant sample: rho = %v; want NaN", r)
	}
}

func TestParseCSV(t *testing.T) {
	good := "mission,test,px4_min_distance_m,px4_class,px4_airborne_s,usable\n" +
		"mission2,test_0,0.82,normal,150.8,yes\nmission4,test_7,0,crash,,no\n"
	refs, err := ParseCSV("dir/ref.csv", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].MinDistM != 0.82 || refs[0].AirborneS != 150.8 || refs[0].YAML != "dir/tests/mission2/test_0.yaml" ||
		!math.IsNaN(refs[1].AirborneS) || refs[1].Usable || refs[1].Class != "crash" || refs[1].Line != 3 {
		t.Errorf("got %+v", refs)
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "ref.csv:1: empty file"},
		{"no distance column", "test,yaml\na,a.yaml\n", "ref.csv:1: px4_min_distance_m: missing column"},
		{"text distance", "test,px4_min_distance_m\na,1\nb,near\n", `ref.csv:3: px4_min_distance_m: "near" is not a distance`},
		{"negative", "test,px4_min_distance_m\na,-1\n", "ref.csv:2: px4_min_distance_m"},
		{"nan", "test,px4_min_distance_m\na,NaN\n", "ref.csv:2: px4_min_distance_m"},
		{"huge", "test,px4_min_distance_m\na,1e300\n", "ref.csv:2: px4_min_distance_m"},
		{"unknown mission", "mission,test,px4_min_distance_m\nmission9,a,1\n", `ref.csv:2: mission: unknown mission "mission9"`},
		{"duplicate", "mission,test,px4_min_distance_m\nmission1,a,1\nmission1,a,2\n", "ref.csv:3: test: mission1/a repeats line 2"},
		{"bad usable", "test,px4_min_distance_m,usable\na,1,maybe\n", "ref.csv:2: usable"},
		{"bad time", "test,px4_min_distance_m,px4_airborne_s\na,1,soon\n", "ref.csv:2: px4_airborne_s"},
		{"no rows", "test,px4_min_distance_m\n", "ref.csv:2: no tests"},
	} {
		_, err := ParseCSV("ref.csv", strings.NewReader(c.in))
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want a ParseError containing %q", c.name, err, c.want)
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add("mission,test,px4_min_distance_m\nmission2,t,0.5\n")
	f.Add("test,px4_min_distance_m,px4_airborne_s,usable\na,1,2,no\nb,0,,yes\n")
	f.Add("test,px4_min_distance_m\n\"a,b\",1\n")
	f.Fuzz(func(t *testing.T, in string) {
		refs, err := ParseCSV("f.csv", strings.NewReader(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v is not a ParseError with a line", err)
			}
			return
		}
		last := 1
		for _, r := range refs {
			if !(r.MinDistM >= 0 && r.MinDistM <= 1e4) || r.Line <= last || r.Test == "" || r.YAML == "" {
				t.Fatalf("bad reference %+v", r)
			}
			last = r.Line
		}
	})
}

// On a hand-made reference whose PX4 distances rank like the boxes'
// offsets from mission1's straight leg (3 tests), ρ is +1; reversed, −1.
func TestEvaluateKnownRho(t *testing.T) {
	for _, c := range []struct {
		file string
		rho  float64
	}{{"testdata/tiny/reference.csv", 1}, {"testdata/tiny/reversed.csv", -1}} {
		fh, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := ParseCSV(c.file, fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Evaluate(context.Background(), refs, Config{Runs: 1, Perms: 100})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pooled.Rho != c.rho || rep.Pooled.N != 3 {
			t.Errorf("%s: rho %v over %d tests; want %v over 3", c.file, rep.Pooled.Rho, rep.Pooled.N, c.rho)
		}
		for _, tr := range rep.Tests {
			if tr.Collided != 0 || !(tr.MeanM > 5) || !(tr.AirborneS > 30) {
				t.Errorf("%s: %+v: want a clear flight", tr.Test, tr)
			}
		}
	}
}

// A folder of YAMLs with their logs: PX4's distance is Aerialist's rule on
// the log's trajectory, the same number the judge gives that trajectory;
// a YAML without its log is an error naming it.
func TestFromFolder(t *testing.T) {
	dir := t.TempDir()
	for dst, src := range map[string]string{
		"flight.yaml":                "testdata/tiny/near1.yaml",
		"flight.ulg":                 "../ulog/testdata/sample_log_small.ulg", // PX4's sample log
		"case_studies/mission1.plan": "testdata/tiny/case_studies/mission1.plan",
	} {
		data, err := os.ReadFile(filepath.FromSlash(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refs, err := FromFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Test != "flight" || refs[0].Mission != "mission1" {
		t.Fatalf("got %+v", refs)
	}
	cs, err := scenario.LoadCaseStudy(filepath.Join(dir, "flight.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := readULogTrajectory(filepath.Join(dir, "flight.ulg"))
	if err != nil {
		t.Fatal(err)
	}
	want := run.Judge(cs, tr, nil, run.Ending{T: tr[len(tr)-1].T}, 500).MinClearanceM
	if want == nil || math.Abs(refs[0].MinDistM-*want) > 1e-4 {
		t.Errorf("distance %v; want the judge's %v", refs[0].MinDistM, want)
	}
	if _, err := FromFolder(filepath.Join("testdata", "folder")); err == nil || !strings.Contains(err.Error(), "nolog.yaml") {
		t.Errorf("a YAML without its log: %v; want an error naming nolog.yaml", err)
	}
}

// The lateral distance of a path to a point set traced beside it: a
// straight line 1 m beside the traced points is 1 m off both ways.
func TestLateral(t *testing.T) {
	var sim []geom.Vec3
	var px4 []geom.Vec2
	for i := range 21 {
		sim = append(sim, geom.Vec3{X: float64(i), Y: 1, Z: -10})
		// Traced points in no order, on y = 0.
		px4 = append(px4, geom.Vec2{X: float64((i * 8) % 21)})
	}
	if got := lateral(sim, px4); math.Abs(got-1) > 1e-12 {
		t.Errorf("lateral = %v; want 1", got)
	}
	if got := lateral(sim[:1], px4); !math.IsNaN(got) {
		t.Errorf("one point: %v; want NaN", got)
	}
}

func TestRepeatScatterByHand(t *testing.T) {
	// Layout A is flown three times (pairs 1.0−0.8, 1.0−0.5, 0.8−0.5 on
	// PX4), layout B twice; C is alone and gives no pair.
	tr := func(layout string, px4 float64, sim ...float64) TestResult {
		return TestResult{Ref: Reference{Layout: layout}, PX4M: px4, SimM: sim}
	}
	ts := []TestResult{
		tr("A", 1.0, 2.0, 2.4), tr("B", 3.0, 3.0, 3.0), tr("A", 0.8, 2.5, 2.5),
		tr("C", 7.0, 6.0, 6.5), tr("A", 0.5, 2.0, 2.1), tr("B", 3.1, 2.2, 2.9),
	}
	got := repeats(ts)
	if len(got) != 3 {
		t.Fatalf("got %d populations; want 3: %+v", len(got), got)
	}
	px4, sim, runs := got[0], got[1], got[2]
	// PX4: |Δ| = 0.2, 0.5, 0.3 (A) and 0.1 (B): sorted 0.1 0.2 0.3 0.5.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if px4.N != 4 || !near(px4.Mean, 0.275) || !near(px4.Q50, 0.25) || !near(px4.Q25, 0.175) || !near(px4.Q90, 0.44) {
		t.Errorf("PX4 = %+v; want 4 pairs, mean 0.275, q25 0.175, q50 0.25, q90 0.44", px4)
	}
	// The simulator on the same pairs, first runs: 0.5, 0, 0.5 (A), 0.8 (B).
	if sim.N != 4 || !near(sim.Mean, 0.45) || !near(sim.Q50, 0.5) {
		t.Errorf("sim = %+v; want 4 pairs, mean 0.45, median 0.5", sim)
	}
	// Run 1 vs run 2 of every test: 0.4, 0, 0, 0.5, 0.1, 0.7.
	if runs.N != 6 || !near(runs.Mean, 1.7/6) || !near(runs.Q50, 0.25) {
		t.Errorf("runs = %+v; want 6 pairs, mean 0.2833, median 0.25", runs)
	}
	// One run per test and no layouts: nothing to report.
	if got := repeats([]TestResult{tr("", 1, 1), tr("", 2, 2)}); len(got) != 0 {
		t.Errorf("no pairs: got %+v", got)
	}
}

func TestBandsByHand(t *testing.T) {
	ts := []TestResult{{PX4M: 0.1, MeanM: 1.2}, {PX4M: 1.2, MeanM: 2.2}, {PX4M: 1.4, MeanM: 1.4}, {PX4M: 40, MeanM: 20}}
	got := bands(ts)
	want := []Band{
		{LoM: 0, HiM: 0.25, N: 1, PX4MeanM: 0.1, SimMeanM: 1.2, SimCritical: 1},
		{LoM: 1, HiM: 1.5, N: 2, PX4MeanM: 1.3, SimMeanM: 1.8, SimCritical: 0.5},
		{LoM: 5, HiM: math.Inf(1), N: 1, PX4MeanM: 40, SimMeanM: 20, SimCritical: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v; want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.LoM != w.LoM || g.HiM != w.HiM || g.N != w.N || math.Abs(g.PX4MeanM-w.PX4MeanM) > 1e-12 ||
			math.Abs(g.SimMeanM-w.SimMeanM) > 1e-12 || g.SimCritical != w.SimCritical {
			t.Errorf("band %d = %+v; want %+v", i, g, w)
		}
	}
	b, err := json.Marshal(got[2])
	if err != nil || !strings.Contains(string(b), `"hi_m":null`) {
		t.Errorf("last band as JSON = %s, %v; want hi_m null", b, err)
	}
}

func TestGroundedByHand(t *testing.T) {
	cs := scenario.NewCaseStudy(scenario.Canonical())
	// The take-off point is the origin; the box's near face is 9 m North.
	cs.Obstacles = []world.Box{{L: 2, W: 2, H: 20, X: 10, Y: 0}}
	for _, c := range []struct {
		name string
		px4  float64
		sim  []float64
		want bool
	}{
		{"PX4 at the take-off point's distance, simulator past the box", 9.03, []float64{2.1, 3.4}, true},
		{"PX4 0.1 m off that distance", 9.1, []float64{2.1, 3.4}, false},
		{"one simulated flight not 1 m closer", 9, []float64{2.1, 8.5}, false},
		{"no simulated flight", 9, nil, false},
	} {
		if got := grounded(cs, c.px4, c.sim); got != c.want {
			t.Errorf("%s: grounded = %v; want %v", c.name, got, c.want)
		}
	}
	cs.Obstacles = nil
	if grounded(cs, 0, []float64{0}) {
		t.Error("no boxes: grounded; want false")
	}
}

func TestMedianQuantileByHand(t *testing.T) {
	x := []float64{3, 1, 10, 2}
	if m := median(x); m != 2.5 || x[0] != 3 {
		t.Errorf("median %v of %v; want 2.5 and x unchanged", m, x)
	}
	if m := median([]float64{5}); m != 5 {
		t.Errorf("median of one = %v; want 5", m)
	}
	if m := median(nil); !math.IsNaN(m) {
		t.Errorf("median of none = %v; want NaN", m)
	}
	if q := quantile([]float64{0, 10}, 0.9); math.Abs(q-9) > 1e-12 {
		t.Errorf("q90 of 0, 10 = %v; want 9", q)
	}
}

// The canonical mission's long leg runs from (−5, 0) to (−5, 50): a 6 × 2
// box centred 1 m north of it (x −7…−1, across x = −5) must be passed 2 m
// to one side or 4 m to the other, so the detour is 2 m; a box 4 m off the
// leg stands beside it; no box, neither.
func TestDetourByHand(t *testing.T) {
	cs := scenario.NewCaseStudy(scenario.Canonical())
	for _, c := range []struct {
		name   string
		boxes  []world.Box
		across bool
		detour float64
	}{
		{"across the long leg", []world.Box{{L: 6, W: 2, H: 20, X: -4, Y: 25}}, true, 2},
		{"across, turned 90° (x −5.5…−3.5)", []world.Box{{L: 6, W: 2, H: 20, X: -4.5, Y: 25, R: 90}}, true, 0.5},
		{"the worst of two", []world.Box{{L: 6, W: 2, H: 20, X: -4, Y: 25}, {L: 10, W: 2, H: 20, X: -5, Y: 40}}, true, 5},
		{"beside", []world.Box{{L: 2, W: 2, H: 20, X: -10, Y: 25}}, false, 0},
		{"no box", nil, false, 0},
	} {
		cs.Obstacles = c.boxes
		across, d := detour(cs)
		if across != c.across || math.Abs(d-c.detour) > 1e-9 {
			t.Errorf("%s: across %v, detour %v; want %v, %v", c.name, across, d, c.across, c.detour)
		}
	}
}

func TestGeometryByHand(t *testing.T) {
	ts := []TestResult{
		{Beside: true, PX4M: 3, MeanM: 4},
		{Beside: true, PX4M: 1, MeanM: 2},
		{Across: true, DetourM: 1, PX4M: 1.2, MeanM: 2.2},
		{Across: true, DetourM: 8, PX4M: 0.5, MeanM: 1},
		{PX4M: 9, MeanM: 9}, // no boxes: in no group
	}
	got := geometry(ts)
	want := []Geometry{
		{N: 2, PX4MeanM: 2, SimMeanM: 3, PX4Critical: 0.5, SimCritical: 0},
		{Across: true, LoM: 0, HiM: 2, N: 1, PX4MeanM: 1.2, SimMeanM: 2.2, PX4Critical: 1, SimCritical: 0},
		{Across: true, LoM: 7, HiM: math.Inf(1), N: 1, PX4MeanM: 0.5, SimMeanM: 1, PX4Critical: 1, SimCritical: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("group %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	b, err := json.Marshal(got[2])
	if err != nil || !strings.Contains(string(b), `"detour_hi_m":null`) {
		t.Errorf("last group as JSON = %s, %v; want detour_hi_m null", b, err)
	}
}

// PX4 as its own predictor, by hand: layout A flown three times, B twice
// (one of them a crash), C once (no pair, left out).
func TestFloorByHand(t *testing.T) {
	air := func(v float64) *float64 { return &v }
	tr := func(layout, mission, class string, px4, sim float64, airS *float64) TestResult {
		return TestResult{Ref: Reference{Layout: layout, Class: class}, Mission: mission, PX4M: px4, SimM: []float64{sim}, MeanM: sim,
			PX4AirborneS: airS, AirborneS: 100}
	}
	ts := []TestResult{
		tr("A", "mission2", "normal", 1.0, 2.0, air(100)), tr("B", "mission3", "normal", 3.0, 3.0, air(200)),
		tr("A", "mission2", "normal", 0.8, 2.5, air(150)), tr("C", "mission3", "normal", 7.0, 6.0, nil),
		tr("A", "mission2", "normal", 2.0, 2.0, nil), tr("B", "mission3", "crash", 0, 2.2, air(50)),
	}
	got := floorStats(ts)
	if len(got) != 6 {
		t.Fatalf("%d groups; want pooled and per mission, PX4 and simulator: %+v", len(got), got)
	}
	self, sim := got[0], got[1]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// Ordered pairs: A (1, .8) (1, 2) (.8, 1) (.8, 2) (2, 1) (2, .8); B (3, 0) (0, 3).
	// |Δ| = .2 1 .2 1.2 1 1.2 3 3 → 10.8/8; critical (< 1.5) agrees on
	// (1, .8) and (.8, 1) only; collision agrees on the six A pairs.
	if self.N != 8 || !near(self.MAE, 10.8/8) || !near(self.Bias, 0) || !near(self.CriticalAgree, 2.0/8) ||
		!near(self.CollisionAgree, 6.0/8) || !math.IsNaN(self.P) {
		t.Errorf("PX4 repeat = %+v", self)
	}
	// Flight times where both are known: A (100, 150) twice, B (200, 50)
	// twice; ratios of the other flight to this one: 1.5, 2/3, 0.25, 4.
	if self.AirN != 4 || !near(self.AirRatio, (2.0/3+1.5)/2) {
		t.Errorf("PX4 repeat airborne: n %d, median %v", self.AirN, self.AirRatio)
	}
	// The simulator on the same five flights, each once.
	if sim.N != 5 || !near(sim.MAE, (1+2.5-0.8+0+0+2.2)/5) {
		t.Errorf("simulator, same flights = %+v", sim)
	}
	if got[2].Group != "PX4 repeat, mission2" || got[2].N != 6 || got[4].Group != "PX4 repeat, mission3" || got[4].N != 2 {
		t.Errorf("per mission: %q %d, %q %d", got[2].Group, got[2].N, got[4].Group, got[4].N)
	}
	var text strings.Builder
	if err := (&Report{Floor: got}).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if out := text.String(); !strings.Contains(out, "PX4's floor") || !strings.Contains(out, "PX4 repeat, mission3") {
		t.Errorf("text report without the floor:\n%s", out)
	}
	if floorStats([]TestResult{tr("", "m", "", 1, 1, nil), tr("C", "m", "", 2, 2, nil)}) != nil {
		t.Error("no repeated layout: want nil")
	}
}

// The simulator's critical verdict against PX4's, by hand: PX4 critical on
// a, b, c; the simulator on a, b (mean of its runs) and d.
func TestCriticalVerdictByHand(t *testing.T) {
	tr := func(px4 float64, sim ...float64) TestResult {
		m := 0.0
		for _, s := range sim {
			m += s
		}
		return TestResult{PX4M: px4, SimM: sim, MeanM: m / float64(len(sim))}
	}
	ts := []TestResult{
		tr(0.4, 1.0, 1.2), // a: both critical
		tr(1.2, 0.0, 2.9), // b: both (mean 1.45)
		tr(1.4, 1.4, 1.8), // c: PX4 only (mean 1.6)
		tr(2.0, 1.0, 1.0), // d: the simulator only
		tr(5.0, 4.0, 6.0), // e: neither
	}
	st := compare("by hand", ts, 0, nil)
	if st.SimCritN != 3 || st.PX4CritN != 3 || st.BothCritN != 2 || st.CritPrecision != 2.0/3 || st.CritRecall != 2.0/3 {
		t.Errorf("critical verdict = sim %d, px4 %d, both %d, precision %v, recall %v; want 3, 3, 2, 2/3, 2/3",
			st.SimCritN, st.PX4CritN, st.BothCritN, st.CritPrecision, st.CritRecall)
	}
	// No test critical on either side: precision and recall undefined,
	// written as null.
	none := compare("none", ts[4:], 0, nil)
	if !math.IsNaN(none.CritPrecision) || !math.IsNaN(none.CritRecall) {
		t.Errorf("no critical test: precision %v, recall %v; want NaN, NaN", none.CritPrecision, none.CritRecall)
	}
	b, err := json.Marshal(none)
	if err != nil || !strings.Contains(string(b), `"critical_precision":null`) || !strings.Contains(string(b), `"critical_recall":null`) {
		t.Errorf("JSON %s, %v; want null precision and recall", b, err)
	}
	var text strings.Builder
	rep := Report{Runs: 2, Tests: ts, Pooled: st}
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "    3        3     2    66.7     66.7") {
		t.Errorf("text report %v:\n%s", err, text.String())
	}
}
