package dtw

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// bruteDTW fills the whole (n+1)×(m+1) cost matrix, the textbook way, and
// reads the distance off its corner; band < 0 means no band.
func bruteDTW(a, b []geom.Vec3, band int) float64 {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return math.Inf(1)
	}
	if band >= 0 && band < abs(n-m) {
		band = abs(n - m)
	}
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
			if band >= 0 && abs(i-j) > band {
				continue
			}
			c[i][j] = a[i-1].Sub(b[j-1]).Norm() + math.Min(c[i-1][j-1], math.Min(c[i-1][j], c[i][j-1]))
		}
	}
	return c[n][m]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func randomWalk(r *rand.Rand, n int) []geom.Vec3 {
	p := make([]geom.Vec3, n)
	var cur geom.Vec3
	for i := range p {
		cur = cur.Add(geom.Vec3{X: r.NormFloat64(), Y: r.NormFloat64(), Z: 0.3 * r.NormFloat64()})
		p[i] = cur
	}
	return p
}

func close(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func TestDistanceMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var w Workspace
	for k := range 300 {
		a := randomWalk(r, 1+r.IntN(40))
		b := randomWalk(r, 1+r.IntN(40))
		band := Exact
		if k%2 == 1 {
			band = r.IntN(12)
		}
		got := w.Distance(a, b, band)
		want := bruteDTW(a, b, band)
		if !close(got, want) {
			t.Fatalf("case %d (n=%d, m=%d, band=%d): got %v; want %v", k, len(a), len(b), band, got, want)
		}
		if got2 := Distance(b, a, band); !close(got2, got) {
			t.Fatalf("case %d: not symmetric: %v and %v", k, got, got2)
		}
		if band >= 0 && got < bruteDTW(a, b, Exact)-1e-9 {
			t.Fatalf("case %d: banded %v below exact", k, got)
		}
	}
}

func TestBandCoveringMatrixIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := range 100 {
		a := randomWalk(r, 1+r.IntN(60))
		b := randomWalk(r, 1+r.IntN(60))
		exact := Distance(a, b, Exact)
		for _, band := range []int{max(len(a), len(b)), max(len(a), len(b)) + 7, 1 << 20} {
			if got := Distance(a, b, band); got != exact {
				t.Fatalf("case %d band %d: got %v; want the exact %v", k, band, got, exact)
			}
		}
	}
}

func TestDistanceKnownValues(t *testing.T) {
	line := func(xs ...float64) []geom.Vec3 {
		p := make([]geom.Vec3, len(xs))
		for i, x := range xs {
			p[i] = geom.Vec3{X: x}
		}
		return p
	}
	cases := []struct {
		name string
		a, b []geom.Vec3
		band int
		want float64
	}{
		{"empty", nil, line(1), Exact, math.Inf(1)},
		{"self", line(0, 1, 2, 3), line(0, 1, 2, 3), Exact, 0},
		// 0 1 2 against 0 0 1 1 2 2: every point warps onto its copy.
		{"time-stretched copy", line(0, 1, 2), line(0, 0, 1, 1, 2, 2), Exact, 0},
		// One point against three: the sum of |1−0|, |1−1|, |1−3|.
		{"one point", line(1), line(0, 1, 3), Exact, 3},
		// Shifted by 1 m in z: each of the n matched pairs costs 1.
		{"offset", []geom.Vec3{{}, {X: 1}, {X: 2}}, []geom.Vec3{{Z: 1}, {X: 1, Z: 1}, {X: 2, Z: 1}}, Exact, 3},
		// 3-4-5 triangle: one pair at distance 5.
		{"euclidean", []geom.Vec3{{X: 3}}, []geom.Vec3{{Y: 4}}, Exact, 5},
		// With band 0 both of equal length must match i to i: 0+1+1+0.
		{"band 0 forces the diagonal", line(0, 0, 1, 1), line(0, 1, 1, 1), 0, 1},
		{"band 0 exact for comparison", line(0, 0, 1, 1), line(0, 1, 1, 1), Exact, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Distance(c.a, c.b, c.band); !close(got, c.want) {
				t.Errorf("got %v; want %v", got, c.want)
			}
		})
	}
}

func TestWorkspaceReuseAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := randomWalk(r, 200), randomWalk(r, 180)
	var w Workspace
	w.Distance(a, b, Exact)
	if n := testing.AllocsPerRun(20, func() { w.Distance(a, b, 10) }); n != 0 {
		t.Errorf("got %v allocations per call; want 0", n)
	}
}

func TestBarycenter(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	base := randomWalk(r, 80)
	t.Run("none", func(t *testing.T) {
		if got := Barycenter(nil, 0); got != nil {
			t.Errorf("got %v; want nil", got)
		}
	})
	t.Run("identical runs", func(t *testing.T) {
		got := Barycenter([][]geom.Vec3{base, base, base}, 0)
		if d := Distance(got, base, Exact); d > 1e-9 {
			t.Errorf("DTW to the run = %v; want 0", d)
		}
	})
	t.Run("symmetric offsets average out", func(t *testing.T) {
		// Runs offset by ±0.5 m in y and an unshifted one: the barycenter
		// is the unshifted run (each point's aligned mates average to it).
		up, down := shift(base, geom.Vec3{Y: 0.5}), shift(base, geom.Vec3{Y: -0.5})
		got := Barycenter([][]geom.Vec3{up, base, down}, 0)
		if d := Distance(got, base, Exact); d > 1e-9 {
			t.Errorf("DTW to the unshifted run = %v; want 0", d)
		}
	})
	t.Run("closer than the medoid", func(t *testing.T) {
		runs := [][]geom.Vec3{jitter(r, base, 0.3), jitter(r, base[3:], 0.3), jitter(r, stretch(base), 0.3)}
		got := Barycenter(runs, 0)
		m := runs[medoid(runs)]
		if c, cm := sqCost(got, runs), sqCost(m, runs); c > cm {
			t.Errorf("summed squared cost %v; medoid's %v", c, cm)
		}
		if d := Distance(got, base, Exact) / float64(len(got)); d > 0.3 {
			t.Errorf("mean DTW cost per point to the noiseless path %v; want below the noise 0.3", d)
		}
		// Deterministic and leaves the input alone.
		again := Barycenter(runs, 0)
		if Distance(got, again, Exact) != 0 {
			t.Errorf("two calls differ")
		}
	})
}

func shift(p []geom.Vec3, d geom.Vec3) []geom.Vec3 {
	q := make([]geom.Vec3, len(p))
	for i := range p {
		q[i] = p[i].Add(d)
	}
	return q
}

func jitter(r *rand.Rand, p []geom.Vec3, s float64) []geom.Vec3 {
	q := make([]geom.Vec3, len(p))
	for i := range p {
		q[i] = p[i].Add(geom.Vec3{X: s * r.NormFloat64(), Y: s * r.NormFloat64(), Z: s * r.NormFloat64()})
	}
	return q
}

// stretch doubles every fifth point, a run that dawdled.
func stretch(p []geom.Vec3) []geom.Vec3 {
	var q []geom.Vec3
	for i, v := range p {
		q = append(q, v)
		if i%5 == 0 {
			q = append(q, v)
		}
	}
	return q
}

func sqCost(avg []geom.Vec3, runs [][]geom.Vec3) float64 {
	maxM := 0
	for _, r := range runs {
		maxM = max(maxM, len(r))
	}
	al := aligner{cost: make([]float64, (len(avg)+1)*(maxM+1))}
	sum, cnt := make([]geom.Vec3, len(avg)), make([]float64, len(avg))
	total := 0.0
	for _, r := range runs {
		total += al.accumulate(avg, r, sum, cnt)
	}
	return total
}

func BenchmarkDistance600(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	x, y := randomWalk(r, 600), randomWalk(r, 600)
	for _, c := range []struct {
		name string
		band int
	}{{"exact", Exact}, {"band60", 60}} {
		b.Run(c.name, func(b *testing.B) {
			var w Workspace
			b.ReportAllocs()
			for b.Loop() {
				w.Distance(x, y, c.band)
			}
		})
	}
}

func BenchmarkBarycenter3x600(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	base := randomWalk(r, 600)
	runs := [][]geom.Vec3{jitter(r, base, 0.3), jitter(r, base[5:], 0.3), jitter(r, stretch(base[:500]), 0.3)}
	b.ReportAllocs()
	for b.Loop() {
		Barycenter(runs, 0)
	}
}
