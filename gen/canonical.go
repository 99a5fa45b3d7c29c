package gen

import (
	"errors"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// CanonicalLeg is the canonical mission's leg (paper §IV-B, Fig. 1b;
// scenario.Canonical): straight along +y (East) at x = −5 m, the centre of
// the placement area's −40 < x < 30, from y = 0 to y = 50.
var CanonicalLeg = Leg{A: geom.Vec2{X: -5, Y: 0}, B: geom.Vec2{X: -5, Y: 50}}

// zoneMargin shrinks every zone by this much on each side, m, so that
// obstacles generated on a zone's edge and mapped between frames (a rotation
// in floating point) stay inside the placement area, whose rules check has
// no tolerance.
const zoneMargin = 1e-6

// Zone is a segment-placement zone (paper §IV-B): a rectangle symmetric
// about a leg, spanning S0 ≤ s ≤ S1 along the leg (metres from Leg.A) and
// HalfWidth to either side of it.
type Zone struct {
	Leg       Leg
	S0, S1    float64
	HalfWidth float64
}

// Area returns the zone's area, m².
func (z Zone) Area() float64 { return 2 * z.HalfWidth * (z.S1 - z.S0) }

// Corners returns the zone's corners, counter-clockwise from the one at S0
// on the right of the leg.
func (z Zone) Corners() [4]geom.Vec2 {
	u, n := z.Leg.axes()
	p0, p1 := z.Leg.A.Add(u.Scale(z.S0)), z.Leg.A.Add(u.Scale(z.S1))
	h := n.Scale(z.HalfWidth)
	return [4]geom.Vec2{p0.Sub(h), p1.Sub(h), p1.Add(h), p0.Add(h)}
}

// axes returns the unit direction of flight and its left normal.
func (l Leg) axes() (u, n geom.Vec2) {
	u = l.B.Sub(l.A).Unit()
	return u, geom.Vec2{X: -u.Y, Y: u.X}
}

// Len returns the length of the leg.
func (l Leg) Len() float64 { return l.B.Sub(l.A).Norm() }

// widthSpan returns the interval of s in [0, leg length] at which a segment
// of half-width h across the leg fits inside area: the clip of the leg by
// the area shrunk by h·|n| on each axis. ok is false when it is empty.
func widthSpan(l Leg, area world.Area, h float64) (lo, hi float64, ok bool) {
	u, n := l.axes()
	lo, hi = 0, l.Len()
	dx, dy := h*math.Abs(n.X), h*math.Abs(n.Y)
	// a ≤ A + s·d ≤ b on each axis.
	for _, c := range [2][4]float64{
		{l.A.X, u.X, area.MinX + dx, area.MaxX - dx},
		{l.A.Y, u.Y, area.MinY + dy, area.MaxY - dy},
	} {
		a0, d, a, b := c[0], c[1], c[2], c[3]
		if a > b {
			return 0, 0, false
		}
		if d == 0 {
			if a0 < a || a0 > b {
				return 0, 0, false
			}
			continue
		}
		s1, s2 := (a-a0)/d, (b-a0)/d
		if s1 > s2 {
			s1, s2 = s2, s1
		}
		lo, hi = math.Max(lo, s1), math.Min(hi, s2)
	}
	return lo, hi, hi > lo
}

// SegmentZone returns the largest rectangle symmetric about leg l that lies
// inside area (paper §IV-B, step 1), at most maxLen long and maxHalf wide to
// either side (the canonical zone's size, so that the zone fits the
// surrogate's training domain once mapped). When the leg offers more than
// maxLen at the best width, the zone is centred on what it offers. ok is
// false when no part of the leg lies inside the area.
func SegmentZone(l Leg, area world.Area, maxLen, maxHalf float64) (z Zone, ok bool) {
	if !(l.Len() > 0) {
		return Zone{}, false
	}
	areaAt := func(h float64) float64 {
		lo, hi, ok := widthSpan(l, area, h)
		if !ok {
			return 0
		}
		return 2 * h * math.Min(hi-lo, maxLen)
	}
	// Upper bound of useful half-widths: half the area's diagonal.
	top := math.Min(maxHalf, math.Hypot(area.MaxX-area.MinX, area.MaxY-area.MinY)/2)
	// The area is piecewise smooth in h: scan densely, then refine the
	// best bracket by golden-section search.
	const steps = 4096
	best, bestH := 0.0, 0.0
	for i := 1; i <= steps; i++ {
		h := top * float64(i) / steps
		if a := areaAt(h); a > best {
			best, bestH = a, h
		}
	}
	if best == 0 {
		return Zone{}, false
	}
	lo, hi := math.Max(0, bestH-top/steps), math.Min(top, bestH+top/steps)
	const phi = 0.6180339887498949
	for range 100 {
		m1, m2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
		if areaAt(m1) < areaAt(m2) {
			lo = m1
		} else {
			hi = m2
		}
	}
	if h := (lo + hi) / 2; areaAt(h) > best {
		bestH = h
	}
	s0, s1, _ := widthSpan(l, area, bestH)
	if s1-s0 > maxLen {
		mid := (s0 + s1) / 2
		s0, s1 = mid-maxLen/2, mid+maxLen/2
	}
	z = Zone{Leg: l, S0: s0 + zoneMargin, S1: s1 - zoneMargin, HalfWidth: bestH - zoneMargin}
	if z.S1 <= z.S0 || z.HalfWidth <= 0 {
		return Zone{}, false
	}
	return z, true
}

// Frame is the canonical flight frame of a mission (paper §IV-B, Fig. 1):
// the leg whose segment-placement zone is largest, and the rotation and
// translation that map it onto the canonical leg. A point at distance s
// along the leg and t to its left maps to CanonicalLeg.A + (s + Shift)·ĉ +
// t·n̂c, with ĉ the canonical direction of flight and n̂c its left normal;
// Shift is the smallest slide along the leg that puts the zone inside the
// canonical zone, so that obstacles keep their distance from the start of
// the leg whenever they can.
type Frame struct {
	Index int     // the leg: 1 for the leg from the path's point 0 to point 1
	Zone  Zone    // the selected leg's zone, in the mission frame
	Shift float64 // m along the leg
	// Canon is the zone mapped into the canonical frame: an axis-aligned
	// rectangle inside the canonical zone (the surrogate's training area).
	Canon world.Area
	// Legs lists every leg of the mission with its zone area, in order
	// (0 for legs outside the area).
	Legs []LegZone
}

// LegZone is one leg of a mission and the area of its zone, m².
type LegZone struct {
	Index int // 1-based, as Frame.Index
	Leg   Leg
	AreaM float64
}

// ErrNoZone is returned for a mission none of whose legs crosses the
// placement area.
var ErrNoZone = errors.New("gen: no leg of the mission crosses the placement area")

// CanonicalZone returns the canonical leg's zone in area: the whole
// placement area for the competition's area (x from −40 to 30, y from 10
// to 40).
func CanonicalZone(area world.Area) (Zone, bool) {
	return SegmentZone(CanonicalLeg, area, math.Inf(1), math.Inf(1))
}

// LegRoundM is the grid leg ends are snapped to before any zone is
// computed, m: a plan's latitudes and longitudes carry sub-millimetre
// noise (a leg meant along an axis turns by a fraction of a milliradian),
// which must not decide a zone's width or position or which of two equal
// legs is chosen (issue 15: a hairpin's zone slid from the centred 15–45 m
// to 0–30 m). 1 cm is far below any placement that matters.
const LegRoundM = 0.01

// areaRoundM2 is the step zone areas are compared on, m²: equal legs (a
// square's sides) tie, and the earlier leg wins.
const areaRoundM2 = 0.01

func roundTo(v, step float64) float64 { return math.Round(v/step) * step }

// Frames finds the canonical frame of every leg of the mission path (home,
// then each item's position, as scenario.Mission.Path gives it) whose
// segment-placement zone is not empty (paper §IV-B steps 1–3 for each
// leg), in path order. Leg ends are snapped to LegRoundM first.
func Frames(path []geom.Vec3, area world.Area) ([]Frame, error) {
	cz, ok := CanonicalZone(area)
	if !ok {
		return nil, errors.New("gen: the canonical leg does not cross the placement area")
	}
	var legs []LegZone
	var zones []Zone
	for i := 1; i < len(path); i++ {
		l := Leg{A: path[i-1].XY(), B: path[i].XY()}
		l.A = geom.Vec2{X: roundTo(l.A.X, LegRoundM), Y: roundTo(l.A.Y, LegRoundM)}
		l.B = geom.Vec2{X: roundTo(l.B.X, LegRoundM), Y: roundTo(l.B.Y, LegRoundM)}
		z, ok := SegmentZone(l, area, cz.S1-cz.S0, cz.HalfWidth)
		a := 0.0
		if ok {
			a = roundTo(z.Area(), areaRoundM2)
		}
		legs = append(legs, LegZone{Index: i, Leg: l, AreaM: a})
		zones = append(zones, z)
	}
	var out []Frame
	for k, lz := range legs {
		if lz.AreaM == 0 {
			continue
		}
		z := zones[k]
		f := Frame{Index: lz.Index, Zone: z, Legs: legs}
		switch {
		case z.S0 < cz.S0:
			f.Shift = cz.S0 - z.S0
		case z.S1 > cz.S1:
			f.Shift = cz.S1 - z.S1
		}
		c := CanonicalLeg.A
		h := z.HalfWidth
		f.Canon = world.Area{MinX: c.X - h, MaxX: c.X + h, MinY: c.Y + z.S0 + f.Shift, MaxY: c.Y + z.S1 + f.Shift}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, ErrNoZone
	}
	return out, nil
}

// NewFrame finds the canonical frame of the mission path for the placement
// area (paper §IV-B): the frame of the leg whose zone is largest (areas
// compared to 0.01 m², ties to the earlier leg), as Frames computes them.
func NewFrame(path []geom.Vec3, area world.Area) (Frame, error) {
	fs, err := Frames(path, area)
	if err != nil {
		return Frame{}, err
	}
	return Largest(fs), nil
}

// Largest returns the frame of fs whose zone is largest, the earlier on a
// tie.
func Largest(fs []Frame) Frame {
	best := fs[0]
	for _, f := range fs[1:] {
		if f.AreaM2() > best.AreaM2() {
			best = f
		}
	}
	return best
}

// AreaM2 is the frame's zone area as legs are compared on (rounded to
// 0.01 m²).
func (f Frame) AreaM2() float64 { return roundTo(f.Zone.Area(), areaRoundM2) }

// ToCanonical maps a point of the mission frame into the canonical frame.
func (f Frame) ToCanonical(p geom.Vec2) geom.Vec2 {
	u, n := f.Zone.Leg.axes()
	uc, nc := CanonicalLeg.axes()
	d := p.Sub(f.Zone.Leg.A)
	return CanonicalLeg.A.Add(uc.Scale(d.Dot(u) + f.Shift)).Add(nc.Scale(d.Dot(n)))
}

// FromCanonical maps a point of the canonical frame into the mission frame.
func (f Frame) FromCanonical(p geom.Vec2) geom.Vec2 {
	u, n := f.Zone.Leg.axes()
	uc, nc := CanonicalLeg.axes()
	d := p.Sub(CanonicalLeg.A)
	return f.Zone.Leg.A.Add(u.Scale(d.Dot(uc) - f.Shift)).Add(n.Scale(d.Dot(nc)))
}

// turnDeg is the rotation, degrees turning +x toward +y, that takes mission
// directions to canonical ones.
func (f Frame) turnDeg() float64 {
	u, _ := f.Zone.Leg.axes()
	uc, _ := CanonicalLeg.axes()
	return (math.Atan2(uc.Y, uc.X) - math.Atan2(u.Y, u.X)) * 180 / math.Pi
}

// BoxToCanonical maps an obstacle into the canonical frame.
func (f Frame) BoxToCanonical(b world.Box) world.Box {
	c := f.ToCanonical(b.Center())
	b.X, b.Y = c.X, c.Y
	return normalizeRotation(b, b.R+f.turnDeg())
}

// BoxFromCanonical maps an obstacle from the canonical frame back into the
// mission frame.
func (f Frame) BoxFromCanonical(b world.Box) world.Box {
	c := f.FromCanonical(b.Center())
	b.X, b.Y = c.X, c.Y
	return normalizeRotation(b, b.R-f.turnDeg())
}

// normalizeRotation sets b's rotation to r expressed in the competition's
// range 0 ≤ r < 90°: a footprint turned by 180° is itself, and one turned
// by 90° is the same footprint with l and w swapped.
func normalizeRotation(b world.Box, r float64) world.Box {
	r = math.Mod(r, 180)
	if r < 0 {
		r += 180
	}
	if r >= 90 {
		r -= 90
		b.L, b.W = b.W, b.L
	}
	if r >= 90 || r < 0 { // rounding at the boundary
		r = 0
	}
	b.R = r
	return b
}

// Generator returns the constrained-random generator of the frame: it
// draws tests in the canonical frame, on the canonical leg inside the
// mapped zone (paper §IV-D). valid, if not nil, also has to accept a
// test's obstacles mapped back into the mission frame (for example the
// competition's rules).
func (f Frame) Generator(valid func([]world.Box) bool) Generator {
	c := CanonicalLeg.A
	g := Generator{
		Leg:  Leg{A: geom.Vec2{X: c.X, Y: f.Canon.MinY}, B: geom.Vec2{X: c.X, Y: f.Canon.MaxY}},
		Area: f.Canon,
	}
	g.Valid = func(obs []world.Box) bool {
		if !defaultValid(g.Area, obs) {
			return false
		}
		if valid == nil {
			return true
		}
		var buf [4]world.Box
		m := buf[:0]
		for _, b := range obs {
			m = append(m, f.BoxFromCanonical(b))
		}
		return valid(m)
	}
	return g
}

// MissionBoxes maps canonical obstacles into the mission frame.
func (f Frame) MissionBoxes(canon []world.Box) []world.Box {
	out := make([]world.Box, len(canon))
	for i, b := range canon {
		out[i] = f.BoxFromCanonical(b)
	}
	return out
}
