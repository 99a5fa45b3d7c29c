package avoid

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// naiveSmooth is smoothPolarMatrix written out: each cell the sum of its
// neighbours within r rows and r columns, weighted (r+1−|di|)(r+1−|dj|)/
// (r+1)², on the sphere (azimuth wraps; past a pole the row comes back
// turned by 180°).
func naiveSmooth(in *[gridCells]float64, r int) [gridCells]float64 {
	at := func(ie, iz int) float64 {
		if ie < 0 {
			ie, iz = -ie-1, iz+GridZ/2
		}
		if ie >= GridE {
			ie, iz = 2*GridE-1-ie, iz+GridZ/2
		}
		iz = ((iz % GridZ) + GridZ) % GridZ
		return in[ie*GridZ+iz]
	}
	w := func(d int) float64 {
		if d < 0 {
			d = -d
		}
		return float64(r+1-d) / float64(r+1)
	}
	var out [gridCells]float64
	for ie := range GridE {
		for iz := range GridZ {
			s := 0.0
			for di := -r; di <= r; di++ {
				for dj := -r; dj <= r; dj++ {
					s += at(ie+di, iz+dj) * w(di) * w(dj)
				}
			}
			out[ie*GridZ+iz] = s
		}
	}
	return out
}

func TestSmoothMatchesConicKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 5 {
		var m denseMatrix
		for k := range m.dist {
			if rng.Float64() < 0.1 {
				m.dist[k] = 10000 * rng.Float64()
			}
		}
		// Cells at the poles too, so the reflection is exercised.
		m.dist[3] = 5000
		m.dist[(GridE-1)*GridZ+40] = 7000
		want := naiveSmooth(&m.dist, 7)
		m.smooth(7)
		for k := range want {
			if math.Abs(m.dist[k]-want[k]) > 1e-6*math.Max(1, want[k]) {
				t.Fatalf("trial %d cell (%d, %d): got %v; want %v", trial, k/GridZ, k%GridZ, m.dist[k], want[k])
			}
		}
	}
}

func TestAtan2Deg(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		y, x := rng.NormFloat64(), rng.NormFloat64()
		if got, want := atan2Deg(y, x), math.Atan2(y, x)*180/math.Pi; math.Abs(got-want) > 1e-3 {
			t.Fatalf("atan2Deg(%v, %v) = %v; want %v", y, x, got, want)
		}
	}
	if got := atan2Deg(0, -1); got != 180 {
		t.Errorf("atan2Deg(0, -1) = %v; want 180", got)
	}
}

// The planner's sparse, row-by-row search gives exactly the directions and
// costs of the whole matrix: compute, then best. Random histograms with
// cells near the poles (stepped columns, the 180°-turned rows of the
// smoothing) and at the horizon, random goals and velocities.
func TestCandidatesMatchWholeMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := DefaultConfig()
	cp := newCostParams(cfg)
	var sparse costMatrix
	var dense denseMatrix
	for trial := range 300 {
		var h histogram
		for range rng.IntN(120) {
			ie := rng.IntN(GridE)
			if rng.IntN(3) == 0 {
				ie = 12 + rng.IntN(6) // near the horizon
			}
			h.set(ie*GridZ+rng.IntN(GridZ), 0.3+17*rng.Float64())
		}
		v := func(s float64) geom.Vec3 {
			return geom.Vec3{X: s * rng.NormFloat64(), Y: s * rng.NormFloat64(), Z: s * rng.NormFloat64()}
		}
		pos := v(10)
		goal := pos.Add(v(8))
		closest := pos.Add(v(8))
		vel := v(1.5)
		cp.smoothR = []int{7, 7, 0, 3}[trial%4]
		got := sparse.candidates(&h, goal, pos, vel, closest, &cp, 8, nil)
		dense.compute(&h, goal, pos, vel, closest, &cp)
		want := dense.best(8, cp.smoothR, nil)
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d candidates; want %d", trial, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("trial %d candidate %d: got %+v; want %+v", trial, i, got[i], want[i])
			}
		}
	}
}
