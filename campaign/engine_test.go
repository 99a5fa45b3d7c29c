package campaign

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/ulog"
	"github.com/shakedown-robotics/shakedown/world"
)

// sampleULog is a real PX4 SITL log (PX4/pyulog's test data, see
// ulog/testdata/README.md): take off, hover, land on the spot.
const sampleULog = "../ulog/testdata/sample_log_small.ulg"

// standin returns an Aerialist engine that runs the stand-in CLI
// (testdata/aerialist-standin.sh), with env added.
func standin(t *testing.T, env ...string) *Aerialist {
	t.Helper()
	script, err := filepath.Abs("testdata/aerialist-standin.sh")
	if err != nil {
		t.Fatal(err)
	}
	log, err := filepath.Abs(sampleULog)
	if err != nil {
		t.Fatal(err)
	}
	return &Aerialist{Command: []string{"bash", script}, Dir: t.TempDir(), Env: append([]string{"AERIALIST_STANDIN_ULOG=" + log}, env...)}
}

func aerialistJob(t *testing.T) Job {
	t.Helper()
	cs, err := scenario.Builtin("mission2")
	if err != nil {
		t.Fatal(err)
	}
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}, {L: 10, W: 5, H: 20, X: -10, Y: 20}}
	j, err := NewJob(cs, run.Options{Seed: 1}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if j, err = j.WithEngine(EngineAerialist); err != nil {
		t.Fatal(err)
	}
	return j
}

// The aerialist engine hands the test to the CLI with Aerialist's
// arguments, reads the log the run left and scores it the way the
// embedded runs are scored: the same clearance as Aerialist's rule over
// the log's trajectory, which is what `shakedown score --logs` computes.
func TestAerialistStandin(t *testing.T) {
	j := aerialistJob(t)
	eng := standin(t)
	res, err := Engines{EngineAerialist: eng}.Execute(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("job failed: %s", res.Error)
	}
	r := res.Run
	data, err := os.ReadFile(sampleULog)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ulog.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ulog.Trajectory(f)
	if err != nil {
		t.Fatal(err)
	}
	want := world.MinClearance(j.Obstacles(), trace.Positions(trace.Resample(tr, trace.AerialistPeriodS)), nil)
	if r.MinClearanceM == nil || math.Abs(*r.MinClearanceM-want) > 1e-4 {
		t.Fatalf("clearance %v; want %.4f (Aerialist's rule on the log)", r.MinClearanceM, want)
	}
	if r.Verdict != run.VerdictPass || !r.Completed || r.Points != 0 || len(r.Collisions) != 0 {
		t.Errorf("verdict %s, completed %v, points %d, collisions %v; want a pass (the log lands far from the boxes)", r.Verdict, r.Completed, r.Points, r.Collisions)
	}
	if !strings.Contains(r.Reason, "judged on the PX4 log "+string(j.ID)+".ulg") {
		t.Errorf("reason %q; want it to name the log", r.Reason)
	}
	if math.Abs(r.FlightTimeS-tr[len(tr)-1].T) > 1e-3 || len(res.Trajectory) == 0 {
		t.Errorf("flight time %v, %d resampled points; want the log's duration %v", r.FlightTimeS, len(res.Trajectory), tr[len(tr)-1].T)
	}
	if ents, _ := os.ReadDir(eng.Dir); len(ents) != 0 {
		t.Errorf("the job folder was left behind: %v", ents)
	}
}

// The stand-in checks what it is given: the test YAML it is handed has
// the competition's keys and its plan beside it.
func TestAerialistTestFile(t *testing.T) {
	eng := standin(t)
	eng.Keep = true
	j := aerialistJob(t)
	if _, err := eng.Fly(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	tests, _ := filepath.Glob(filepath.Join(eng.Dir, "aerialist-*", "test.yaml"))
	if len(tests) != 1 {
		t.Fatalf("test files %v; want one", tests)
	}
	cs, err := scenario.LoadCaseStudy(tests[0])
	if err != nil {
		t.Fatal(err)
	}
	if cs.Port != "ros" || cs.Simulator != "ros" || len(cs.Commands) != 1 || cs.Commands[0].Mode != 3 || len(cs.Obstacles) != 2 || len(cs.Mission.Items) != len(j.Scenario.Mission.Items) {
		t.Errorf("test file: port %q simulator %q commands %v, %d obstacles, %d items", cs.Port, cs.Simulator, cs.Commands, len(cs.Obstacles), len(cs.Mission.Items))
	}
}

// A run that fails, or leaves no log, is a failed job naming why; a
// command that cannot start too.
func TestAerialistFailures(t *testing.T) {
	j := aerialistJob(t)
	for _, c := range []struct {
		name string
		eng  *Aerialist
		want string
	}{
		{"simulation fails", standin(t, "AERIALIST_STANDIN_FAIL=1"), "PX4 did not start"},
		{"no log", standin(t, "AERIALIST_STANDIN_NOLOG=1"), "left no .ulg log"},
		{"bad agent", func() *Aerialist { a := standin(t); a.Agent = "cloud"; return a }(), "invalid choice"},
		{"no such command", &Aerialist{Command: []string{filepath.Join(t.TempDir(), "aerialist")}, Dir: t.TempDir()}, "aerialist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Engines{EngineAerialist: c.eng}.Execute(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if res.OK() || !strings.Contains(res.Error, c.want) {
				t.Errorf("result %+v; want a failure naming %q", res, c.want)
			}
		})
	}
}

// An executor flies only the engines it has: a job for another fails with
// ErrNoEngine's message, and the nil Engines fly the embedded simulator.
func TestEnginesExecute(t *testing.T) {
	j := aerialistJob(t)
	res, err := Engines(nil).Execute(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || !strings.Contains(res.Error, ErrNoEngine.Error()) || !strings.Contains(res.Error, `"aerialist"`) {
		t.Errorf("aerialist job on the default engines: %+v; want ErrNoEngine", res)
	}
	emb, err := j.WithEngine("")
	if err != nil {
		t.Fatal(err)
	}
	if emb.ID == j.ID || emb.Vehicle.Engine != EngineEmbedded {
		t.Errorf("WithEngine(\"\"): engine %q, id unchanged %v", emb.Vehicle.Engine, emb.ID == j.ID)
	}
	if _, err := j.WithEngine("gazebo"); !errors.Is(err, ErrBadJob) {
		t.Errorf("unknown engine: %v; want ErrBadJob", err)
	}
	data, err := j.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeJob(data)
	if err != nil || back.ID != j.ID || back.Vehicle.Engine != EngineAerialist {
		t.Errorf("aerialist job round trip: %+v, %v", back.Vehicle, err)
	}
}

// JudgeULog: a log that lasts as long as the limit timed out; one that
// ends in the air did not complete; garbage is an error naming the file.
func TestJudgeULog(t *testing.T) {
	data, err := os.ReadFile(sampleULog)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := scenario.Builtin("mission2")
	r, err := JudgeULog(cs, data, 5, "a.ulg")
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.Completed || !strings.HasPrefix(r.Reason, "timeout") {
		t.Errorf("5-s limit: timed out %v, completed %v, %q", r.TimedOut, r.Completed, r.Reason)
	}
	if _, err := JudgeULog(cs, []byte("not a log"), 500, "b.ulg"); err == nil || !strings.Contains(err.Error(), "b.ulg") {
		t.Errorf("garbage: %v; want an error naming b.ulg", err)
	}
}
