package world

import (
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Box is an obstacle exactly as the competition (Aerialist's obstacle.py)
// defines it: a prism standing on the ground whose footprint is the rectangle
// of length L along x and width W along y, rotated by R degrees about its
// centre (X, Y), positive R turning +x toward +y (clockwise seen from above,
// since x is North and y East). H is its height above the ground and Z the
// height of its base, which the competition fixes at 0.
type Box struct {
	L, W, H float64 // size, m
	X, Y, Z float64 // centre of the footprint, m (competition frame); Z base height, m
	R       float64 // rotation, degrees
}

// String returns the box in the competition's --obstacle order l,w,h,x,y,z,r.
func (b Box) String() string {
	return fmt.Sprintf("%g,%g,%g,%g,%g,%g,%g", b.L, b.W, b.H, b.X, b.Y, b.Z, b.R)
}

// Center returns the centre of the footprint.
func (b Box) Center() geom.Vec2 { return geom.Vec2{X: b.X, Y: b.Y} }

// Corners returns the four corners of the footprint, counter-clockwise in the
// (x, y) plane starting at the local (−L/2, −W/2) corner.
func (b Box) Corners() [4]geom.Vec2 {
	rad := b.R * math.Pi / 180
	hl, hw := b.L/2, b.W/2
	c := b.Center()
	return [4]geom.Vec2{
		c.Add(geom.Vec2{X: -hl, Y: -hw}.Rotate(rad)),
		c.Add(geom.Vec2{X: hl, Y: -hw}.Rotate(rad)),
		c.Add(geom.Vec2{X: hl, Y: hw}.Rotate(rad)),
		c.Add(geom.Vec2{X: -hl, Y: hw}.Rotate(rad)),
	}
}

// Local returns p expressed in the box's own frame: origin at the centre, x
// along L, y along W.
func (b Box) Local(p geom.Vec2) geom.Vec2 {
	x, y := b.frame().local(p.X, p.Y)
	return geom.Vec2{X: x, Y: y}
}

// boxFrame is a box's footprint prepared for many queries: the rotation's
// sine and cosine are computed once, and the footprint becomes the
// axis-aligned rectangle [−hl, hl] × [−hw, hw] about the centre (cx, cy).
type boxFrame struct {
	cx, cy float64 // centre of the footprint, m
	s, c   float64 // sine and cosine of the rotation R
	hl, hw float64 // half length (local x) and half width (local y), m
}

func (b Box) frame() boxFrame {
	s, c := math.Sincos(b.R * math.Pi / 180)
	return boxFrame{cx: b.X, cy: b.Y, s: s, c: c, hl: b.L / 2, hw: b.W / 2}
}

// local returns (x, y) in the box frame: translated to the centre, then
// turned by −R, undoing the footprint's rotation.
func (f boxFrame) local(x, y float64) (lx, ly float64) {
	dx, dy := x-f.cx, y-f.cy
	return f.c*dx + f.s*dy, -f.s*dx + f.c*dy
}

// localDir returns the direction (x, y) in the box frame (rotation only).
func (f boxFrame) localDir(x, y float64) (lx, ly float64) {
	return f.c*x + f.s*y, -f.s*x + f.c*y
}

// dist2 returns the squared distance from the local point (x, y) to the
// footprint rectangle, 0 inside or on its boundary.
func (f boxFrame) dist2(x, y float64) float64 {
	dx := max(math.Abs(x)-f.hl, 0)
	dy := max(math.Abs(y)-f.hw, 0)
	return dx*dx + dy*dy
}

// Contains reports whether the point p lies in the closed footprint.
func (b Box) Contains(p geom.Vec2) bool {
	q := b.Local(p)
	return math.Abs(q.X) <= b.L/2 && math.Abs(q.Y) <= b.W/2
}

// Distance returns the 2-D distance from p to the footprint, 0 inside.
func (b Box) Distance(p geom.Vec2) float64 {
	q := b.Local(p)
	dx := math.Max(math.Abs(q.X)-b.L/2, 0)
	dy := math.Max(math.Abs(q.Y)-b.W/2, 0)
	return math.Hypot(dx, dy)
}

// Top returns the height of the top face above the ground, m.
func (b Box) Top() float64 { return b.Z + b.H }

// Scaled returns the box with its footprint scaled by k about its centre, as
// the Gazebo model's collision box (0.8·l × 0.8·w) is.
func (b Box) Scaled(k float64) Box {
	b.L *= k
	b.W *= k
	return b
}

// Overlaps reports whether the footprints of a and b share any point;
// touching counts, as with shapely's intersects.
func (a Box) Overlaps(b Box) bool {
	ca, cb := a.Corners(), b.Corners()
	for i := range 4 {
		for j := range 4 {
			if geom.SegmentsIntersect(ca[i], ca[(i+1)%4], cb[j], cb[(j+1)%4]) {
				return true
			}
		}
	}
	return a.Contains(cb[0]) || b.Contains(ca[0])
}

// Area is the axis-aligned rectangle obstacles must lie in: MinX < x < MaxX
// and MinY < y < MaxY in the competition frame.
type Area struct {
	MinX, MaxX, MinY, MaxY float64
}

// DefaultArea is the competition's placement area, −40 < x < 30 and
// 10 < y < 40 (competition.md §2.2).
var DefaultArea = Area{MinX: -40, MaxX: 30, MinY: 10, MaxY: 40}

// Contains reports whether p lies inside the closed rectangle.
func (a Area) Contains(p geom.Vec2) bool {
	return p.X >= a.MinX && p.X <= a.MaxX && p.Y >= a.MinY && p.Y <= a.MaxY
}

// ContainsTol is the tolerance, in metres, with which Area.ContainsBox
// accepts a corner outside the area. Rotated corners are computed with sin
// and cos of R in degrees, which are not exact (cos 90° is 6.1e-17, not 0),
// so a box whose corner lies on the boundary in exact arithmetic can land a
// few ulps (≈1e-14 m at |x| = 40 m) outside it. 1e-9 m is far above that
// rounding and far below any placement that matters.
const ContainsTol = 1e-9

// ContainsBox reports whether the whole footprint of b lies inside the
// closed area, up to ContainsTol: a corner exactly on the boundary counts as
// inside.
func (a Area) ContainsBox(b Box) bool {
	for _, c := range b.Corners() {
		if c.X < a.MinX-ContainsTol || c.X > a.MaxX+ContainsTol ||
			c.Y < a.MinY-ContainsTol || c.Y > a.MaxY+ContainsTol {
			return false
		}
	}
	return true
}

// Corners returns the rectangle's corners counter-clockwise from (MinX, MinY).
func (a Area) Corners() [4]geom.Vec2 {
	return [4]geom.Vec2{{X: a.MinX, Y: a.MinY}, {X: a.MaxX, Y: a.MinY}, {X: a.MaxX, Y: a.MaxY}, {X: a.MinX, Y: a.MaxY}}
}
