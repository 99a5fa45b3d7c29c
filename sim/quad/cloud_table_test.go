package quad

import (
	"math"
	"testing"
)

// The camera's sine and cosine tables hold exactly what capture computed
// per ray before them: math.Sincos of the row's elevation
// (ei + 0.5)·cell − π/2 and of the column's azimuth (zi + 0.5)·cell − π,
// for every row and for columns far outside one turn (where colSincos
// computes them).
func TestCloudTablesMatchSincos(t *testing.T) {
	for _, cellDeg := range []float64{0, 0.5, 2, 3, 7.5, 10} {
		cfg := IrisDepthCamera()
		cfg.CellDeg = cellDeg
		c := newCloudCam(cfg)
		nE := int(math.Round(math.Pi / c.cell))
		if len(c.elSin) != nE {
			t.Fatalf("cell %v°: %d rows; want %d", cellDeg, len(c.elSin), nE)
		}
		for ei := range nE {
			se, ce := math.Sincos((float64(ei)+0.5)*c.cell - math.Pi/2)
			if math.Float64bits(c.elSin[ei]) != math.Float64bits(se) || math.Float64bits(c.elCos[ei]) != math.Float64bits(ce) {
				t.Fatalf("cell %v° row %d: %v, %v; want %v, %v", cellDeg, ei, c.elSin[ei], c.elCos[ei], se, ce)
			}
		}
		for zi := -5 * nE; zi <= 5*nE; zi++ {
			sa, ca := math.Sincos((float64(zi)+0.5)*c.cell - math.Pi)
			gs, gc := c.colSincos(zi)
			if math.Float64bits(gs) != math.Float64bits(sa) || math.Float64bits(gc) != math.Float64bits(ca) {
				t.Fatalf("cell %v° column %d: %v, %v; want %v, %v", cellDeg, zi, gs, gc, sa, ca)
			}
		}
	}
}
