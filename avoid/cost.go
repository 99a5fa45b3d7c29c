package avoid

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// costParams are PX4-Avoidance's cost weights (costParameters).
type costParams struct {
	pitch, yaw, velocity float64 // pitch_cost_param_, yaw_cost_param_, velocity_cost_param_
	obstacleM            float64 // obstacle_cost_param_
	obstacleWeight       float64 // the sigmoid's scale, 5000 in PX4-Avoidance
	smoothR              int     // ceil(smoothing_margin_degrees_ / ALPHA_RES)
	minRangeM, maxRangeM float64
}

// candidate is a direction of the cost matrix and its cost.
type candidate struct {
	cost float64
	e, z float64 // degrees
	k    int     // cell index, row-major
}

// costMatrix holds the scratch of getCostMatrix so that a planning cycle
// allocates nothing.
type costMatrix struct {
	other, dist [gridCells]float64
	line, box   []float64
	colNZ       []bool // padded columns with a nonzero cost
	rawColNZ    [GridZ]bool
	anyDist     bool
}

// trig tables of the cell centres.
var (
	cosE, sinE [GridE]float64
	cosZ, sinZ [GridZ]float64
	stepE      [GridE]int
)

func init() {
	for ie := range GridE {
		e, _ := cellCentre(ie, 0)
		sinE[ie], cosE[ie] = math.Sincos(e / deg)
		stepE[ie] = int(math.Round(1 / cosE[ie]))
	}
	for iz := range GridZ {
		_, z := cellCentre(0, iz)
		sinZ[iz], cosZ[iz] = math.Sincos(z / deg)
	}
}

// compute fills the total cost of every direction seen from position with
// velocity vel toward goal, and with closest the point that the yaw-to-line
// term pulls toward (getCostMatrix and costFunction of PX4-Avoidance's
// planner_functions.cpp):
//
//	obstacle:  w·(1 + D/√(1+D²)), D = obstacle_cost_param − d, for a cell
//	           whose mean distance d > 0; then summed over a conic kernel of
//	           radius smoothR cells in elevation and azimuth;
//	velocity:  velocity_cost_param·(|v| − v·ĉ);
//	yaw:       (1−k)·yaw_cost_param·Δz_goal² + k·yaw_cost_param·Δz_line²,
//	           k = 0.5 unless an obstacle lies within ±2 rows, ±5 columns of
//	           the goal's cell;
//	pitch:     pitch_cost_param·Δe_goal², divided by (0.2·dist)² within 5 m
//	           of the goal.
//
// Angles are in degrees. Away from the horizon the cells are evaluated every
// round(1/cos e) columns and linearly interpolated in between, as there.
func (m *costMatrix) compute(h *histogram, goal, position, vel, closest geom.Vec3, cp *costParams) {
	g := polarOf(goal, position)
	goalDist := g.r
	gie, giz := cellIndex(g.e, g.z, AlphaResDeg, GridE, GridZ)
	facing := false
	for j := -2; j <= 2 && !facing; j++ {
		for i := -5; i <= 5; i++ {
			if d := h.at(gie+j, giz+i); d > cp.minRangeM && d < cp.maxRangeM {
				facing = true
				break
			}
		}
	}
	w := 0.5
	if facing {
		w = 0
	}
	lz := polarOf(closest, position).z
	speed := vel.Norm()
	pitchScale := 1.0
	if goalDist < 5 {
		pitchScale = 1 / ((0.2 * goalDist) * (0.2 * goalDist))
	}
	// The terms that depend on one angle only.
	var yawC, hv [GridZ]float64
	for iz := range GridZ {
		_, z := cellCentre(0, iz)
		dg, dl := angleDiff(z, g.z), angleDiff(z, lz)
		yawC[iz] = (1-w)*cp.yaw*dg*dg + w*cp.yaw*dl*dl
		hv[iz] = vel.X*cosZ[iz] + vel.Y*sinZ[iz]
	}
	for ie := range GridE {
		e, _ := cellCentre(ie, 0)
		de := e - g.e
		pitch := cp.pitch * de * de * pitchScale
		row := ie * GridZ
		step := stepE[ie]
		ce, se := cosE[ie], sinE[ie]
		base := cp.velocity*(speed+vel.Z*se) + pitch
		eval := func(iz int) {
			// velocity_cost_param·(|v| − v·ĉ), ĉ = (cos e cos z, cos e sin z, −sin e).
			m.other[row+iz] = base - cp.velocity*ce*hv[iz] + yawC[iz]
			m.dist[row+iz] = 0
			if d := h.dist[row+iz]; d > 0 {
				D := cp.obstacleM - d
				m.dist[row+iz] = cp.obstacleWeight * (1 + D/math.Sqrt(1+D*D))
			}

		}
		if step <= 1 {
			for iz := range GridZ {
				eval(iz)
			}
			continue
		}
		last := 0
		eval(0)
		for iz := step; iz < GridZ; iz += step {
			eval(iz)
			m.interp(row, last, iz, step)
			last = iz
		}
		// The last columns wrap around to column 0.
		m.interp(row, last, GridZ, GridZ-last)
	}
	m.markDist()
}

// markDist notes which columns of the raw obstacle costs are nonzero.
func (m *costMatrix) markDist() {
	m.rawColNZ = [GridZ]bool{}
	m.anyDist = false
	for ie := range GridE {
		row := m.dist[ie*GridZ : (ie+1)*GridZ]
		for iz, v := range row {
			if v != 0 {
				m.rawColNZ[iz] = true
				m.anyDist = true
			}
		}
	}
}

// interp fills columns a+1 … b−1 of a row linearly between a and b (b may
// be GridZ, meaning column 0).
func (m *costMatrix) interp(row, a, b, n int) {
	bz := b % GridZ
	go1 := (m.other[row+bz] - m.other[row+a]) / float64(n)
	gd := (m.dist[row+bz] - m.dist[row+a]) / float64(n)
	for i := 1; i < n; i++ {
		m.other[row+a+i] = m.other[row+a] + go1*float64(i)
		m.dist[row+a+i] = m.dist[row+a] + gd*float64(i)
	}
}

// preparePad marks the columns that hold a nonzero obstacle cost, in
// the padded column space of smoothPolarMatrix (azimuth wrapped by r on
// each side, a column also counting as nonzero when its 180°-turned partner
// is, for the rows reflected past the poles). It reports whether any cost
// is nonzero.
func (m *costMatrix) preparePad(r int) bool {
	cols := GridZ + 2*r
	if len(m.line) < cols {
		m.line = make([]float64, cols)
		m.box = make([]float64, cols)
		m.colNZ = make([]bool, cols)
	}
	if !m.anyDist {
		return false
	}
	half := GridZ / 2
	for c := range cols {
		iz := ((c-r)%GridZ + GridZ) % GridZ
		m.colNZ[c] = m.rawColNZ[iz] || m.rawColNZ[(iz+half)%GridZ]
	}
	return true
}

// smoothedRow writes row ie of the smoothed obstacle costs into dst
// (GridZ cells): the conic kernel of radius r (weights (r+1−|i|)/(r+1)) over
// elevation, then over azimuth, on the sphere: azimuth wraps, and beyond a
// pole the rows continue reflected with the azimuth turned by 180°
// (smoothPolarMatrix with padPolarMatrix). preparePad must have been
// called.
func (m *costMatrix) smoothedRow(ie, r int, dst []float64) {
	cols := GridZ + 2*r
	line, box := m.line, m.box
	norm := 1 / float64(r+1)
	half := GridZ / 2
	nz := false
	for c := range cols {
		s := 0.0
		if m.colNZ[c] {
			iz := ((c-r)%GridZ + GridZ) % GridZ
			for i := -r; i <= r; i++ {
				re, rz := ie+i, iz
				switch {
				case re < 0:
					re, rz = -re-1, (iz+half)%GridZ
				case re >= GridE:
					re, rz = 2*GridE-1-re, (iz+half)%GridZ
				}
				if v := m.dist[re*GridZ+rz]; v != 0 {
					d := i
					if d < 0 {
						d = -d
					}
					s += v * float64(r+1-d)
				}
			}
		}
		line[c] = s * norm
		if s != 0 {
			nz = true
		}
	}
	if !nz {
		for iz := range GridZ {
			dst[iz] = 0
		}
		return
	}
	// Azimuth: the conic kernel is two boxes of r+1 cells convolved.
	s := 0.0
	for k := range cols {
		s += line[k]
		if k > r {
			s -= line[k-r-1]
		}
		box[k] = s
	}
	s = 0
	for k := r; k <= 2*r; k++ {
		s += box[k]
	}
	for p := r; p+r < cols; p++ {
		if p > r {
			s += box[p+r] - box[p-1]
		}
		dst[p-r] = s * norm
	}
}

// smooth replaces the raw obstacle costs by their smoothed values
// (smoothPolarMatrix), every row.
func (m *costMatrix) smooth(r int) {
	m.markDist()
	if r <= 0 || !m.preparePad(r) {
		return
	}
	var row [GridZ]float64
	var out [gridCells]float64
	for ie := range GridE {
		m.smoothedRow(ie, r, row[:])
		copy(out[ie*GridZ:], row[:])
	}
	m.dist = out
}

// best writes the n cheapest directions of the total cost (the other
// costs plus the smoothed obstacle costs) into out, cheapest first
// (getBestCandidatesFromCostMatrix; among equal costs the earlier cell in
// row-major order wins). The smoothed obstacle costs are only computed for
// the rows that can still hold a candidate: a row whose cheapest other cost
// exceeds the n-th best total so far cannot, since obstacle costs are never
// negative.
func (m *costMatrix) best(n, r int, out []candidate) []candidate {
	out = out[:0]
	any := r > 0 && m.preparePad(r)
	var lb [GridE]float64
	var order [GridE]int
	for ie := range GridE {
		mn := math.Inf(1)
		for _, v := range m.other[ie*GridZ : (ie+1)*GridZ] {
			if v < mn {
				mn = v
			}
		}
		lb[ie] = mn
		// Insertion into the order of increasing lower bound.
		k := ie
		for k > 0 && lb[order[k-1]] > mn {
			order[k] = order[k-1]
			k--
		}
		order[k] = ie
	}
	var row [GridZ]float64
	for _, ie := range order {
		if len(out) == n && lb[ie] > out[n-1].cost {
			break
		}
		if any {
			m.smoothedRow(ie, r, row[:])
		} else if r <= 0 {
			copy(row[:], m.dist[ie*GridZ:(ie+1)*GridZ])
		} else {
			row = [GridZ]float64{}
		}
		for iz := range GridZ {
			k := ie*GridZ + iz
			c := m.other[k] + row[iz]
			if len(out) == n && !before(c, k, out[n-1]) {
				continue
			}
			e, z := cellCentre(ie, iz)
			cand := candidate{cost: c, e: e, z: z, k: k}
			i := len(out)
			if i < n {
				out = append(out, cand)
			} else {
				i = n - 1
				out[i] = cand
			}
			for i > 0 && before(cand.cost, cand.k, out[i-1]) {
				out[i], out[i-1] = out[i-1], out[i]
				i--
			}
		}
	}
	return out
}

// before orders candidates by cost, then by cell index.
func before(c float64, k int, o candidate) bool {
	return c < o.cost || c == o.cost && k < o.k
}

// dirOf is the NED unit vector of direction (e, z) in degrees.
func dirOf(e, z float64) geom.Vec3 {
	se, ce := math.Sincos(e / deg)
	sz, cz := math.Sincos(z / deg)
	return geom.Vec3{X: ce * cz, Y: ce * sz, Z: -se}
}
