package avoid

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// awkwardDist returns raw obstacle costs where skipping zeros could show:
// sparse and dense rows, cells at the poles and on the azimuth wrap, values
// whose sums round (1e16 beside 1, so that running sums leave residues),
// subnormal and huge values (sums that overflow, infinities), and −0
// cells (−0 obstacle weight).
func awkwardDist(rng *rand.Rand) *[gridCells]float64 {
	var d [gridCells]float64
	fill := []float64{0.02, 0.2, 0.9}[rng.IntN(3)]
	for k := range d {
		if rng.Float64() >= fill {
			continue
		}
		switch rng.IntN(8) {
		case 0:
			d[k] = 1e16 * (1 + rng.Float64())
		case 1:
			d[k] = 1 + rng.Float64()
		case 2:
			d[k] = 5e-324 * float64(1+rng.IntN(4))
		case 3: // huge: sums that overflow, and infinities
			d[k] = []float64{1e300 * rng.Float64(), 1e307, math.MaxFloat64, math.Inf(1)}[rng.IntN(4)]
		case 4:
			d[k] = math.Copysign(0, -1)
		default:
			d[k] = 10000 * rng.Float64()
		}
	}
	for range rng.IntN(4) {
		// The poles and the wrap.
		ie := []int{0, 1, GridE - 2, GridE - 1}[rng.IntN(4)]
		iz := []int{0, 1, GridZ/2 - 1, GridZ / 2, GridZ - 1}[rng.IntN(5)]
		d[ie*GridZ+iz] = 10000 * rng.Float64()
	}
	return &d
}

// smoothedRow gives bit for bit the rows of the plain computation.
func TestSmoothedRowMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var m costMatrix
	var got, want [GridZ]float64
	for trial := range 2000 {
		d := awkwardDist(rng)
		m.dist = *d
		m.rows = [GridE]uint64{}
		for ie := range GridE {
			m.markRow(ie)
		}
		r := 1 + rng.IntN(15)
		if !m.pad(r) {
			continue
		}
		for ie := range GridE {
			m.smoothedRow(ie, r, got[:])
			refSmoothedRow(d, ie, r, want[:])
			for iz := range GridZ {
				if math.Float64bits(got[iz]) != math.Float64bits(want[iz]) {
					t.Fatalf("trial %d (r %d) cell (%d, %d): got %v; want %v", trial, r, ie, iz, got[iz], want[iz])
				}
			}
		}
	}
}

// cellDir is dirOf of every cell's centre, bit for bit.
func TestCellDirMatchesDirOf(t *testing.T) {
	for k := range gridCells {
		e, z := cellCentre(k/GridZ, k%GridZ)
		got, want := cellDir(k), dirOf(e, z)
		if math.Float64bits(got.X) != math.Float64bits(want.X) || math.Float64bits(got.Y) != math.Float64bits(want.Y) ||
			math.Float64bits(got.Z) != math.Float64bits(want.Z) {
			t.Fatalf("cell (%d, %d): got %v; want %v", k/GridZ, k%GridZ, got, want)
		}
	}
}

// near is |a − b|² < 0.2² computed whole, also on the border, for
// non-finite coordinates and for differences whose squares underflow.
func TestNearMatchesDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cs := []float64{0, 0.2, -0.2, math.Nextafter(0.2, 0), math.Nextafter(0.2, 1), 0.1, 0.14142135623730953, 1e-170, 3,
		math.Inf(1), math.Inf(-1), math.NaN()}
	c := func() float64 {
		if rng.IntN(2) == 0 {
			return cs[rng.IntN(len(cs))]
		}
		return 0.5 * rng.NormFloat64()
	}
	for range 200000 {
		a := geom.Vec3{X: 10 * rng.Float64(), Y: 10 * rng.Float64(), Z: -10 * rng.Float64()}
		b := a.Add(geom.Vec3{X: c(), Y: c(), Z: c()})
		d := a.Sub(b)
		if got, want := near(a, b), d.Dot(d) < 0.2*0.2; got != want {
			t.Fatalf("near(%v, %v) = %v; want %v", a, b, got, want)
		}
	}
}

// nearTree answers as near on every node of the tree does: for trees of
// random nodes among which q's neighbours lie on and beside the 0.2-m
// border, at non-finite coordinates and at differences whose squares
// underflow.
func TestNearTreeMatchesNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	cs := []float64{0, 0.2, -0.2, math.Nextafter(0.2, 0), math.Nextafter(-0.2, 0), 0.1, 0.14142135623730953, 1e-170, 3,
		math.Inf(1), math.Inf(-1), math.NaN()}
	c := func() float64 {
		if rng.IntN(2) == 0 {
			return cs[rng.IntN(len(cs))]
		}
		return 0.3 * rng.NormFloat64()
	}
	found := 0
	for range 20000 {
		q := geom.Vec3{X: 10 * rng.Float64(), Y: 10 * rng.Float64(), Z: -10 * rng.Float64()}
		var tree []node
		var xs []float64
		for range rng.IntN(40) {
			pos := geom.Vec3{X: 10 * rng.Float64(), Y: 10 * rng.Float64(), Z: -10 * rng.Float64()}
			if rng.IntN(3) == 0 {
				pos = q.Add(geom.Vec3{X: c(), Y: c(), Z: c()})
			}
			tree = append(tree, node{pos: pos})
			xs = append(xs, pos.X)
		}
		want := false
		for _, n := range tree {
			if near(n.pos, q) {
				want = true
				break
			}
		}
		if got := nearTree(tree, xs, q); got != want {
			t.Fatalf("nearTree(%v, %v) = %v; want %v", tree, q, got, want)
		}
		if want {
			found++
		}
	}
	if found < 1000 {
		t.Fatalf("only %d of the trees had a node near q; the test needs more", found)
	}
}

// refBounds is terms.bounds written plainly: the least over all columns,
// skipping NaNs.
func refBounds(t *terms, cp *costParams, lb *[GridE]float64) {
	var f [GridE / 2]float64
	for ie := range GridE / 2 {
		kv := cp.velocity * cosE[ie]
		mn := math.Inf(1)
		for iz := range GridZ {
			if v := t.yawC[iz] - kv*t.hv[iz]; v < mn {
				mn = v
			}
		}
		f[ie] = mn
	}
	for ie := range GridE {
		b, fm := t.base(ie, cp), f[min(ie, GridE-1-ie)]
		lb[ie] = b + fm - 1e-9*(math.Abs(b)+math.Abs(fm)+1)
	}
}

// bounds gives bit for bit the bounds of the plain computation (NaN where
// it gives NaN): for the
// terms of random and degenerate nodes (at rest, moving along a column,
// at the goal, non-finite velocities and goals), and for made-up yaw and
// velocity rows with plateaus, ties and signed zeros.
func TestBoundsMatchPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	cfg := DefaultConfig()
	cp := newCostParams(cfg)
	var h histogram
	var tm terms
	var got, want [GridE]float64
	check := func(trial int) {
		tm.nFront = 0
		for iz := range GridZ {
			if !tm.dominated(iz, (iz+GridZ-1)%GridZ) && !tm.dominated(iz, (iz+1)%GridZ) {
				tm.front[tm.nFront] = int8(iz)
				tm.nFront++
			}
		}
		tm.bounds(&cp, &got)
		refBounds(&tm, &cp, &want)
		for ie := range GridE {
			// A bound is only ever compared, so any NaN will do.
			if math.Float64bits(got[ie]) != math.Float64bits(want[ie]) && !(math.IsNaN(got[ie]) && math.IsNaN(want[ie])) {
				t.Fatalf("trial %d row %d: bound %v; want %v (front %v)", trial, ie, got[ie], want[ie], tm.front[:tm.nFront])
			}
		}
	}
	odd := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN()}
	for trial := range 20000 {
		cp.velocity = []float64{cfg.VelocityCost, 0, 1e9}[rng.IntN(3)]
		if trial%2 == 0 {
			v := func(s float64) geom.Vec3 {
				return geom.Vec3{X: s * rng.NormFloat64(), Y: s * rng.NormFloat64(), Z: s * rng.NormFloat64()}
			}
			pos, vel := v(10), v(2)
			goal, closest := pos.Add(v(8)), pos.Add(v(8))
			switch rng.IntN(6) {
			case 0:
				vel = geom.Vec3{}
			case 1: // along a column's centre, at the goal
				vel = cellDir(rng.IntN(gridCells)).Scale(2)
				goal = pos.Add(vel)
			case 2:
				goal = pos
			case 3:
				vel.X = odd[rng.IntN(len(odd))]
			case 4:
				goal.Y = odd[rng.IntN(len(odd))]
			}
			tm.set(&h, goal, pos, vel, closest, &cp)
			check(trial)
			continue
		}
		// Made-up rows: few distinct values, so that ties and plateaus are
		// common.
		tm.goal, tm.speed, tm.vel, tm.pitchScale = polar{e: 10, z: 20, r: 8}, 1, geom.Vec3{X: 1}, 1
		vals := []float64{0, math.Copysign(0, -1), 1, 2, 2700, 1e-300}
		for iz := range GridZ {
			tm.yawC[iz] = vals[rng.IntN(len(vals))]
			tm.hv[iz] = vals[rng.IntN(len(vals))] * float64(1-2*rng.IntN(2))
		}
		check(trial)
	}
}
