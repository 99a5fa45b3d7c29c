package dtw

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// brutePath fills the whole matrix, keeping for each cell the fewest pairs
// among its cheapest paths, and returns the sum and that count.
func brutePath(a, b []geom.Vec3) (float64, int) {
	n, m := len(a), len(b)
	c := make([][]float64, n+1)
	k := make([][]int, n+1)
	for i := range c {
		c[i], k[i] = make([]float64, m+1), make([]int, m+1)
		for j := range c[i] {
			c[i][j] = math.Inf(1)
		}
	}
	c[0][0] = 0
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			best, bk := math.Inf(1), 0
			for _, p := range [][2]int{{i - 1, j - 1}, {i - 1, j}, {i, j - 1}} {
				v, pk := c[p[0]][p[1]], k[p[0]][p[1]]
				if v < best || v == best && pk < bk {
					best, bk = v, pk
				}
			}
			c[i][j], k[i][j] = a[i-1].Sub(b[j-1]).Norm()+best, bk+1
		}
	}
	return c[n][m], k[n][m]
}

func TestPathDistance(t *testing.T) {
	line := func(xs ...float64) []geom.Vec3 {
		p := make([]geom.Vec3, len(xs))
		for i, x := range xs {
			p[i] = geom.Vec3{X: x}
		}
		return p
	}
	for _, c := range []struct {
		name  string
		a, b  []geom.Vec3
		sum   float64
		steps int
	}{
		{"self: the diagonal", line(0, 1, 2, 3), line(0, 1, 2, 3), 0, 4},
		{"one point against three", line(1), line(0, 1, 3), 3, 3},
		{"stretched copy", line(0, 1, 2), line(0, 0, 1, 1, 2, 2), 0, 6},
		{"offset by 1 m", line(0, 1, 2), []geom.Vec3{{Z: 1}, {X: 1, Z: 1}, {X: 2, Z: 1}}, 3, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum, steps := PathDistance(c.a, c.b, Exact)
			if !close(sum, c.sum) || steps != c.steps {
				t.Errorf("got (%v, %d); want (%v, %d)", sum, steps, c.sum, c.steps)
			}
		})
	}
	if s, k := PathDistance(nil, line(1), Exact); !math.IsInf(s, 1) || k != 0 {
		t.Errorf("empty: got (%v, %d); want (+Inf, 0)", s, k)
	}
	r := rand.New(rand.NewPCG(21, 22))
	for k := range 200 {
		a, b := randomWalk(r, 1+r.IntN(30)), randomWalk(r, 1+r.IntN(30))
		band := Exact
		if k%2 == 1 {
			band = r.IntN(8)
		}
		sum, steps := PathDistance(a, b, band)
		if want := Distance(a, b, band); !close(sum, want) {
			t.Fatalf("case %d: sum %v; Distance %v", k, sum, want)
		}
		if steps < max(len(a), len(b)) || steps > len(a)+len(b)-1 {
			t.Fatalf("case %d: %d pairs outside [%d, %d]", k, steps, max(len(a), len(b)), len(a)+len(b)-1)
		}
		if band == Exact {
			if ws, wk := brutePath(a, b); !close(sum, ws) || steps != wk {
				t.Fatalf("case %d: got (%v, %d); brute force (%v, %d)", k, sum, steps, ws, wk)
			}
		}
		if _, k2 := PathDistance(b, a, band); k2 != steps {
			t.Fatalf("case %d: %d pairs one way, %d the other", k, steps, k2)
		}
	}
}

func TestNormalized(t *testing.T) {
	// 0 1 2 against the same shifted 1 m up: 3 pairs of 1 m each.
	a := []geom.Vec3{{}, {X: 1}, {X: 2}}
	b := []geom.Vec3{{Z: 1}, {X: 1, Z: 1}, {X: 2, Z: 1}}
	var w Workspace
	for _, c := range []struct {
		norm Norm
		want float64
	}{{NormSum, 3}, {NormPath, 1}, {NormPoints, 0.5}} {
		if got := w.Normalized(a, b, Exact, c.norm); !close(got, c.want) {
			t.Errorf("%v: got %v; want %v", c.norm, got, c.want)
		}
		n, err := ParseNorm(c.norm.String())
		if err != nil || n != c.norm {
			t.Errorf("ParseNorm(%q) = %v, %v", c.norm.String(), n, err)
		}
		if c.norm.Describe() == "" {
			t.Errorf("%v: no description", c.norm)
		}
	}
	if _, err := ParseNorm("mean"); err == nil {
		t.Error("ParseNorm(mean): no error")
	}
	if got := w.Normalized(nil, b, Exact, NormPath); !math.IsInf(got, 1) {
		t.Errorf("empty, path: got %v; want +Inf", got)
	}
}
