package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// writeTest writes mission2 with the README's two boxes as test_0.yaml
// (beside its plan) into a temporary folder and returns its path.
func writeTest(t *testing.T) string {
	t.Helper()
	cs, err := scenario.Builtin("mission2")
	if err != nil {
		t.Fatal(err)
	}
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}, {L: 10, W: 5, H: 20, X: -10, Y: 20}}
	dir := t.TempDir()
	plan, err := scenario.EncodePlan(cs.Mission)
	if err != nil {
		t.Fatal(err)
	}
	y, err := scenario.EncodeCaseStudy(cs, "mission2.plan")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "mission2.plan"), plan, 0o644)
	p := filepath.Join(dir, "test_0.yaml")
	os.WriteFile(p, y, 0o644)
	return p
}

type runJSON []struct {
	Runs []struct {
		Verdict       string   `json:"verdict"`
		Completed     bool     `json:"completed"`
		MinClearanceM *float64 `json:"min_clearance_m"`
		Reason        string   `json:"reason"`
	} `json:"runs"`
}

func runOne(t *testing.T, args ...string) (verdict string, clearance float64, reason string) {
	t.Helper()
	code, out, errOut := sh(t, append([]string{"run", "--json"}, args...)...)
	var r runJSON
	if code > 1 || json.Unmarshal([]byte(out), &r) != nil || len(r) != 1 || len(r[0].Runs) != 1 || r[0].Runs[0].MinClearanceM == nil {
		t.Fatalf("run %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	x := r[0].Runs[0]
	return x.Verdict, *x.MinClearanceM, x.Reason
}

// `run --engine mavlink` flies the test on `shakedown sitl` (the avoidance
// autopilot, ×20) over loopback UDP and judges it on the vehicle's
// estimate: the verdict of the embedded run of the same test (calm air, no
// pre-arm wait), and a clearance within the run-to-run noise (seeds 1…5 of
// the embedded run spread from 2.5 to 4.3 m on this test).
func TestRunEngineMAVLink(t *testing.T) {
	test := writeTest(t)
	wantV, wantC, _ := runOne(t, test, "--gust", "0", "--pre-arm", "0")
	url := "udp://127.0.0.1:" + sitlFreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *mavlink.Server, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- runSITL(ctx, io.Discard, test, sitlFlags{vehicle: "quad", listen: url, speed: 20, seed: 1, autopilot: "avoid", rules: "2025"}, ready)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("sitl: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("sitl: %v", err)
	}
	gotV, gotC, reason := runOne(t, test, "--engine", "mavlink", "--connect", url)
	if gotV != wantV || math.Abs(gotC-wantC) > 0.5 {
		t.Errorf("over MAVLink: %s at %.2f m; want %s at %.2f ± 0.5 m (embedded)", gotV, gotC, wantV, wantC)
	}
	if !strings.Contains(reason, "estimated position") {
		t.Errorf("reason %q; want it to say it was judged on the estimate", reason)
	}
}

// `run --engine aerialist` hands the test to the Aerialist stand-in
// (campaign/testdata/aerialist-standin.sh: Aerialist's arguments and exit
// codes, a real PX4 log copied into place) and scores its log.
func TestRunEngineAerialist(t *testing.T) {
	script, _ := filepath.Abs("../../campaign/testdata/aerialist-standin.sh")
	log, _ := filepath.Abs("testdata/ulog/sample_log_small.ulg")
	t.Setenv("AERIALIST_STANDIN_ULOG", log)
	v, c, reason := runOne(t, writeTest(t), "--engine", "aerialist", "--aerialist-cmd", "bash "+script)
	if v != "pass" || !(c > 1.5) || !strings.Contains(reason, "judged on the PX4 log") {
		t.Errorf("got %s at %.2f m (%s); want a pass far from the boxes, scored from the log", v, c, reason)
	}
	t.Setenv("AERIALIST_STANDIN_FAIL", "1")
	code, _, errOut := sh(t, "run", writeTest(t), "--engine", "aerialist", "--aerialist-cmd", "bash "+script)
	if code != 2 || !strings.Contains(errOut, "PX4 did not start") {
		t.Errorf("failing Aerialist: exit %d, %q; want 2 and its message", code, errOut)
	}
}

func TestEngineFlags(t *testing.T) {
	test := writeTest(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", test, "--engine", "gazebo"}, "--engine"},
		{[]string{"run", test, "--engine", "mavlink"}, "--connect"},
		{[]string{"run", test, "--connect", "udp://127.0.0.1:9"}, "--connect is for --engine mavlink"},
		{[]string{"run", test, "--engine", "mavlink", "--connect", "carrier://x"}, "--connect"},
		{[]string{"run", test, "--engine", "aerialist", "--aerialist-agent", "k8s"}, "--aerialist-agent"},
		{[]string{"dataset", "mission2", "--out", filepath.Join(t.TempDir(), "d.csv"), "--engine", "mavlink"}, "--connect"},
		{[]string{"generate", "mission2", "3", "--engine", "warp"}, "--engine"},
	} {
		if code, _, errOut := sh(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", c.args, code, errOut, c.want)
		}
	}
}
