package robot

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/track/extern"
	"github.com/shakedown-robotics/shakedown/traj"
)

// Topics of a ROS tracker beyond the profile's odometry and setpoints.
const (
	TrackerPathTopic = "/tracker/reference_path" // nav_msgs/msg/Path, ENU, published at each start
	TrackerDoneTopic = "/tracker/done"           // std_msgs/msg/Bool, published by the tracker: true once it finished the path
)

// TrackerLink is an extern.Link to a ROS 2 tracker node: at Start it
// publishes the reference path (nav_msgs/Path, the odom frame, ENU) on
// TrackerPathTopic, and at each Step the vehicle's odometry
// (nav_msgs/Odometry, stamped with the simulated time) on the profile's
// odometry topic; the node answers with a setpoint on the profile's
// setpoint_pose (PoseStamped) or setpoint_twist (TwistStamped) topic,
// stamped with the odometry's stamp it answers, and says it is done on
// TrackerDoneTopic. Step waits for that answer, so simulated time stands
// still while the node computes (lockstep).
type TrackerLink struct {
	n       rosbridge.Node
	p       *Profile
	ctx     context.Context
	timeout time.Duration
	unsubs  []func()

	mu    sync.Mutex
	want  float64 // the stamp Step waits for; NaN = none
	got   chan extern.Reply
	done  bool
	start float64
}

var _ extern.Link = (*TrackerLink)(nil)

// NewTrackerLink advertises the odometry and path topics on n and
// subscribes to the setpoints and the done topic. An answer that takes
// longer than timeout of wall time (0 = 10 s) fails the step.
func NewTrackerLink(ctx context.Context, n rosbridge.Node, p *Profile, timeout time.Duration) (*TrackerLink, error) {
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	l := &TrackerLink{n: n, p: p, ctx: ctx, timeout: timeout, want: math.NaN(), got: make(chan extern.Reply, 1)}
	od := p.Topics["odometry"]
	if err := n.Advertise(ctx, od.Name, od.Type); err != nil {
		return nil, err
	}
	if err := n.Advertise(ctx, TrackerPathTopic, "nav_msgs/msg/Path"); err != nil {
		return nil, err
	}
	sub := func(name, typ string, fn func(json.RawMessage) error) error {
		u, err := n.Subscribe(ctx, name, typ, rosbridge.SubscribeOptions{}, func(m json.RawMessage) { _ = fn(m) })
		if err == nil {
			l.unsubs = append(l.unsubs, u)
		}
		return err
	}
	nan := math.NaN()
	nan3 := geom.Vec3{X: nan, Y: nan, Z: nan}
	pose, twist := p.Topics["setpoint_pose"], p.Topics["setpoint_twist"]
	if err := sub(pose.Name, pose.Type, func(m json.RawMessage) error {
		var ps ros.PoseStamped
		if err := json.Unmarshal(m, &ps); err != nil {
			return err
		}
		c := track.Command{Pos: NED(ofPoint(ps.Pose.Position)), Vel: nan3, Acc: nan3, Yaw: nan}
		if q := ofQuat(ps.Pose.Orientation); q.Norm() > 0.5 {
			c.Yaw = AttNED(q.Normalize()).Yaw()
		}
		l.answer(ps.Header.Stamp.Seconds(), c)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := sub(twist.Name, twist.Type, func(m json.RawMessage) error {
		var ts ros.TwistStamped
		if err := json.Unmarshal(m, &ts); err != nil {
			return err
		}
		l.answer(ts.Header.Stamp.Seconds(), track.Command{Pos: nan3, Vel: NED(ofVec(ts.Twist.Linear)), Acc: nan3, Yaw: nan})
		return nil
	}); err != nil {
		return nil, err
	}
	if err := sub(TrackerDoneTopic, "std_msgs/msg/Bool", func(m json.RawMessage) error {
		var b ros.Bool
		if err := json.Unmarshal(m, &b); err != nil {
			return err
		}
		l.mu.Lock()
		l.done = l.done || b.Data
		l.mu.Unlock()
		return nil
	}); err != nil {
		return nil, err
	}
	return l, nil
}

// answer takes a setpoint stamped stamp: the answer to the step waiting
// for it (stamps are nanoseconds: a microsecond apart is the same), or
// one that is late or early and ignored.
func (l *TrackerLink) answer(stamp float64, c track.Command) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if math.IsNaN(l.want) || math.Abs(stamp-l.want) > 1e-6 {
		return
	}
	for _, x := range []float64{c.Pos.X, c.Pos.Y, c.Pos.Z, c.Vel.X, c.Vel.Y, c.Vel.Z} {
		if math.Abs(x) > 1e4 {
			return // not finite or absurd: no answer (the step times out)
		}
	}
	l.want = math.NaN()
	l.got <- extern.Reply{Cmd: c, Done: l.done}
}

// Start publishes the reference path.
func (l *TrackerLink) Start(p traj.Path, o track.Odom) error {
	l.mu.Lock()
	l.done, l.start = false, o.T
	l.mu.Unlock()
	frame := l.p.Frames.Odom
	msg := ros.Path{Header: header(o.T, frame), Poses: make([]ros.PoseStamped, len(p.Waypoints))}
	for i, w := range p.Waypoints {
		msg.Poses[i] = ros.PoseStamped{Header: header(o.T, frame), Pose: ros.Pose{Position: point(ENU(w.Pos)),
			Orientation: quat(AttENU(geom.QuatEuler(0, 0, w.Yaw)))}}
	}
	return l.n.Publish(l.ctx, TrackerPathTopic, msg)
}

// Step publishes the odometry and waits for the answer to it.
func (l *TrackerLink) Step(o track.Odom) (extern.Reply, error) {
	stamp := ros.TimeOf(o.T)
	l.mu.Lock()
	l.want = stamp.Seconds()
	select {
	case <-l.got: // a stale answer
	default:
	}
	l.mu.Unlock()
	var od ros.Odometry
	od.Header = header(o.T, l.p.Frames.Odom)
	od.ChildFrameID = l.p.Frames.Base
	att := AttENU(geom.QuatEuler(0, 0, o.Yaw))
	od.Pose.Pose = ros.Pose{Position: point(ENU(o.Pos)), Orientation: quat(att)}
	od.Twist.Twist = ros.Twist{Linear: vec(FLU(geom.QuatEuler(0, 0, o.Yaw).RotateInv(o.Vel)))}
	if err := l.n.Publish(l.ctx, l.p.Topics["odometry"].Name, od); err != nil {
		return extern.Reply{}, err
	}
	t := time.NewTimer(l.timeout) // wall time: how long a node may think
	defer t.Stop()
	select {
	case r := <-l.got:
		return r, nil
	case <-t.C:
		return extern.Reply{}, fmt.Errorf("no setpoint stamped %.3f s on %s or %s within %v", o.T,
			l.p.Topics["setpoint_pose"].Name, l.p.Topics["setpoint_twist"].Name, l.timeout)
	case <-l.ctx.Done():
		return extern.Reply{}, l.ctx.Err()
	}
}

// Close ends one trajectory; the link stays for the next (see Shutdown).
func (l *TrackerLink) Close() error { return nil }

// Shutdown ends the subscriptions.
func (l *TrackerLink) Shutdown() {
	for _, u := range l.unsubs {
		u()
	}
}
