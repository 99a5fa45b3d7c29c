package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

func testPath(t *testing.T, name string) []geom.Vec3 {
	t.Helper()
	cs, err := scenario.Load("testdata/" + name + ".plan")
	if err != nil {
		t.Fatal(err)
	}
	return cs.Mission.Path()
}

func indices(fs []Frame) []int {
	var out []int
	for _, f := range fs {
		out = append(out, f.Index)
	}
	return out
}

// A square centred in the placement area: its two sides along y have
// equal zones (25 m to either side, 20 m long), as have its two sides
// along x (5 m); the earlier of equal legs wins, and sub-millimetre noise
// in the plan's coordinates changes neither the choice nor the zones.
func TestFramesSquareTies(t *testing.T) {
	path := testPath(t, "square")
	fs, err := Frames(path, world.DefaultArea)
	if err != nil {
		t.Fatal(err)
	}
	if got := indices(fs); !slices.Equal(got, []int{2, 3, 4, 5, 6}) {
		t.Fatalf("legs with a zone %v; want 2–6", got)
	}
	if fs[1].AreaM2() != 1000 || fs[3].AreaM2() != 1000 || fs[2].AreaM2() != 200 || fs[4].AreaM2() != 200 {
		t.Errorf("zone areas %v, %v, %v, %v; want 1000, 200, 1000, 200", fs[1].AreaM2(), fs[2].AreaM2(), fs[3].AreaM2(), fs[4].AreaM2())
	}
	if l := Largest(fs); l.Index != 3 {
		t.Errorf("largest leg %d; want 3, the earlier of the tie", l.Index)
	}
	for _, tilt := range []float64{2e-4, -2e-4} {
		noisy := slices.Clone(path)
		noisy[4].X += tilt // the far end of leg 4 and the start of leg 5
		noisy[5].Y -= tilt
		nf, err := Frames(noisy, world.DefaultArea)
		if err != nil {
			t.Fatal(err)
		}
		if l := Largest(nf); l.Index != 3 {
			t.Errorf("tilt %g: largest leg %d; want 3", tilt, l.Index)
		}
		for k := range fs {
			if nf[k].Zone != fs[k].Zone || nf[k].Shift != fs[k].Shift {
				t.Errorf("tilt %g: leg %d zone %+v; want %+v", tilt, fs[k].Index, nf[k].Zone, fs[k].Zone)
			}
		}
	}
}

// The hairpin's legs along y cross the area over 10 ≤ y ≤ 40: their zones
// span exactly that, tilted by a 0.2-mm rounding or not.
func TestFramesHairpinCentred(t *testing.T) {
	path := testPath(t, "hairpin")
	for _, tilt := range []float64{0, 2e-4, -2e-4} {
		p := slices.Clone(path)
		p[2].X += tilt
		fs, err := Frames(p, world.DefaultArea)
		if err != nil {
			t.Fatal(err)
		}
		if got := indices(fs); !slices.Equal(got, []int{2, 4}) {
			t.Fatalf("legs %v; want 2 and 4", got)
		}
		for _, f := range fs {
			if math.Abs(f.Zone.S0-10) > 1e-5 || math.Abs(f.Zone.S1-40) > 1e-5 {
				t.Errorf("tilt %g, leg %d: zone %.4f–%.4f m along the leg; want 10–40", tilt, f.Index, f.Zone.S0, f.Zone.S1)
			}
		}
	}
}

// Out and back along one diagonal: two legs, the same zone, the first wins.
func TestFramesDiagonal(t *testing.T) {
	fs, err := Frames(testPath(t, "diagonal"), world.DefaultArea)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].AreaM2() != fs[1].AreaM2() || Largest(fs).Index != 2 {
		t.Errorf("legs %v, areas %v %v; want 2 and 3 with equal zones, 2 chosen", indices(fs), fs[0].AreaM2(), fs[len(fs)-1].AreaM2())
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		total   int
		weights []float64
		want    []int
	}{
		{10, []float64{1, 1, 1}, []int{4, 3, 3}},
		{7, []float64{1000, 200, 1000, 200}, []int{3, 1, 3, 0}},
		{10, []float64{3, 1}, []int{8, 2}},
		{5, []float64{0, 1}, []int{0, 5}},
		{5, nil, []int{}},
	} {
		if got := Split(c.total, c.weights); !slices.Equal(got, c.want) {
			t.Errorf("Split(%d, %v) = %v; want %v", c.total, c.weights, got, c.want)
		}
	}
}

// Legs spreads the budget by weight, tags each proposal with its leg and
// hands each leg's strategy its own results.
func TestLegsStrategy(t *testing.T) {
	path := testPath(t, "square")
	fs, err := Frames(path, world.DefaultArea)
	if err != nil {
		t.Fatal(err)
	}
	auto := AutoLegs(fs)
	if got := indices(auto); !slices.Equal(got, []int{3, 4, 5, 6}) {
		t.Fatalf("auto legs %v; want 3–6 (leg 2 grazes the area)", got)
	}
	var subs []Strategy
	var weights []float64
	for i, f := range auto {
		subs = append(subs, &Baseline{Draw: f.Generator(nil).Constrained, Frame: &auto[i], Rng: rand.New(rand.NewPCG(uint64(i), 1))})
		weights = append(weights, f.AreaM2())
	}
	m := &Legs{Subs: subs, Weights: weights}
	props, err := m.Propose(24)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, len(auto))
	for _, p := range props {
		count[p.Leg]++
		// Obstacle 1 of a constrained test lies on its leg: within its
		// zone's half-width of it.
		f := auto[p.Leg]
		if d := geom.PointSegmentDist(p.Obstacles[0].Center(), f.Zone.Leg.A, f.Zone.Leg.B); d > f.Zone.HalfWidth+1e-6 {
			t.Errorf("leg %d test %v: obstacle 1 %.1f m from the leg", f.Index, p.Obstacles, d)
		}
	}
	if !slices.Equal(count, []int{10, 2, 10, 2}) {
		t.Errorf("tests per leg %v; want 10, 2, 10, 2 (zones 1000, 200, 1000, 200 m²)", count)
	}
	if err := m.Observe(make([]float64, 23)); err == nil {
		t.Error("Observe with a result missing: no error")
	}
	if err := m.Observe(make([]float64, 24)); err != nil {
		t.Fatal(err)
	}
	if more, _ := m.Propose(24); len(more) != 0 {
		t.Errorf("a spent budget proposed %d more", len(more))
	}
}
