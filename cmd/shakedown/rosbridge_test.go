package main

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/internal/nodetest"
)

// roslibDir is the Node folder with roslib pinned (.ci/run runs npm ci).
const roslibDir = "../../rosbridge/testdata/node"

// needRoslib returns node's path, failing in CI (CI=true) and skipping
// elsewhere when Node or the npm packages are missing.
func needRoslib(t *testing.T) string {
	t.Helper()
	return nodetest.Need(t, roslibDir, "roslib")
}

// runNode runs a script of roslibDir and decodes the JSON line it prints.
func runNode(t *testing.T, ctx context.Context, node, script string, out any, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = roslibDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\nstdout: %s\nstderr: %s", script, err, b, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("node %s printed %q: %v", script, b, err)
	}
}

// startSITLRosbridge serves the embedded robot on a loopback rosbridge
// server for the test's lifetime and returns its URL.
func startSITLRosbridge(t *testing.T, f sitlFlags) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	f.rosbridge = "127.0.0.1:0"
	go func() { done <- runSITLRosbridge(ctx, io.Discard, "", f, ready) }()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("sitl --rosbridge: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sitl --rosbridge: %v", err)
		}
	})
	return url
}

type roslibRate struct {
	Count   int     `json:"count"`
	StampHz float64 `json:"stampHz"`
	WallHz  float64 `json:"wallHz"`
	Frame   string  `json:"frame"`
	Child   string  `json:"child"`
	AccelZ  float64 `json:"accelZ"`
}

// TestSITLRosbridgeRoslib is the roslib test: roslib (Node)
// discovers the graph, subscribes to the quad's IMU and odometry at their
// profile rates, calls Trigger services, flies a follow-waypoints goal to
// its result with feedback and cancels a second goal.
func TestSITLRosbridgeRoslib(t *testing.T) {
	node := needRoslib(t)
	url := startSITLRosbridge(t, sitlFlags{vehicle: "quad", speed: 1, seed: 1, autopilot: "plain", rules: "2025"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var got struct {
		Topics struct {
			Topics []string `json:"topics"`
			Types  []string `json:"types"`
		} `json:"topics"`
		Nodes    []string   `json:"nodes"`
		Services []string   `json:"services"`
		ImuType  string     `json:"imuType"`
		Imu      roslibRate `json:"imu"`
		Odom     roslibRate `json:"odom"`
		Arm      struct {
			Success bool `json:"success"`
		} `json:"arm"`
		Takeoff struct {
			Success bool `json:"success"`
		} `json:"takeoff"`
		Missing string `json:"missing"`
		Result  struct {
			Reached bool `json:"reached"`
		} `json:"result"`
		FeedbackCount int    `json:"feedbackCount"`
		Cancel        string `json:"cancel"`
	}
	runNode(t, ctx, node, "sitl.mjs", &got, url, "3")
	t.Logf("roslib: IMU %d msgs, %.2f Hz by stamp, %.2f Hz by wall; odometry %d msgs, %.2f Hz by stamp, %.2f Hz by wall; %d feedback",
		got.Imu.Count, got.Imu.StampHz, got.Imu.WallHz, got.Odom.Count, got.Odom.StampHz, got.Odom.WallHz, got.FeedbackCount)
	for _, want := range []string{"/imu/data", "/odom", "/gps/fix", "/battery_state", "/status"} {
		if !slices.Contains(got.Topics.Topics, want) {
			t.Errorf("getTopics = %v; want %s among them", got.Topics.Topics, want)
		}
	}
	if got.ImuType != "sensor_msgs/msg/Imu" {
		t.Errorf("getTopicType(/imu/data) = %q; want sensor_msgs/msg/Imu", got.ImuType)
	}
	if !slices.Contains(got.Services, "/arm") || !slices.Contains(got.Nodes, "/rosbridge_websocket") {
		t.Errorf("getServices = %v, getNodes = %v; want /arm and /rosbridge_websocket", got.Services, got.Nodes)
	}
	// The profile's rates: IMU 100 Hz, odometry 50 Hz, on the robot's
	// stamps exactly and on roslib's wall clock within 10 %.
	for _, r := range []struct {
		name string
		got  roslibRate
		hz   float64
	}{{"imu", got.Imu, 100}, {"odom", got.Odom, 50}} {
		if d := r.got.StampHz - r.hz; d < -0.5 || d > 0.5 {
			t.Errorf("%s: %.2f Hz by stamp; want %v", r.name, r.got.StampHz, r.hz)
		}
		if r.got.WallHz < 0.9*r.hz || r.got.WallHz > 1.1*r.hz {
			t.Errorf("%s: %.2f Hz by wall clock; want %v ± 10 %%", r.name, r.got.WallHz, r.hz)
		}
	}
	if got.Imu.Frame != "imu_link" || got.Odom.Frame != "odom" || got.Odom.Child != "base_link" {
		t.Errorf("frames: imu %q, odom %q → %q; want imu_link, odom → base_link", got.Imu.Frame, got.Odom.Frame, got.Odom.Child)
	}
	// At rest the IMU feels +g up in FLU (REP 103).
	if got.Imu.AccelZ < 9 || got.Imu.AccelZ > 10.5 {
		t.Errorf("IMU linear_acceleration.z = %v; want about +9.8 (FLU)", got.Imu.AccelZ)
	}
	if !got.Arm.Success || !got.Takeoff.Success {
		t.Errorf("arm %v, takeoff %v; want both to succeed", got.Arm.Success, got.Takeoff.Success)
	}
	if !strings.Contains(got.Missing, "does not exist") {
		t.Errorf("a call to a missing service: %q; want it to fail with 'does not exist'", got.Missing)
	}
	if !got.Result.Reached || got.FeedbackCount < 1 {
		t.Errorf("goal: reached %v with %d feedback; want reached with feedback", got.Result.Reached, got.FeedbackCount)
	}
	if !strings.Contains(got.Cancel, "canceled") {
		t.Errorf("cancelled goal: %q; want roslib to report it canceled", got.Cancel)
	}
}
