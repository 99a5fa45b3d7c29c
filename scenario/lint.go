package scenario

import (
	"fmt"
	"math"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// LintKind is the category of a lint finding.
type LintKind string

// The categories. Rule breaks (count to number) make a test invalid in the
// edition whose rules it breaks; infeasible tests (near-waypoint, wall)
// are invalid in every edition (a mission that cannot be flown without a
// violation, competition.md §3.5); unspawned and duplicate tests are valid
// but do not score what they seem to.
const (
	LintCount     LintKind = "count"     // more obstacles than the edition allows
	LintCentre    LintKind = "centre"    // the centre (x, y) outside the placement area
	LintFootprint LintKind = "footprint" // the centre inside, part of the footprint outside
	LintOverlap   LintKind = "overlap"   // two footprints touch or overlap
	LintSize      LintKind = "size"      // l, w or h out of the edition's range
	LintRotation  LintKind = "rotation"  // r out of the edition's range
	LintGround    LintKind = "z"         // not standing on the ground
	LintNumber    LintKind = "number"    // a field that is not a finite number
	LintWaypoint  LintKind = "near-waypoint"
	LintWall      LintKind = "wall"
	LintUnspawned LintKind = "unspawned"
	LintDuplicate LintKind = "duplicate"
)

// LintKinds lists the categories in the order reports print them.
var LintKinds = []LintKind{LintCount, LintCentre, LintFootprint, LintOverlap, LintSize, LintRotation, LintGround, LintNumber,
	LintWaypoint, LintWall, LintUnspawned, LintDuplicate}

// Effect says what a finding of kind k does to a test's score.
func (k LintKind) Effect() string {
	switch k {
	case LintWaypoint, LintWall:
		return "invalid in every edition (the mission cannot be flown without a violation): 0 points"
	case LintUnspawned:
		return "valid, but Aerialist's Gazebo never spawns the box: PX4 flies through its footprint and scores a 0-m failure the real box might not give"
	case LintDuplicate:
		return "2025/2026: dropped from the failure score and every diversity (IoU 1 with an earlier test); 2024: counts, and its DTW twin is similar"
	}
	return "invalid in that edition: the test keeps its place in the evaluated 20, scores 0 and takes part in no diversity"
}

// Invalidates reports whether a finding of kind k makes the test invalid.
func (k LintKind) Invalidates() bool { return k != LintUnspawned && k != LintDuplicate }

// LintFinding is one thing lint found about a test.
type LintFinding struct {
	Kind     LintKind `json:"kind"`
	Obstacle int      `json:"obstacle,omitempty"` // 1-based; 0 for the whole test
	Msg      string   `json:"message"`
}

// LintEdition names an edition and its obstacle rules.
type LintEdition struct {
	Name  string
	Rules Rules
}

// LintEditions are the editions lint checks: 2024's rules, and the rules
// 2025 and 2026 share.
var LintEditions = []LintEdition{{"2024", Rules2024}, {"2025", DefaultRules}, {"2026", DefaultRules}}

// RuleFindings returns the rule breaks of boxes under r, one finding per
// violation of Rules.Check, the area violations told apart by whether the
// centre itself is outside (LintCentre) or only part of the footprint
// (LintFootprint).
func RuleFindings(r Rules, boxes []world.Box) []LintFinding {
	err := r.Check(boxes)
	ve, ok := err.(*ValidationError)
	if !ok {
		return nil
	}
	var out []LintFinding
	for _, v := range ve.Violations {
		f := LintFinding{Obstacle: v.Obstacle, Msg: v.Msg}
		switch v.Field {
		case "count":
			f.Kind = LintCount
		case "overlap":
			f.Kind = LintOverlap
		case "l", "w", "h":
			f.Kind = LintSize
		case "r":
			f.Kind = LintRotation
		case "z":
			f.Kind = LintGround
		case "area":
			f.Kind = LintFootprint
			if b := boxes[v.Obstacle-1]; !r.Area.Contains(b.Center()) {
				f.Kind = LintCentre
				f.Msg = fmt.Sprintf("obstacle %d: centre (%.2f, %.2f) outside the placement area", v.Obstacle, b.X, b.Y)
			}
		case "more":
			continue
		}
		if f.Kind == "" || strings.Contains(v.Msg, "not a finite number") {
			f.Kind = LintNumber
		}
		out = append(out, f)
	}
	return out
}

// Feasibility is the feasibility check: whether a mission can be flown
// through the obstacles without coming closer than SafetyM to one. Zero
// fields mean the defaults named.
type Feasibility struct {
	// SafetyM is the competition's safe distance; 0 = 1.5 m.
	SafetyM float64
	// AccRadM is PX4's NAV_ACC_RAD, the distance within which a waypoint
	// counts as reached; 0 = 0.5 m, the competition's parameter file.
	AccRadM float64
	// CorridorM is how far from a leg the vehicle may go round a wall; 0 =
	// 15 m, the range PX4-Avoidance's depth camera sees (competition.md
	// §7), beyond which the planner cannot see a way round.
	CorridorM float64
	// CellM is the grid step of the wall search; 0 = 0.25 m.
	CellM float64
	// WaypointM is how far a footprint must stay from the take-off point,
	// each waypoint and the landing point; 0 = SafetyM − AccRadM, the
	// distance under which reaching the point within NAV_ACC_RAD forces a
	// violation. Generators use GenerationWaypointM.
	WaypointM float64
}

// GenerationWaypointM is the waypoint margin Shakedown's generators keep,
// wider than the rule's 1 m: SafetyM itself, so that a vehicle that flies
// its plan exactly, through every waypoint, keeps the safe distance. A box
// between 1 m and 1.5 m of a waypoint leaves a margin smaller than the
// overshoot of any turn at cruise speed, so its "failure" says nothing
// about the vehicle either (issue 15: 51–65 written tests a suite had a box
// within 1 m of a waypoint).
const GenerationWaypointM = 1.5

// Feasible reports whether Check finds nothing.
func (f Feasibility) Feasible(m Mission, boxes []world.Box) bool { return len(f.Check(m, boxes)) == 0 }

func (f Feasibility) withDefaults() Feasibility {
	if f.SafetyM <= 0 {
		f.SafetyM = 1.5
	}
	if f.AccRadM <= 0 {
		f.AccRadM = 0.5
	}
	if f.CorridorM <= 0 {
		f.CorridorM = 15
	}
	if f.CellM <= 0 {
		f.CellM = 0.25
	}
	return f
}

// Check returns why mission m cannot be flown past boxes without a
// violation (none when it can):
//
//   - LintWaypoint: a footprint closer than SafetyM − AccRadM (1 m) to the
//     take-off point, a waypoint or the landing point, measured by
//     Aerialist's rule (2-D distance to the footprint; over a box lower
//     than the point, the height above it). Reaching the point within
//     NAV_ACC_RAD then brings the vehicle within SafetyM of the box.
//   - LintWall: on some leg, every path from its start to its end that
//     stays within CorridorM of the leg passes within SafetyM of a
//     footprint: the boxes (taller than the leg's altitude less SafetyM)
//     close the corridor.
//
// Boxes that are not finite are skipped (the rules report them).
func (f Feasibility) Check(m Mission, boxes []world.Box) []LintFinding {
	f = f.withDefaults()
	var out []LintFinding
	var sound []world.Box
	var idx []int
	for i, b := range boxes {
		if finiteBox(b) && b.L > 0 && b.W > 0 {
			sound, idx = append(sound, b), append(idx, i+1)
		}
	}
	path := m.Path()
	near := f.SafetyM - f.AccRadM
	why := fmt.Sprintf(" (%.1f m safety − %.1f m NAV_ACC_RAD)", f.SafetyM, f.AccRadM)
	if f.WaypointM > 0 {
		near, why = f.WaypointM, ""
	}
	for k, p := range path {
		what := "waypoint"
		switch {
		case k == 0:
			what = "the take-off point"
		case k == len(path)-1:
			what = "the landing point"
		case m.Items[k-1].Kind == Takeoff:
			continue // straight above the take-off point
		default:
			what = fmt.Sprintf("waypoint %d", k)
		}
		alt := -p.Z
		if k == len(path)-1 || k == 0 {
			alt = 0
		}
		for j, b := range sound {
			d := b.Distance(geom.Vec2{X: p.X, Y: p.Y})
			if d == 0 && alt > b.Top() {
				d = alt - b.Top()
			}
			if d < near {
				out = append(out, LintFinding{Kind: LintWaypoint, Obstacle: idx[j],
					Msg: fmt.Sprintf("obstacle %d: footprint %.2f m from %s (%.2f, %.2f), under %.2f m%s", idx[j], d, what, p.X, p.Y, near, why)})
			}
		}
	}
	for k := 1; k < len(path); k++ {
		a, b := path[k-1], path[k]
		alt := math.Min(-a.Z, -b.Z)
		if m.Items[k-1].Kind == Land {
			alt = -a.Z // PX4 flies to the landing point, then descends
		}
		var tall []world.Box
		for _, bx := range sound {
			if bx.Top() > alt-f.SafetyM {
				tall = append(tall, bx)
			}
		}
		if leg := (geom.Vec2{X: b.X - a.X, Y: b.Y - a.Y}); len(tall) == 0 || leg.Norm() < f.CellM {
			continue
		}
		if !f.open(geom.Vec2{X: a.X, Y: a.Y}, geom.Vec2{X: b.X, Y: b.Y}, tall) {
			out = append(out, LintFinding{Kind: LintWall,
				Msg: fmt.Sprintf("leg %d, (%.1f, %.1f) to (%.1f, %.1f): the obstacles close every way within %.0f m of it with %.1f m to spare", k, a.X, a.Y, b.X, b.Y, f.CorridorM, f.SafetyM)})
		}
	}
	return out
}

func finiteBox(b world.Box) bool {
	for _, v := range []float64{b.L, b.W, b.H, b.X, b.Y, b.Z, b.R} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// open reports whether a path joins a to b on a grid of CellM within
// CorridorM of the segment ab, through cells at least SafetyM from every
// box. An end that is itself too close counts as open: the waypoint rule
// reports it.
//
// Every generator calls it for each candidate, so it is fast in the common
// cases: boxes too far from the leg to reach into its corridor are
// ignored, a straight leg SafetyM clear of every box is open without a
// search, and the grid search is best-first toward b (the answer is the
// breadth-first search's, reachability, but an open corridor is crossed
// after exploring little more than a path).
func (f Feasibility) open(a, b geom.Vec2, all []world.Box) bool {
	c := f.CorridorM
	var buf [4]world.Box
	boxes := buf[:0]
	for _, bx := range all {
		if boxSegDist(bx, a, b) < c+f.SafetyM {
			boxes = append(boxes, bx)
		}
	}
	if len(boxes) == 0 {
		return true
	}
	clear := true
	for _, bx := range boxes {
		if boxSegDist(bx, a, b) < f.SafetyM {
			clear = false
			break
		}
	}
	if clear {
		return true
	}
	d := geom.Vec2{X: b.X - a.X, Y: b.Y - a.Y}
	length := d.Norm()
	u := geom.Vec2{X: d.X / length, Y: d.Y / length} // along the leg
	v := geom.Vec2{X: -u.Y, Y: u.X}                  // across it
	nu := int(math.Ceil((length+2*c)/f.CellM)) + 1
	nv := int(math.Ceil(2*c/f.CellM)) + 1
	at := func(i, j int) geom.Vec2 {
		s, t := -c+float64(i)*f.CellM, -c+float64(j)*f.CellM
		return geom.Vec2{X: a.X + s*u.X + t*v.X, Y: a.Y + s*u.Y + t*v.Y}
	}
	cell := func(p geom.Vec2) (int, int) {
		q := geom.Vec2{X: p.X - a.X, Y: p.Y - a.Y}
		s, t := q.X*u.X+q.Y*u.Y, q.X*v.X+q.Y*v.Y
		return int(math.Round((s + c) / f.CellM)), int(math.Round((t + c) / f.CellM))
	}
	// The footprints with their rotations worked out once: the search
	// tests every cell it reaches against each.
	type frame struct{ cx, cy, s, c, hl, hw float64 }
	var fbuf [4]frame
	frames := fbuf[:0]
	for _, bx := range boxes {
		s, co := math.Sincos(bx.R * math.Pi / 180)
		frames = append(frames, frame{bx.X, bx.Y, s, co, bx.L / 2, bx.W / 2})
	}
	safe2 := f.SafetyM * f.SafetyM
	free := func(p geom.Vec2) bool {
		for _, fr := range frames {
			dx, dy := p.X-fr.cx, p.Y-fr.cy
			lx := math.Max(math.Abs(fr.c*dx+fr.s*dy)-fr.hl, 0)
			ly := math.Max(math.Abs(-fr.s*dx+fr.c*dy)-fr.hw, 0)
			if lx*lx+ly*ly < safe2 {
				return false
			}
		}
		return true
	}
	inside := func(p geom.Vec2) bool { return segDist(p, a, b, u, length) <= c }
	si, sj := cell(a)
	ti, tj := cell(b)
	if !free(at(si, sj)) || !free(at(ti, tj)) {
		return true
	}
	h := func(i, j int) int32 { return int32(iabs(i-ti) + iabs(j-tj)) }
	seen := make([]bool, nu*nv)
	var q cellQueue
	q.push(int32(si*nv+sj), h(si, sj))
	seen[si*nv+sj] = true
	for q.len() > 0 {
		k := int(q.pop())
		i, j := k/nv, k%nv
		if i == ti && j == tj {
			return true
		}
		for _, n := range [4][2]int{{i + 1, j}, {i - 1, j}, {i, j + 1}, {i, j - 1}} {
			if n[0] < 0 || n[0] >= nu || n[1] < 0 || n[1] >= nv || seen[n[0]*nv+n[1]] {
				continue
			}
			seen[n[0]*nv+n[1]] = true
			if p := at(n[0], n[1]); inside(p) && free(p) {
				q.push(int32(n[0]*nv+n[1]), h(n[0], n[1]))
			}
		}
	}
	return false
}

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// boxSegDist is the 2-D distance from the footprint of b to the segment
// from p to q, 0 when they meet.
func boxSegDist(b world.Box, p, q geom.Vec2) float64 {
	if b.Contains(p) {
		return 0
	}
	cs := b.Corners()
	d := math.Inf(1)
	for k := range 4 {
		d = math.Min(d, geom.SegmentSegmentDist(p, q, cs[k], cs[(k+1)%4]))
	}
	return d
}

// cellQueue is a binary min-heap of grid cells by priority, ties by
// insertion order (so the search is deterministic).
type cellQueue struct {
	items []cellItem
	n     int32
}

type cellItem struct {
	pri, seq, cell int32
}

func (q *cellQueue) len() int { return len(q.items) }

func (q *cellQueue) less(a, b int) bool {
	x, y := q.items[a], q.items[b]
	return x.pri < y.pri || x.pri == y.pri && x.seq < y.seq
}

func (q *cellQueue) push(cell, pri int32) {
	q.items = append(q.items, cellItem{pri: pri, seq: q.n, cell: cell})
	q.n++
	for i := len(q.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

func (q *cellQueue) pop() int32 {
	top := q.items[0].cell
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items = q.items[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}

// segDist is the distance from p to the segment from a along unit u for
// length.
func segDist(p, a, b, u geom.Vec2, length float64) float64 {
	q := geom.Vec2{X: p.X - a.X, Y: p.Y - a.Y}
	s := q.X*u.X + q.Y*u.Y
	switch {
	case s <= 0:
		return q.Norm()
	case s >= length:
		return geom.Vec2{X: p.X - b.X, Y: p.Y - b.Y}.Norm()
	}
	return math.Abs(q.X*(-u.Y) + q.Y*u.X)
}

// UnspawnedFindings returns a finding for every box Aerialist's Gazebo
// does not spawn (AerialistSpawns).
func UnspawnedFindings(boxes []world.Box) []LintFinding {
	var out []LintFinding
	for i, b := range boxes {
		if finiteBox(b) && !AerialistSpawns(b) {
			out = append(out, LintFinding{Kind: LintUnspawned, Obstacle: i + 1,
				Msg: fmt.Sprintf("obstacle %d: r = %g° is a yaw of %.3g rad, which Python prints in exponent notation: Aerialist's Gazebo does not spawn the box", i+1, b.R, -b.R*math.Pi/180)})
		}
	}
	return out
}

// Duplicates returns, for each test of a suite (its boxes), the index of
// the first earlier test whose footprint union has IoU 1 (within 1e-9)
// with it, or −1. iou computes the IoU of two tests' footprint unions
// (score.BoxIoU); nil entries (unreadable tests) are skipped.
func Duplicates(tests [][]world.Box, iou func(a, b []world.Box) (float64, error)) ([]int, error) {
	out := make([]int, len(tests))
	for i := range tests {
		out[i] = -1
		if tests[i] == nil {
			continue
		}
		for j := range i {
			if tests[j] == nil || out[j] >= 0 {
				continue
			}
			v, err := iou(tests[j], tests[i])
			if err != nil {
				return nil, fmt.Errorf("scenario: IoU of tests %d and %d: %w", j+1, i+1, err)
			}
			if v >= 1-1e-9 {
				out[i] = j
				break
			}
		}
	}
	return out, nil
}
