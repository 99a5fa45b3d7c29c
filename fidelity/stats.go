package fidelity

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// ranks returns the ranks of x (1-based), ties getting the mean of their
// ranks.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// pearson is the correlation of x and y, NaN when either is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// Spearman returns Spearman's rank correlation of x and y (the Pearson
// correlation of their ranks, ties ranked by their mean) and its two-sided
// permutation p-value from perms random permutations of y drawn from rng:
// the share of permutations (counting the observed one) whose |ρ| is at
// least the observed |ρ|. It returns NaN for fewer than 3 pairs or a
// constant sample.
func Spearman(x, y []float64, perms int, rng *rand.Rand) (rho, p float64) {
	if len(x) != len(y) || len(x) < 3 {
		return math.NaN(), math.NaN()
	}
	rx, ry := ranks(x), ranks(y)
	rho = pearson(rx, ry)
	if math.IsNaN(rho) || perms <= 0 || rng == nil {
		return rho, math.NaN()
	}
	perm := slices.Clone(ry)
	hits := 1
	for range perms {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if math.Abs(pearson(rx, perm)) >= math.Abs(rho)-1e-12 {
			hits++
		}
	}
	return rho, float64(hits) / float64(perms+1)
}

// median of x (NaN when empty); x is not modified.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return quantile(s, 0.5)
}
