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
	ie := int((e + 90) * (1.0 / AlphaResDeg))
	if ie > GridE-1 {
		ie = GridE - 1
	}
	iz := int((z + 180) * (1.0 / AlphaResDeg))
	if iz >= GridZ {
		iz -= GridZ
	}
	return ie*GridZ + iz
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
}

func (h *histogram) build(cloud []point, origin geom.Vec3) {
	h.reset()
	for i := range cloud {
		p := polarOf(cloud[i].p, origin)
		k := histCell(p.e, p.z)
		if h.count[k] == 0 {
			h.touched = append(h.touched, int32(k))
		}
		h.dist[k] += p.r
		h.count[k]++
	}
	for _, k := range h.touched {
		h.dist[k] /= float64(h.count[k])
	}
	h.empty = len(h.touched) == 0
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
