package fidelity

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// detour is how far a test's boxes push the vehicle off its mission's
// straight path (take-off point, waypoints, landing point, in the
// horizontal plane): across reports whether a footprint crosses the path,
// and detourM is then the largest, over the legs and the footprints that
// cross them, of the smaller sideways shift that takes the leg clear of
// the footprint.
func detour(cs *scenario.CaseStudy) (across bool, detourM float64) {
	path := cs.Mission.Path()
	for i := range path {
		path[i].Z = 0
	}
	if len(cs.Obstacles) == 0 || world.MinClearance(cs.Obstacles, path, nil) > 0 {
		return false, 0
	}
	for i := 0; i+1 < len(path); i++ {
		a, b := path[i].XY(), path[i+1].XY()
		leg := b.Sub(a)
		if leg.Norm() < 1e-9 {
			continue
		}
		n := geom.Vec2{X: -leg.Y, Y: leg.X}.Scale(1 / leg.Norm())
		for _, o := range cs.Obstacles {
			if world.Clearance(o, path[i:i+2]) > 0 {
				continue
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, c := range o.Corners() {
				s := c.Sub(a).Dot(n)
				lo, hi = math.Min(lo, s), math.Max(hi, s)
			}
			detourM = math.Max(detourM, math.Min(hi, -lo))
		}
	}
	return true, detourM
}

// Geometry compares the clearances of the tests whose boxes stand beside
// the mission's straight path (Across false) or across it, by the detour
// they force, [LoM, HiM): where on a mission the simulator errs.
type Geometry struct {
	Across   bool    `json:"across_path"`
	LoM      float64 `json:"detour_lo_m"`
	HiM      float64 `json:"detour_hi_m"` // +Inf for the last band, written as null
	N        int     `json:"n"`
	PX4MeanM float64 `json:"px4_mean_m"`
	SimMeanM float64 `json:"sim_mean_m"`
	// The shares of the group's tests that are critical (< CriticalM) on
	// PX4 and, by their mean clearance, in the simulator.
	PX4Critical float64 `json:"px4_critical"`
	SimCritical float64 `json:"sim_critical"`
}

// detourEdges are the edges of the detour bands, m.
var detourEdges = []float64{0, 2, 4, 7, math.Inf(1)}

// geometry groups ts: beside the path, then across it by detour (tests
// without boxes are in neither).
func geometry(ts []TestResult) []Geometry {
	groups := []Geometry{{}}
	for i := 0; i+1 < len(detourEdges); i++ {
		groups = append(groups, Geometry{Across: true, LoM: detourEdges[i], HiM: detourEdges[i+1]})
	}
	var out []Geometry
	for _, g := range groups {
		t := tallyOf(ts, func(t TestResult) bool {
			return (t.Across || t.Beside) && t.Across == g.Across && (!t.Across || t.DetourM >= g.LoM && t.DetourM < g.HiM)
		})
		if t.n == 0 {
			continue
		}
		g.N, g.PX4MeanM, g.SimMeanM, g.PX4Critical, g.SimCritical = t.n, t.px4M, t.simM, t.px4Crit, t.simCrit
		out = append(out, g)
	}
	return out
}
