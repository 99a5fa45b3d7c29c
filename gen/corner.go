package gen

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// The corner zones (issue 15: every leg and every corner). A turn is where
// PX4-Avoidance's planner cuts past a box it has not seen the far side of,
// and where the vehicle brakes, yaws and accelerates again; the leg zones
// of the paper's canonical frame never put a box there, since they end
// where the legs do.
const (
	// CornerHalfM is the half side of a corner's zone: the square around
	// the waypoint, clipped to the placement area.
	CornerHalfM = 15.0
	// CornerLegM is how much of each of the two legs meeting at the corner
	// its tests are drawn against: the last CornerLegM of the leg into the
	// turn and the first of the leg out of it.
	CornerLegM = 15.0
)

// Corner is a turn of the mission inside the placement area: the waypoint
// where one leg ends and the next begins, and its zone.
type Corner struct {
	// Index is the waypoint's position in the mission path (as
	// scenario.Mission.Path numbers it: 0 is home): the corner between leg
	// Index and leg Index+1.
	Index   int
	At      geom.Vec2
	In, Out Leg        // the last CornerLegM of the leg into the turn, the first of the leg out
	Zone    world.Area // the square of half side CornerHalfM around At, clipped to the area
	AreaM2  float64
}

// Corners returns the turns of the mission path that lie in the placement
// area, in path order: every waypoint inside it where the flight turns by
// more than 1° between the nearest points at least 1 m before and after
// it (a repeated waypoint hides no turn; a turn outside the area cannot
// have a box at it), and where one of the two legs' stretches runs at
// least CornerMinInsideM inside the corner's zone (a tip touching the
// area's edge leaves no room to draw a test). Points are snapped to
// LegRoundM first, as the legs' are.
func Corners(path []geom.Vec3, area world.Area) []Corner {
	var out []Corner
	pts := make([]geom.Vec2, len(path))
	for i, p := range path {
		pts[i] = geom.Vec2{X: roundTo(p.X, LegRoundM), Y: roundTo(p.Y, LegRoundM)}
	}
	for i := 1; i+1 < len(pts); i++ {
		w := pts[i]
		if w.X < area.MinX || w.X > area.MaxX || w.Y < area.MinY || w.Y > area.MaxY {
			continue
		}
		if pts[i-1].Dist(w) < 1 {
			continue // the same point as the one before: its turn, if any, is counted there
		}
		a, b := -1, -1
		for k := i - 1; k >= 0 && a < 0; k-- {
			if pts[k].Dist(w) >= 1 {
				a = k
			}
		}
		for k := i + 1; k < len(pts) && b < 0; k++ {
			if pts[k].Dist(w) >= 1 {
				b = k
			}
		}
		if a < 0 || b < 0 {
			continue
		}
		in, out2 := w.Sub(pts[a]), pts[b].Sub(w)
		cos := in.Dot(out2) / (in.Norm() * out2.Norm())
		if cos > math.Cos(math.Pi/180) {
			continue // straight on: no turn
		}
		z := world.Area{
			MinX: math.Max(area.MinX, w.X-CornerHalfM), MaxX: math.Min(area.MaxX, w.X+CornerHalfM),
			MinY: math.Max(area.MinY, w.Y-CornerHalfM), MaxY: math.Min(area.MaxY, w.Y+CornerHalfM),
		}
		lin := math.Min(CornerLegM, in.Norm())
		lout := math.Min(CornerLegM, out2.Norm())
		c := Corner{
			Index: i, At: w,
			In:     Leg{A: w.Sub(in.Scale(lin / in.Norm())), B: w},
			Out:    Leg{A: w, B: w.Add(out2.Scale(lout / out2.Norm()))},
			Zone:   z,
			AreaM2: roundTo((z.MaxX-z.MinX)*(z.MaxY-z.MinY), areaRoundM2),
		}
		if math.Max(insideLen(c.In, z), insideLen(c.Out, z)) < CornerMinInsideM {
			continue
		}
		out = append(out, c)
	}
	return out
}

// CornerMinInsideM is how much of one of a corner's two leg stretches must
// run inside its zone.
const CornerMinInsideM = 2.0

// insideLen is the length of l inside the rectangle z (Liang–Barsky).
func insideLen(l Leg, z world.Area) float64 {
	d := l.B.Sub(l.A)
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{{-d.X, l.A.X - z.MinX}, {d.X, z.MaxX - l.A.X}, {-d.Y, l.A.Y - z.MinY}, {d.Y, z.MaxY - l.A.Y}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return 0
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = math.Max(t0, r)
		} else {
			t1 = math.Min(t1, r)
		}
	}
	if t1 <= t0 {
		return 0
	}
	return (t1 - t0) * d.Norm()
}

// AutoCorners returns the corners of cs whose zone is at least
// AutoMinAreaM2 (room for two small boxes and a passage), in order. In the
// competition's placement area every corner's is: its waypoint lies
// inside, so its zone is at least 15 m × 15 m.
func AutoCorners(cs []Corner) []Corner {
	var out []Corner
	for _, c := range cs {
		if c.AreaM2 >= AutoMinAreaM2 {
			out = append(out, c)
		}
	}
	return out
}

// Draw returns the corner's test generator: the constrained-random
// generator (its categories of size, aspect, rotation, intrusion, sector
// and passage) drawn against the leg into the turn or the leg out of it,
// each half of the time, inside the corner's zone, in the mission frame.
// valid, if not nil, must also accept the test (the rules and the
// mission's feasibility, which keeps boxes off the waypoint itself).
func (c Corner) Draw(valid func([]world.Box) bool) func(*rand.Rand) (Test, error) {
	mk := func(l Leg) Generator {
		g := Generator{Leg: l, Area: c.Zone}
		g.Valid = func(obs []world.Box) bool {
			return defaultValid(c.Zone, obs) && (valid == nil || valid(obs))
		}
		return g
	}
	gs := [2]Generator{mk(c.In), mk(c.Out)}
	return func(rng *rand.Rand) (Test, error) {
		k := rng.IntN(2)
		t, err := gs[k].Constrained(rng)
		if errors.Is(err, ErrNoTest) {
			// This side leaves no room (a leg along the zone's edge): the
			// other one.
			t, err = gs[1-k].Constrained(rng)
		}
		return t, err
	}
}
