package score

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/world"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPoints(t *testing.T) {
	cases := []struct {
		d, want float64
	}{
		{0, 5}, {0.2499, 5}, {0.25, 2}, {0.99, 2}, {1, 1}, {1.4999, 1}, {1.5, 0}, {30, 0},
		{math.Inf(1), 0}, {math.NaN(), 0},
	}
	for _, c := range cases {
		if got := Points(c.d); got != c.want {
			t.Errorf("Points(%v): got %v; want %v", c.d, got, c.want)
		}
	}
}

func TestTestScore(t *testing.T) {
	cases := []struct {
		name       string
		avgPoint   float64
		obstacles  int
		avgTimeMin float64
		want       float64
	}{
		// 10·5 / (1²·2) = 25.
		{"one obstacle, crash", 5, 1, 2, 25},
		// Runs of 5, 2, 2 points: avg 3; 10·3 / (2²·2.5) = 3.
		{"two obstacles", 3, 2, 2.5, 3},
		// 10·(1/3) / (3²·(10/9)) = 1/3.
		{"three obstacles", 1.0 / 3, 3, 10.0 / 9, 1.0 / 3},
		{"no points", 0, 2, 3, 0},
		{"no obstacle", 5, 0, 3, 0},
		{"no time", 5, 1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TestScore(c.avgPoint, c.obstacles, c.avgTimeMin); !near(got, c.want) {
				t.Errorf("got %v; want %v", got, c.want)
			}
		})
	}
}

func TestRestScoreAndPenalty(t *testing.T) {
	cases := []struct {
		name            string
		rest, simulated int
		sum, want       float64
	}{
		// 30 tests: 20 simulated summing 12, 10 rest: 10·12/(2·20) = 3.
		{"30 tests", 10, 20, 12, 3},
		// Fewer than 20 tests: nothing rests, no rest score.
		{"15 tests", 0, 15, 40, 0},
		{"nothing simulated", 5, 0, 0, 0},
	}
	for _, c := range cases {
		if got := RestScore(c.rest, c.simulated, c.sum); !near(got, c.want) {
			t.Errorf("%s: RestScore got %v; want %v", c.name, got, c.want)
		}
	}
	// 5 similar of 20: 1 − 5/20 = 0.75; (12 + 3)·0.75 = 11.25.
	if p := SimilarityPenalty(5, 20); p != 0.75 {
		t.Errorf("SimilarityPenalty(5, 20) = %v; want 0.75", p)
	}
	if s := SuiteScore2024(12, 3, 0.75); s != 11.25 {
		t.Errorf("SuiteScore2024 = %v; want 11.25", s)
	}
	if p := SimilarityPenalty(0, 0); p != 1 {
		t.Errorf("SimilarityPenalty(0, 0) = %v; want 1", p)
	}
}

func TestOverallRanks(t *testing.T) {
	// The competition's example: 0.75·5 + 0.25·11 = 6.50 (docs/updates.md).
	if v := OverallRank2025(5, 11); v != 6.5 {
		t.Errorf("OverallRank2025(5, 11) = %v; want 6.5", v)
	}
	// 0.5·4 + 0.25·6 + 0.25·10 = 6.
	if v := OverallRank2026(4, 6, 10); v != 6 {
		t.Errorf("OverallRank2026(4, 6, 10) = %v; want 6", v)
	}
}

func sq(x, y, side float64) world.Box {
	return world.Box{L: side, W: side, H: 15, X: x, Y: y}
}

func TestIoU(t *testing.T) {
	cases := []struct {
		name string
		a, b []world.Box
		want float64
	}{
		{"identical tests (a duplicate)", []world.Box{sq(0, 20, 4), sq(10, 20, 6)}, []world.Box{sq(0, 20, 4), sq(10, 20, 6)}, 1},
		{"same boxes in another order", []world.Box{sq(0, 20, 4), sq(10, 20, 6)}, []world.Box{sq(10, 20, 6), sq(0, 20, 4)}, 1},
		{"disjoint", []world.Box{sq(0, 20, 4)}, []world.Box{sq(10, 20, 4)}, 0},
		// Unit squares offset by half a side: 0.5 / 1.5 = 1/3.
		{"half overlap", []world.Box{sq(0, 20, 1)}, []world.Box{sq(0.5, 20, 1)}, 1.0 / 3},
		// Square and the same square turned 45°: the octagon 2(√2−1) over
		// 2 − 2(√2−1) (deps.md §3's check).
		{"rotated 45°", []world.Box{sq(0, 20, 1)}, []world.Box{{L: 1, W: 1, H: 15, X: 0, Y: 20, R: 45}},
			2 * (math.Sqrt2 - 1) / (2 - 2*(math.Sqrt2-1))},
		// 4×4 square inside a 2-box union of a 4×4 and a disjoint 2×2:
		// 16 / (16 + 4) = 0.8.
		{"subset", []world.Box{sq(0, 20, 4)}, []world.Box{sq(0, 20, 4), sq(10, 20, 2)}, 0.8},
		{"both empty", nil, nil, 1},
		{"one empty", nil, []world.Box{sq(0, 20, 4)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := BoxIoU(c.a, c.b)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-9 {
				t.Errorf("got %v; want %v", got, c.want)
			}
			if c.want == 1 && got < DuplicateIoU {
				t.Errorf("IoU %v of identical inputs is not a duplicate", got)
			}
		})
	}
}

func TestDiversity2025(t *testing.T) {
	pairs := func(n int, v float64) [][]float64 {
		s := make([][]float64, n)
		for i := range s {
			s[i] = make([]float64, n)
			for j := range s[i] {
				s[i][j] = v
			}
		}
		return s
	}
	// Three tests with IoUs 0.5 (1–2), 0.2 (1–3), 0 (2–3): sum 0.7.
	three := [][]float64{{0, 0.5, 0.2}, {0, 0, 0}, {0, 0, 0}}
	cases := []struct {
		name string
		sim  [][]float64
		norm Norm
		want float64
	}{
		{"non-overlapping", pairs(4, 0), NormPairs, 1},
		{"non-overlapping, paper's normalisation", pairs(4, 0), NormTests, 1},
		// Mean over 3 pairs: 1 − 0.7/3.
		{"mean over pairs", three, NormPairs, 1 - 0.7/3},
		// Sum over |S_s| = 3 tests: 1 − 0.7/3 too, by coincidence of n = 3.
		{"per test, n = 3", three, NormTests, 1 - 0.7/3},
		// Four tests all IoU 0.5: pairs 1 − 6·0.5/6 = 0.5; tests 1 − 3/4.
		{"all half, pairs", pairs(4, 0.5), NormPairs, 0.5},
		{"all half, tests", pairs(4, 0.5), NormTests, 0.25},
		{"one test", pairs(1, 0), NormPairs, 0},
		{"no test", nil, NormPairs, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Diversity2025(c.sim, c.norm); !near(got, c.want) {
				t.Errorf("got %v; want %v", got, c.want)
			}
		})
	}
}

func TestInputDiversity(t *testing.T) {
	cases := []struct {
		name         string
		boxes        []world.Box
		dUnion, cv   float64
		inputDiverse float64
	}{
		// n disjoint equal squares: union n·a over mean a = n; CV 0.
		{"3 disjoint equal squares", []world.Box{sq(-30, 15, 4), sq(0, 15, 4), sq(20, 30, 4)}, 3, 0, 3},
		{"5 disjoint equal squares", []world.Box{sq(-30, 15, 2), sq(-20, 15, 2), sq(-10, 15, 2), sq(0, 15, 2), sq(10, 15, 2)}, 5, 0, 5},
		// The same square twice: union a over mean a = 1.
		{"two copies", []world.Box{sq(0, 20, 4), sq(0, 20, 4)}, 1, 0, 1},
		// Disjoint 2×2 (4) and 4×4 (16): mean 10, union 20, D = 2; sample
		// sd √((36 + 36)/1) = 6√2, CV = 0.6√2; input = 2·(1 + 0.6√2).
		{"unequal", []world.Box{sq(-20, 20, 2), sq(10, 20, 4)}, 2, 0.6 * math.Sqrt2, 2 * (1 + 0.6*math.Sqrt2)},
		{"none", nil, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ua, err := UnionArea(c.boxes)
			if err != nil {
				t.Fatal(err)
			}
			areas := make([]float64, len(c.boxes))
			for i, b := range c.boxes {
				areas[i] = b.L * b.W
			}
			d, cv := DUnion(ua, areas), CV(areas)
			if !near(d, c.dUnion) || !near(cv, c.cv) || !near(InputDiversity(d, cv), c.inputDiverse) {
				t.Errorf("D_union %v, CV %v, input %v; want %v, %v, %v", d, cv, InputDiversity(d, cv), c.dUnion, c.cv, c.inputDiverse)
			}
		})
	}
	if cv := CV([]float64{7, 7, 7, 7}); cv != 0 {
		t.Errorf("CV of equal areas = %v; want 0", cv)
	}
}

func TestOutputDiversity(t *testing.T) {
	// Three tests: d12 = 10, d13 = 40, d23 = 20. δ = (10, 10, 20), mean 40/3.
	d := [][]float64{{0, 10, 40}, {10, 0, 20}, {40, 20, 0}}
	delta := MinDistances(d)
	if delta[0] != 10 || delta[1] != 10 || delta[2] != 20 {
		t.Errorf("δ = %v; want [10 10 20]", delta)
	}
	if got := OutputDiversity(delta); !near(got, 40.0/3) {
		t.Errorf("output diversity %v; want 40/3", got)
	}
	// Below 75: all three are similar; below 15 only the first two.
	if n := CountSimilar(delta, 75); n != 3 {
		t.Errorf("similar below 75: %d; want 3", n)
	}
	if n := CountSimilar(delta, 15); n != 2 {
		t.Errorf("similar below 15: %d; want 2", n)
	}
	if got := OutputDiversity(MinDistances([][]float64{{0}})); got != 0 {
		t.Errorf("output diversity of one test %v; want 0", got)
	}
}

func TestRank(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
		higher bool
		want   []int
	}{
		{"distinct, higher better", []float64{3, 9, 1}, true, []int{2, 1, 3}},
		{"distinct, lower better", []float64{3, 9, 1}, false, []int{2, 3, 1}},
		// Two share second place, the next is fourth (Table IV's 0.89 (2)).
		{"tie for second", []float64{0.93, 0.82, 0.85, 0.89, 0.46, 0.18, 0.89}, true, []int{1, 5, 4, 2, 6, 7, 2}},
		// Two zeros share the last rank (Table III's 0.00 (7) twice).
		{"tie for last", []float64{5, 0, 3, 0}, true, []int{1, 3, 2, 3}},
		{"all equal", []float64{2, 2, 2}, true, []int{1, 1, 1}},
		{"equal within rounding", []float64{0.1 + 0.2, 0.3, 0.1}, true, []int{1, 1, 3}},
		{"NaN last", []float64{math.NaN(), 1, 2}, true, []int{3, 2, 1}},
		{"empty", nil, true, []int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Rank(c.values, c.higher)
			if len(got) != len(c.want) {
				t.Fatalf("got %v; want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v; want %v", got, c.want)
				}
			}
		})
	}
}
