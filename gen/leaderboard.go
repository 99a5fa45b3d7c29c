package gen

import (
	"cmp"
	"slices"

	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/world"
)

// Candidate is a generated two-obstacle test in the canonical frame with
// its predicted minimum clearance.
type Candidate struct {
	Canon []world.Box
	Pred  float64 // m
}

// Features returns the surrogate's test vector of a canonical test: l, w,
// x, y, r of each of its first two obstacles.
func Features(canon []world.Box) surrogate.Features {
	var f surrogate.Features
	for k := 0; k < 2 && k < len(canon); k++ {
		b := canon[k]
		f[5*k], f[5*k+1], f[5*k+2], f[5*k+3], f[5*k+4] = b.L, b.W, b.X, b.Y, b.R
	}
	return f
}

// BoxesOf is the inverse of Features: the two canonical boxes of a
// feature vector, HeightM high.
func BoxesOf(f surrogate.Features) []world.Box {
	out := make([]world.Box, 2)
	for k := range out {
		out[k] = world.Box{L: f[5*k], W: f[5*k+1], H: HeightM, X: f[5*k+2], Y: f[5*k+3], R: f[5*k+4]}
	}
	return out
}

// Predictor predicts the minimum clearance of test vectors; a
// *surrogate.Model is one.
type Predictor interface {
	PredictBatch(dst []float64, xs []surrogate.Features)
}

var _ Predictor = (*surrogate.Model)(nil)

// KeepClosest is phase 1's update (paper §IV-E): lb and cands merged, the
// size candidates with the smallest predicted clearances kept, in
// increasing order of prediction (ties in order of arrival).
func KeepClosest(lb, cands []Candidate, size int) []Candidate {
	lb = append(lb, cands...)
	slices.SortStableFunc(lb, func(a, b Candidate) int { return cmp.Compare(a.Pred, b.Pred) })
	if len(lb) > size {
		clear(lb[size:])
		lb = lb[:size]
	}
	return lb
}

// Diversifier is phase 2's leaderboard (paper §IV-E): it replaces one test
// by a critical candidate when that raises the leaderboard's input
// diversity (Eq. 9–11) the most. Union areas are counted on a raster of
// the canonical zone (see DefaultCellM), so that every alternative
// leaderboard is scored without recomputing a polygon union.
type Diversifier struct {
	Tests []Candidate
	cov   *coverage
	cells [][]int32 // per test
	areas suiteAreas
	// scratch
	hit   []int // per test, cells of the candidate covered by it alone
	touch []int
	buf   []int32
}

// NewDiversifier starts phase 2 from the leaderboard lb, whose tests lie
// in area (the canonical zone), rastered with cells of cellM metres (0 means
// DefaultCellM).
func NewDiversifier(lb []Candidate, area world.Area, cellM float64) *Diversifier {
	if cellM <= 0 {
		cellM = DefaultCellM
	}
	d := &Diversifier{Tests: slices.Clone(lb), cov: newCoverage(area, cellM, len(lb)), cells: make([][]int32, len(lb)), hit: make([]int, len(lb))}
	for i, t := range d.Tests {
		d.cells[i] = d.testCells(nil, t.Canon)
		d.cov.add(i, d.cells[i], 1)
		d.areas.add(boxAreas(t.Canon), 1)
	}
	return d
}

func (d *Diversifier) testCells(dst []int32, boxes []world.Box) []int32 {
	for _, b := range boxes {
		dst = d.cov.cells(dst, b)
	}
	return dst
}

func boxAreas(bs []world.Box) []float64 {
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = b.L * b.W
	}
	return out
}

// Diversity returns the leaderboard's input diversity (Eq. 9) on the
// raster.
func (d *Diversifier) Diversity() float64 {
	return d.areas.diversity(float64(d.cov.union) * d.cov.cellArea())
}

// Offer scores, for every candidate predicted at most criticalM and every
// test of the leaderboard, the leaderboard with that test replaced by that
// candidate, and keeps the best of them when it is more diverse than the
// leaderboard is (one replacement per call, as the paper's rounds do).
// It reports whether a test was replaced.
func (d *Diversifier) Offer(cands []Candidate, criticalM float64) bool {
	if len(d.Tests) == 0 {
		return false
	}
	cur := d.Diversity()
	best, bestC, bestI := cur, -1, -1
	var bestCells []int32
	ca := d.cov.cellArea()
	for ci, c := range cands {
		if !(c.Pred <= criticalM) {
			continue
		}
		d.buf = d.testCells(d.buf[:0], c.Canon)
		fresh := 0
		d.touch = d.touch[:0]
		for _, k := range d.buf {
			switch d.cov.count[k] {
			case 0:
				fresh++
			case 1:
				o := int(d.cov.idSum[k])
				if d.hit[o] == 0 {
					d.touch = append(d.touch, o)
				}
				d.hit[o]++
			}
		}
		cAreas := boxAreas(c.Canon)
		for i := range d.Tests {
			// Union without test i, plus the candidate: the cells only i
			// covered go, unless the candidate covers them too.
			u := d.cov.union - d.cov.uniq[i] + fresh + d.hit[i]
			a := d.areas
			a.add(boxAreas(d.Tests[i].Canon), -1)
			a.add(cAreas, 1)
			if v := a.diversity(float64(u) * ca); v > best {
				best, bestC, bestI = v, ci, i
				bestCells = append(bestCells[:0], d.buf...)
			}
		}
		for _, o := range d.touch {
			d.hit[o] = 0
		}
	}
	if bestC < 0 {
		return false
	}
	d.cov.add(bestI, d.cells[bestI], -1)
	d.areas.add(boxAreas(d.Tests[bestI].Canon), -1)
	d.Tests[bestI] = cands[bestC]
	d.cells[bestI] = bestCells
	d.cov.add(bestI, bestCells, 1)
	d.areas.add(boxAreas(cands[bestC].Canon), 1)
	return true
}
