package traj

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Trajectory types of the benchmark, spelled as AirStack spells them.
const (
	Circle    = "Circle"
	Figure8   = "Figure8"
	Racetrack = "Racetrack"
	Line      = "Line"
)

// Types lists the benchmark's trajectory types in AirStack's sweep order.
func Types() []string { return []string{Circle, Figure8, Racetrack, Line} }

// Errors of Generate and ParseParam; a *ParamError wraps the last two.
var (
	ErrUnknownType  = errors.New("traj: unknown trajectory type")
	ErrUnknownParam = errors.New("traj: unknown parameter")
	ErrBadParam     = errors.New("traj: bad parameter value")
)

// ParamError names the trajectory type, the parameter and what is wrong
// with its value.
type ParamError struct {
	Type   string // trajectory type; "" when not known yet
	Param  string
	Value  string
	Reason string
	Err    error // ErrUnknownParam or ErrBadParam
}

func (e *ParamError) Error() string {
	var b strings.Builder
	b.WriteString("traj: ")
	if e.Type != "" {
		b.WriteString(e.Type)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "parameter %q", e.Param)
	if e.Value != "" {
		fmt.Fprintf(&b, " = %s", e.Value)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns ErrUnknownParam or ErrBadParam.
func (e *ParamError) Unwrap() error { return e.Err }

// Frame says which frame a path's coordinates are in.
type Frame int

// Frames.
const (
	// Body is AirStack's base_link at dispatch: x forward, y left, z up,
	// the drone at the origin; yaw counter-clockwise from x.
	Body Frame = iota
	// World is Shakedown's local NED (x North, y East, z Down); yaw is the
	// heading, 0 = North, positive toward East.
	World
)

func (f Frame) String() string {
	if f == World {
		return "world (NED)"
	}
	return "body (FLU)"
}

// Waypoint is one waypoint of AirStack's WaypointXYZVYaw message
// (airstack.md §1.2). It has no time: NewTimed derives times from distances
// and speeds.
type Waypoint struct {
	Pos   geom.Vec3 // m, in the path's frame
	Speed float64   // m/s, scalar speed at the waypoint
	Yaw   float64   // rad, in the path's frame
	Acc   geom.Vec3 // m/s², get_accelerations' value (Figure8, Racetrack; else 0)
}

// Path is a generated trajectory.
type Path struct {
	Type      string
	Frame     Frame
	Waypoints []Waypoint
}

// Pose is the pose snapshot taken just before dispatch: position in NED and
// heading.
type Pose struct {
	Pos geom.Vec3 // m, NED
	Yaw float64   // rad, heading
}

// World returns p transformed from the body frame to NED with the pose
// snapshot at dispatch: rotated by the yaw only (no roll or pitch) and
// translated, as AirStack's ideal path is (airstack.md §2.3). A body point
// (x forward, y left, z up) lands at Pos + x·forward − y·right − z·down.
// Yaws turn from counter-clockwise-from-forward to headings. A path already
// in the world frame is returned unchanged.
func (p Path) World(pose Pose) Path {
	if p.Frame == World {
		return p
	}
	out := Path{Type: p.Type, Frame: World, Waypoints: make([]Waypoint, len(p.Waypoints))}
	for i, w := range p.Waypoints {
		out.Waypoints[i] = Waypoint{
			Pos:   pose.Pos.Add(bodyToNED(w.Pos, pose.Yaw)),
			Speed: w.Speed,
			Yaw:   geom.WrapPi(pose.Yaw - w.Yaw),
			Acc:   bodyToNED(w.Acc, pose.Yaw),
		}
	}
	return out
}

// bodyToNED turns an FLU vector into NED, rotating by the heading yaw.
func bodyToNED(v geom.Vec3, yaw float64) geom.Vec3 {
	s, c := math.Sincos(yaw)
	// FLU → FRD: (x, −y, −z); then the heading rotation about down.
	return geom.Vec3{X: c*v.X + s*v.Y, Y: s*v.X - c*v.Y, Z: -v.Z}
}

// Positions returns the waypoint positions in order.
func (p Path) Positions() []geom.Vec3 {
	out := make([]geom.Vec3, len(p.Waypoints))
	for i, w := range p.Waypoints {
		out[i] = w.Pos
	}
	return out
}

// Length returns the 3-D length of the polyline through the waypoints.
func (p Path) Length() float64 {
	var l float64
	for i := 1; i < len(p.Waypoints); i++ {
		l += p.Waypoints[i].Pos.Sub(p.Waypoints[i-1].Pos).Norm()
	}
	return l
}

// param describes one attribute of a generator: its default (the
// benchmark's TRAJECTORY_CONFIGS, airstack.md §1.6) and its valid range.
type param struct {
	def      float64
	positive bool    // must be > 0 (else any finite value)
	max      float64 // upper bound on the magnitude
}

// Bounds on attribute values: they keep a path finite and its waypoint
// count reasonable (a Line has one waypoint per 0.5 m).
const (
	maxDistM   = 1000
	maxSpeedMS = 20
	maxAccMS2  = 50
)

var (
	pDist   = func(def float64) param { return param{def: def, positive: true, max: maxDistM} }
	pSpeed  = func(def float64) param { return param{def: def, positive: true, max: maxSpeedMS} }
	pAcc    = param{def: 1, positive: true, max: maxAccMS2}
	pHeight = param{def: 0, max: maxDistM}
)

var specs = map[string]map[string]param{
	Circle:    {"radius": pDist(10), "velocity": pSpeed(2)},
	Figure8:   {"length": pDist(15), "width": pDist(8), "height": pHeight, "velocity": pSpeed(2), "max_acceleration": pAcc},
	Racetrack: {"length": pDist(30), "width": pDist(10), "height": pHeight, "velocity": pSpeed(3), "turn_velocity": pSpeed(1.5), "max_acceleration": pAcc},
	Line:      {"length": pDist(20), "height": pHeight, "velocity": pSpeed(2), "max_acceleration": pAcc},
}

// Params returns the attribute names of trajectory type typ, sorted; nil
// for an unknown type.
func Params(typ string) []string {
	s, ok := specs[typ]
	if !ok {
		return nil
	}
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Defaults returns the benchmark's default attributes of typ.
func Defaults(typ string) (map[string]float64, error) {
	s, ok := specs[typ]
	if !ok {
		return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownType, typ, strings.Join(Types(), ", "))
	}
	m := make(map[string]float64, len(s))
	for n, p := range s {
		m[n] = p.def
	}
	return m, nil
}

// Resolve returns the attributes of typ: the defaults with override applied.
// An attribute typ does not have, or a value out of range (a speed, radius,
// length, width or acceleration that is not > 0, a non-finite value, a
// Racetrack no longer than it is wide, a Line shorter than one 0.5-m step)
// is a *ParamError naming it.
func Resolve(typ string, override map[string]float64) (map[string]float64, error) {
	m, err := Defaults(typ)
	if err != nil {
		return nil, err
	}
	s := specs[typ]
	names := make([]string, 0, len(override))
	for n := range override {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := override[n]
		p, ok := s[n]
		if !ok {
			return nil, &ParamError{Type: typ, Param: n, Reason: fmt.Sprintf("not an attribute of %s (want %s)", typ, strings.Join(Params(typ), ", ")), Err: ErrUnknownParam}
		}
		if err := p.check(typ, n, v); err != nil {
			return nil, err
		}
		m[n] = v
	}
	switch typ {
	case Racetrack:
		if !(m["length"] > m["width"]) {
			return nil, &ParamError{Type: typ, Param: "length", Value: fmtF(m["length"]), Reason: fmt.Sprintf("must exceed the width %s", fmtF(m["width"])), Err: ErrBadParam}
		}
	case Line:
		if !(m["length"] > lineStepM) {
			return nil, &ParamError{Type: typ, Param: "length", Value: fmtF(m["length"]), Reason: "must exceed one 0.5-m step", Err: ErrBadParam}
		}
	}
	return m, nil
}

func (p param) check(typ, name string, v float64) error {
	bad := func(reason string) error {
		return &ParamError{Type: typ, Param: name, Value: fmtF(v), Reason: reason, Err: ErrBadParam}
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return bad("must be a finite number")
	case p.positive && !(v > 0):
		return bad("must be > 0")
	case math.Abs(v) > p.max:
		return bad(fmt.Sprintf("must be at most %g in magnitude", p.max))
	}
	return nil
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ParseParam parses one `name=value` or `Type.name=value` override, as given
// to --trajectory-param. typ is "" when the override names no type. The name
// is not checked against the generators here (Resolve does that).
func ParseParam(s string) (typ, name string, v float64, err error) {
	key, val, ok := strings.Cut(s, "=")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if !ok || key == "" {
		return "", "", 0, &ParamError{Param: s, Reason: "want name=value or Type.name=value", Err: ErrBadParam}
	}
	if t, n, dotted := strings.Cut(key, "."); dotted {
		if _, known := specs[t]; !known {
			return "", "", 0, fmt.Errorf("%w %q in %q (want one of %s)", ErrUnknownType, t, s, strings.Join(Types(), ", "))
		}
		typ, key = t, n
	}
	if key == "" || strings.ContainsAny(key, " \t.=") {
		return "", "", 0, &ParamError{Type: typ, Param: key, Reason: "not a parameter name", Err: ErrUnknownParam}
	}
	v, perr := strconv.ParseFloat(val, 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return "", "", 0, &ParamError{Type: typ, Param: key, Value: val, Reason: "not a finite number", Err: ErrBadParam}
	}
	return typ, key, v, nil
}

// Generate returns the path of type typ in the body frame, with the default
// attributes overridden by override.
func Generate(typ string, override map[string]float64) (Path, error) {
	m, err := Resolve(typ, override)
	if err != nil {
		return Path{}, err
	}
	var wps []Waypoint
	switch typ {
	case Circle:
		wps = genCircle(m["radius"], m["velocity"])
	case Figure8:
		wps = genFigure8(m["length"], m["width"], m["height"], m["velocity"], m["max_acceleration"])
	case Racetrack:
		wps = genRacetrack(m["length"], m["width"], m["height"], m["velocity"], m["turn_velocity"])
	case Line:
		wps = genLine(m["length"], m["height"], m["velocity"], m["max_acceleration"])
	}
	return Path{Type: typ, Frame: Body, Waypoints: wps}, nil
}
