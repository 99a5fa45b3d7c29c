package gen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

func missionFrame(t *testing.T, name string) Frame {
	t.Helper()
	cs, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFrame(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// The canonical mission's frame is the identity and its zone the whole
// placement area.
func TestCanonicalFrame(t *testing.T) {
	f := missionFrame(t, scenario.CanonicalName)
	if f.Zone.Leg != CanonicalLeg {
		t.Errorf("leg: got %+v; want %+v", f.Zone.Leg, CanonicalLeg)
	}
	want := world.DefaultArea
	got := f.Canon
	if math.Abs(got.MinX-want.MinX) > 1e-5 || math.Abs(got.MaxX-want.MaxX) > 1e-5 ||
		math.Abs(got.MinY-want.MinY) > 1e-5 || math.Abs(got.MaxY-want.MaxY) > 1e-5 {
		t.Errorf("canonical zone: got %+v; want %+v", got, want)
	}
	if f.Shift != 0 {
		t.Errorf("shift: got %v; want 0", f.Shift)
	}
	for _, p := range []geom.Vec2{{X: 1, Y: 2}, {X: -30, Y: 17}} {
		if q := f.ToCanonical(p); q.Dist(p) > 1e-12 {
			t.Errorf("ToCanonical(%v) = %v; want the same point", p, q)
		}
	}
}

// SegmentZone on hand-checked legs.
func TestSegmentZone(t *testing.T) {
	area := world.Area{MinX: 0, MaxX: 10, MinY: 0, MaxY: 4}
	for _, c := range []struct {
		name             string
		leg              Leg
		maxLen, maxHalf  float64
		wantArea, wantHW float64
	}{
		// A leg along x through the middle: the whole area.
		{"centred", Leg{A: geom.Vec2{X: -5, Y: 2}, B: geom.Vec2{X: 20, Y: 2}}, math.Inf(1), math.Inf(1), 40, 2},
		// Off centre at y = 1: half-width 1, the full 10 m.
		{"off centre", Leg{A: geom.Vec2{X: -5, Y: 1}, B: geom.Vec2{X: 20, Y: 1}}, math.Inf(1), math.Inf(1), 20, 1},
		// Ends inside the area: only the part of the leg counts.
		{"short", Leg{A: geom.Vec2{X: 2, Y: 2}, B: geom.Vec2{X: 6, Y: 2}}, math.Inf(1), math.Inf(1), 16, 2},
		// Capped length.
		{"max length", Leg{A: geom.Vec2{X: -5, Y: 2}, B: geom.Vec2{X: 20, Y: 2}}, 5, math.Inf(1), 20, 2},
		// Across the area (along y): 4 long, 5 to either side.
		{"across", Leg{A: geom.Vec2{X: 5, Y: -1}, B: geom.Vec2{X: 5, Y: 9}}, math.Inf(1), math.Inf(1), 40, 5},
		// Capped width.
		{"max half", Leg{A: geom.Vec2{X: 5, Y: -1}, B: geom.Vec2{X: 5, Y: 9}}, math.Inf(1), 3, 24, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			z, ok := SegmentZone(c.leg, area, c.maxLen, c.maxHalf)
			if !ok {
				t.Fatal("no zone")
			}
			if math.Abs(z.Area()-c.wantArea) > 1e-4 || math.Abs(z.HalfWidth-c.wantHW) > 1e-4 {
				t.Errorf("got area %v, half-width %v; want %v, %v", z.Area(), z.HalfWidth, c.wantArea, c.wantHW)
			}
			for _, p := range z.Corners() {
				if !area.Contains(p) {
					t.Errorf("corner %v outside the area", p)
				}
			}
		})
	}
	if _, ok := SegmentZone(Leg{A: geom.Vec2{X: 20, Y: 20}, B: geom.Vec2{X: 30, Y: 30}}, area, 100, 100); ok {
		t.Error("a leg outside the area: got a zone")
	}
}

// For every mission: the zone lies in the area, the canonical zone in the
// canonical one, round trips are the identity and every generated obstacle
// mapped back lies inside the area and follows the rules.
func TestFrameProperties(t *testing.T) {
	cz, _ := CanonicalZone(world.DefaultArea)
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	for _, name := range scenario.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			f := missionFrame(t, name)
			t.Logf("leg %v → %v, zone s %.2f–%.2f, half-width %.2f, area %.0f m², shift %.2f, canon %+v",
				f.Zone.Leg.A, f.Zone.Leg.B, f.Zone.S0, f.Zone.S1, f.Zone.HalfWidth, f.Zone.Area(), f.Shift, f.Canon)
			for _, p := range f.Zone.Corners() {
				if !world.DefaultArea.Contains(p) {
					t.Errorf("zone corner %v outside the area", p)
				}
				q := f.ToCanonical(p)
				if q.X < f.Canon.MinX-1e-9 || q.X > f.Canon.MaxX+1e-9 || q.Y < f.Canon.MinY-1e-9 || q.Y > f.Canon.MaxY+1e-9 {
					t.Errorf("zone corner %v maps to %v, outside %+v", p, q, f.Canon)
				}
			}
			if f.Canon.MinX < cz.Leg.A.X-cz.HalfWidth-1e-9 || f.Canon.MaxX > cz.Leg.A.X+cz.HalfWidth+1e-9 ||
				f.Canon.MinY < cz.S0-1e-9 || f.Canon.MaxY > cz.S1+1e-9 {
				t.Errorf("canonical zone %+v outside the training zone %+v", f.Canon, cz)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			for range 200 {
				p := geom.Vec2{X: -60 + 120*rng.Float64(), Y: -60 + 120*rng.Float64()}
				if q := f.FromCanonical(f.ToCanonical(p)); q.Dist(p) > 1e-9 {
					t.Fatalf("round trip of %v: got %v", p, q)
				}
				b := world.Box{L: 2 + 18*rng.Float64(), W: 2 + 18*rng.Float64(), H: HeightM, X: p.X, Y: p.Y, R: 90 * rng.Float64()}
				got := f.BoxFromCanonical(f.BoxToCanonical(b))
				if !sameBox(got, b) {
					t.Fatalf("round trip of %+v: got %+v", b, got)
				}
				if r := f.BoxToCanonical(b).R; r < 0 || r >= 90 {
					t.Fatalf("canonical rotation %v out of [0, 90)", r)
				}
			}
			g := f.Generator(valid)
			for i := range 300 {
				tc, err := g.Constrained(rng)
				if err != nil {
					t.Fatal(err)
				}
				m := f.MissionBoxes(tc.Obstacles)
				if err := scenario.DefaultRules.Check(m); err != nil {
					t.Fatalf("test %d: %v", i, err)
				}
				for _, b := range tc.Obstacles {
					if !f.Canon.ContainsBox(b) {
						t.Fatalf("test %d: canonical box %+v outside %+v", i, b, f.Canon)
					}
				}
			}
		})
	}
}

// sameBox reports whether two boxes have the same footprint (to 1e-9 m),
// however their rotation is written.
func sameBox(a, b world.Box) bool {
	if a.H != b.H || a.Z != b.Z {
		return false
	}
	ca, cb := a.Corners(), b.Corners()
	for _, p := range ca {
		found := false
		for _, q := range cb {
			if p.Dist(q) < 1e-9 {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func TestNewFrameNoZone(t *testing.T) {
	if _, err := NewFrame([]geom.Vec3{{X: 100, Y: -100}, {X: 200, Y: -100}}, world.DefaultArea); err == nil {
		t.Error("got no error for a mission outside the area")
	}
}

func BenchmarkFrameConstrained(b *testing.B) {
	for _, name := range []string{"mission2", "mission4", "mission5"} {
		b.Run(name, func(b *testing.B) {
			cs, _ := scenario.Builtin(name)
			f, _ := NewFrame(cs.Mission.Path(), world.DefaultArea)
			g := f.Generator(func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil })
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Constrained(rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sameCorners reports whether two footprints have the same corners, in any
// order, within tol.
func sameCorners(a, b [4]geom.Vec2, tol float64) bool {
	for _, p := range a {
		found := false
		for _, q := range b {
			if p.Dist(q) <= tol {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Mapping a box into the canonical frame maps its footprint: the corners of
// BoxToCanonical(b) are ToCanonical of b's corners (and the same for
// BoxFromCanonical). A round trip alone cannot see a rotation normalised
// by 90° without swapping l and w, which the two directions would undo
// together.
func TestBoxMapsFootprint(t *testing.T) {
	for _, name := range scenario.BuiltinNames() {
		f := missionFrame(t, name)
		rng := rand.New(rand.NewPCG(7, 8))
		for range 200 {
			b := world.Box{L: 2 + 18*rng.Float64(), W: 2 + 18*rng.Float64(), H: HeightM,
				X: -40 + 70*rng.Float64(), Y: 10 + 30*rng.Float64(), R: 90 * rng.Float64()}
			var want [4]geom.Vec2
			for i, c := range b.Corners() {
				want[i] = f.ToCanonical(c)
			}
			if got := f.BoxToCanonical(b).Corners(); !sameCorners(got, want, 1e-9) {
				t.Fatalf("%s: BoxToCanonical(%+v) has corners %v; want %v", name, b, got, want)
			}
			for i, c := range b.Corners() {
				want[i] = f.FromCanonical(c)
			}
			if got := f.BoxFromCanonical(b).Corners(); !sameCorners(got, want, 1e-9) {
				t.Fatalf("%s: BoxFromCanonical(%+v) has corners %v; want %v", name, b, got, want)
			}
		}
	}
}
