package control

import (
	"math"
	"math/rand/v2"
	"testing"
)

// alphaMemo.of returns lpAlpha's bits on every call, from the zero memo
// on, whether the cut-off and step repeat or change: zeros of either sign, NaNs, infinities,
// subnormals and neighbours one ulp apart, in a random order with runs.
func TestAlphaMemoMatchesLpAlpha(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, -5e-324,
		0.005, math.Nextafter(0.005, 1), 0.004, 1, 5, 20, 30, math.Nextafter(30, 0), 1e308, -3}
	rng := rand.New(rand.NewPCG(3, 4))
	var m alphaMemo
	hz, dt := vals[0], vals[0]
	for i := range 20000 {
		if rng.IntN(3) == 0 {
			hz = vals[rng.IntN(len(vals))]
		}
		if rng.IntN(3) == 0 {
			dt = vals[rng.IntN(len(vals))]
		}
		got, want := m.of(hz, dt), lpAlpha(hz, dt)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("call %d: of(%v, %v) = %v; want lpAlpha's %v", i, hz, dt, got, want)
		}
	}
}
