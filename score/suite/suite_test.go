package suite

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/ulog"
	"github.com/shakedown-robotics/shakedown/world"
)

func TestTestFilesOrder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"test_10.yaml", "test_2.yaml", "test_1.yml", "test_x.yaml", "notes.txt", "test_0.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := TestFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "test_0.yaml test_1.yml test_2.yaml test_10.yaml test_x.yaml"; strings.Join(got, " ") != want {
		t.Errorf("got %v; want %s", got, want)
	}
}

func TestToolNames(t *testing.T) {
	got := ToolNames([]string{"out/gen-a", "b/gen-a/", "x/gen-c"})
	if want := "out/gen-a b/gen-a gen-c"; strings.Join(got, " ") != want {
		t.Errorf("got %v; want %s (colliding base names spelled out)", got, want)
	}
	if HashName("a", "bc") == HashName("ab", "c") {
		t.Error("HashName does not separate the tool from the mission")
	}
}

// A real PX4 log read as a run: Aerialist's rule over its trajectory.
func TestReadRunULog(t *testing.T) {
	boxes := []world.Box{{L: 2, W: 2, H: 20, X: 5, Y: 0}}
	r, err := ReadRun("../../ulog/testdata/sample_log_small.ulg", boxes, 500)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.ClearanceM > 0) || math.IsInf(r.ClearanceM, 0) || r.TimedOut || len(r.Path) == 0 {
		t.Errorf("run %+v", r)
	}
	if _, err := ReadRun(filepath.Join(t.TempDir(), "none.ulg"), boxes, 500); err == nil {
		t.Error("missing log: no error")
	}
}

// A run folder's times: the trajectory's duration and time in the air
// (0.3 m above the start: 10 s to 50 s), or result.json's when it has them.
func TestReadRunTimes(t *testing.T) {
	dir := t.TempDir()
	csv := "t,x,y,z,heading\n0,0,0,0,0\n10,0,0,5,0\n50,0,10,5,0\n60,0,10,0,0\n"
	p := filepath.Join(dir, "trajectory.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(p, nil, 500)
	if err != nil {
		t.Fatal(err)
	}
	if r.FlightTimeS != 60 || r.AirborneS != 40 || r.TimedOut {
		t.Errorf("from the CSV: flight %v s, airborne %v s, timed out %v; want 60, 40, false", r.FlightTimeS, r.AirborneS, r.TimedOut)
	}
	for _, c := range []struct {
		json             string
		flight, airborne float64
	}{
		{`{"flight_time_s": 80, "airborne_s": 55}`, 80, 55},
		{`{"flight_time_s": 80}`, 80, 40}, // written before airborne_s: the trajectory's
	} {
		if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadRun(p, nil, 500)
		if err != nil {
			t.Fatal(err)
		}
		if r.FlightTimeS != c.flight || r.AirborneS != c.airborne {
			t.Errorf("%s: flight %v s, airborne %v s; want %v, %v", c.json, r.FlightTimeS, r.AirborneS, c.flight, c.airborne)
		}
	}
}

// A test whose plan is missing flies the scored mission's; one that names
// another mission's plan is reported.
func TestReadTest(t *testing.T) {
	dir := t.TempDir()
	m2, _ := scenario.Builtin("mission2")
	m3, _ := scenario.Builtin("mission3")
	m3.Obstacles = []world.Box{{L: 4, W: 4, H: 20, X: 0, Y: 20}}
	plan, _ := scenario.EncodePlan(m3.Mission)
	os.WriteFile(filepath.Join(dir, "mission3.plan"), plan, 0o644)
	y, _ := scenario.EncodeCaseStudy(m3, "mission3.plan")
	os.WriteFile(filepath.Join(dir, "test_0.yaml"), y, 0o644)
	y, _ = scenario.EncodeCaseStudy(m3, "gone.plan")
	os.WriteFile(filepath.Join(dir, "test_1.yaml"), y, 0o644)
	boxes, other, err := ReadTest(filepath.Join(dir, "test_0.yaml"), m2)
	if err != nil || len(boxes) != 1 || other != "mission3" {
		t.Errorf("test_0: %v, other %q, %v; want the box and mission3 named", boxes, other, err)
	}
	boxes, other, err = ReadTest(filepath.Join(dir, "test_1.yaml"), m2)
	if err != nil || len(boxes) != 1 || other != "" {
		t.Errorf("test_1: %v, other %q, %v; want the box and no other mission", boxes, other, err)
	}
}

// The files a test names and the runs score reads go through
// scenario.ReadFile: a device, a pipe or an oversized file is refused at
// once, naming it, instead of being read until memory runs out (or, for a
// pipe, forever).
func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	m2, _ := scenario.Builtin("mission2")
	y := "drone:\n  mission_file: /dev/zero\nsimulation:\n  obstacles:\n  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: 20, l: 4, w: 4}\n"
	test := filepath.Join(dir, "test_0.yaml")
	if err := os.WriteFile(test, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTest(test, m2); !errors.Is(err, scenario.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("mission_file /dev/zero: got %v; want ErrNotRegular naming it", err)
	}
	fifo := filepath.Join(dir, "run.ulg")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(fifo, nil, 500); !errors.Is(err, scenario.ErrNotRegular) {
		t.Errorf("a pipe as a log: got %v; want ErrNotRegular", err)
	}
	big := filepath.Join(dir, "trajectory.csv")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, ulog.MaxBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	if _, err := ReadRun(big, nil, 500); !errors.Is(err, scenario.ErrFileTooLarge) {
		t.Errorf("a %d-byte trajectory: got %v; want ErrFileTooLarge", ulog.MaxBytes+1, err)
	}
}

// An invalid obstacle is reported with the file, the line and the field
// (scenario.Rules.CheckCaseStudy).
func TestLoadSuiteNamesLine(t *testing.T) {
	dir := t.TempDir()
	m2, _ := scenario.Builtin("mission2")
	y := "drone:\n  mission_file: gone.plan\nsimulation:\n  obstacles:\n  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: 20, l: 4, w: 4}\n  - position: {r: 0, x: 0, y: 30, z: 0}\n    size: {h: 20, l: 4, w: 40}\n"
	if err := os.WriteFile(filepath.Join(dir, "test_0.yaml"), []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	sd, err := Read(dir, m2, ReadOptions{Single: true, Rules: scenario.DefaultRules}, io.Discard, "gen")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "test_0.yaml") + ":7: simulation.obstacles[1].size.w: invalid obstacles"
	if len(sd.Tests) != 1 || !strings.HasPrefix(sd.Tests[0].Test.Invalid, want) {
		t.Errorf("invalid reason %q; want it to start %q", sd.Tests[0].Test.Invalid, want)
	}
}

// Read warns about a test mission2 cannot be flown through (a wall of
// three boxes with 1-m gaps across its second leg, within the rules
// otherwise), naming the test and the finding, and not about the rest.
func TestReadWarnsInfeasible(t *testing.T) {
	dir := t.TempDir()
	m2, _ := scenario.Builtin("mission2")
	wall := []world.Box{{L: 14, W: 2, H: 20, X: -15, Y: 25}, {L: 14, W: 2, H: 20, X: 0, Y: 25}, {L: 14, W: 2, H: 20, X: 15, Y: 25}}
	for i, b := range [][]world.Box{{{L: 4, W: 4, H: 20, X: 10, Y: 25}}, wall} {
		c := *m2
		c.Obstacles = b
		y, _ := scenario.EncodeCaseStudy(&c, "mission2.plan")
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("test_%d.yaml", i)), y, 0o644)
	}
	var warn strings.Builder
	sd, err := Read(dir, m2, ReadOptions{Single: true, Rules: scenario.DefaultRules}, &warn, "tool")
	if err != nil {
		t.Fatal(err)
	}
	if got := warn.String(); !strings.Contains(got, "test_1.yaml is infeasible (wall)") || strings.Contains(got, "test_0") {
		t.Errorf("warnings %q; want test_1's wall only", got)
	}
	// As lint says, the infeasible test is invalid (0 points), the other not;
	// with ScoreInfeasible both are flown.
	if sd.Tests[0].Test.Invalid != "" || !strings.Contains(sd.Tests[1].Test.Invalid, "test_1.yaml: infeasible (wall)") {
		t.Errorf("invalid reasons %q, %q; want test_1 infeasible only", sd.Tests[0].Test.Invalid, sd.Tests[1].Test.Invalid)
	}
	warn.Reset()
	sd, err = Read(dir, m2, ReadOptions{Single: true, Rules: scenario.DefaultRules, ScoreInfeasible: true}, &warn, "tool")
	if err != nil {
		t.Fatal(err)
	}
	if sd.Tests[1].Test.Invalid != "" || !strings.Contains(warn.String(), "scored anyway") {
		t.Errorf("with ScoreInfeasible: invalid %q, warnings %q; want it flown, with a warning", sd.Tests[1].Test.Invalid, warn.String())
	}
}
