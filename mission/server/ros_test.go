package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
)

// TestServeROS puts a demo daemon on a rosbridge graph (the server's own
// node, in fake time) and drives it as a ROS node would: commands on the
// command topic, the status topic, Trigger services (a refusal, an
// accepted one, dump_log), a goal of the execute_mission action to its
// result with feedback, a second goal canceled, and a refused goal.
func TestServeROS(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewDemo(adapter.KinematicConfig{}),
			Recorder: recorder(t), RecordDir: dir})
		g, err := rosbridge.NewServer(rosbridge.ServerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		rosDone := make(chan error, 1)
		go func() { rosDone <- s.ServeROS(ctx, g, server.ROSConfig{}) }()
		stopped := false
		defer func() { // also after a t.Fatal, so that the bubble ends
			if !stopped {
				cancel()
				<-rosDone
				_ = stop()
			}
		}()
		synctest.Wait()
		ns := server.DefaultROSNamespace + "/"
		if err := g.Advertise(ctx, ns+"command", server.ROSStringType); err != nil {
			t.Fatal(err)
		}

		var mu sync.Mutex
		var statuses []mission.Status
		var queues []server.ROSQueue
		if _, err := g.Subscribe(ctx, ns+"status", server.ROSStringType, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
			var msg ros.String
			var st mission.Status
			if json.Unmarshal(m, &msg) != nil || json.Unmarshal([]byte(msg.Data), &st) != nil {
				t.Errorf("status message %s", m)
			}
			mu.Lock()
			statuses = append(statuses, st)
			mu.Unlock()
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Subscribe(ctx, ns+"queue", server.ROSStringType, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
			var msg ros.String
			var q server.ROSQueue
			if json.Unmarshal(m, &msg) != nil || json.Unmarshal([]byte(msg.Data), &q) != nil {
				t.Errorf("queue message %s", m)
			}
			mu.Lock()
			queues = append(queues, q)
			mu.Unlock()
		}); err != nil {
			t.Fatal(err)
		}
		command := func(js string) {
			t.Helper()
			if err := g.Publish(ctx, ns+"command", ros.String{Data: js}); err != nil {
				t.Fatal(err)
			}
		}
		trigger := func(name string) ros.TriggerResponse {
			t.Helper()
			var r ros.TriggerResponse
			if err := g.CallService(ctx, ns+name, server.ROSTriggerType, struct{}{}, &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return r
		}

		time.Sleep(2500 * time.Millisecond) // fake time: the heartbeat republishes the unchanged status
		mu.Lock()
		if n := len(statuses); n < 2 || statuses[n-1].State != "IDLE" {
			t.Errorf("status topic before any command: %d messages, %+v", n, statuses)
		}
		mu.Unlock()

		if r := trigger("pause"); r.Success || !strings.HasPrefix(r.Message, mission.CodeWrongState+": ") {
			t.Errorf("pause in IDLE: %+v; want refused with wrong_state", r)
		}
		command(`{"event":"connect"}`)
		waitFor(t, s, "ARMING", 15*time.Second, state("ARMING"))
		command(`{"event":"armed"}`)
		waitFor(t, s, "TAKEOFF", 5*time.Second, state("TAKEOFF"))
		command(`{"event":"airborne"}`)
		waitFor(t, s, "EXECUTING", 30*time.Second, state("EXECUTING"))
		command(`{"event":"warp"}`) // refused and recorded; changes nothing
		synctest.Wait()
		if st := s.Status(); st.State != "EXECUTING" {
			t.Errorf("after an unknown command: %s", st.State)
		}

		// A goal flown to its result.
		var fb []server.MissionFeedback
		goal, err := g.SendGoal(ctx, ns+server.ROSActionName, server.ROSActionType,
			json.RawMessage(`{"waypoints":[{"x":4,"y":0,"z":-2,"speed":4},{"x":8,"y":0,"z":-2,"speed":4}]}`), func(m json.RawMessage) {
				var f server.MissionFeedback
				if err := json.Unmarshal(m, &f); err != nil {
					t.Errorf("feedback %s: %v", m, err)
				}
				mu.Lock()
				fb = append(fb, f)
				mu.Unlock()
			})
		if err != nil {
			t.Fatal(err)
		}
		res, err := goal.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mr server.MissionResult
		if err := json.Unmarshal(res.Values, &mr); err != nil {
			t.Fatal(err)
		}
		if res.Status != rosbridge.GoalSucceeded || !mr.Accepted || mr.State != "SUCCEEDED" || mr.Queue.State != "COMPLETED" ||
			mr.Queue.Completed != 2 || mr.Queue.Total != 2 || mr.Queue.CurrentIndex != nil || mr.Queue.Remaining != 0 {
			t.Errorf("goal 1: status %d, result %s", res.Status, res.Values)
		}
		mu.Lock()
		if len(fb) == 0 || fb[0].GoalID != mr.GoalID || fb[0].Total != 2 || fb[0].Index != 0 || fb[0].Remaining != 2 {
			t.Errorf("goal 1 feedback %+v", fb)
		}
		sawIndex1 := false
		for _, f := range fb {
			sawIndex1 = sawIndex1 || (f.Index == 1 && f.Remaining == 1)
		}
		if !sawIndex1 {
			t.Errorf("goal 1 feedback never reached waypoint 1: %+v", fb)
		}
		mu.Unlock()

		// A second goal, canceled after its first feedback.
		first := make(chan struct{})
		var once sync.Once
		goal2, err := g.SendGoal(ctx, ns+server.ROSActionName, server.ROSActionType,
			json.RawMessage(`{"waypoints":[{"x":30,"y":0,"z":-2,"speed":1},{"x":40,"y":0,"z":-2}]}`), func(json.RawMessage) {
				once.Do(func() { close(first) })
			})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-first:
		case <-time.After(30 * time.Second): // fake time
			t.Fatal("goal 2: no feedback within 30 s")
		}
		if err := goal2.Cancel(); err != nil {
			t.Fatal(err)
		}
		res, err = goal2.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mr = server.MissionResult{}
		if err := json.Unmarshal(res.Values, &mr); err != nil {
			t.Fatal(err)
		}
		if res.Status != rosbridge.GoalCanceled || mr.State != "CANCELED" || mr.Queue.State != "CANCELED" || mr.Dropped != 2 || mr.Reason != mission.CancelByCancel {
			t.Errorf("goal 2 canceled: status %d, result %s", res.Status, res.Values)
		}

		// A refused goal: nothing loaded, the queue unchanged.
		goal3, err := g.SendGoal(ctx, ns+server.ROSActionName, server.ROSActionType, json.RawMessage(`{"waypoints":[{"x":1,"y":0,"z":-2,"yaw":3}]}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, _ = goal3.Wait(ctx)
		mr = server.MissionResult{}
		_ = json.Unmarshal(res.Values, &mr)
		if res.Status != rosbridge.GoalAborted || mr.Accepted || mr.Code != mission.CodeInvalid || mr.Queue.State != "CANCELED" {
			t.Errorf("refused goal: status %d, result %s", res.Status, res.Values)
		}

		if r := trigger("land"); !r.Success {
			t.Errorf("land: %+v", r)
		}
		waitFor(t, s, "LANDED", 60*time.Second, state("LANDED"))
		if r := trigger("dump_log"); !r.Success || !strings.Contains(r.Message, "flight_events.csv") {
			t.Errorf("dump_log: %+v", r)
		}
		synctest.Wait()
		mu.Lock()
		if st := statuses[len(statuses)-1]; st.State != "LANDED" {
			t.Errorf("last status on the topic: %s; want LANDED", st.State)
		}
		sawTwo := false
		for _, q := range queues {
			sawTwo = sawTwo || (len(q.Waypoints) == 2 && q.Waypoints[0].X == 4 && q.MissionQueue.State == "RUNNING")
		}
		if !sawTwo {
			t.Errorf("queue topic never showed goal 1's two waypoints running (%d messages)", len(queues))
		}
		mu.Unlock()
		stopped = true
		cancel()
		if err := <-rosDone; err != nil {
			t.Error(err)
		}
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
}
