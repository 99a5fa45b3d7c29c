package main

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/rosbridge"
)

// startRosbridgeServer runs a rosbridge server (the robot's
// rosbridge_server) on a loopback port for the test's lifetime.
func startRosbridgeServer(t *testing.T) (string, *rosbridge.Server) {
	t.Helper()
	srv, err := rosbridge.NewServer(rosbridge.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "ws://" + ln.Addr().String(), srv
}

// TestMissionServeRosbridgeRoslib is the roslib test of the
// mission manager on the ROS graph: `mission serve --rosbridge` joins a
// rosbridge server, and roslib (Node) drives it there: commands on the
// command topic, a refused and an accepted Trigger service, a goal with
// feedback and a result, a second goal canceled, dump_log.
func TestMissionServeRosbridgeRoslib(t *testing.T) {
	node := needRoslib(t)
	url, _ := startRosbridgeServer(t)
	dir := t.TempDir()
	_, stderr, stop := serveMission(t, "--rosbridge", url, "--speed", "10", "--token-file", filepath.Join(dir, "tok"),
		"--record-dir", dir, "--dump-on-shutdown=false")
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v; stderr %s", err, stderr)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type trigger struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
	}
	var got struct {
		Services        []string                 `json:"services"`
		States          []string                 `json:"states"`
		First           string                   `json:"first"`
		ResumeNotPaused trigger                  `json:"resumeNotPaused"`
		Result          server.MissionResult     `json:"result"`
		Feedback        []server.MissionFeedback `json:"feedback"`
		Cancel          struct {
			Error  string                `json:"error"`
			Values *server.MissionResult `json:"values"`
		} `json:"cancel"`
		Land    trigger `json:"land"`
		DumpLog trigger `json:"dumpLog"`
	}
	runNode(t, ctx, node, "mission.mjs", &got, url)
	for _, sv := range server.ROSServices {
		if !slices.Contains(got.Services, server.DefaultROSNamespace+"/"+sv) {
			t.Errorf("rosapi services %v lack %s", got.Services, sv)
		}
	}
	if got.First != "IDLE" || !slices.Contains(got.States, "EXECUTING") || got.States[len(got.States)-1] != "LANDED" {
		t.Errorf("states on the status topic %v (first %s)", got.States, got.First)
	}
	if got.ResumeNotPaused.Success || !strings.HasPrefix(got.ResumeNotPaused.Message, "wrong_state") {
		t.Errorf("resume while not paused: %+v; want refused (wrong_state)", got.ResumeNotPaused)
	}
	r := got.Result
	if !r.Accepted || r.State != "SUCCEEDED" || r.Queue.State != "COMPLETED" || r.Queue.Completed != 3 || r.Queue.Total != 3 {
		t.Errorf("goal 1 result %+v", r)
	}
	idx := map[int]bool{}
	for _, f := range got.Feedback {
		if f.GoalID != r.GoalID || f.Total != 3 {
			t.Errorf("feedback %+v of goal %d", f, r.GoalID)
		}
		idx[f.Index] = true
	}
	if !idx[0] || !idx[1] || !idx[2] {
		t.Errorf("feedback indexes %v; want 0, 1 and 2 (%d messages)", idx, len(got.Feedback))
	}
	c := got.Cancel
	if !strings.Contains(c.Error, "Action was canceled") || c.Values == nil || c.Values.State != "CANCELED" ||
		c.Values.Queue.State != "CANCELED" || c.Values.Dropped != 2 {
		t.Errorf("goal 2 canceled: %+v", c)
	}
	if !got.Land.Success || !got.DumpLog.Success || !strings.Contains(got.DumpLog.Message, filepath.Join(dir, "flight_events.csv")) {
		t.Errorf("land %+v, dump_log %+v", got.Land, got.DumpLog)
	}
	t.Logf("states %v; %d feedback messages for goal 1", got.States, len(got.Feedback))
}
