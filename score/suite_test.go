package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// line is a 5-point path along x, 1 m apart, at y = dy: the DTW distance
// between two such lines is 5·|Δy| (the diagonal pairs each point with its
// neighbour across; any other warping only adds).
func line(dy float64) []geom.Vec3 {
	p := make([]geom.Vec3, 5)
	for i := range p {
		p[i] = geom.Vec3{X: float64(i), Y: dy, Z: -10}
	}
	return p
}

func mkTest(name string, boxes []world.Box, path []geom.Vec3, timeS float64, clearances ...float64) Test {
	t := Test{Name: name, Obstacles: boxes}
	for _, c := range clearances {
		t.Runs = append(t.Runs, Run{ClearanceM: c, FlightTimeS: timeS, Path: path})
	}
	return t
}

// The hand-computed suite:
//
//	t0: one 4×4 square; runs at 0.1, 0.5, 2.0 m → 5 + 2 + 0 points, avg 7/3;
//	    120 s = 2 min each: 10·(7/3)/(1²·2) = 35/3. Mean clearance 0.87: critical.
//	t1: a copy of t0 (IoU 1: a duplicate in 2025 and 2026).
//	t2: two 2×2 squares far from t0; runs at 1.2 m → 1 point each; 180 s =
//	    3 min: 10·1/(2²·3) = 5/6. Critical.
//	t3: invalid: 0.
//	t4: a 4×4 square overlapping t0 by half (IoU 8/24 = 1/3); runs at 3 m:
//	    0 points.
//
// Average paths: t0 and t1 on y = 0, t2 on y = 2, t4 on y = −3, so the DTW
// distances are t0–t2 10, t0–t4 15, t2–t4 25, t0–t1 0.
func handSuite() []Test {
	a := []world.Box{sq(0, 20, 4)}
	return []Test{
		mkTest("test_0", a, line(0), 120, 0.1, 0.5, 2.0),
		mkTest("test_1", a, line(0), 120, 0.1, 0.5, 2.0),
		mkTest("test_2", []world.Box{sq(-20, 15, 2), sq(20, 30, 2)}, line(2), 180, 1.2, 1.2, 1.2),
		{Name: "test_3", Obstacles: []world.Box{sq(0, 50, 4)}, Invalid: "obstacle 1: footprint leaves the placement area"},
		mkTest("test_4", []world.Box{sq(2, 20, 4)}, line(-3), 60, 3, 3, 3),
	}
}

func evaluate(t *testing.T, c Config, tests []Test) SuiteResult {
	t.Helper()
	c, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(c, tests, Plan(c, len(tests), rand.New(rand.NewPCG(1, 1))))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEvaluate2025(t *testing.T) {
	res := evaluate(t, Config{Edition: Edition2025}, handSuite())
	// Failure: 35/3 + 5/6 = 12.5 (t1 a duplicate, t3 invalid, t4 no points).
	if !near(res.Score, 12.5) {
		t.Errorf("failure score %v; want 12.5", res.Score)
	}
	if res.Evaluated != 5 || res.Critical != 2 || res.Invalid != 1 || res.Duplicates != 1 {
		t.Errorf("evaluated %d, critical %d, invalid %d, duplicates %d; want 5, 2, 1, 1", res.Evaluated, res.Critical, res.Invalid, res.Duplicates)
	}
	if res.Details[1].Duplicate != "test_0" || res.Details[3].Invalid == "" {
		t.Errorf("details: %+v", res.Details)
	}
	// Diversity over t0, t2, t4: IoUs 0, 1/3, 0: 1 − (1/3)/3 = 8/9.
	if !near(res.Diversity, 8.0/9) {
		t.Errorf("diversity %v; want 8/9", res.Diversity)
	}
	if d := res.Details[0]; !near(d.AvgPoint, 7.0/3) || !near(d.AvgTimeMin, 2) || !near(d.Score, 35.0/3) || !d.Critical {
		t.Errorf("test_0 scored %+v", d)
	}
}

func TestEvaluate2026(t *testing.T) {
	res := evaluate(t, Config{Edition: Edition2026}, handSuite())
	if !near(res.Score, 12.5) {
		t.Errorf("failure score %v; want 12.5", res.Score)
	}
	// Obstacles of t0, t2, t4: areas 16, 4, 4, 16; union 24 + 4 + 4 = 32;
	// mean 10: D_union 3.2. Sample sd √(4·36/3) = 4√3: CV 0.4√3.
	if !near(res.DUnion, 3.2) || !near(res.CV, 0.4*math.Sqrt(3)) || !near(res.InputDiversity, 3.2*(1+0.4*math.Sqrt(3))) {
		t.Errorf("D_union %v, CV %v, input %v", res.DUnion, res.CV, res.InputDiversity)
	}
	// The raw sums: t0–t2 10, t0–t4 15, t2–t4 25; δ: t0 min(10, 15) = 10,
	// t2 min(10, 25) = 10, t4 min(15, 25) = 15. The default 2026 scale
	// divides by the 5 pairs of the diagonal path: δ 2, 2, 3; by points
	// (5 + 5): δ 1, 1, 1.5.
	for _, c := range []struct {
		norm DTWNorm
		avg  Average
		want float64
	}{
		{DTWDefault, AverageSoft, 7.0 / 3}, {DTWPath, AverageDBA, 7.0 / 3},
		{DTWSum, AverageSoft, 35.0 / 3}, {DTWSum, AverageDBA, 35.0 / 3}, {DTWPoints, AverageSoft, 3.5 / 3},
	} {
		res := evaluate(t, Config{Edition: Edition2026, DTWNorm: c.norm, Average: c.avg}, handSuite())
		if math.Abs(res.OutputDiversity-c.want) > 1e-6 {
			t.Errorf("%v, %v: output diversity %v; want %v", c.norm, c.avg, res.OutputDiversity, c.want)
		}
		if !strings.Contains(res.DTW, "DTW "+Config{Edition: Edition2026, DTWNorm: c.norm}.Scale().String()+":") ||
			!strings.Contains(res.DTW, map[Average]string{AverageSoft: "soft-DTW barycenter (tslearn, γ = 200)", AverageDBA: "(DBA)"}[c.avg]) {
			t.Errorf("%v, %v: header %q does not name the scale and the average", c.norm, c.avg, res.DTW)
		}
	}
}

func TestDTWDefaults(t *testing.T) {
	for _, c := range []struct {
		ed   Edition
		want DTWNorm
	}{{Edition2024, DTWSum}, {Edition2026, DTWPath}} {
		cfg, err := Config{Edition: c.ed}.Validate()
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Scale(); got != c.want {
			t.Errorf("%d: default scale %v; want %v", c.ed, got, c.want)
		}
	}
	if h := (Config{Edition: Edition2025}).DTWHeader(); h != "" {
		t.Errorf("2025 header %q; want none", h)
	}
	for _, s := range []string{"sum", "path", "points", "default"} {
		if n, err := ParseDTWNorm(s); err != nil || n.String() != s {
			t.Errorf("ParseDTWNorm(%q) = %v, %v", s, n, err)
		}
	}
	for _, bad := range []Config{{Edition: Edition2026, DTWNorm: 9}, {Edition: Edition2026, Average: 5}, {Edition: Edition2026, Time: 3}, {Edition: Edition2026, Gamma: -1}} {
		if _, err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := ParseDTWNorm("mean"); err == nil {
		t.Error("ParseDTWNorm(mean): no error")
	}
	if _, err := ParseAverage("median"); err == nil {
		t.Error("ParseAverage(median): no error")
	}
	if _, err := ParseTimeBasis("wall"); err == nil {
		t.Error("ParseTimeBasis(wall): no error")
	}
}

// TestAvgTimeIsTheWholeLog: Eq. 2 divides by the mean log length, crash or
// not, 500 s for a timeout; TimeAirborne is the documented alternative.
func TestAvgTimeIsTheWholeLog(t *testing.T) {
	test := Test{Name: "t", Obstacles: []world.Box{sq(0, 20, 4)}, Runs: []Run{
		// A contact at 0.1 m, the flight goes on to land: 240 s of log
		// (19 s before arming), 200 s airborne.
		{ClearanceM: 0.1, FlightTimeS: 240, AirborneS: 200},
		// Stuck at 0.8 m until the 500-s limit: 0 points, 500 s.
		{ClearanceM: 0.8, FlightTimeS: 500, AirborneS: 470, TimedOut: true},
	}}
	for _, c := range []struct {
		tb        TimeBasis
		min, want float64
	}{
		// avg_point 2.5; (240 + 500)/2 s = 370/60 min: 25/(370/60).
		{TimeLog, 370.0 / 60, 25 / (370.0 / 60)},
		{TimeAirborne, 335.0 / 60, 25 / (335.0 / 60)},
	} {
		res := evaluate(t, Config{Edition: Edition2025, Time: c.tb}, []Test{test})
		if d := res.Details[0]; !near(d.AvgTimeMin, c.min) || !near(d.Score, c.want) || !near(d.AvgPoint, 2.5) {
			t.Errorf("%v: avg_time %v min, score %v; want %v, %v", c.tb, d.AvgTimeMin, d.Score, c.min, c.want)
		}
	}
}

func TestEvaluate2024(t *testing.T) {
	t.Run("fewer than 20 tests", func(t *testing.T) {
		res := evaluate(t, Config{Edition: Edition2024, Select: SelectFirst}, handSuite())
		// No duplicates in 2024: 2·35/3 + 5/6 = 145/6; no rest (5 < 20).
		// All four valid tests have a neighbour below 75 (0, 0, 10, 15):
		// penalty 1 − 4/5 = 0.2; score 145/6 · 0.2 = 29/6.
		if !near(res.TestScoreSum, 145.0/6) || res.RestScore != 0 || res.Similar != 4 || !near(res.Penalty, 0.2) || !near(res.Score, 29.0/6) {
			t.Errorf("sum %v, rest %v, similar %d, penalty %v, score %v; want 145/6, 0, 4, 0.2, 29/6",
				res.TestScoreSum, res.RestScore, res.Similar, res.Penalty, res.Score)
		}
	})
	t.Run("rest and a lower threshold", func(t *testing.T) {
		s := handSuite()
		tests := []Test{s[0], s[2], s[4], s[1], s[2]}
		res := evaluate(t, Config{Edition: Edition2024, Select: SelectFirst, SampleSize: 3, SimilarDTW: 12}, tests)
		// S_s = t0, t2, t4: sum 35/3 + 5/6 = 12.5; rest 2·12.5/(2·3) = 25/6;
		// similar below 12: t0 (10), t2 (10), not t4 (15): 1 − 2/3;
		// score (12.5 + 25/6)/3 = 50/9.
		if !near(res.RestScore, 25.0/6) || res.Similar != 2 || !near(res.Score, 50.0/9) {
			t.Errorf("rest %v, similar %d, score %v; want 25/6, 2, 50/9", res.RestScore, res.Similar, res.Score)
		}
	})
}

func TestEvaluateTimeoutAndNoObstacle(t *testing.T) {
	tests := []Test{{
		Name: "t", Obstacles: []world.Box{sq(0, 20, 4)},
		// A crash (5 points), a timed-out run at 0.1 m (0 points): avg 2.5;
		// times 60 and 500 s: 4.666… min: 10·2.5/4.666… = 75/14.
		Runs: []Run{{ClearanceM: 0, FlightTimeS: 60}, {ClearanceM: 0.1, FlightTimeS: 500, TimedOut: true}},
	}, {
		Name: "empty", Runs: []Run{{ClearanceM: math.Inf(1), FlightTimeS: 60}},
	}}
	res := evaluate(t, Config{Edition: Edition2025}, tests)
	if d := res.Details[0]; !near(d.AvgPoint, 2.5) || !near(d.Score, 75.0/14) || *d.MeanClearanceM != 0 {
		t.Errorf("timed-out test scored %+v", d)
	}
	if d := res.Details[1]; d.Score != 0 || d.MeanClearanceM != nil || d.Runs[0].ClearanceM != nil || d.Critical {
		t.Errorf("test without obstacles scored %+v", d)
	}
}

func TestPlanAndTopScore(t *testing.T) {
	c, _ := Config{Edition: Edition2024}.Validate()
	if c.Select != SelectRandom {
		t.Fatalf("2024 default selection %v; want random", c.Select)
	}
	a := Plan(c, 100, rand.New(rand.NewPCG(7, 7)))
	b := Plan(c, 100, rand.New(rand.NewPCG(7, 7)))
	if len(a) != 20 || !slices.Equal(a, b) || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 20 {
		t.Errorf("random plan %v (again %v): want 20 distinct sorted indices, the same for the same seed", a, b)
	}
	if p := Plan(c, 7, rand.New(rand.NewPCG(1, 1))); len(p) != 7 {
		t.Errorf("random plan of 7 tests has %d", len(p))
	}
	c, _ = Config{Edition: Edition2025}.Validate()
	if p := Plan(c, 30, nil); c.Select != SelectFirst || !slices.Equal(p, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
		t.Errorf("2025 plan %v (%v); want the first 20", p, c.Select)
	}
	// Top score: all run, the two best kept (t0 35/3 and t2 5/6).
	s := handSuite()
	tests := []Test{s[4], s[2], s[0]}
	res := evaluate(t, Config{Edition: Edition2025, Select: SelectTopScore, SampleSize: 2}, tests)
	if res.Evaluated != 2 || res.Details[0].Name != "test_2" || res.Details[1].Name != "test_0" {
		t.Errorf("top-score kept %+v", res.Details)
	}
	if _, err := (Config{Edition: 2023}).Validate(); err == nil {
		t.Errorf("edition 2023 accepted")
	}
}

func TestCompare(t *testing.T) {
	r := func(score, div, in, out float64) SuiteResult {
		return SuiteResult{Score: score, Diversity: div, InputDiversity: in, OutputDiversity: out}
	}
	// Tool A: (10, 0.5), (5, 0.9); B: (10, 0.7), (3, 0.9); C: (2, 0.1), (8, 0.2).
	results := [][]SuiteResult{
		{r(10, 0.5, 3, 20), r(5, 0.9, 2, 10)},
		{r(10, 0.7, 3, 30), r(3, 0.9, 4, 10)},
		{r(2, 0.1, 1, 5), r(8, 0.2, 4, 40)},
	}
	tools, missions := []string{"A", "B", "C"}, []string{"m1", "m2"}
	cases := []struct {
		ed       Edition
		rankSums []Ranks
		values   []float64
		places   []int
	}{
		// Scores m1: A 1, B 1 (tie), C 3; m2: C 1, A 2, B 3. Sums 15, 13, 10.
		{Edition2024, []Ranks{{Score: 3}, {Score: 4}, {Score: 4}}, []float64{15, 13, 10}, []int{1, 2, 3}},
		// Diversity m1: B 1, A 2, C 3; m2: A 1, B 1, C 3. RF 3, 4, 4; RD 3,
		// 2, 6: 0.75·3 + 0.25·3 = 3; 3 + 0.5 = 3.5; 3 + 1.5 = 4.5.
		{Edition2025, []Ranks{{Score: 3, Diversity: 3}, {Score: 4, Diversity: 2}, {Score: 4, Diversity: 6}},
			[]float64{3, 3.5, 4.5}, []int{1, 2, 3}},
		// D_in m1: A 1, B 1, C 3; m2: B 1, C 1, A 3 → 4, 2, 4. D_out m1: B
		// 1, A 2, C 3; m2: C 1, A 2, B 2 → 4, 3, 4. A: 0.5·3 + 0.25·4 +
		// 0.25·4 = 3.5; B: 2 + 0.5 + 0.75 = 3.25; C: 2 + 1 + 1 = 4.
		{Edition2026, []Ranks{{Score: 3, InputDiversity: 4, OutputDiversity: 4}, {Score: 4, InputDiversity: 2, OutputDiversity: 3},
			{Score: 4, InputDiversity: 4, OutputDiversity: 4}}, []float64{3.5, 3.25, 4}, []int{2, 1, 3}},
	}
	for _, c := range cases {
		tab, err := Compare(c.ed, missions, tools, results)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tools {
			o := tab.Overall[i]
			if o.RankSums != c.rankSums[i] || !near(o.Value, c.values[i]) || o.Place != c.places[i] {
				t.Errorf("%d, tool %s: rank sums %+v, value %v, place %d; want %+v, %v, %d",
					c.ed, tools[i], o.RankSums, o.Value, o.Place, c.rankSums[i], c.values[i], c.places[i])
			}
		}
	}
	if _, err := Compare(Edition2025, missions, tools, results[:2]); err == nil {
		t.Errorf("mismatched results accepted")
	}
}

// benchSuite is n tests of 1–3 random valid boxes with runs of a ~250-s
// flight (500 points at 0.5 s) that bends around a random point.
func benchSuite(n, runs int) []Test {
	r := rand.New(rand.NewPCG(42, 42))
	tests := make([]Test, n)
	for i := range tests {
		var boxes []world.Box
		for k := 0; k < 1+r.IntN(3); k++ {
			boxes = append(boxes, world.Box{L: 2 + 8*r.Float64(), W: 2 + 8*r.Float64(), H: 20,
				X: -30 + 50*r.Float64(), Y: 15 + 20*r.Float64(), R: 90 * r.Float64()})
		}
		bend := geom.Vec3{X: -30 + 50*r.Float64(), Y: 15 + 20*r.Float64()}
		t := Test{Name: "test", Obstacles: boxes}
		for range runs {
			path := make([]geom.Vec3, 480+r.IntN(40))
			for j := range path {
				s := float64(j) / float64(len(path)-1)
				w := math.Exp(-math.Pow((s-0.5)*6, 2))
				path[j] = geom.Vec3{X: 60*s - 30 + w*bend.X*0.1 + 0.2*r.NormFloat64(), Y: 50 * math.Sin(math.Pi*s) * (1 + 0.1*w*bend.Y/30), Z: -10}
			}
			t.Runs = append(t.Runs, Run{ClearanceM: 3 * r.Float64(), FlightTimeS: 200 + 100*r.Float64(), Path: path})
		}
		tests[i] = t
	}
	return tests
}

// BenchmarkEvaluate scores a suite of 100 tests with 3 runs each (the runs
// given, no simulation), per edition and selection.
func BenchmarkEvaluate(b *testing.B) {
	tests := benchSuite(100, 3)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"2024-random", Config{Edition: Edition2024}},
		{"2025-first", Config{Edition: Edition2025}},
		{"2026-first", Config{Edition: Edition2026}},
		{"2026-top-score", Config{Edition: Edition2026, Select: SelectTopScore}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg, err := c.cfg.Validate()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				plan := Plan(cfg, len(tests), rand.New(rand.NewPCG(1, 2)))
				if _, err := Evaluate(cfg, tests, plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
