package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/world"
)

// fakeFlight stands in for the simulator: the clearance is the distance
// from obstacle 1's footprint to a point on mission2's long leg, so that
// failures cluster where a box covers that point.
func fakeFlight(boxes []world.Box) float64 {
	return boxes[0].Distance(geom.Vec2{X: -3, Y: 24})
}

func runLocal(t *testing.T, seed uint64, budget int) (*Local, []Proposal, []float64) {
	t.Helper()
	f := canonicalFrame(t)
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	inner := &Baseline{Draw: f.Generator(valid).Constrained, Frame: &f, Rng: rand.New(rand.NewPCG(seed, 1))}
	l := &Local{Inner: inner, Valid: valid, Rng: rand.New(rand.NewPCG(seed, 2))}
	var all []Proposal
	var dist []float64
	for len(all) < budget {
		ps, err := l.Propose(budget - len(all))
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			break
		}
		d := make([]float64, len(ps))
		for i, p := range ps {
			d[i] = fakeFlight(p.Obstacles)
		}
		if err := l.Observe(d); err != nil {
			t.Fatal(err)
		}
		all, dist = append(all, ps...), append(dist, d...)
	}
	return l, all, dist
}

// The search spends the budget exactly, its mutants keep the rules and
// the diversity constraint, it finds more failures than its seeds did,
// and the same seed gives the same tests.
func TestLocal(t *testing.T) {
	l, all, dist := runLocal(t, 1, 40)
	if len(all) != 40 || l.Stats.Seeds != 12 || l.Stats.Mutants != 28 {
		t.Fatalf("%d tests, %d seeds, %d mutants; want 40, 12, 28", len(all), l.Stats.Seeds, l.Stats.Mutants)
	}
	hits := func(d []float64) float64 {
		n := 0
		for _, v := range d {
			if v < 1.5 {
				n++
			}
		}
		return float64(n) / float64(len(d))
	}
	seedHits, mutantHits := hits(dist[:12]), hits(dist[12:])
	if !(mutantHits > seedHits) {
		t.Errorf("mutants hit %.2f, seeds %.2f; want the search to find more", mutantHits, seedHits)
	}
	for i, p := range all[12:] {
		if err := scenario.DefaultRules.Check(p.Obstacles); err != nil {
			t.Errorf("mutant %d: %v", i, err)
		}
		for j, q := range all[:12+i] {
			if v, _ := score.BoxIoU(p.Obstacles, q.Obstacles); v > 0.53 {
				t.Errorf("mutant %d has IoU %.2f with test %d; want ≤ 0.5 (raster: ±0.03)", i, v, j)
			}
		}
	}
	_, again, _ := runLocal(t, 1, 40)
	for i := range all {
		if !slices.Equal(all[i].Obstacles, again[i].Obstacles) {
			t.Fatalf("test %d differs for the same seed", i)
		}
	}
	if err := l.Observe([]float64{math.NaN()}); err == nil {
		t.Error("Observe without a proposal: no error")
	}
}

// The raster IoU agrees with the exact polygon IoU to a few per cent.
func TestRasterIoU(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 200 {
		box := func(x, y float64) world.Box {
			return world.Box{L: 2 + 10*rng.Float64(), W: 2 + 10*rng.Float64(), H: 20, X: x, Y: y, R: 90 * rng.Float64()}
		}
		a := []world.Box{box(0, 0), box(15, 0)}
		b := []world.Box{box(4*rng.Float64(), 4*rng.Float64()), box(15, 12)}
		want, err := score.BoxIoU(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got := RasterIoU(a, b, DefaultCellM); math.Abs(got-want) > 0.03 {
			t.Errorf("%v vs %v: raster IoU %.3f; exact %.3f", a, b, got, want)
		}
	}
	if got := RasterIoU(nil, []world.Box{{L: 2, W: 2, H: 20}}, DefaultCellM); got != 0 {
		t.Errorf("empty test: IoU %v", got)
	}
}
