package avoid

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// refBuild is histogram.build written plainly, point by point with polarOf
// and histCell: the reference the planner's build is checked against.
func refBuild(h *histogram, cloud []point, origin geom.Vec3) {
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

// awkwardCloud returns n points around origin, many of them where the
// binning is delicate: on and next to the 6° cell borders in elevation and
// azimuth, on the axes, at the origin itself, and so close to it that the
// squares underflow.
func awkwardCloud(rng *rand.Rand, origin geom.Vec3, n int) []point {
	cloud := make([]point, 0, n)
	for range n {
		var d geom.Vec3
		switch rng.IntN(8) {
		case 0, 1: // anywhere within 15 m
			d = geom.Vec3{X: 30*rng.Float64() - 15, Y: 30*rng.Float64() - 15, Z: 30*rng.Float64() - 15}
		case 2, 3: // on or within a few ulps of a cell border
			e := (float64(rng.IntN(31))*AlphaResDeg - 90) / deg
			z := (float64(rng.IntN(61))*AlphaResDeg - 180) / deg
			if rng.IntN(2) == 0 {
				e = (180*rng.Float64() - 90) / deg
			}
			if rng.IntN(2) == 0 {
				z = (360*rng.Float64() - 180) / deg
			}
			e = math.Nextafter(e, e+float64(rng.IntN(5)-2))
			z += float64(rng.IntN(7)-3) * 1e-9
			r := 0.2 + 15*rng.Float64()
			se, ce := math.Sincos(e)
			sz, cz := math.Sincos(z)
			d = geom.Vec3{X: r * ce * cz, Y: r * ce * sz, Z: -r * se}
		case 4: // on the axes and diagonals
			c := []float64{0, math.Copysign(0, -1), 1, -1, 3.5, -3.5}
			d = geom.Vec3{X: c[rng.IntN(len(c))], Y: c[rng.IntN(len(c))], Z: c[rng.IntN(len(c))]}
		case 5: // tiny offsets: squares that underflow
			c := []float64{0, 1e-170, -1e-170, 1e-300, -4e-320, 2e-160}
			d = geom.Vec3{X: c[rng.IntN(len(c))], Y: c[rng.IntN(len(c))], Z: c[rng.IntN(len(c))]}
		case 6: // near the poles
			d = geom.Vec3{X: 1e-3 * rng.NormFloat64(), Y: 1e-3 * rng.NormFloat64(), Z: 10 * rng.NormFloat64()}
		default: // far
			d = geom.Vec3{X: 1e4 * rng.NormFloat64(), Y: 1e4 * rng.NormFloat64(), Z: 1e4 * rng.NormFloat64()}
		}
		cloud = append(cloud, point{p: origin.Add(d)})
	}
	return cloud
}

// build fills exactly the histogram that polarOf and histCell give point by
// point: the same cells, in the same order, with bit-identical distances.
func TestBuildMatchesPolarOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var got, want histogram
	for trial := range 400 {
		origin := geom.Vec3{X: 20 * rng.NormFloat64(), Y: 20 * rng.NormFloat64(), Z: -10 + rng.NormFloat64()}
		if trial%4 == 0 {
			origin = geom.Vec3{}
		}
		cloud := awkwardCloud(rng, origin, rng.IntN(3000))
		got.build(cloud, origin)
		refBuild(&want, cloud, origin)
		if len(got.touched) != len(want.touched) || got.empty != want.empty {
			t.Fatalf("trial %d: %d cells (empty %v); want %d (%v)", trial, len(got.touched), got.empty, len(want.touched), want.empty)
		}
		for i, k := range want.touched {
			if got.touched[i] != k {
				t.Fatalf("trial %d: touched[%d] = %d; want %d", trial, i, got.touched[i], k)
			}
		}
		for k := range gridCells {
			if got.count[k] != want.count[k] || math.Float64bits(got.dist[k]) != math.Float64bits(want.dist[k]) {
				t.Fatalf("trial %d cell %d: %d points at %v; want %d at %v", trial, k, got.count[k], got.dist[k], want.count[k], want.dist[k])
			}
		}
	}
}

// octantBin's margin (0.002°) rests on atan2Deg's octant polynomial staying
// within 1.2e-5 rad (0.0007°) of atan on [0, 1], rounding included (with
// its coefficients rounded to seven digits, Abramowitz & Stegun 4.4.49's
// 1e-5 is exceeded slightly: 1.15e-5).
func TestAtanPolynomialBound(t *testing.T) {
	worst := 0.0
	for i := range 1 << 20 {
		a := float64(i) / (1 << 20)
		s := a * a
		r := a * (0.9998660 + s*(-0.3302995+s*(0.1801410+s*(-0.0851330+s*0.0208351))))
		worst = max(worst, math.Abs(r-math.Atan(a)))
	}
	if worst > 1.2e-5 {
		t.Errorf("polynomial is %.3g rad off atan; the bound is 1.2e-5", worst)
	}
}
