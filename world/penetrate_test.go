package world

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

// refPenetrate is Penetrate as it was before it ruled out the boxes beside
// the sphere without the hypotenuse: the reference of
// TestPenetrateMatchesPlain.
func refPenetrate(s *Scene, p geom.Vec3, radius float64) (Penetration, bool) {
	best := Penetration{Obstacle: -1}
	found := false
	alt := -p.Z
	for i := range s.Boxes {
		b := s.Boxes[i].Scaled(CollisionScale)
		if alt > b.Top()+radius || alt < b.Z-radius {
			continue
		}
		f := b.frame()
		lx, ly := f.local(p.X, p.Y)
		cx, cy := geom.Clamp(lx, -f.hl, f.hl), geom.Clamp(ly, -f.hw, f.hw)
		dx, dy := lx-cx, ly-cy
		var nx, ny, nz, depth float64
		if d := math.Hypot(dx, dy); d > 1e-12 {
			if d >= radius {
				continue
			}
			nx, ny, depth = dx/d, dy/d, radius-d
			if alt > b.Top() {
				// Beside and above the top edge: the sphere touches the edge.
				dz := alt - b.Top()
				if d*d+dz*dz >= radius*radius {
					continue
				}
			}
		} else {
			// Centre inside the footprint: leave through the nearest side.
			sides := [4]float64{f.hl - lx, f.hl + lx, f.hw - ly, f.hw + ly}
			k := 0
			for j := 1; j < 4; j++ {
				if sides[j] < sides[k] {
					k = j
				}
			}
			depth = sides[k] + radius
			switch k {
			case 0:
				nx = 1
			case 1:
				nx = -1
			case 2:
				ny = 1
			case 3:
				ny = -1
			}
			if up := b.Top() - alt + radius; up < depth {
				nx, ny, nz, depth = 0, 0, -1, up
			}
		}
		if nz == 0 {
			// Back to the world frame (inverse of local's rotation).
			nx, ny = f.c*nx-f.s*ny, f.s*nx+f.c*ny
		}
		if !found || depth > best.DepthM {
			best = Penetration{Obstacle: i, Normal: geom.Vec3{X: nx, Y: ny, Z: nz}, DepthM: depth}
			found = true
		}
	}
	return best, found
}

// Penetrate gives bit for bit what the plain computation gives: for
// random scenes of rotated boxes and spheres around them, with centres on
// and a few ulps beside the volume's sides, radius and distance equal,
// radii of 0 and under 1e-12, and coordinates that are not finite.
func TestPenetrateMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	rs := []float64{0, 1e-13, 0.25, 0.3, 1, 5, math.Inf(1), math.NaN()}
	odd := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-300}
	bits := func(p Penetration) [5]uint64 {
		return [5]uint64{uint64(p.Obstacle), math.Float64bits(p.Normal.X), math.Float64bits(p.Normal.Y), math.Float64bits(p.Normal.Z), math.Float64bits(p.DepthM)}
	}
	hits := 0
	for trial := range 200000 {
		var s Scene
		for range 1 + rng.IntN(3) {
			b := Box{L: 0.5 + 10*rng.Float64(), W: 0.5 + 10*rng.Float64(), H: 1 + 20*rng.Float64(),
				X: 10 * rng.NormFloat64(), Y: 10 * rng.NormFloat64()}
			switch rng.IntN(4) {
			case 0:
				b.R = 360 * rng.Float64()
			case 1:
				b.R = float64(90 * rng.IntN(5))
			}
			s.Boxes = append(s.Boxes, b)
		}
		radius := rs[rng.IntN(len(rs))]
		if rng.IntN(2) == 0 {
			radius = rng.Float64()
		}
		b := s.Boxes[rng.IntN(len(s.Boxes))].Scaled(CollisionScale)
		// A point beside the volume's side or corner at about the radius,
		// in the box's frame, moved by a few ulps.
		lx := (b.L/2 + radius*rng.Float64()) * float64(1-2*rng.IntN(2))
		ly := (b.W/2 + 2*radius*(rng.Float64()-0.5)) * float64(1-2*rng.IntN(2))
		if rng.IntN(2) == 0 {
			lx, ly = ly*b.L/b.W, lx*b.W/b.L
		}
		f := b.frame()
		p := geom.Vec3{X: f.cx + f.c*lx - f.s*ly, Y: f.cy + f.s*lx + f.c*ly, Z: -b.H * 1.2 * rng.Float64()}
		for range rng.IntN(4) {
			p.X = math.Nextafter(p.X, p.X+float64(rng.IntN(3)-1))
			p.Y = math.Nextafter(p.Y, p.Y+float64(rng.IntN(3)-1))
		}
		switch rng.IntN(20) {
		case 0:
			p.X = odd[rng.IntN(len(odd))]
		case 1:
			p.Y = odd[rng.IntN(len(odd))]
		case 2:
			p = geom.Vec3{X: 30 * rng.NormFloat64(), Y: 30 * rng.NormFloat64(), Z: -30 * rng.Float64()}
		}
		got, gotHit := s.Penetrate(p, radius)
		want, wantHit := refPenetrate(&s, p, radius)
		if gotHit != wantHit || bits(got) != bits(want) {
			t.Fatalf("trial %d: Penetrate(%v, %v) in %v = %+v, %v; want %+v, %v", trial, p, radius, s.Boxes, got, gotHit, want, wantHit)
		}
		if wantHit {
			hits++
		}
	}
	if hits < 20000 {
		t.Fatalf("only %d overlaps; the test needs more", hits)
	}
}
