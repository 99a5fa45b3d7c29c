package scenario

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/world"
)

// Rules are the validity rules a competition test's obstacles must follow
// (competition.md §3.5; the organisers' checker was not published, so the
// rules come from the README and reports).
//
// Every obstacle must in any case have finite fields, positive l, w and h,
// and z = 0 (obstacles stand on the ground in both editions). The rule that
// the mission must remain feasible (no wall across the whole path) needs a
// flight and is not checked here.
type Rules struct {
	// MaxObstacles is the most obstacles a test may have; 0 means no limit.
	MaxObstacles int
	// MinLW and MaxLW bound l and w, m (closed); MaxLW 0 means no upper limit.
	MinLW, MaxLW float64
	// MinH and MaxH bound h, m; MaxH 0 means no upper limit.
	MinH, MaxH float64
	// MinHExclusive makes the lower bound of h strict (h > MinH): taller
	// than the 10 m flight altitude, so that the drone cannot fly over.
	MinHExclusive bool
	// MinRDeg and MaxRDeg bound r, degrees (closed); MaxRDeg 0 means no
	// upper limit. Use math.Inf(-1) for no lower limit.
	MinRDeg, MaxRDeg float64
	// Area is the rectangle every obstacle's whole footprint must lie in
	// (the safe reading of the rules, as entrants' validators check it);
	// the zero Area means no limit.
	Area world.Area
	// Overlap allows obstacles whose footprints touch or overlap. Both
	// editions forbid it (Gazebo behaves non-deterministically).
	Overlap bool
}

// DefaultRules are the rules of the 2025 (SBFT and ICST) and 2026
// editions: at most 3 obstacles, l and w 2–20 m, h 10–25 m and above the
// 10 m flight altitude (the README's table says 10–25 and its text h > 10;
// the stricter reading is used), r 0–90°, footprint inside −40 ≤ x ≤ 30,
// 10 ≤ y ≤ 40, no overlap.
var DefaultRules = Rules{
	MaxObstacles:  3,
	MinLW:         2,
	MaxLW:         20,
	MinH:          10,
	MaxH:          25,
	MinHExclusive: true,
	MinRDeg:       0,
	MaxRDeg:       90,
	Area:          world.DefaultArea,
}

// Rules2024 are the rules of the 2024 (SBFT) edition: at most 4 obstacles,
// h > 10 m, footprint inside the same area, no overlap. Sizes and angles
// were not restricted.
var Rules2024 = Rules{
	MaxObstacles:  4,
	MinH:          10,
	MinHExclusive: true,
	MinRDeg:       math.Inf(-1),
	Area:          world.DefaultArea,
}

// Violation is one broken rule.
type Violation struct {
	Obstacle int    // 1-based index of the obstacle; 0 for the obstacle count
	Other    int    // 1-based index of the second obstacle of an overlap; 0 otherwise
	Field    string // "l", "w", "h", "x", "y", "z", "r", "count", "area" or "overlap"
	Msg      string // the whole message, e.g. "obstacle 2: w = 25 out of range [2, 20]"
}

func (v Violation) String() string { return v.Msg }

// ValidationError lists every rule a set of obstacles breaks.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.Msg
	}
	return "scenario: invalid obstacles: " + strings.Join(msgs, "; ")
}

// maxViolations bounds the list Check returns; the rest are counted.
const maxViolations = 100

// Check returns nil when the obstacles follow r, and otherwise a
// *ValidationError listing the violations in order: the count, then each
// obstacle's fields, its placement, and the overlapping pairs. When there
// are more obstacles than r.MaxObstacles, the test is invalid whatever the
// rest says, so only the first r.MaxObstacles are checked further: the
// overlap check stops at the first pair beyond them (issue 21: 16000
// boxes meant 128 million pairs and a 3.9 GB error). At most
// maxViolations violations are listed.
func (r Rules) Check(obs []world.Box) error {
	var vs []Violation
	more := 0
	add := func(i, other int, field, format string, args ...any) {
		if len(vs) == maxViolations {
			more++
			return
		}
		vs = append(vs, Violation{Obstacle: i, Other: other, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	checked := obs
	if r.MaxObstacles > 0 && len(obs) > r.MaxObstacles {
		add(0, 0, "count", "%d obstacles, at most %d allowed", len(obs), r.MaxObstacles)
		checked = obs[:r.MaxObstacles]
	}
	sound := make([]bool, len(checked)) // finite, so geometry means something
	for k, b := range checked {
		i := k + 1
		sound[k] = true
		for _, f := range [...]struct {
			name string
			v    float64
		}{{"l", b.L}, {"w", b.W}, {"h", b.H}, {"x", b.X}, {"y", b.Y}, {"z", b.Z}, {"r", b.R}} {
			if !finite(f.v) {
				add(i, 0, f.name, "obstacle %d: %s = %v is not a finite number", i, f.name, f.v)
				sound[k] = false
			}
		}
		if !sound[k] {
			continue
		}
		for _, f := range [...]struct {
			name string
			v    float64
		}{{"l", b.L}, {"w", b.W}} {
			if f.v <= 0 {
				add(i, 0, f.name, "obstacle %d: %s = %g must be positive", i, f.name, f.v)
			} else if f.v < r.MinLW || r.MaxLW > 0 && f.v > r.MaxLW {
				add(i, 0, f.name, "obstacle %d: %s = %g out of range %s", i, f.name, f.v, interval(r.MinLW, r.MaxLW, false))
			}
		}
		switch {
		case b.H <= 0:
			add(i, 0, "h", "obstacle %d: h = %g must be positive", i, b.H)
		case b.H < r.MinH || r.MinHExclusive && b.H == r.MinH || r.MaxH > 0 && b.H > r.MaxH:
			add(i, 0, "h", "obstacle %d: h = %g out of range %s", i, b.H, interval(r.MinH, r.MaxH, r.MinHExclusive))
		}
		if b.Z != 0 {
			add(i, 0, "z", "obstacle %d: z = %g, want 0 (obstacles stand on the ground)", i, b.Z)
		}
		if b.R < r.MinRDeg || r.MaxRDeg > 0 && b.R > r.MaxRDeg {
			add(i, 0, "r", "obstacle %d: r = %g out of range %s", i, b.R, interval(r.MinRDeg, r.MaxRDeg, false))
		}
		if r.Area != (world.Area{}) {
			for _, c := range b.Corners() {
				if !r.Area.Contains(c) {
					add(i, 0, "area", "obstacle %d: footprint leaves the placement area (corner (%.1f, %.1f))", i, c.X, c.Y)
					break
				}
			}
		}
	}
	if !r.Overlap {
		for a := range checked {
			for b := a + 1; b < len(checked) && more == 0; b++ {
				if sound[a] && sound[b] && checked[a].Overlaps(checked[b]) {
					add(a+1, b+1, "overlap", "obstacle %d and obstacle %d overlap", a+1, b+1)
				}
			}
		}
	}
	if more > 0 {
		vs = append(vs, Violation{Field: "more", Msg: fmt.Sprintf("and more (the first %d violations are listed)", maxViolations)})
	}
	if len(vs) > 0 {
		return &ValidationError{Violations: vs}
	}
	return nil
}

// CheckCaseStudy checks the obstacles of cs as Check does and returns a
// *ParseError naming cs.Source, the line of the first offending obstacle
// and its field ("simulation.obstacles[1].size.w"), wrapping the whole
// *ValidationError: the message a user can go to. Commands that check a
// case study's rules should call it rather than Check.
func (r Rules) CheckCaseStudy(cs *CaseStudy) error {
	err := r.Check(cs.Obstacles)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	pe := &ParseError{File: cs.Source, Field: "simulation.obstacles", Err: ve}
	v := ve.Violations[0]
	if v.Obstacle > 0 {
		pe.Field = fmt.Sprintf("simulation.obstacles[%d]", v.Obstacle-1)
		if f := violationKeys[v.Field]; f != "" {
			pe.Field += "." + f
		}
		if len(cs.ObstacleLines) == len(cs.Obstacles) {
			pe.Line = cs.ObstacleLines[v.Obstacle-1]
		}
	} else if len(cs.ObstacleLines) == len(cs.Obstacles) && len(cs.ObstacleLines) > 0 {
		pe.Line = cs.ObstacleLines[0]
	}
	return pe
}

// violationKeys maps a Violation's field to the YAML key it is about.
var violationKeys = map[string]string{"l": "size.l", "w": "size.w", "h": "size.h",
	"x": "position.x", "y": "position.y", "z": "position.z", "r": "position.r"}

// interval formats the range [lo, hi], "(lo, hi]" when the lower bound is
// strict, with hi = 0 meaning no upper limit.
func interval(lo, hi float64, loOpen bool) string {
	open, hiS := "[", "+Inf)"
	if loOpen {
		open = "("
	}
	if hi > 0 {
		hiS = strconv.FormatFloat(hi, 'g', -1, 64) + "]"
	}
	return open + strconv.FormatFloat(lo, 'g', -1, 64) + ", " + hiS
}
