// Package extern plugs trackers that run outside Shakedown into the
// benchmark: a Tracker wraps a Link that carries the reference path and the
// odometry out and the tracker's setpoints back. Process is the link to a
// program over JSON lines on its stdin and stdout (bench --tracker
// exec:CMD); package rosbridge/robot has the link to a ROS 2 tracker node
// (bench --tracker ros:ws://…).
//
// The benchmark waits for every answer: simulated time stands still while
// the tracker thinks, so a slow tracker is judged exactly like a fast one
// and a run is the same on a loaded machine as on an idle one.
//
// The exec protocol, one JSON object per line, NED (x North, y East, z
// Down), metres, seconds, radians:
//
//	→ {"op":"start","type":"Circle","frame":"NED","path":[{"x":…,"y":…,"z":…,"speed":…,"yaw":…},…],"odom":{…}}
//	← {"ok":true}                                        (or {"error":"…"})
//	→ {"op":"odom","t":12.3,"pos":[x,y,z],"vel":[vx,vy,vz],"yaw":0.1}
//	← {"pos":[x,y,z],"vel":[vx,vy,vz],"acc":[ax,ay,az],"yaw":0.1,"progress":0.4,"done":false}
//
// In a reply pos, vel, acc and yaw are optional (absent or null: not
// commanded); at least pos or vel must be given. Unknown fields, values
// that are not finite or beyond 10 km (10 km/s, …) and lines over 64 KiB
// are errors; the first error ends the trajectory as a failure.
package extern

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/traj"
)

// MaxLine is the longest reply line accepted.
const MaxLine = 64 << 10

// maxAbs bounds every number of a reply.
const maxAbs = 1e4

// ErrReply is a reply that breaks the protocol.
var ErrReply = errors.New("extern: bad reply")

// Reply is a tracker's answer to one odometry message.
type Reply struct {
	Cmd      track.Command
	Progress float64
	Done     bool
}

// Link is a tracker outside the process. Start sends the reference path
// (world frame, NED) and the vehicle's odometry and returns once the
// tracker accepted it; Step sends odometry and returns the tracker's
// answer to it.
type Link interface {
	Start(p traj.Path, o track.Odom) error
	Step(o track.Odom) (Reply, error)
	Close() error
}

// Tracker is a track.Tracker over a Link, asked at RateHz of vehicle time
// and holding its last command in between.
type Tracker struct {
	name   string
	link   Link
	period float64
	next   float64
	last   track.Command
	prog   float64
	done   bool
	err    error
}

var _ track.Tracker = (*Tracker)(nil)

// New returns a tracker named name over link, asked rateHz times a second
// of vehicle time (0 = 50 Hz).
func New(name string, link Link, rateHz float64) (*Tracker, error) {
	if rateHz == 0 {
		rateHz = 50
	}
	if !(rateHz >= 1 && rateHz <= 1000) {
		return nil, fmt.Errorf("extern: rate %v Hz: want 1 to 1000", rateHz)
	}
	return &Tracker{name: name, link: link, period: 1 / rateHz}, nil
}

// Name returns the tracker's name.
func (t *Tracker) Name() string { return t.name }

// Start sends the path.
func (t *Tracker) Start(p traj.Path, o track.Odom) error {
	if p.Frame != traj.World {
		return track.ErrNotWorld
	}
	t.done, t.prog, t.err, t.next = false, 0, nil, o.T
	t.last = hold(o)
	if err := t.link.Start(p, o); err != nil {
		return fmt.Errorf("extern: %s: start: %w", t.name, err)
	}
	return nil
}

// hold is the command that keeps the vehicle where it is.
func hold(o track.Odom) track.Command {
	nan := math.NaN()
	return track.Command{Pos: o.Pos, Vel: geom.Vec3{}, Acc: geom.Vec3{X: nan, Y: nan, Z: nan}, Yaw: nan}
}

// Update asks the tracker when its period is due; after an error it holds.
func (t *Tracker) Update(o track.Odom) track.Command {
	if t.err != nil || t.done || o.T+1e-9 < t.next {
		return t.last
	}
	t.next += t.period
	if t.next <= o.T {
		t.next = o.T + t.period
	}
	r, err := t.link.Step(o)
	if err != nil {
		t.err = fmt.Errorf("extern: %s at t=%.3f s: %w", t.name, o.T, err)
		t.last = hold(o)
		return t.last
	}
	t.last, t.prog, t.done = r.Cmd, r.Progress, r.Done
	return t.last
}

// Progress returns the tracker's last reported progress.
func (t *Tracker) Progress() float64 { return t.prog }

// Done reports whether the tracker finished, or failed (see Err).
func (t *Tracker) Done() bool { return t.done || t.err != nil }

// Err returns the error that ended the tracker, nil if none.
func (t *Tracker) Err() error { return t.err }

// Close closes the link.
func (t *Tracker) Close() error { return t.link.Close() }

// Wire types.

// PathPoint is a waypoint of the start message.
type PathPoint struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Z     float64 `json:"z"`
	Speed float64 `json:"speed"`
	Yaw   float64 `json:"yaw"`
}

// OdomMsg is the odometry message.
type OdomMsg struct {
	Op  string     `json:"op"`
	T   float64    `json:"t"`
	Pos [3]float64 `json:"pos"`
	Vel [3]float64 `json:"vel"`
	Yaw float64    `json:"yaw"`
}

// StartMsg is the start message.
type StartMsg struct {
	Op    string      `json:"op"`
	Type  string      `json:"type"`
	Frame string      `json:"frame"`
	Path  []PathPoint `json:"path"`
	Odom  OdomMsg     `json:"odom"`
}

func arr(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }

// OdomOf is o as a message.
func OdomOf(o track.Odom) OdomMsg {
	return OdomMsg{Op: "odom", T: o.T, Pos: arr(o.Pos), Vel: arr(o.Vel), Yaw: o.Yaw}
}

// StartOf is the start message of p and o.
func StartOf(p traj.Path, o track.Odom) StartMsg {
	m := StartMsg{Op: "start", Type: p.Type, Frame: "NED", Odom: OdomOf(o), Path: make([]PathPoint, len(p.Waypoints))}
	for i, w := range p.Waypoints {
		m.Path[i] = PathPoint{X: w.Pos.X, Y: w.Pos.Y, Z: w.Pos.Z, Speed: w.Speed, Yaw: w.Yaw}
	}
	return m
}

type wireReply struct {
	Pos      *[3]float64 `json:"pos"`
	Vel      *[3]float64 `json:"vel"`
	Acc      *[3]float64 `json:"acc"`
	Yaw      *float64    `json:"yaw"`
	Progress *float64    `json:"progress"`
	Done     bool        `json:"done"`
	OK       bool        `json:"ok"`
	Error    string      `json:"error"`
}

func decodeStrict(line []byte, v any) error {
	if len(line) > MaxLine {
		return fmt.Errorf("%w: line of %d bytes (at most %d)", ErrReply, len(line), MaxLine)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrReply, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value on the line", ErrReply)
	}
	return nil
}

// ParseStartReply reads the answer to the start message.
func ParseStartReply(line []byte) error {
	var w wireReply
	if err := decodeStrict(line, &w); err != nil {
		return err
	}
	if w.Error != "" {
		return fmt.Errorf("the tracker refused the path: %.200s", w.Error)
	}
	if !w.OK {
		return fmt.Errorf(`%w: want {"ok":true} or {"error":"…"}`, ErrReply)
	}
	return nil
}

// ParseReply reads the answer to an odometry message.
func ParseReply(line []byte) (Reply, error) {
	var w wireReply
	if err := decodeStrict(line, &w); err != nil {
		return Reply{}, err
	}
	if w.Error != "" {
		return Reply{}, fmt.Errorf("the tracker failed: %.200s", w.Error)
	}
	nan := math.NaN()
	nan3 := geom.Vec3{X: nan, Y: nan, Z: nan}
	r := Reply{Cmd: track.Command{Pos: nan3, Vel: nan3, Acc: nan3, Yaw: nan}, Done: w.Done}
	vec := func(field string, a *[3]float64, dst *geom.Vec3) error {
		if a == nil {
			return nil
		}
		for i, v := range a {
			if math.IsNaN(v) || math.Abs(v) > maxAbs {
				return fmt.Errorf("%w: %s[%d] = %v: want a finite number within ±%g", ErrReply, field, i, v, maxAbs)
			}
		}
		*dst = geom.Vec3{X: a[0], Y: a[1], Z: a[2]}
		return nil
	}
	if err := vec("pos", w.Pos, &r.Cmd.Pos); err != nil {
		return Reply{}, err
	}
	if err := vec("vel", w.Vel, &r.Cmd.Vel); err != nil {
		return Reply{}, err
	}
	if err := vec("acc", w.Acc, &r.Cmd.Acc); err != nil {
		return Reply{}, err
	}
	if w.Pos == nil && w.Vel == nil && !w.Done {
		return Reply{}, fmt.Errorf("%w: neither pos nor vel given", ErrReply)
	}
	if w.Pos == nil && w.Vel == nil { // done without a setpoint: hold still
		r.Cmd.Vel = geom.Vec3{}
	}
	if w.Yaw != nil {
		if math.IsNaN(*w.Yaw) || math.Abs(*w.Yaw) > 100 {
			return Reply{}, fmt.Errorf("%w: yaw = %v: want radians within ±100", ErrReply, *w.Yaw)
		}
		r.Cmd.Yaw = *w.Yaw
	}
	if w.Progress != nil {
		p := *w.Progress
		if !(p >= 0 && p <= 1) {
			return Reply{}, fmt.Errorf("%w: progress = %v: want 0 to 1", ErrReply, p)
		}
		r.Progress = p
	}
	return r, nil
}
