package world

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

var (
	north = geom.Vec3{X: 1}
	east  = geom.Vec3{Y: 1}
	down  = geom.Vec3{Z: 1}
	up    = geom.Vec3{Z: -1}
)

func TestRaycast(t *testing.T) {
	// ahead: x ∈ [9, 11], y ∈ [−1, 1], 10 m tall.
	ahead := Box{L: 2, W: 2, H: 10, X: 10}
	tests := []struct {
		name     string
		boxes    []Box
		origin   geom.Vec3
		dir      geom.Vec3
		maxRange float64
		wantDist float64
		wantHit  bool
	}{
		{"box face", []Box{ahead}, ned(0, 0, 5), north, 100, 9, true},
		{"box face from behind", []Box{ahead}, ned(20, 0, 5), geom.Vec3{X: -1}, 100, 9, true},
		{"miss sideways", []Box{ahead}, ned(0, 0, 5), east, 100, 100, false},
		{"miss beside", []Box{ahead}, ned(0, 1.5, 5), north, 100, 100, false},
		{"graze edge", []Box{ahead}, ned(0, 1, 5), north, 100, 9, true},
		{"over the top", []Box{ahead}, ned(0, 0, 12), north, 100, 100, false},
		{"out of range", []Box{ahead}, ned(0, 0, 5), north, 5, 5, false},
		{"exactly at range", []Box{ahead}, ned(0, 0, 5), north, 9, 9, true},
		// The 45° square's corner points at the ray: at x = 10 − √2.
		{"rotated box corner", []Box{{L: 2, W: 2, H: 10, X: 10, R: 45}}, ned(0, 0, 5), north, 100, 10 - math.Sqrt2, true},
		// Turned 90°, L = 6 runs along y: faces at x = 10 ± 1.
		{"rotated box 90", []Box{{L: 6, W: 2, H: 10, X: 10, R: 90}}, ned(0, 2.5, 5), north, 100, 9, true},
		{"rotated box 90 miss", []Box{{L: 2, W: 6, H: 10, X: 10, R: 90}}, ned(0, 2.5, 5), north, 100, 100, false},
		{"top face", []Box{ahead}, ned(10, 0, 30), down, 100, 20, true},
		{"ground straight down", nil, ned(0, 0, 10), down, 100, 10, true},
		{"ground out of range", nil, ned(0, 0, 10), down, 8, 8, false},
		// Direction (0.6, 0, 0.8): the ground 10 m below is 12.5 m away.
		{"ground slanted", nil, ned(0, 0, 10), geom.Vec3{X: 0.6, Z: 0.8}, 100, 12.5, true},
		{"ground not from below", nil, ned(0, 0, -1), down, 100, 100, false},
		{"sky", []Box{ahead}, ned(0, 0, 5), up, 100, 100, false},
		{"ground beyond box", []Box{ahead}, ned(10, 0, 30), down, 15, 15, false},
		{"inside box", []Box{ahead}, ned(10, 0, 5), north, 100, 0, true},
		{"nearest of two", []Box{ahead, {L: 2, W: 2, H: 10, X: 5}}, ned(0, 0, 5), north, 100, 4, true},
		// A box raised 5 m: the ray at 2 m passes under it.
		{"under raised box", []Box{{L: 2, W: 2, H: 5, X: 10, Z: 5}}, ned(0, 0, 2), north, 100, 100, false},
		{"into raised box", []Box{{L: 2, W: 2, H: 5, X: 10, Z: 5}}, ned(0, 0, 7), north, 100, 9, true},
		// Diagonal in the horizontal plane, 45° from north toward east,
		// into a box at (10, 10): corner (9, 9) at 9√2.
		{"diagonal to corner", []Box{{L: 2, W: 2, H: 10, X: 10, Y: 10}}, ned(0, 0, 5),
			geom.Vec3{X: math.Sqrt2 / 2, Y: math.Sqrt2 / 2}, 100, 9 * math.Sqrt2, true},
		{"infinite range", []Box{ahead}, ned(0, 0, 5), north, math.Inf(1), 9, true},
		{"infinite range miss", []Box{ahead}, ned(0, 0, 5), east, math.Inf(1), math.Inf(1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Scene{Boxes: tt.boxes, Area: DefaultArea}
			dist, hit := s.Raycast(tt.origin, tt.dir, tt.maxRange)
			if !near(dist, tt.wantDist) || hit != tt.wantHit {
				t.Errorf("Raycast(%v, %v, %g) = (%v, %v); want (%v, %v)",
					tt.origin, tt.dir, tt.maxRange, dist, hit, tt.wantDist, tt.wantHit)
			}
		})
	}
}

// TestRaycastMatchesContains walks along rays in many directions and checks
// that the first hit is where Box.Contains (an independent test) first turns
// true, to within the walking step.
func TestRaycastMatchesContains(t *testing.T) {
	b := Box{L: 7, W: 3, H: 20, X: 10, Y: 22, R: 30}
	s := Scene{Boxes: []Box{b}}
	const step = 1e-3
	for deg := 0.0; deg < 360; deg += 3 {
		dir := geom.Vec3{X: math.Cos(deg * math.Pi / 180), Y: math.Sin(deg * math.Pi / 180)}
		origin := ned(0, 20, 5)
		dist, hit := s.Raycast(origin, dir, 50)
		want := 50.0
		wantHit := false
		for tt := 0.0; tt <= 50; tt += step {
			p := origin.Add(dir.Scale(tt))
			if b.Contains(p.XY()) {
				want, wantHit = tt, true
				break
			}
		}
		if hit != wantHit || math.Abs(dist-want) > step {
			t.Errorf("heading %g°: Raycast = (%v, %v); want (%v, %v) ± %g", deg, dist, hit, want, wantHit, step)
		}
	}
}

func TestCollision(t *testing.T) {
	// The collision volume of wall is 8 × 3.2: x ∈ [−4, 4], y ∈ [18.4, 21.6],
	// altitude [0, 10].
	wall := Box{L: 10, W: 4, H: 10, X: 0, Y: 20}
	// Turned 90°: x ∈ [−1.6, 1.6], y ∈ [16, 24].
	turned := Box{L: 10, W: 4, H: 10, X: 0, Y: 20, R: 90}
	tests := []struct {
		name      string
		boxes     []Box
		p         geom.Vec3
		radius    float64
		wantIndex int
		wantHit   bool
	}{
		{"no boxes", nil, ned(0, 20, 5), 0.25, -1, false},
		{"centre", []Box{wall}, ned(0, 20, 5), 0, 0, true},
		// Inside the nominal footprint but in its outer 10%: no contact.
		{"collision-free border", []Box{wall}, ned(4.5, 20, 5), 0, -1, false},
		{"border with radius touching", []Box{wall}, ned(4.5, 20, 5), 0.5, 0, true},
		{"border with small radius", []Box{wall}, ned(4.5, 20, 5), 0.4, -1, false},
		{"beside", []Box{wall}, ned(0, 22.5, 5), 0.5, -1, false},
		{"above top", []Box{wall}, ned(0, 20, 10.6), 0.5, -1, false},
		{"touching top", []Box{wall}, ned(0, 20, 10.5), 0.5, 0, true},
		{"on top face", []Box{wall}, ned(0, 20, 10), 0, 0, true},
		// Beyond the top edge x = 4, altitude 10: a 3-4-5 triangle in
		// (x, altitude), (4.75, 11) is 1.25 away.
		{"near top edge", []Box{wall}, ned(4.75, 20, 11), 1.25, 0, true},
		{"near top edge small", []Box{wall}, ned(4.75, 20, 11), 1.24, -1, false},
		{"second box", []Box{{L: 2, W: 2, H: 10, X: -20, Y: 20}, wall}, ned(0, 20, 5), 0.25, 1, true},
		{"first of two", []Box{wall, wall}, ned(0, 20, 5), 0.25, 0, true},
		{"rotated along y", []Box{turned}, ned(0, 23.9, 5), 0, 0, true},
		{"rotated across x", []Box{turned}, ned(1.7, 20, 5), 0, -1, false},
		{"under raised box", []Box{{L: 10, W: 4, H: 5, X: 0, Y: 20, Z: 5}}, ned(0, 20, 4), 0.5, -1, false},
		{"raised box bottom", []Box{{L: 10, W: 4, H: 5, X: 0, Y: 20, Z: 5}}, ned(0, 20, 4.5), 0.5, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Scene{Boxes: tt.boxes}
			i, hit := s.Collision(tt.p, tt.radius)
			if i != tt.wantIndex || hit != tt.wantHit {
				t.Errorf("Collision(%v, %g) = (%d, %v); want (%d, %v)", tt.p, tt.radius, i, hit, tt.wantIndex, tt.wantHit)
			}
		})
	}
}

// benchScene is three obstacles of the size the competition allows, across
// the mission2 path.
var benchScene = Scene{
	Boxes: []Box{
		{L: 10, W: 4, H: 15, X: -5, Y: 20, R: 20},
		{L: 6, W: 6, H: 12, X: -8, Y: 32, R: 45},
		{L: 15, W: 3, H: 20, X: 10, Y: 25, R: 80},
	},
	Area: DefaultArea,
}

// benchPath is a 250 s flight sampled at 2 Hz, like Aerialist's resampled
// trajectory: out along mission2's first leg and back at 10 m.
func benchPath() []geom.Vec3 {
	path := make([]geom.Vec3, 500)
	a, b := geom.Vec2{X: 0, Y: 0}, geom.Vec2{X: -6.84, Y: 53.97}
	for i := range path {
		u := float64(i) / float64(len(path)-1) * 2
		if u > 1 {
			u = 2 - u
		}
		p := a.Add(b.Sub(a).Scale(u))
		path[i] = ned(p.X, p.Y+0.5*math.Sin(float64(i)/7), 10)
	}
	return path
}

// rayDirs is a 16-beam horizontal ring, like a simple range sensor.
func rayDirs() []geom.Vec3 {
	dirs := make([]geom.Vec3, 16)
	for i := range dirs {
		a := float64(i) * 2 * math.Pi / float64(len(dirs))
		dirs[i] = geom.Vec3{X: math.Cos(a), Y: math.Sin(a), Z: 0.1}.Unit()
	}
	return dirs
}

func TestZeroAllocs(t *testing.T) {
	path := benchPath()
	dirs := rayDirs()
	per := make([]float64, len(benchScene.Boxes))
	origin := ned(-3, 20, 10)
	tests := []struct {
		name string
		f    func()
	}{
		{"Raycast", func() {
			for _, d := range dirs {
				benchScene.Raycast(origin, d, 30)
			}
		}},
		{"Clearance", func() { Clearance(benchScene.Boxes[0], path) }},
		{"MinClearance", func() { MinClearance(benchScene.Boxes, path, per) }},
		{"Collision", func() { benchScene.Collision(origin, 0.25) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(100, tt.f); got != 0 {
				t.Errorf("%s allocs/run = %v; want 0", tt.name, got)
			}
		})
	}
}

var sinkF float64

func BenchmarkRaycast(b *testing.B) {
	dirs := rayDirs()
	origin := ned(-3, 20, 10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d, _ := benchScene.Raycast(origin, dirs[i%len(dirs)], 30)
		sinkF += d
	}
}

func BenchmarkClearance(b *testing.B) {
	path := benchPath()
	per := make([]float64, len(benchScene.Boxes))
	b.ReportAllocs()
	for b.Loop() {
		sinkF += MinClearance(benchScene.Boxes, path, per)
	}
}
