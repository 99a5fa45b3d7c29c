package traj

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// lineStepM is the Line generator's waypoint spacing.
const lineStepM = 0.5

// genCircle is generate_circle (airstack.md §1.5): out along +x to (R, 0),
// once round counter-clockwise in 10° steps, back to (R, 0) and the origin.
// The loop runs while θ < 2π with θ summed in float64, which makes 37 loop
// points; the 37th sits 5e-14 m short of (R, 0).
func genCircle(r, v float64) []Waypoint {
	wps := []Waypoint{{Speed: v}, {Pos: geom.Vec3{X: r}, Speed: v}}
	step := 10 * math.Pi / 180
	for th := 0.0; th < 2*math.Pi; th += step {
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: r * math.Cos(th), Y: r * math.Sin(th)}, Speed: v})
	}
	return append(wps, Waypoint{Pos: geom.Vec3{X: r}, Speed: v}, Waypoint{Speed: v})
}

// figure8Points is the Figure8 generator's n; it emits n−1 points.
const figure8Points = 600

// genFigure8 is generate_figure8: x = L cos t − L, y = 2W cos t sin t for
// t = 2π i/600, i = 0..598, yaw along the tangent, speeds from
// velocitiesDual and accelerations from accelerations.
func genFigure8(l, w, h, v, a float64) []Waypoint {
	n := figure8Points
	wps := make([]Waypoint, 0, n-1)
	for i := 0; i < n-1; i++ {
		t := 2 * math.Pi * float64(i) / float64(n)
		s, c := math.Sincos(t)
		dx := -l * s
		dy := 2 * w * (c*c - s*s)
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: l*c - l, Y: 2 * w * c * s, Z: h}, Yaw: math.Atan2(dy, dx)})
	}
	velocitiesDual(wps, v, a)
	accelerations(wps)
	return wps
}

// racetrackStraight and racetrackTurn are the point counts of one straight
// and one semicircle of generate_racetrack.
const (
	racetrackStraight = 80
	racetrackTurn     = 48
)

// genRacetrack is generate_racetrack: two straights of length − width joined
// by semicircles of radius width/2, counter-clockwise. The second turn's yaw
// is the tangent plus π (AirStack's), the first and last speeds are 0, and it
// ends at (−0.32, 0.01) for the defaults, not back at the start.
// max_acceleration is read by AirStack but unused, so it is not an argument.
func genRacetrack(l, w, h, v, vt float64) []Waypoint {
	sl := l - w
	r := w / 2
	wps := make([]Waypoint, 0, 2*(racetrackStraight+racetrackTurn))
	ns := float64(racetrackStraight - 1)
	nt := float64(racetrackTurn + 1)
	for i := 0; i < racetrackStraight; i++ {
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: sl * float64(i) / ns, Z: h}, Speed: v})
	}
	for i := 1; i <= racetrackTurn; i++ {
		t := -math.Pi/2 + math.Pi*float64(i)/nt
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: sl + r*math.Cos(t), Y: r + r*math.Sin(t), Z: h}, Speed: vt, Yaw: geom.WrapPi(t + math.Pi/2)})
	}
	for i := 0; i < racetrackStraight; i++ {
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: sl * (1 - float64(i)/ns), Y: w, Z: h}, Speed: v, Yaw: math.Pi})
	}
	for i := 1; i <= racetrackTurn; i++ {
		t := math.Pi/2 + math.Pi*float64(i)/nt
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: r * math.Cos(t), Y: r + r*math.Sin(t), Z: h}, Speed: vt, Yaw: geom.WrapPi(t + math.Pi/2 + math.Pi)})
	}
	wps[0].Speed = 0
	wps[len(wps)-1].Speed = 0
	accelerations(wps)
	return wps
}

// genLine is generate_line: a counter y runs from 0 down while y > −length in
// 0.5-m steps, each waypoint at (−y, 0, height). It stops 0.5 m short of the
// length; speeds come from velocities, so the last one is full speed too.
func genLine(l, h, v, a float64) []Waypoint {
	var wps []Waypoint
	for y := 0.0; y > -l; y -= lineStepM {
		wps = append(wps, Waypoint{Pos: geom.Vec3{X: 0 - y, Z: h}}) // 0 − y: no −0 at the start
	}
	velocities(wps, v, a)
	return wps
}

func xyDist(a, b Waypoint) float64 { return a.Pos.XY().Dist(b.Pos.XY()) }

// velocities is get_velocities (airstack.md §1.4): one forward pass, v_i =
// min(v, √(v_{i−1}² + 2·a·d_i)) with d_i the XY distance to the next
// waypoint, wrapping from the last to the first, and v_{−1} = 0. It ramps up
// only.
func velocities(wps []Waypoint, v, a float64) {
	n := len(wps)
	prev := 0.0
	for i := range wps {
		d := xyDist(wps[i], wps[(i+1)%n])
		wps[i].Speed = math.Min(v, math.Sqrt(prev*prev+2*a*d))
		prev = wps[i].Speed
	}
}

// velocitiesDual is get_velocities_dual: the forward pass, then a backward
// pass over the indices n−1 down to ⌊0.85·n⌋+1 that overwrites the speeds
// with a ramp down (d the XY distance to the previous waypoint), then the
// last speed set to 0.
func velocitiesDual(wps []Waypoint, v, a float64) {
	velocities(wps, v, a)
	n := len(wps)
	prev := 0.0
	for i := n - 1; i > int(math.Floor(0.85*float64(n))); i-- {
		d := xyDist(wps[i], wps[i-1])
		wps[i].Speed = math.Min(v, math.Sqrt(prev*prev+2*a*d))
		prev = wps[i].Speed
	}
	if n > 0 {
		wps[n-1].Speed = 0
	}
}

// accelerations is get_accelerations: for i = 0..n−3, with u1 and u2 the XY
// unit directions of the segments i→i+1 and i+1→i+2, v_c = v_i·u1 and v_n =
// v_{i+1}·u2, per axis a = min((v_n² − v_c²)/(2·d), 50) with d the segment's
// signed extent on that axis (0 when |d| < 1e-6 or either segment is shorter
// than 1e-9). The clamp is upper only, a_z is 0, and the last two waypoints
// keep 0. AirStack carries the values to the tracking point and uses them
// nowhere.
func accelerations(wps []Waypoint) {
	const clampMS2 = 50
	axis := func(vn, vc, d float64) float64 {
		if math.Abs(d) < 1e-6 {
			return 0
		}
		return math.Min((vn*vn-vc*vc)/(2*d), clampMS2)
	}
	for i := 0; i+2 < len(wps); i++ {
		s1 := wps[i+1].Pos.XY().Sub(wps[i].Pos.XY())
		s2 := wps[i+2].Pos.XY().Sub(wps[i+1].Pos.XY())
		if s1.Norm() < 1e-9 || s2.Norm() < 1e-9 {
			continue
		}
		vc := s1.Unit().Scale(wps[i].Speed)
		vn := s2.Unit().Scale(wps[i+1].Speed)
		wps[i].Acc = geom.Vec3{X: axis(vn.X, vc.X, s1.X), Y: axis(vn.Y, vc.Y, s1.Y)}
	}
}
