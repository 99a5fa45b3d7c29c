package gen

import (
	"math"

	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/world"
)

// InputDiversity returns Eq. 9–11 of the paper for the obstacles of a
// suite of tests: D_union · (1 + CV), with D_union the area of the union of
// all footprints over their mean area and CV the coefficient of variation
// of their areas, computed exactly with package score (polygon unions).
func InputDiversity(tests [][]world.Box) (float64, error) {
	var all []world.Box
	var areas []float64
	for _, t := range tests {
		for _, b := range t {
			all = append(all, b)
			areas = append(areas, b.L*b.W)
		}
	}
	u, err := score.UnionArea(all)
	if err != nil {
		return 0, err
	}
	return score.InputDiversity(score.DUnion(u, areas), score.CV(areas)), nil
}

// DefaultCellM is the side of a cell of the coverage raster that phase 2
// evaluates union areas on, m: a 20-m box's area is then right to about
// 2 %, ample to rank alternative leaderboards, and a replacement is scored
// in O(cells of the candidate) instead of a polygon union of the suite.
const DefaultCellM = 0.2

// coverage counts, on a raster over a rectangle, how many footprints cover
// each cell, and for cells covered exactly once, by which test: the sum of
// the ids of the tests covering a cell is that test's id when the count is
// one (a test's own boxes never overlap).
type coverage struct {
	area   world.Area
	cell   float64
	nx, ny int
	count  []int32
	idSum  []int64
	union  int   // cells covered at least once
	uniq   []int // per test id, cells covered by that test alone
}

func newCoverage(area world.Area, cell float64, tests int) *coverage {
	nx := int(math.Ceil((area.MaxX - area.MinX) / cell))
	ny := int(math.Ceil((area.MaxY - area.MinY) / cell))
	return &coverage{area: area, cell: cell, nx: nx, ny: ny,
		count: make([]int32, nx*ny), idSum: make([]int64, nx*ny), uniq: make([]int, tests)}
}

// cells appends to dst the indices of the cells whose centres lie in b's
// footprint.
func (c *coverage) cells(dst []int32, b world.Box) []int32 {
	corners := b.Corners()
	minX, maxX, minY, maxY := corners[0].X, corners[0].X, corners[0].Y, corners[0].Y
	for _, p := range corners[1:] {
		minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
		minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
	}
	i0 := max(0, int(math.Floor((minX-c.area.MinX)/c.cell)))
	i1 := min(c.nx-1, int(math.Floor((maxX-c.area.MinX)/c.cell)))
	j0 := max(0, int(math.Floor((minY-c.area.MinY)/c.cell)))
	j1 := min(c.ny-1, int(math.Floor((maxY-c.area.MinY)/c.cell)))
	s, co := math.Sincos(b.R * math.Pi / 180)
	hl, hw := b.L/2, b.W/2
	for j := j0; j <= j1; j++ {
		y := c.area.MinY + (float64(j)+0.5)*c.cell - b.Y
		for i := i0; i <= i1; i++ {
			x := c.area.MinX + (float64(i)+0.5)*c.cell - b.X
			lx, ly := co*x+s*y, -s*x+co*y
			if lx >= -hl && lx <= hl && ly >= -hw && ly <= hw {
				dst = append(dst, int32(j*c.nx+i))
			}
		}
	}
	return dst
}

// add records (sign = 1) or removes (sign = −1) the cells of test id.
func (c *coverage) add(id int, cells []int32, sign int32) {
	for _, k := range cells {
		old := c.count[k]
		if old == 1 {
			c.uniq[c.idSum[k]]--
		}
		n := old + sign
		c.count[k] = n
		c.idSum[k] += int64(sign) * int64(id)
		switch {
		case old == 0 && n > 0:
			c.union++
		case old > 0 && n == 0:
			c.union--
		}
		if n == 1 {
			c.uniq[c.idSum[k]]++
		}
	}
}

// cellArea is the area of one cell, m².
func (c *coverage) cellArea() float64 { return c.cell * c.cell }

// suiteAreas keeps the sum and the sum of squares of the obstacle areas of a
// suite, for the CV of Eq. 11.
type suiteAreas struct {
	n          int
	sum, sumSq float64
}

func (a *suiteAreas) add(areas []float64, sign float64) {
	for _, v := range areas {
		a.n += int(sign)
		a.sum += sign * v
		a.sumSq += sign * v * v
	}
}

// diversity returns Eq. 9 for a union area and the areas' statistics.
func (a suiteAreas) diversity(union float64) float64 {
	if a.n == 0 || !(a.sum > 0) {
		return 0
	}
	mean := a.sum / float64(a.n)
	cv := 0.0
	if a.n > 1 {
		v := (a.sumSq - float64(a.n)*mean*mean) / float64(a.n-1)
		cv = math.Sqrt(math.Max(0, v)) / mean
	}
	return union / mean * (1 + cv)
}

// RasterIoU returns the IoU of the footprint unions of two tests counted
// on a raster of cellM-metre cells (cells whose centres lie in a
// footprint): within a few per cent of the exact polygon IoU
// (score.BoxIoU) for boxes of 2 m and more at 0.2 m, and some hundred
// times faster, for searches that compare every candidate with every test
// flown.
func RasterIoU(a, b []world.Box, cellM float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, t := range [2][]world.Box{a, b} {
		for _, bx := range t {
			for _, c := range bx.Corners() {
				minX, maxX = math.Min(minX, c.X), math.Max(maxX, c.X)
				minY, maxY = math.Min(minY, c.Y), math.Max(maxY, c.Y)
			}
		}
	}
	cov := newCoverage(world.Area{MinX: minX, MaxX: maxX, MinY: minY, MaxY: maxY}, cellM, 0)
	mark := make([]uint8, cov.nx*cov.ny)
	var buf []int32
	for bit, t := range [2][]world.Box{a, b} {
		for _, bx := range t {
			buf = cov.cells(buf[:0], bx)
			for _, k := range buf {
				mark[k] |= 1 << bit
			}
		}
	}
	inter, union := 0, 0
	for _, m := range mark {
		if m != 0 {
			union++
		}
		if m == 3 {
			inter++
		}
	}
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
