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
// area, in path order: every waypoint inside it between two legs of at
// least 1 m that turns the flight by more than 1° (a turn outside the area
// cannot have a box at it). Points are snapped to LegRoundM first, as the
// legs' are.
func Corners(path []geom.Vec3, area world.Area) []Corner {
	var out []Corner
	snap := func(p geom.Vec3) geom.Vec2 {
		return geom.Vec2{X: roundTo(p.X, LegRoundM), Y: roundTo(p.Y, LegRoundM)}
	}
	for i := 1; i+1 < len(path); i++ {
		a, w, b := snap(path[i-1]), snap(path[i]), snap(path[i+1])
		in, out2 := w.Sub(a), b.Sub(w)
		if in.Norm() < 1 || out2.Norm() < 1 {
			continue
		}
		cos := in.Dot(out2) / (in.Norm() * out2.Norm())
		if cos > math.Cos(math.Pi/180) {
			continue // straight on: no turn
		}
		if w.X < area.MinX || w.X > area.MaxX || w.Y < area.MinY || w.Y > area.MaxY {
			continue
		}
		z := world.Area{
			MinX: math.Max(area.MinX, w.X-CornerHalfM), MaxX: math.Min(area.MaxX, w.X+CornerHalfM),
			MinY: math.Max(area.MinY, w.Y-CornerHalfM), MaxY: math.Min(area.MaxY, w.Y+CornerHalfM),
		}
		if !(z.MaxX > z.MinX && z.MaxY > z.MinY) {
			continue
		}
		lin := math.Min(CornerLegM, in.Norm())
		lout := math.Min(CornerLegM, out2.Norm())
		out = append(out, Corner{
			Index: i, At: w,
			In:     Leg{A: w.Sub(in.Scale(lin / in.Norm())), B: w},
			Out:    Leg{A: w, B: w.Add(out2.Scale(lout / out2.Norm()))},
			Zone:   z,
			AreaM2: roundTo((z.MaxX-z.MinX)*(z.MaxY-z.MinY), areaRoundM2),
		})
	}
	return out
}

// AutoCorners returns the corners of cs whose zone is at least
// AutoMinAreaM2 (room for two small boxes and a passage), in order.
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
