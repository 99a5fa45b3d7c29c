package avoid

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// denseMatrix is the cost matrix written out whole, as PX4-Avoidance's
// getCostMatrix fills it: the reference the planner's row-by-row search
// (costMatrix.candidates) is checked against.
type denseMatrix struct {
	costMatrix
	other [gridCells]float64 // the costs other than the obstacles'
}

// compute fills the total cost of every direction seen from position with
// velocity vel toward goal, and with closest the point that the yaw-to-line
// term pulls toward (getCostMatrix and costFunction of PX4-Avoidance's
// planner_functions.cpp):
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
func (m *denseMatrix) compute(h *histogram, goal, position, vel, closest geom.Vec3, cp *costParams) {
	t := &m.terms
	t.set(h, goal, position, vel, closest, cp)
	for ie := range GridE {
		row := ie * GridZ
		t.otherRow(ie, cp, m.other[row:row+GridZ])
		distRow(h, ie, cp, m.dist[row:row+GridZ])
	}
	m.markDist()
}

// markDist marks the nonzero raw obstacle costs.
func (m *denseMatrix) markDist() {
	m.rows = [GridE]uint64{}
	for ie := range GridE {
		m.markRow(ie)
	}
}

// smooth replaces the raw obstacle costs by their smoothed values
// (smoothPolarMatrix), every row.
func (m *denseMatrix) smooth(r int) {
	m.markDist()
	if r <= 0 || !m.pad(r) {
		return
	}
	var row [GridZ]float64
	var out [gridCells]float64
	for ie := range GridE {
		refSmoothedRow(&m.dist, ie, r, row[:])
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
func (m *denseMatrix) best(n, r int, out []candidate) []candidate {
	out = out[:0]
	any := r > 0 && m.pad(r)
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
	var other, row [GridZ]float64
	for _, ie := range order {
		if len(out) == n && lb[ie] > out[n-1].cost {
			break
		}
		copy(other[:], m.other[ie*GridZ:(ie+1)*GridZ])
		if any {
			refSmoothedRow(&m.dist, ie, r, row[:])
		} else if r <= 0 {
			copy(row[:], m.dist[ie*GridZ:(ie+1)*GridZ])
		} else {
			row = [GridZ]float64{}
		}
		out = mergeRow(out, n, ie, &other, &row)
	}
	return out
}

// refSmoothedRow is costMatrix.smoothedRow written plainly, every cell of
// every row: row ie of dist smoothed with the conic kernel of radius r > 0.
func refSmoothedRow(dist *[gridCells]float64, ie, r int, dst []float64) {
	norm := 1 / float64(r+1)
	var sum [GridZ]float64
	for i := -r; i <= r; i++ {
		re, turn := ie+i, 0
		switch {
		case re < 0:
			re, turn = -re-1, GridZ/2
		case re >= GridE:
			re, turn = 2*GridE-1-re, GridZ/2
		}
		w := float64(r + 1 - max(i, -i))
		for iz := range GridZ {
			sum[(iz+turn)%GridZ] += dist[re*GridZ+iz] * w
		}
	}
	cols := GridZ + 2*r
	line := make([]float64, cols)
	for c := range line {
		line[c] = sum[((c-r)%GridZ+GridZ)%GridZ] * norm
	}
	box := make([]float64, cols)
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
