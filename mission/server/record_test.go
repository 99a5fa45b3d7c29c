package server_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/shakedown-robotics/shakedown/flightlog"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// Recording a mission gives an MCAP file with the vehicle's positions, the
// queue as the ideal path and the black-box records as log lines.
func TestRecordMission(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{})})
	defer stop()
	var buf bytes.Buffer
	w, err := flightlog.New(&buf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Record(ctx, w) }()
	bg := context.Background()
	for _, step := range []struct {
		ev   mission.Event
		want string
	}{{mission.Connect{}, "ARMING"}, {mission.Arm{}, "TAKEOFF"}, {mission.Airborne{}, "EXECUTING"}} {
		if r, err := s.Do(bg, step.ev); err != nil || !r.Success {
			t.Fatalf("%s: %+v %v", step.ev.Name(), r, err)
		}
		waitFor(t, s, step.want, 10*time.Second, func(st mission.Status) bool { return st.State == step.want && !st.CommandPending })
	}
	if r, err := s.Do(bg, mission.Load{Waypoints: []mission.Waypoint{{X: 5, Z: -2}, {X: 10, Z: -2}}}); err != nil || !r.Success {
		t.Fatalf("mission: %+v %v", r, err)
	}
	waitFor(t, s, "COMPLETED", 10*time.Second, func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" })
	cancel()
	<-done
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := mcap.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for id, ch := range info.Channels {
		counts[ch.Topic] = info.Statistics.ChannelMessageCounts[id]
	}
	if counts[flightlog.TopicPose] < 3 || counts[flightlog.TopicEvents] < 8 || counts[flightlog.TopicIdeal] < 2 || counts[flightlog.TopicFlown] < 1 {
		t.Errorf("message counts %v: want poses, the transitions and commands, the queue and the flown path", counts)
	}
}
