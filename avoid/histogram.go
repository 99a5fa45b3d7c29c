package avoid

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// The polar grid of PX4-Avoidance (local_planner common.h): ALPHA_RES = 6°,
// GRID_LENGTH_E = 180/6 = 30 elevation rows from −90° to +90° and
// GRID_LENGTH_Z = 360/6 = 60 azimuth columns from −180° to +180°. The point
// memory is sub-sampled on a grid three times finer (2°).
const (
	AlphaResDeg = 6
	GridE       = 180 / AlphaResDeg
	GridZ       = 360 / AlphaResDeg
	gridCells   = GridE * GridZ

	subRes   = AlphaResDeg / 3.0
	subE     = 90
	subZ     = 180
	subCells = subE * subZ
)

// polar is a direction (elevation e up from the horizon, azimuth z the
// bearing from North toward East, both in degrees, as PX4-Avoidance's
// histogram frame) and a distance r.
type polar struct{ e, z, r float64 }

const deg = 180 / math.Pi

// polarOf returns p seen from origin (both NED).
func polarOf(p, origin geom.Vec3) polar {
	dx, dy, dz := p.X-origin.X, p.Y-origin.Y, p.Z-origin.Z
	h := math.Sqrt(dx*dx + dy*dy)
	return polar{e: atan2Deg(-dz, h), z: atan2Deg(dy, dx), r: math.Sqrt(h*h + dz*dz)}
}

// atan2Deg is atan2 in degrees with a maximum error of about 0.0006°: a
// polynomial on [0, 1] with octant reduction. The histogram cells
// are 6° and 2° wide, so the error moves no point into another cell except
// at a cell border, where either neighbour is as right as the other.
func atan2Deg(y, x float64) float64 {
	ax, ay := math.Abs(x), math.Abs(y)
	if ax == 0 && ay == 0 {
		return 0
	}
	mn, mx := ax, ay
	if mn > mx {
		mn, mx = mx, mn
	}
	a := mn / mx
	s := a * a
	// atan(a) on [0, 1], Abramowitz & Stegun 4.4.49: |error| ≤ 1e-5 rad.
	r := a * (0.9998660 + s*(-0.3302995+s*(0.1801410+s*(-0.0851330+s*0.0208351))))
	if ay > ax {
		r = math.Pi/2 - r
	}
	if x < 0 {
		r = math.Pi - r
	}
	if y < 0 {
		r = -r
	}
	return r * deg
}

// cellIndex returns the histogram cell of direction (e, z) on a grid of res
// degrees with nE rows and nZ columns: the elevation clamped, the azimuth
// wrapped.
func cellIndex(e, z, res float64, nE, nZ int) (ie, iz int) {
	ie = int(math.Floor((e + 90) / res))
	ie = min(max(ie, 0), nE-1)
	iz = int(math.Floor((z + 180) / res))
	iz %= nZ
	if iz < 0 {
		iz += nZ
	}
	return ie, iz
}

// histCell is cellIndex on the 6° grid as a row-major cell number, for
// e ∈ [−90°, 90°] and z ∈ [−180°, 180°] as polarOf returns them (the
// conversion truncates, which is the floor for these non-negative offsets).
func histCell(e, z float64) int {
	return histRow(e)*GridZ + histCol(z)
}

// histRow is histCell's row of elevation e.
func histRow(e float64) int {
	ie := int((e + 90) * (1.0 / AlphaResDeg))
	if ie > GridE-1 {
		ie = GridE - 1
	}
	return ie
}

// histCol is histCell's column of azimuth z.
func histCol(z float64) int {
	iz := int((z + 180) * (1.0 / AlphaResDeg))
	if iz >= GridZ {
		iz -= GridZ
	}
	return iz
}

// cellCentre returns the direction of the centre of cell (ie, iz) on the
// 6° grid.
func cellCentre(ie, iz int) (e, z float64) {
	return float64(ie)*AlphaResDeg + AlphaResDeg/2 - 90, float64(iz)*AlphaResDeg + AlphaResDeg/2 - 180
}

// angleDiff is the absolute difference of two azimuths in degrees, 0..180,
// for azimuths in [−180, 180].
func angleDiff(a, b float64) float64 {
	d := a - b
	if d < 0 {
		d = -d
	}
	if d > 180 {
		d = 360 - d
	}
	return d
}

// wrap180 wraps an angle in degrees into [−180, 180).
func wrap180(a float64) float64 {
	a = math.Mod(a+180, 360)
	if a < 0 {
		a += 360
	}
	return a - 180
}

// histogram is the 6° polar histogram around one origin: the mean distance
// of the points in each cell, 0 for an empty cell (generateNewHistogram).
// touched lists the nonempty cells in the order they were first filled, so
// that clearing and scanning the histogram cost the number of points, not
// the number of cells.
type histogram struct {
	dist    [gridCells]float64
	count   [gridCells]int32
	touched []int32
	empty   bool
	// Scratch of build: each point's cell and distance.
	cells []int32
	dists []float64
}

// build fills the histogram of cloud seen from origin: each point goes to
// histCell of its polarOf direction and adds its polarOf distance, in the
// order of the cloud (so the sums are the same, term by term).
//
// It works in two passes: the cells and distances of all points first,
// then the sums. In one pass every point's cell waits on its two arc
// tangents before the sum it feeds can be loaded; apart, the first pass has
// no dependence between points and the second only short ones.
//
// The cell comes from quadrantCell without the arc tangents' polynomial
// where it can; quadrantCell declines only within 0.002° of a cell border,
// and there the direction goes through atan2Deg as in polarOf.
func (h *histogram) build(cloud []point, origin geom.Vec3) {
	h.reset()
	if cap(h.cells) < len(cloud) {
		h.cells = make([]int32, len(cloud), 2*len(cloud))
		h.dists = make([]float64, len(cloud), 2*len(cloud))
	}
	cells, dists := h.cells[:len(cloud)], h.dists[:len(cloud)]
	for i := range cloud {
		q := &cloud[i].p
		// polarOf, written out.
		dx, dy, dz := q.X-origin.X, q.Y-origin.Y, q.Z-origin.Z
		hr := math.Sqrt(dx*dx + dy*dy)
		dists[i] = math.Sqrt(hr*hr + dz*dz)
		// Elevation atan2Deg(−dz, hr): x = hr ≥ 0, and y < 0 is dz > 0.
		ie, ok := quadrantCell(math.Abs(dz), hr, false, dz > 0, 15)
		if !ok {
			ie = histRow(atan2Deg(-dz, hr))
		}
		iz, ok := quadrantCell(math.Abs(dy), math.Abs(dx), dx < 0, dy < 0, GridZ/2)
		if !ok {
			iz = histCol(atan2Deg(dy, dx))
		}
		cells[i] = int32(ie*GridZ + iz)
	}
	for i, k := range cells {
		if h.count[k] == 0 {
			h.touched = append(h.touched, k)
		}
		h.dist[k] += dists[i]
		h.count[k]++
	}
	for _, k := range h.touched {
		h.dist[k] /= float64(h.count[k])
	}
	h.empty = len(h.touched) == 0
}

// octantN is the number of slices of [0, 1] in octantBin.
const octantN = 2048

// octantBin[i] is the 6° band m (angle in [6m°, 6m°+6°)) holding
// atan2Deg's octant angle r = poly(a) for every a in [i/N, (i+1)/N]
// (N = octantN), or −1 where the slice comes within 0.002° of a multiple
// of 6°. Both ends are taken 0.002° wider than the exact arc tangents:
// the polynomial (Abramowitz & Stegun 4.4.49, its coefficients rounded) is
// within 1.2e-5 rad (0.0007°) of atan on [0, 1], rounding included
// (TestAtanPolynomialBound), and the octant steps and the degree
// conversion round by some 1e-13°, so r lies in the band, at least
// 0.0013° from its borders.
var octantBin [octantN + 1]int8

func init() {
	const margin = 0.002
	for i := range octantBin {
		lo := math.Atan(float64(i)/octantN)*deg - margin
		hi := math.Atan(math.Min(float64(i+1)/octantN, 1))*deg + margin
		octantBin[i] = -1
		if m := math.Floor(lo / AlphaResDeg); m == math.Floor(hi/AlphaResDeg) {
			octantBin[i] = int8(m)
		}
	}
}

// quadrantCell is the histogram index (row or column) of atan2Deg(y, x)
// for |y| = ay and |x| = ax, x < 0 being xNeg and y < 0 yNeg, on a grid
// whose angle 0 starts index mid (15 for the elevation, whose index is
// (e + 90°)/6°; 30 for the azimuth, (z + 180°)/6°), found without the
// polynomial: false when octantBin declines (or at the origin).
//
// atan2Deg computes r = poly(a), a = min(ax, ay)/max(ax, ay) (the same
// quotient here), then R = 90° − r if ay > ax, then R' = 180° − R if x < 0,
// and the angle is ±R'. With r strictly inside band m (at least 0.0013°
// from its borders, octantBin), R lies inside band 14 − m (90° − r), R'
// inside 29 − j for R in band j, and the angle inside mid + j or
// mid − 1 − j for R' in band j: as the borders of every band are
// multiples of 6°, each step maps a band's inside onto a band's inside,
// the margin keeps the rounded angle off the border, and the truncation
// in histRow and histCol then gives that index. The elevation's top
// clamp and the azimuth's wrap act only on a border, which is excluded.
func quadrantCell(ay, ax float64, xNeg, yNeg bool, mid int) (int, bool) {
	mn, mx := ax, ay
	if mn > mx {
		mn, mx = mx, mn
	}
	if !(mx > 0) {
		return 0, false
	}
	// a ∈ [0, 1]; scaling by a power of two is exact, so the slice is
	// floor(a·N).
	m := int(octantBin[int(mn/mx*octantN)])
	if m < 0 {
		return 0, false
	}
	if ay > ax {
		m = 14 - m
	}
	if xNeg {
		m = 29 - m
	}
	if yNeg {
		return mid - 1 - m, true
	}
	return mid + m, true
}

// reset empties the histogram.
func (h *histogram) reset() {
	for _, k := range h.touched {
		h.dist[k], h.count[k] = 0, 0
	}
	h.touched = h.touched[:0]
	h.empty = true
}

// set makes cell k hold one point at distance d (for hand-made histograms).
func (h *histogram) set(k int, d float64) {
	if h.count[k] == 0 {
		h.touched = append(h.touched, int32(k))
	}
	h.dist[k], h.count[k], h.empty = d, 1, false
}

func (h *histogram) at(ie, iz int) float64 {
	ie = min(max(ie, 0), GridE-1)
	iz %= GridZ
	if iz < 0 {
		iz += GridZ
	}
	return h.dist[ie*GridZ+iz]
}
