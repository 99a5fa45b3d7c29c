package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEOLMowerRoslib: the mower's end-of-line test over rosbridge against
// sitl --vehicle mower --rosbridge, with a roslib node on the same graph
// watching what the runner publishes where the robot's safety gate listens.
// The verdicts are the in-process ones row for row (the in-process run with
// --halt, as a real link always halts), for the good mower and for the
// seed's eol-1 (a gate without a watchdog), whose fault fails exactly its
// rows; roslib sees standard Twist and Bool requests, the STOP latch, and
// the runner leaving the robot with the idle request.
func TestEOLMowerRoslib(t *testing.T) {
	node := needRoslib(t)
	for _, c := range []struct {
		variant  string
		wantFail []string
	}{{"", nil}, {"eol-1", []string{"watchdog.drive"}}} {
		t.Run("variant="+c.variant, func(t *testing.T) {
			url := startSITLRosbridge(t, sitlFlags{vehicle: "mower", speed: 5, seed: 1, variant: c.variant})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "eol_mower.mjs", url)
			cmd.Dir = roslibDir
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout strings.Builder
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			var errLines []string
			for sc.Scan() && sc.Text() != "ready" {
				errLines = append(errLines, sc.Text())
			}
			go func() {
				for sc.Scan() {
				}
			}()
			remote := eolVerdicts(t, eolFlags{vehicle: "mower", runID: "remote", connect: url})
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("node eol_mower.mjs: %v\n%s\n%s", err, stdout.String(), strings.Join(errLines, "\n"))
			}
			var seen struct {
				Topics                    []string `json:"topics"`
				Services                  []string `json:"services"`
				CmdCount, BladeOn, Joints int
				MaxVx                     float64
				LatchedSeen               bool
				LastVx, LastW             float64
				LastBlade                 bool
			}
			if err := json.Unmarshal([]byte(stdout.String()), &seen); err != nil {
				t.Fatalf("roslib printed %q: %v", stdout.String(), err)
			}
			local := eolVerdicts(t, eolFlags{vehicle: "mower", runID: "local", variant: c.variant, halt: true})
			delete(local, "source")
			delete(remote, "source")
			var fails []string
			for id, want := range local {
				if want == "FAIL" {
					fails = append(fails, id)
				}
				if got := remote[id]; got != want {
					t.Errorf("%s: %s over rosbridge; want %s as in process", id, got, want)
				}
			}
			slices.Sort(fails)
			if !slices.Equal(fails, c.wantFail) {
				t.Errorf("failed in process: %v; want %v", fails, c.wantFail)
			}
			t.Logf("roslib saw %d cmd_vel (max %.2f m/s), %d blade-on requests, %d joint states; STOP latch seen %v; %d checks, FAIL %v, the same over rosbridge",
				seen.CmdCount, seen.MaxVx, seen.BladeOn, seen.Joints, seen.LatchedSeen, len(local), fails)
			for _, w := range []string{"/imu/data", "/joint_states", "/safety/status", "/safety/cmd_vel"} {
				if !slices.Contains(seen.Topics, w) {
					t.Errorf("rosapi topics %v lack %s", seen.Topics, w)
				}
			}
			if !slices.Contains(seen.Services, "/safety/stop_button") {
				t.Errorf("rosapi services %v lack /safety/stop_button", seen.Services)
			}
			// The runner's requests as a ROS node receives them: driving at
			// 0.3 m/s in steps 4 to 6, the blade on, and at the end the
			// idle request.
			if seen.CmdCount < 100 || seen.MaxVx < 0.29 || seen.MaxVx > 0.31 || seen.BladeOn < 10 || !seen.LatchedSeen || seen.Joints < 50 {
				t.Errorf("roslib saw %+v", seen)
			}
			if seen.LastVx != 0 || seen.LastW != 0 || seen.LastBlade {
				t.Errorf("the last request roslib saw: v %v w %v blade %v; want the idle one", seen.LastVx, seen.LastW, seen.LastBlade)
			}
		})
	}
}
