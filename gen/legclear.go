package gen

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// LegClearances splits a flown trajectory by the mission leg each of its
// segments is nearest to and returns, per leg, the clearance (world.
// MinClearance, Aerialist's rule) of the pieces flown beside it: out[k] is
// leg k+1, from path[k] to path[k+1] (Frame.Index), +Inf for a leg no piece
// was near. A segment goes to the leg nearest its midpoint, in the
// horizontal plane; ties go to the earlier leg. Consecutive segments of one
// leg form one piece, so a pass is measured whole; the piece boundaries
// share their point. It tells a test that comes close to boxes on two legs
// (a box placed for one leg that crosses another) from one that does so on
// one leg only.
func LegClearances(path []geom.Vec3, boxes []world.Box, traj []geom.Vec3) []float64 {
	if len(path) < 2 {
		return nil
	}
	out := make([]float64, len(path)-1)
	for k := range out {
		out[k] = math.Inf(1)
	}
	if len(traj) == 0 {
		return out
	}
	nearest := func(a, b geom.Vec3) int {
		m := geom.Vec2{X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2}
		best, bestD := 0, math.Inf(1)
		for k := range out {
			d := geom.PointSegmentDist(m, geom.Vec2{X: path[k].X, Y: path[k].Y}, geom.Vec2{X: path[k+1].X, Y: path[k+1].Y})
			if d < bestD-1e-9 {
				best, bestD = k, d
			}
		}
		return best
	}
	if len(traj) == 1 {
		k := nearest(traj[0], traj[0])
		out[k] = world.MinClearance(boxes, traj, nil)
		return out
	}
	start, leg := 0, nearest(traj[0], traj[1])
	for i := 1; i <= len(traj)-1; i++ {
		next := -1
		if i < len(traj)-1 {
			next = nearest(traj[i], traj[i+1])
		}
		if next != leg {
			out[leg] = math.Min(out[leg], world.MinClearance(boxes, traj[start:i+1], nil))
			start, leg = i, next
		}
	}
	return out
}

// CriticalLegs returns the legs (Frame.Index, 1-based) whose clearance in
// LegClearances is below the competition's safe distance, criticalM.
func CriticalLegs(per []float64, criticalM float64) []int {
	var out []int
	for k, d := range per {
		if d < criticalM {
			out = append(out, k+1)
		}
	}
	return out
}
