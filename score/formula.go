package score

import (
	"math"
	"slices"
)

// The constants of the formulas, with where they come from.
const (
	// SampleSize is |S_s|, the number of tests evaluated per suite and
	// mission (paper §V-A-3; competition.md §4).
	SampleSize = 20
	// SimilarDTW is the DTW distance below which two tests are similar
	// (paper §V-A-3, "chosen for compatibility with the 2024 competition
	// artifacts").
	SimilarDTW = 75.0
	// CriticalM is the clearance below which a test is critical and a run
	// earns points (the competition's 1.5-m safety distance).
	CriticalM = 1.5
	// DuplicateIoU is how close to 1 an IoU must be for a duplicate.
	DuplicateIoU = 1 - 1e-9
)

// Points returns the points of one run with minimum clearance clearanceM
// (paper §V-A-3, the text before Eq. 2; competition.md §4): 5 below
// 0.25 m, 2 below 1 m, 1 below 1.5 m and 0 otherwise (also for NaN).
func Points(clearanceM float64) float64 {
	switch {
	case clearanceM < 0.25:
		return 5
	case clearanceM < 1:
		return 2
	case clearanceM < CriticalM:
		return 1
	}
	return 0
}

// TestScore returns Eq. 2, test_score(t) = 10·avg_point / (#obst² ·
// avg_time), avg_time in minutes. It is 0 when there is no point to score,
// no obstacle or no positive time.
func TestScore(avgPoint float64, obstacles int, avgTimeMin float64) float64 {
	if !(avgPoint > 0) || obstacles <= 0 || !(avgTimeMin > 0) {
		return 0
	}
	return 10 * avgPoint / (float64(obstacles*obstacles) * avgTimeMin)
}

// RestScore returns Eq. 3, the 2024 score of the tests not simulated:
// rest_score(S_r) = |S_r| · Σ_{t∈S_s} test_score(t) / (2·|S_s|). It is 0
// when nothing was simulated or nothing is left (fewer than 20 tests).
func RestScore(rest, simulated int, sumTestScores float64) float64 {
	if rest <= 0 || simulated <= 0 {
		return 0
	}
	return float64(rest) * sumTestScores / (2 * float64(simulated))
}

// SimilarityPenalty returns Eq. 4, 1 − #similar / |S_s| (1 for an empty
// S_s).
func SimilarityPenalty(similar, simulated int) float64 {
	if simulated <= 0 {
		return 1
	}
	return 1 - float64(similar)/float64(simulated)
}

// SuiteScore2024 returns Eq. 1, (test_score(S_s) + rest_score(S_r)) ·
// similarity_penalty(S_s).
func SuiteScore2024(sumTestScores, rest, penalty float64) float64 {
	return (sumTestScores + rest) * penalty
}

// OverallRank2025 returns Eq. 5, 0.75·failure_rank + 0.25·diversity_rank.
func OverallRank2025(failureRank, diversityRank float64) float64 {
	return 0.75*failureRank + 0.25*diversityRank
}

// Norm is how Eq. 6 normalises the summed pairwise similarity.
type Norm int

const (
	// NormPairs divides by the number of unordered pairs: 1 − mean IoU,
	// the competition report's definition (the default).
	NormPairs Norm = iota
	// NormTests divides by |S_s|, as the paper prints Eq. 6.
	NormTests
)

func (n Norm) String() string {
	if n == NormTests {
		return "tests"
	}
	return "pairs"
}

// Diversity2025 returns Eq. 6 for tests whose pairwise similarities (Eq.
// 7) are sim[i][j], i < j (the rest of sim is not read): 1 − Σ sim / N with
// N the number of pairs (NormPairs) or of tests (NormTests). With fewer
// than two tests it is 0.
func Diversity2025(sim [][]float64, norm Norm) float64 {
	n := len(sim)
	if n < 2 {
		return 0
	}
	sum := 0.0
	for i := range n {
		for j := i + 1; j < n; j++ {
			sum += sim[i][j]
		}
	}
	div := float64(n * (n - 1) / 2)
	if norm == NormTests {
		div = float64(n)
	}
	return 1 - sum/div
}

// Similarity returns Eq. 7, |A ∩ B| / |A ∪ B| from the areas of the two
// footprint unions and of their intersection: 1 when both are empty (the
// same test input), 0 when only one is.
func Similarity(areaA, areaB, areaIntersection float64) float64 {
	u := areaA + areaB - areaIntersection
	switch {
	case areaA <= 0 && areaB <= 0:
		return 1
	case !(u > 0):
		return 0
	}
	return math.Min(1, math.Max(0, areaIntersection/u))
}

// OverallRank2026 returns Eq. 8, 0.5·failure_rank + 0.25·input_rank +
// 0.25·output_rank.
func OverallRank2026(failureRank, inputRank, outputRank float64) float64 {
	return 0.5*failureRank + 0.25*inputRank + 0.25*outputRank
}

// InputDiversity returns Eq. 9, D_union · (1 + CV).
func InputDiversity(dUnion, cv float64) float64 {
	return dUnion * (1 + cv)
}

// DUnion returns Eq. 10, A(∪ G_i) / ((1/n) Σ A(G_i)), from the area of the
// union of the n obstacle footprints and their single areas: n for
// disjoint footprints, 1 for n copies of one. It is 0 without obstacles.
func DUnion(unionArea float64, areas []float64) float64 {
	mean := mean(areas)
	if !(mean > 0) {
		return 0
	}
	return unionArea / mean
}

// CV returns Eq. 11, the coefficient of variation of the obstacle areas:
// the sample standard deviation (n − 1 in the denominator) over the mean.
// It is 0 for fewer than two areas.
func CV(areas []float64) float64 {
	n := len(areas)
	m := mean(areas)
	if n < 2 || !(m > 0) {
		return 0
	}
	ss := 0.0
	for _, a := range areas {
		ss += (a - m) * (a - m)
	}
	return math.Sqrt(ss/float64(n-1)) / m
}

// MinDistances returns Eq. 12 for every test: δ_j = min_{k≠j} d[j][k],
// from a symmetric matrix of DTW distances between the tests' average
// trajectories. With one test δ is +Inf.
func MinDistances(d [][]float64) []float64 {
	out := make([]float64, len(d))
	for j := range d {
		out[j] = math.Inf(1)
		for k := range d {
			if k != j && d[j][k] < out[j] {
				out[j] = d[j][k]
			}
		}
	}
	return out
}

// OutputDiversity returns Eq. 13, the mean of the δ_j (Eq. 12); 0 for
// fewer than two tests.
func OutputDiversity(delta []float64) float64 {
	if len(delta) < 2 {
		return 0
	}
	return mean(delta)
}

// CountSimilar returns #similar of Eq. 4: the number of δ_j (Eq. 12) below
// threshold.
func CountSimilar(delta []float64, threshold float64) int {
	n := 0
	for _, d := range delta {
		if d < threshold {
			n++
		}
	}
	return n
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Rank returns the competition ranks ("1224") of values: 1 for the best,
// equal values sharing the best rank of their group, the next distinct
// value ranked by its position. higherIsBetter orders from the largest.
// Values within 1e-9 (relative to the larger magnitude, at least 1e-9
// absolute) are equal; NaN ranks last.
func Rank(values []float64, higherIsBetter bool) []int {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		v := values[i]
		if math.IsNaN(v) {
			return math.Inf(-1)
		}
		if !higherIsBetter {
			return -v
		}
		return v
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, kb := key(a), key(b)
		switch {
		case ka > kb:
			return -1
		case ka < kb:
			return 1
		}
		return 0
	})
	ranks := make([]int, len(values))
	for pos, i := range idx {
		if pos > 0 && equal(key(i), key(idx[pos-1])) {
			ranks[i] = ranks[idx[pos-1]]
			continue
		}
		ranks[i] = pos + 1
	}
	return ranks
}

func equal(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
