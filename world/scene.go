package world

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// CollisionScale is the factor by which the footprint of a box is shrunk to
// get its physical collision volume: Aerialist's Gazebo model
// (aerialist/resources/simulation/box.xacro, commit f76b46c "collision free
// border") draws a visual box l × w × h but collides with a box
// 0.8·l × 0.8·w × h (competition.md §1.4), so a vehicle may enter the outer
// 10% of each side without contact.
const CollisionScale = 0.8

// Scene is the static world a vehicle flies in: box obstacles standing on
// the ground plane (NED z = 0) and the area they were placed in. The zero
// Scene is empty ground.
type Scene struct {
	Boxes []Box
	Area  Area
}

// Raycast returns the distance along the ray from origin (NED, m) in the
// direction dir (NED, unit) to the nearest surface within maxRange, and
// whether there was one; with no hit it returns (maxRange, false).
//
// The surfaces are the box prisms, footprint × altitude [Z, Z+H] (NED z in
// [−(Z+H), −Z]), hit with a slab test in each box's own frame (Kay and
// Kajiya, "Ray tracing complex scenes", SIGGRAPH 1986), and the ground plane
// NED z = 0, which is hit only from above. A ray starting inside or on a box
// hits it at distance 0. The boxes are the visual ones (l × w), which is what
// a range sensor in Gazebo sees. If dir is not a unit vector the distance is
// in units of |dir|. Raycast does not allocate.
func (s *Scene) Raycast(origin, dir geom.Vec3, maxRange float64) (dist float64, hit bool) {
	best := maxRange
	if dir.Z > 0 && origin.Z <= 0 {
		if t := -origin.Z / dir.Z; t <= best {
			best, hit = t, true
		}
	}
	for i := range s.Boxes {
		if t, ok := raycastBox(&s.Boxes[i], origin, dir, best); ok {
			best, hit = t, true
		}
	}
	return best, hit
}

// raycastBox returns the entry distance t ∈ [0, tmax] of the ray into box b.
func raycastBox(b *Box, o, d geom.Vec3, tmax float64) (float64, bool) {
	// Cheap reject before the trigonometry: the horizontal track of the ray
	// over [0, tmax] must come within the footprint's circumradius.
	hl, hw := b.L/2, b.W/2
	cx, cy := b.X-o.X, b.Y-o.Y
	if l2 := d.X*d.X + d.Y*d.Y; l2 > 0 {
		t := geom.Clamp((cx*d.X+cy*d.Y)/l2, 0, tmax)
		cx, cy = cx-d.X*t, cy-d.Y*t
	}
	if cx*cx+cy*cy > hl*hl+hw*hw {
		return 0, false
	}

	f := b.frame()
	ox, oy := f.local(o.X, o.Y)
	dx, dy := f.localDir(d.X, d.Y)
	t0, t1, ok := slab(ox, dx, -hl, hl, 0, tmax)
	if !ok {
		return 0, false
	}
	if t0, t1, ok = slab(oy, dy, -hw, hw, t0, t1); !ok {
		return 0, false
	}
	if t0, _, ok = slab(o.Z, d.Z, -b.Top(), -b.Z, t0, t1); !ok {
		return 0, false
	}
	return t0, true
}

// slab narrows [t0, t1] to the parameters where o + d·t lies in [lo, hi].
func slab(o, d, lo, hi, t0, t1 float64) (float64, float64, bool) {
	if d == 0 {
		// Parallel to the slab: all or nothing (and no 0·Inf NaNs).
		return t0, t1, o >= lo && o <= hi
	}
	inv := 1 / d
	a, b := (lo-o)*inv, (hi-o)*inv
	if a > b {
		a, b = b, a
	}
	t0, t1 = max(t0, a), min(t1, b)
	return t0, t1, t0 <= t1
}

// Collision reports whether a vehicle sphere of the given radius (m) centred
// at the NED point p touches the physical collision volume of a box, and the
// index of the first such box in s.Boxes. The volume is the footprint scaled
// by CollisionScale (Box.Scaled) over altitudes [Z, Z+H]; touching counts. A
// radius of 0 tests the point itself. Collision does not allocate.
func (s *Scene) Collision(p geom.Vec3, radius float64) (index int, hit bool) {
	r2 := radius * radius
	for i := range s.Boxes {
		b := s.Boxes[i].Scaled(CollisionScale)
		f := b.frame()
		lx, ly := f.local(p.X, p.Y)
		// NED z of the volume spans [−Top, −Z].
		dz := max(-b.Top()-p.Z, p.Z+b.Z, 0)
		if f.dist2(lx, ly)+dz*dz <= r2 {
			return i, true
		}
	}
	return -1, false
}

// Penetration says how a vehicle sphere overlaps a box's collision volume:
// the box, the unit normal (NED) pointing out of the volume toward the
// vehicle, and the depth by which the sphere must move along it to just
// touch.
type Penetration struct {
	Obstacle int
	Normal   geom.Vec3
	DepthM   float64
}

// Penetrate returns the deepest overlap of the vehicle sphere (radius, m,
// centred at the NED point p) with the boxes' collision volumes (see
// Collision), and whether there is one. A sphere whose centre is inside the
// footprint is pushed out through the nearest side, or up through the top
// when that is nearer. Penetrate does not allocate.
func (s *Scene) Penetrate(p geom.Vec3, radius float64) (Penetration, bool) {
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
		if m := max(math.Abs(dx), math.Abs(dy)); m >= radius && m > 1e-12 {
			// Beside the volume, out of reach: math.Hypot(dx, dy) is at
			// least m (max·√(1 + (min/max)²), rounded, and +Inf for an
			// infinite side), so d > 1e-12 and d ≥ radius below. It skips
			// the hypotenuse for all but the boxes the vehicle is near.
			continue
		}
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
