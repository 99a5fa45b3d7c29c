package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// rosTrackerStats is the summary tracker.mjs prints when its stdin ends.
type rosTrackerStats struct {
	Paths       int     `json:"paths"`
	Answered    int     `json:"answered"`
	Done        int     `json:"done"`
	Unanswered  int     `json:"unanswered"`
	MaxOffPathM float64 `json:"maxOffPathM"`
}

// startROSTracker runs the roslib tracker node (tracker.mjs, pure pursuit)
// on the rosbridge graph at url and waits until its subscriptions are on
// the server. The returned function ends it (closing its stdin) and gives
// its summary.
func startROSTracker(t *testing.T, ctx context.Context, node, url string) func() rosTrackerStats {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, "tracker.mjs", url)
	cmd.Dir = roslibDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	line := func(what string, v any) {
		t.Helper()
		if !lines.Scan() {
			_ = cmd.Wait()
			t.Fatalf("tracker.mjs printed no %s: %v\nstderr: %s", what, lines.Err(), stderr.String())
		}
		if err := json.Unmarshal(lines.Bytes(), v); err != nil {
			t.Fatalf("tracker.mjs %s %q: %v", what, lines.Bytes(), err)
		}
	}
	var ready struct {
		Ready bool `json:"ready"`
	}
	line("ready line", &ready)
	return func() rosTrackerStats {
		t.Helper()
		_ = stdin.Close()
		var s rosTrackerStats
		line("summary", &s)
		if err := cmd.Wait(); err != nil {
			t.Errorf("tracker.mjs: %v\nstderr: %s", err, stderr.String())
		}
		return s
	}
}

// TestBenchROSTracker is the roslib tracker test: a pure-pursuit
// tracker node written in JavaScript with roslib joins a loopback rosbridge
// server, and `bench --tracker ros:ws://…` flies Circle and Line with it in
// lockstep (odometry out, a setpoint with the same stamp back); both
// trajectories succeed and their metrics come out.
func TestBenchROSTracker(t *testing.T) {
	node := needRoslib(t)
	url, _ := startRosbridgeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stop := startROSTracker(t, ctx, node, url)
	passed, failed, m := benchExtern(t, "ros:"+url)
	s := stop()
	t.Logf("tracker.mjs: %+v", s)
	checkTrajectoryMetrics(t, passed, failed, m)
	for id, ms := range m {
		// Every metric of the flight is a finite number: no sentinel
		// (timeout, aborted) in any of them.
		var logged []string
		for k, x := range ms {
			v, _ := x.(map[string]any)
			f, num := v["value"].(float64)
			if !num || math.IsNaN(f) || math.IsInf(f, 0) {
				t.Errorf("%s: %s = %v; want a finite number", id, k, x)
				continue
			}
			logged = append(logged, fmt.Sprintf("%s=%.3f", strings.TrimPrefix(k, "robot_1."), f))
		}
		slices.Sort(logged)
		t.Logf("%s: %s", id, strings.Join(logged, " "))
		if v, _ := ms["robot_1.trajectory_success"].(map[string]any); v["value"] != 1.0 {
			t.Errorf("%s: trajectory_success %v; want 1", id, v["value"])
		}
		// Pure pursuit flies close to the polyline itself.
		if v, _ := ms["robot_1.segment_cross_track_error_mean_m"].(map[string]any); !(v["value"].(float64) < 1) {
			t.Errorf("%s: mean cross-track error to the path's segments %v m; want below 1 m", id, v["value"])
		}
	}
	// Each trajectory's path reached the node, it answered the odometry,
	// and it said done at the end of both.
	if s.Paths != 2 || s.Done != 2 || s.Answered == 0 || s.Unanswered != 0 {
		t.Errorf("tracker.mjs summary %+v; want 2 paths, 2 done, every odometry answered", s)
	}
}
