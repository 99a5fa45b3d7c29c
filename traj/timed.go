package traj

import (
	"errors"
	"math"
	"sort"

	"github.com/shakedown-robotics/shakedown/geom"
)

// ErrEmpty is returned for a path without waypoints.
var ErrEmpty = errors.New("traj: empty path")

// minSegSpeedMS is trajectory_library's floor on a segment's mean speed when
// timing it (airstack.md §3.1).
const minSegSpeedMS = 0.01

// Point is a timed trajectory point: AirStack's waypoint after
// trajectory_library has given it a time and a velocity vector.
type Point struct {
	T   float64   // s since the start of the trajectory
	Pos geom.Vec3 // m
	Vel geom.Vec3 // m/s: the speed along the incoming segment
	Acc geom.Vec3 // m/s², carried from the waypoint
	Yaw float64   // rad
}

// Timed is a path with AirStack's time law (trajectory_library, airstack.md
// §3.1). It is immutable once built.
type Timed struct {
	pts []Point
	arc []float64 // cumulative 3-D length at each point
}

// NewTimed times the waypoints the way trajectory_library builds a
// trajectory from a message:
//
//  1. consecutive duplicates (exactly equal positions) are dropped;
//  2. each waypoint's velocity is its speed along the unit direction of the
//     incoming segment (the outgoing one for the first; zero for a single
//     waypoint);
//  3. t_0 = 0 and t_i = t_{i−1} + |p_i − p_{i−1}| / max(0.01, (|v_i| + |v_{i−1}|)/2).
//
// Zero-length segments cannot remain after step 1, so none is deleted.
func NewTimed(wps []Waypoint) (*Timed, error) {
	if len(wps) == 0 {
		return nil, ErrEmpty
	}
	kept := make([]Waypoint, 0, len(wps))
	for i, w := range wps {
		if i > 0 && w.Pos == kept[len(kept)-1].Pos {
			continue
		}
		kept = append(kept, w)
	}
	tr := &Timed{pts: make([]Point, len(kept)), arc: make([]float64, len(kept))}
	for i, w := range kept {
		var dir geom.Vec3
		switch {
		case i > 0:
			dir = w.Pos.Sub(kept[i-1].Pos).Unit()
		case len(kept) > 1:
			dir = kept[1].Pos.Sub(w.Pos).Unit()
		}
		tr.pts[i] = Point{Pos: w.Pos, Vel: dir.Scale(w.Speed), Acc: w.Acc, Yaw: w.Yaw}
		if i > 0 {
			d := w.Pos.Sub(kept[i-1].Pos).Norm()
			mean := (tr.pts[i].Vel.Norm() + tr.pts[i-1].Vel.Norm()) / 2
			tr.pts[i].T = tr.pts[i-1].T + d/math.Max(minSegSpeedMS, mean)
			tr.arc[i] = tr.arc[i-1] + d
		}
	}
	return tr, nil
}

// Points returns the timed waypoints (shared; do not modify).
func (tr *Timed) Points() []Point { return tr.pts }

// Len returns the number of waypoints.
func (tr *Timed) Len() int { return len(tr.pts) }

// Duration returns the time of the last waypoint, s.
func (tr *Timed) Duration() float64 { return tr.pts[len(tr.pts)-1].T }

// Length returns the 3-D length of the polyline, m.
func (tr *Timed) Length() float64 { return tr.arc[len(tr.arc)-1] }

// Arc returns the cumulative length at waypoint i.
func (tr *Timed) Arc(i int) float64 { return tr.arc[i] }

// Segment returns the index i of the segment [t_i, t_{i+1}] that contains
// t, clamped to the first and last segment; 0 for a single waypoint.
func (tr *Timed) Segment(t float64) int {
	n := len(tr.pts)
	if n < 2 {
		return 0
	}
	// The first point with T > t, minus one.
	i := sort.Search(n, func(k int) bool { return tr.pts[k].T > t }) - 1
	return min(max(i, 0), n-2)
}

// At returns the trajectory at time t: linear interpolation of position,
// velocity and acceleration in time, and the shorter-way interpolation of
// yaw (a slerp of pure-yaw quaternions), within the segment that contains t.
// t is clamped to [0, Duration].
func (tr *Timed) At(t float64) Point {
	if len(tr.pts) == 1 {
		p := tr.pts[0]
		p.T = t
		return p
	}
	t = geom.Clamp(t, 0, tr.Duration())
	return tr.interp(tr.Segment(t), t)
}

// interp interpolates segment i at time t (not clamped to the segment).
func (tr *Timed) interp(i int, t float64) Point {
	a, b := tr.pts[i], tr.pts[i+1]
	s := 0.0
	if dt := b.T - a.T; dt > 0 {
		s = (t - a.T) / dt
	}
	return Point{
		T:   t,
		Pos: lerp3(a.Pos, b.Pos, s),
		Vel: lerp3(a.Vel, b.Vel, s),
		Acc: lerp3(a.Acc, b.Acc, s),
		Yaw: geom.WrapPi(a.Yaw + s*geom.WrapPi(b.Yaw-a.Yaw)),
	}
}

func lerp3(a, b geom.Vec3, s float64) geom.Vec3 { return a.Add(b.Sub(a).Scale(s)) }

// ArcAt returns the arc length travelled at time t along the time law.
func (tr *Timed) ArcAt(t float64) float64 {
	if len(tr.pts) == 1 {
		return 0
	}
	t = geom.Clamp(t, 0, tr.Duration())
	i := tr.Segment(t)
	a, b := tr.pts[i], tr.pts[i+1]
	s := 0.0
	if dt := b.T - a.T; dt > 0 {
		s = (t - a.T) / dt
	}
	return tr.arc[i] + s*(tr.arc[i+1]-tr.arc[i])
}

// TimeAtArc returns the time at which the time law reaches arc length s
// (clamped to the path).
func (tr *Timed) TimeAtArc(s float64) float64 {
	n := len(tr.pts)
	if n == 1 || s <= 0 {
		return 0
	}
	if s >= tr.arc[n-1] {
		return tr.Duration()
	}
	i := sort.SearchFloat64s(tr.arc, s) - 1
	i = min(max(i, 0), n-2)
	seg := tr.arc[i+1] - tr.arc[i]
	f := 0.0
	if seg > 0 {
		f = (s - tr.arc[i]) / seg
	}
	return tr.pts[i].T + f*(tr.pts[i+1].T-tr.pts[i].T)
}
