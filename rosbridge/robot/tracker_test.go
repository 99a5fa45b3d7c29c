package robot

import (
	"context"
	"encoding/json"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/traj"
)

// TestTrackerLink: a tracker node on the graph (the server's own node)
// gets the reference path in ENU and each odometry message, answers with
// a PoseStamped stamped like the odometry, and says done; the link turns
// the answer back into NED. An answer with another stamp is not taken,
// and the step times out.
func TestTrackerLink(t *testing.T) {
	ctx := context.Background()
	g, err := rosbridge.NewServer(rosbridge.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Builtin(KindQuad)
	l, err := NewTrackerLink(ctx, g, p, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Shutdown()
	if err := g.Advertise(ctx, p.Topics["setpoint_pose"].Name, p.Topics["setpoint_pose"].Type); err != nil {
		t.Fatal(err)
	}
	if err := g.Advertise(ctx, TrackerDoneTopic, "std_msgs/msg/Bool"); err != nil {
		t.Fatal(err)
	}
	var path ros.Path
	if _, err := g.Subscribe(ctx, TrackerPathTopic, "nav_msgs/msg/Path", rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
		_ = json.Unmarshal(m, &path)
	}); err != nil {
		t.Fatal(err)
	}
	var skewMS atomic.Int64
	if _, err := g.Subscribe(ctx, p.Topics["odometry"].Name, p.Topics["odometry"].Type, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
		var od ros.Odometry
		_ = json.Unmarshal(m, &od)
		go func() { // answer 1 m East of the vehicle (ENU x), done
			_ = g.Publish(ctx, TrackerDoneTopic, ros.Bool{Data: true})
			ps := ros.PoseStamped{Header: od.Header, Pose: od.Pose.Pose}
			ps.Header.Stamp = ros.TimeOf(od.Header.Stamp.Seconds() + float64(skewMS.Load())/1000)
			ps.Pose.Position.X++
			_ = g.Publish(ctx, p.Topics["setpoint_pose"].Name, ps)
		}()
	}); err != nil {
		t.Fatal(err)
	}
	wp := traj.Path{Type: "line", Frame: traj.World, Waypoints: []traj.Waypoint{{Pos: geom.Vec3{X: 1, Y: 2, Z: -3}, Speed: 1}}}
	o := track.Odom{T: 12.5, Pos: geom.Vec3{X: 10, Y: 20, Z: -5}}
	if err := l.Start(wp, o); err != nil {
		t.Fatal(err)
	}
	if len(path.Poses) != 1 || path.Poses[0].Pose.Position != (ros.Point{X: 2, Y: 1, Z: 3}) {
		t.Errorf("reference path %+v; want the waypoint in ENU (2, 1, 3)", path)
	}
	r, err := l.Step(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := (geom.Vec3{X: 10, Y: 21, Z: -5}); r.Cmd.Pos.Sub(want).Norm() > 1e-9 || !math.IsNaN(r.Cmd.Vel.X) || !r.Done {
		t.Errorf("answer %+v; want pos %v (1 m East), no velocity, done", r, want)
	}
	skewMS.Store(10)
	if _, err := l.Step(o); err == nil {
		t.Error("an answer stamped 10 ms off was taken")
	}
}
