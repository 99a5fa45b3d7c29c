package dtw

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// bruteSquaredDTW is DTW under the squared Euclidean cost.
func bruteSquaredDTW(a, b []geom.Vec3) float64 {
	n, m := len(a), len(b)
	c := make([][]float64, n+1)
	for i := range c {
		c[i] = make([]float64, m+1)
		for j := range c[i] {
			c[i][j] = math.Inf(1)
		}
	}
	c[0][0] = 0
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			d := a[i-1].Sub(b[j-1])
			c[i][j] = d.Dot(d) + math.Min(c[i-1][j-1], math.Min(c[i-1][j], c[i][j-1]))
		}
	}
	return c[n][m]
}

func TestSoftDistanceKnownValues(t *testing.T) {
	x := func(v ...float64) []geom.Vec3 {
		p := make([]geom.Vec3, len(v))
		for i := range v {
			p[i] = geom.Vec3{X: v[i]}
		}
		return p
	}
	// One point against one: the squared distance, whatever γ.
	if got := SoftDistance(x(1), x(4), 200); !close(got, 9) {
		t.Errorf("1×1: got %v; want 9", got)
	}
	// One point against two: a single warping path, 1 + 4.
	if got := SoftDistance(x(0), x(1, 2), 200); !close(got, 5) {
		t.Errorf("1×2: got %v; want 5", got)
	}
	// 2×2 by hand: R11 = d11, R12 = d11+d12, R21 = d11+d21, R22 = d22 +
	// softmin(R11, R12, R21). With a = (0, 1), b = (0, 1): d = 0 1 / 1 0,
	// so R22 = −γ log(1 + 2e^(−1/γ)).
	for _, g := range []float64{0.1, 1, 200} {
		want := -g * math.Log(1+2*math.Exp(-1/g))
		if got := SoftDistance(x(0, 1), x(0, 1), g); !close(got, want) {
			t.Errorf("2×2, γ=%v: got %v; want %v", g, got, want)
		}
	}
	// γ → 0 is DTW under the squared cost.
	r := rand.New(rand.NewPCG(31, 32))
	for k := range 30 {
		a, b := randomWalk(r, 1+r.IntN(20)), randomWalk(r, 1+r.IntN(20))
		want := bruteSquaredDTW(a, b)
		if got := SoftDistance(a, b, 1e-4); math.Abs(got-want) > 1e-4*float64(len(a)+len(b))*3 {
			t.Fatalf("case %d: γ=1e-4 gives %v; squared DTW %v", k, got, want)
		}
	}
	if got := SoftDistance(nil, x(1), 1); !math.IsInf(got, 1) {
		t.Errorf("empty: got %v; want +Inf", got)
	}
}

func TestSoftGradientMatchesFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, gamma := range []float64{0.5, 5, 200} {
		z, x := randomWalk(r, 9), randomWalk(r, 12)
		var s soft
		g := make([]geom.Vec3, len(z))
		s.gradient(z, x, gamma, 1, g)
		const h = 1e-6
		for i := range z {
			for axis := range 3 {
				zp, zm := append([]geom.Vec3(nil), z...), append([]geom.Vec3(nil), z...)
				zp[i] = zp[i].Add(unit(axis, h))
				zm[i] = zm[i].Add(unit(axis, -h))
				num := (SoftDistance(zp, x, gamma) - SoftDistance(zm, x, gamma)) / (2 * h)
				got := component(g[i], axis)
				if math.Abs(got-num) > 1e-4*math.Max(1, math.Abs(num)) {
					t.Fatalf("γ=%v, point %d axis %d: gradient %v; finite difference %v", gamma, i, axis, got, num)
				}
			}
		}
	}
}

func unit(axis int, h float64) geom.Vec3 {
	switch axis {
	case 0:
		return geom.Vec3{X: h}
	case 1:
		return geom.Vec3{Y: h}
	}
	return geom.Vec3{Z: h}
}

func component(v geom.Vec3, axis int) float64 {
	switch axis {
	case 0:
		return v.X
	case 1:
		return v.Y
	}
	return v.Z
}

func TestResample(t *testing.T) {
	p := []geom.Vec3{{X: 0}, {X: 2}, {X: 4}}
	got := Resample(p, 5)
	for i, want := range []float64{0, 1, 2, 3, 4} {
		if !close(got[i].X, want) {
			t.Errorf("point %d: got %v; want %v", i, got[i].X, want)
		}
	}
	if got := Resample(p, 3); got[1].X != 2 {
		t.Errorf("same length: got %v; want the input", got)
	}
	if got := Resample(p[:1], 4); len(got) != 4 || got[3] != p[0] {
		t.Errorf("one point: got %v", got)
	}
}

// flight is a mission-like trajectory in 0.5-s points: 19 s on the ground,
// a climb to 10 m, two legs at 0.4 m per point and a descent.
func flight(r *rand.Rand, noise float64) []geom.Vec3 {
	var p []geom.Vec3
	add := func(q geom.Vec3) {
		p = append(p, q.Add(geom.Vec3{X: noise * r.NormFloat64(), Y: noise * r.NormFloat64(), Z: noise * r.NormFloat64()}))
	}
	for range 38 {
		add(geom.Vec3{})
	}
	for z := 0.0; z < 10; z += 0.5 {
		add(geom.Vec3{Z: z})
	}
	legs := []geom.Vec3{{Z: 10}, {X: -6.84, Y: 53.97, Z: 10}, {X: -12.36, Y: 0.13, Z: 10}}
	for k := 1; k < len(legs); k++ {
		d := legs[k].Sub(legs[k-1])
		n := int(d.Norm() / 0.4)
		for i := range n {
			add(legs[k-1].Add(d.Scale(float64(i) / float64(n))))
		}
	}
	for z := 10.0; z >= 0; z -= 0.35 {
		add(geom.Vec3{X: -12.36, Y: 0.13, Z: z})
	}
	return p
}

func TestSoftBarycenter(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	if got := SoftBarycenter(nil, 0, 0); got != nil {
		t.Errorf("no runs: got %v; want nil", got)
	}
	t.Run("small gamma improves on the Euclidean start", func(t *testing.T) {
		base := randomWalk(r, 30)
		runs := [][]geom.Vec3{jitter(r, base, 0.3), jitter(r, base[2:], 0.3), jitter(r, stretch(base), 0.3)}
		n := 0
		for _, x := range runs {
			n = max(n, len(x))
		}
		start := make([]geom.Vec3, n)
		for _, x := range runs {
			for i, q := range Resample(x, n) {
				start[i] = start[i].Add(q.Scale(1.0 / 3))
			}
		}
		obj := func(z []geom.Vec3) float64 {
			s := 0.0
			for _, x := range runs {
				s += SoftDistance(z, x, 1) / 3
			}
			return s
		}
		got := SoftBarycenter(runs, 1, 0)
		if len(got) != n {
			t.Fatalf("length %d; want the longest run's %d", len(got), n)
		}
		if f, f0 := obj(got), obj(start); !(f < f0-1) {
			t.Errorf("objective %v; start %v: want a clear decrease", f, f0)
		}
		again := SoftBarycenter(runs, 1, 0)
		for i := range got {
			if got[i] != again[i] {
				t.Fatalf("two calls differ at %d", i)
			}
		}
	})
}

// TestSoftBarycenterAerialistScale checks the claim of SoftBarycenter's doc
// comment: with γ = 200 on flights of some 400 points, the result stays
// within a metre (summed over all points) of the Euclidean start.
func TestSoftBarycenterAerialistScale(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	runs := [][]geom.Vec3{flight(r, 0.2), flight(r, 0.2), flight(r, 0.2)}
	n := len(runs[0])
	if n < 300 {
		t.Fatalf("flight of %d points; want a realistic 300 or more", n)
	}
	start := make([]geom.Vec3, n)
	for _, x := range runs {
		for i := range x {
			start[i] = start[i].Add(x[i].Scale(1.0 / 3))
		}
	}
	if f := SoftDistance(start, runs[0], AerialistGamma); !(f < -1e4) {
		t.Errorf("soft-DTW at γ=200 is %v; want the large negative value the doc comment relies on", f)
	}
	got := SoftBarycenter(runs, AerialistGamma, 0)
	moved := 0.0
	for i := range got {
		d := got[i].Sub(start[i])
		moved += d.Dot(d)
	}
	if moved = math.Sqrt(moved); moved > 1+1e-9 {
		t.Errorf("moved %v m from the Euclidean start; want at most 1", moved)
	}
}

func BenchmarkSoftBarycenter3x400(b *testing.B) {
	r := rand.New(rand.NewPCG(39, 40))
	runs := [][]geom.Vec3{flight(r, 0.2), flight(r, 0.2), flight(r, 0.2)}
	b.ReportAllocs()
	for b.Loop() {
		SoftBarycenter(runs, AerialistGamma, 0)
	}
}
