// Package externtest is a tracker outside the process for tests: a carrot
// that runs along the reference at its time law (the position and velocity
// of the timed path at the time since start) and is done once its clock
// passed the path's end and the vehicle is within ArriveM of it. It speaks
// package extern's exec protocol (Serve) and is what tests start as
// `--tracker exec:…`, usually by running their own test binary again
// (HelperEnv).
package externtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/track/extern"
	"github.com/shakedown-robotics/shakedown/traj"
)

// HelperEnv is the environment variable that turns a test binary into the
// tracker (see Main).
const HelperEnv = "SHAKEDOWN_EXTERNTEST_TRACKER"

// ArriveM is how close to the end the vehicle must be for Done.
const ArriveM = 0.5

// Carrot is the tracker's state.
type Carrot struct {
	path *traj.Timed
	t0   float64
	end  geom.Vec3
}

// Start takes the start message.
func (c *Carrot) Start(m extern.StartMsg) error {
	wps := make([]traj.Waypoint, len(m.Path))
	for i, p := range m.Path {
		wps[i] = traj.Waypoint{Pos: geom.Vec3{X: p.X, Y: p.Y, Z: p.Z}, Speed: p.Speed, Yaw: p.Yaw}
	}
	tm, err := traj.NewTimed(wps)
	if err != nil {
		return err
	}
	c.path, c.t0 = tm, m.Odom.T
	pts := tm.Points()
	c.end = pts[len(pts)-1].Pos
	return nil
}

// Reply is the answer to odometry o.
func (c *Carrot) Reply(o extern.OdomMsg) map[string]any {
	t := o.T - c.t0
	p := c.path.At(math.Min(t, c.path.Duration()))
	pos := geom.Vec3{X: o.Pos[0], Y: o.Pos[1], Z: o.Pos[2]}
	done := t >= c.path.Duration() && pos.Sub(c.end).Norm() <= ArriveM
	vel := p.Vel
	if t >= c.path.Duration() {
		vel = geom.Vec3{}
	}
	return map[string]any{"pos": [3]float64{p.Pos.X, p.Pos.Y, p.Pos.Z}, "vel": [3]float64{vel.X, vel.Y, vel.Z},
		"progress": math.Min(1, math.Max(0, t/c.path.Duration())), "done": done}
}

// Serve answers the protocol on r and w until r ends.
func Serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	enc := json.NewEncoder(w)
	var c Carrot
	for sc.Scan() {
		var op struct {
			Op string `json:"op"`
		}
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			return err
		}
		var out any
		switch op.Op {
		case "start":
			var m extern.StartMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				return err
			}
			out = map[string]any{"ok": true}
			if err := c.Start(m); err != nil {
				out = map[string]any{"error": err.Error()}
			}
		case "odom":
			var m extern.OdomMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				return err
			}
			if c.path == nil {
				out = map[string]any{"error": "odometry before start"}
			} else {
				out = c.Reply(m)
			}
		default:
			return fmt.Errorf("externtest: unknown op %q", op.Op)
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return sc.Err()
}
