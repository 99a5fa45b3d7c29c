package avoid

import (
	"math"
	"math/bits"

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
	dist      [gridCells]float64 // raw obstacle costs
	line, box []float64
	// The marked cells of dist, among them every nonzero one: bit iz of
	// rows[ie] for cell (ie, iz) (GridZ ≤ 64).
	rows  [GridE]uint64
	terms terms
}

// trig tables of the cell centres (dirCosE is cosE before the rows e and
// −e are made to share it, as dirOf computes it).
var (
	cosE, sinE, dirCosE [GridE]float64
	cosZ, sinZ          [GridZ]float64
	stepE               [GridE]int
)

func init() {
	for ie := range GridE {
		e, _ := cellCentre(ie, 0)
		sinE[ie], cosE[ie] = math.Sincos(e / deg)
		dirCosE[ie] = cosE[ie]
		stepE[ie] = int(math.Round(1 / cosE[ie]))
	}
	// Rows e and −e share cos e (candidates relies on it).
	for ie := range GridE / 2 {
		cosE[GridE-1-ie] = cosE[ie]
	}
	for iz := range GridZ {
		_, z := cellCentre(0, iz)
		sinZ[iz], cosZ[iz] = math.Sincos(z / deg)
	}
}

// candidates returns the n cheapest directions seen from position with
// velocity vel toward goal, cheapest first (getBestCandidatesFromCostMatrix;
// among equal costs the earlier cell in row-major order wins). closest is
// the point the yaw-to-line term pulls toward. The cost of a direction
// (getCostMatrix and costFunction of PX4-Avoidance's planner_functions.cpp):
//
//	obstacle:  obstacleWeight·(1 + D/√(1+D²)), D = obstacleM − d, in cells
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
//
// The whole matrix is never filled (written out, it is the tests'
// reference): the raw obstacle costs are set only where the histogram has
// points (the rows with stepped columns whole), and the other costs only in
// the rows that can still hold a candidate: a row is skipped once a lower
// bound of its other costs exceeds the n-th best total, since obstacle
// costs are never negative.
func (m *costMatrix) candidates(h *histogram, goal, position, vel, closest geom.Vec3, cp *costParams, n int, out []candidate) []candidate {
	t := &m.terms
	t.set(h, goal, position, vel, closest, cp)
	m.clear()
	var stepped [GridE]bool
	for _, k := range h.touched {
		ie := int(k) / GridZ
		if stepE[ie] > 1 {
			stepped[ie] = true
			continue
		}
		if d := h.dist[k]; d > 0 {
			m.dist[k] = sigmoid(d, cp)
			m.mark(int(k))
		}
	}
	for ie, ok := range stepped {
		if !ok {
			continue
		}
		distRow(h, ie, cp, m.dist[ie*GridZ:(ie+1)*GridZ])
		m.markRow(ie)
	}
	r := cp.smoothR
	smoothing := r > 0 && m.pad(r)
	var lb [GridE]float64
	t.bounds(cp, &lb)
	var order [GridE]int
	for ie := range GridE {
		k := ie
		for k > 0 && lb[order[k-1]] > lb[ie] {
			order[k] = order[k-1]
			k--
		}
		order[k] = ie
	}
	out = out[:0]
	var other, row [GridZ]float64
	for _, ie := range order {
		if len(out) == n && lb[ie] > out[n-1].cost {
			break
		}
		t.otherRow(ie, cp, other[:])
		switch {
		case smoothing:
			m.smoothedRow(ie, r, row[:])
		case r <= 0:
			copy(row[:], m.dist[ie*GridZ:(ie+1)*GridZ])
		default:
			row = [GridZ]float64{}
		}
		out = mergeRow(out, n, ie, &other, &row)
	}
	return out
}

// mergeRow adds the cells of row ie (other plus obstacle costs) to the n
// cheapest candidates in out.
func mergeRow(out []candidate, n, ie int, other, dist *[GridZ]float64) []candidate {
	for iz := range GridZ {
		k := ie*GridZ + iz
		c := other[iz] + dist[iz]
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
			out[i] = out[i-1]
			i--
		}
		out[i] = cand
	}
	return out
}

// terms are the parts of the cost function that depend on the node, the
// goal and the velocity but not on the obstacles (the yaw and velocity terms
// per azimuth column, the pitch scale), worked out once per node.
type terms struct {
	goal       polar
	speed      float64
	vel        geom.Vec3
	pitchScale float64
	yawC, hv   [GridZ]float64
	// The columns that no neighbour dominates (bounds).
	front  [GridZ]int8
	nFront int
}

// setTerms fills t for a node at position with velocity vel (the first
// half of costFunction for every cell).
func (t *terms) set(h *histogram, goal, position, vel, closest geom.Vec3, cp *costParams) {
	g := polarOf(goal, position)
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
	t.goal, t.vel, t.speed = g, vel, vel.Norm()
	t.pitchScale = 1.0
	if g.r < 5 {
		t.pitchScale = 1 / ((0.2 * g.r) * (0.2 * g.r))
	}
	for iz := range GridZ {
		_, z := cellCentre(0, iz)
		dg, dl := angleDiff(z, g.z), angleDiff(z, lz)
		t.yawC[iz] = (1-w)*cp.yaw*dg*dg + w*cp.yaw*dl*dl
		t.hv[iz] = vel.X*cosZ[iz] + vel.Y*sinZ[iz]
	}
	t.nFront = 0
	for iz := range GridZ {
		if !t.dominated(iz, (iz+GridZ-1)%GridZ) && !t.dominated(iz, (iz+1)%GridZ) {
			t.front[t.nFront] = int8(iz)
			t.nFront++
		}
	}
}

// dominated reports whether column j dominates column iz: no more yaw
// cost and no less velocity along the azimuth, one of them strictly.
func (t *terms) dominated(iz, j int) bool {
	y, v, yj, vj := t.yawC[iz], t.hv[iz], t.yawC[j], t.hv[j]
	return yj <= y && vj >= v && (yj < y || vj > v)
}

// bounds writes lower bounds of each row's costs other than the
// obstacles' into lb: the row's base plus the least of
// yaw − velocity·cos e·(v·ẑ) over the columns, less a margin for rounding;
// rows e and −e share cos e. Interpolated columns lie between evaluated
// ones, so the bound holds for stepped rows too.
//
// The least is taken over the front only: as velocity·cos e ≥ 0 and
// rounding is monotone, a column dominated by a neighbour costs no less
// than it, and the chain of dominating neighbours ends on the front. So
// the least is the same, but for the sign of a zero, which the bound's
// sum does not see; min (no branch) differs from skipping NaNs only where
// the base is not finite, and then the bound is NaN either way.
func (t *terms) bounds(cp *costParams, lb *[GridE]float64) {
	var f [GridE / 2]float64
	front := t.front[:t.nFront]
	for ie := range GridE / 2 {
		kv := cp.velocity * cosE[ie]
		mn := math.Inf(1)
		for _, iz := range front {
			mn = min(mn, t.yawC[iz]-kv*t.hv[iz])
		}
		f[ie] = mn
	}
	for ie := range GridE {
		b, fm := t.base(ie, cp), f[min(ie, GridE-1-ie)]
		lb[ie] = b + fm - 1e-9*(math.Abs(b)+math.Abs(fm)+1)
	}
}

// base is the part of row ie's cost shared by its cells: the pitch term and
// the velocity term's |v| and vertical part.
func (t *terms) base(ie int, cp *costParams) float64 {
	e, _ := cellCentre(ie, 0)
	de := e - t.goal.e
	pitch := cp.pitch * de * de * t.pitchScale
	return cp.velocity*(t.speed+t.vel.Z*sinE[ie]) + pitch
}

// otherRow writes row ie of the costs other than the obstacles' into dst:
// evaluated every stepE[ie] columns and linearly interpolated between, as
// getCostMatrix does away from the horizon.
func (t *terms) otherRow(ie int, cp *costParams, dst []float64) {
	base := t.base(ie, cp)
	kv := cp.velocity * cosE[ie]
	step := stepE[ie]
	if step <= 1 {
		for iz := range GridZ {
			dst[iz] = base - kv*t.hv[iz] + t.yawC[iz]
		}
		return
	}
	last := 0
	dst[0] = base - kv*t.hv[0] + t.yawC[0]
	for iz := step; iz < GridZ; iz += step {
		dst[iz] = base - kv*t.hv[iz] + t.yawC[iz]
		interpRow(dst, last, iz, step)
		last = iz
	}
	interpRow(dst, last, GridZ, GridZ-last)
}

// sigmoid is the obstacle cost of a cell whose mean distance is d > 0.
func sigmoid(d float64, cp *costParams) float64 {
	D := cp.obstacleM - d
	return cp.obstacleWeight * (1 + D/math.Sqrt(1+D*D))
}

// distRow writes row ie of the raw obstacle costs into dst, with the same
// column stepping as otherRow.
func distRow(h *histogram, ie int, cp *costParams, dst []float64) {
	row := ie * GridZ
	eval := func(iz int) {
		dst[iz] = 0
		if d := h.dist[row+iz]; d > 0 {
			dst[iz] = sigmoid(d, cp)
		}
	}
	step := stepE[ie]
	if step <= 1 {
		for iz := range GridZ {
			eval(iz)
		}
		return
	}
	last := 0
	eval(0)
	for iz := step; iz < GridZ; iz += step {
		eval(iz)
		interpRow(dst, last, iz, step)
		last = iz
	}
	interpRow(dst, last, GridZ, GridZ-last)
}

// interpRow fills cells a+1 … b−1 of one row linearly between a and b (b
// may be GridZ, meaning column 0).
func interpRow(row []float64, a, b, n int) {
	bz := b % GridZ
	g := (row[bz] - row[a]) / float64(n)
	for i := 1; i < n; i++ {
		row[a+i] = row[a] + g*float64(i)
	}
}

// clear zeroes the cells of dist that mark set and forgets them.
func (m *costMatrix) clear() {
	for ie, cs := range m.rows {
		for ; cs != 0; cs &= cs - 1 {
			m.dist[ie*GridZ+bits.TrailingZeros64(cs)] = 0
		}
	}
	m.rows = [GridE]uint64{}
}

// mark notes that cell k of dist may be nonzero.
func (m *costMatrix) mark(k int) {
	m.rows[k/GridZ] |= 1 << (k % GridZ)
}

// markRow marks the nonzero cells of row ie of dist.
func (m *costMatrix) markRow(ie int) {
	for iz, v := range m.dist[ie*GridZ : (ie+1)*GridZ] {
		if v != 0 {
			m.rows[ie] |= 1 << iz
		}
	}
}

// pad makes the scratch of smoothedRow for radius r (azimuth padded by r
// on each side) and reports whether any cell of dist is marked.
func (m *costMatrix) pad(r int) bool {
	if cols := GridZ + 2*r; len(m.line) < cols {
		m.line = make([]float64, cols)
		m.box = make([]float64, cols)
	}
	var all uint64
	for _, cs := range m.rows {
		all |= cs
	}
	return all != 0
}

// smoothedRow writes row ie of the smoothed obstacle costs into dst
// (GridZ cells): the conic kernel of radius r (weights (r+1−|i|)/(r+1)) over
// elevation, then over azimuth, on the sphere: azimuth wraps, and beyond a
// pole the rows continue reflected with the azimuth turned by 180°
// (smoothPolarMatrix with padPolarMatrix). The marked cells of dist must
// hold every nonzero one, and pad must have been called.
//
// It does the operations of the plain computation (refSmoothedRow in the
// tests) and skips only the additions of zero: none of the sums is ever −0
// (they start at +0, and a sum or difference is −0 only from a −0), so
// adding or subtracting +0 leaves them as they are.
func (m *costMatrix) smoothedRow(ie, r int, dst []float64) {
	cols := GridZ + 2*r
	line, box := m.line[:cols], m.box[:cols]
	norm := 1 / float64(r+1)
	half := GridZ / 2
	// Elevation: each column the weighted sum of rows ie−r … ie+r, added
	// row by row in that order from the rows' marked cells only; marked
	// gathers their columns.
	var sum [GridZ]float64
	var marked uint64
	for i := -r; i <= r; i++ {
		re, turn := ie+i, false
		switch {
		case re < 0:
			re, turn = -re-1, true
		case re >= GridE:
			re, turn = 2*GridE-1-re, true
		}
		cs := m.rows[re]
		if cs == 0 {
			continue
		}
		if turn {
			marked |= (cs<<half | cs>>half) & (1<<GridZ - 1)
		} else {
			marked |= cs
		}
		d := i
		if d < 0 {
			d = -d
		}
		w := float64(r + 1 - d)
		row := m.dist[re*GridZ : (re+1)*GridZ]
		for ; cs != 0; cs &= cs - 1 {
			iz := bits.TrailingZeros64(cs)
			v := row[iz]
			if turn {
				iz = (iz + half) % GridZ
			}
			sum[iz] += v * w
		}
	}
	if marked == 0 {
		for iz := range GridZ {
			dst[iz] = 0
		}
		return
	}
	// The padded line: column c holds azimuth column (c − r) mod GridZ.
	for c := range r {
		line[c] = sum[GridZ-r+c] * norm
	}
	for iz := range GridZ {
		line[r+iz] = sum[iz] * norm
	}
	for c := r + GridZ; c < cols; c++ {
		line[c] = sum[c-r-GridZ] * norm
	}
	// Its nonzero cells lie in [lo, hi]: the first and last marked
	// columns, or their copies in the padding.
	lo, hi := r+bits.TrailingZeros64(marked), r+63-bits.LeadingZeros64(marked)
	if top := marked >> (GridZ - r); top != 0 {
		lo = bits.TrailingZeros64(top)
	}
	if low := marked & (1<<r - 1); low != 0 {
		hi = r + GridZ + 63 - bits.LeadingZeros64(low)
	}
	// Azimuth: the conic kernel is two boxes of r+1 cells convolved. The
	// first box changes only in [lo, end], being +0 before and constant
	// after.
	end := min(hi+r+1, cols-1)
	for k := range lo {
		box[k] = 0
	}
	s := 0.0
	for k := lo; k <= end; k++ {
		if v := line[k]; v != 0 {
			s += v
		}
		if k > r {
			if v := line[k-r-1]; v != 0 {
				s -= v
			}
		}
		box[k] = s
	}
	for k := end + 1; k < cols; k++ {
		box[k] = s
	}
	// The second box adds the differences box[p+r] − box[p−1], which are
	// +0 unless p lies in [lo−r, end] (or, after end, the constant is not
	// finite and its differences NaN).
	pa, pb := max(r+1, lo-r), min(end, cols-r-1)
	if math.IsInf(s, 0) || math.IsNaN(s) {
		pb = cols - r - 1
	}
	s = 0
	for k := r; k <= 2*r; k++ {
		if v := box[k]; v != 0 {
			s += v
		}
	}
	for p := r; p < pa; p++ {
		dst[p-r] = s * norm
	}
	for p := pa; p <= pb; p++ {
		if d := box[p+r] - box[p-1]; d != 0 {
			s += d
		}
		dst[p-r] = s * norm
	}
	for p := pb + 1; p+r < cols; p++ {
		dst[p-r] = s * norm
	}
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

// cellDir is dirOf of the centre of cell k (row-major) from the trig
// tables: the same sines and cosines, multiplied alike.
func cellDir(k int) geom.Vec3 {
	ie, iz := k/GridZ, k%GridZ
	se, ce := sinE[ie], dirCosE[ie]
	return geom.Vec3{X: ce * cosZ[iz], Y: ce * sinZ[iz], Z: -se}
}
