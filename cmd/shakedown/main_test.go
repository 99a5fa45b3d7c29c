package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sh(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = execute(args, &o, &e)
	return code, o.String(), e.String()
}

func TestFlyBuiltin(t *testing.T) {
	code, out, errOut := sh(t, "fly", "mission2")
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	for _, w := range []string{"mission2: completed", "flight time", "path length", "no obstacles", "collisions     none"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestFlyJSON(t *testing.T) {
	code, out, _ := sh(t, "fly", "mission3", "--obstacle", "6,6,20,-20,30,0,0", "--json")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var r struct {
		Completed    bool      `json:"completed"`
		Clearance    []float64 `json:"clearance_m"`
		MinClearance *float64  `json:"min_clearance_m"`
		MinObstacle  int       `json:"min_obstacle"`
		Collisions   []any     `json:"collisions"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !r.Completed || len(r.Clearance) != 1 || r.MinClearance == nil || r.MinObstacle != 1 || r.Collisions == nil {
		t.Errorf("unexpected result %+v", r)
	}
}

func TestFlyCrashExitsOne(t *testing.T) {
	code, out, _ := sh(t, "fly", "mission1", "--obstacle", "12,4,20,2,25,0,0", "--autopilot", "plain")
	if code != 1 {
		t.Fatalf("exit %d; want 1\n%s", code, out)
	}
	if !strings.Contains(out, "NOT completed") || !strings.Contains(out, "collision      obstacle 1") {
		t.Errorf("output does not report the crash:\n%s", out)
	}
}

func TestFlyOutputs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if code, _, e := sh(t, "fly", "mission2", "--obstacle", "10,4,20,-20,30,0,30", "--seed", "9", "--out", d); code != 0 {
			t.Fatalf("exit %d: %s", code, e)
		}
	}
	for _, f := range []string{"trajectory.csv", "result.json", "flight.png"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", f)
		}
		if len(x) == 0 {
			t.Errorf("%s is empty", f)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(a, "trajectory.csv"))
	if !strings.HasPrefix(string(csv), "t,x,y,z,heading\n") {
		t.Errorf("trajectory.csv header: %q", strings.SplitN(string(csv), "\n", 2)[0])
	}
	png, _ := os.ReadFile(filepath.Join(a, "flight.png"))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("flight.png is not a PNG")
	}
	left, _ := filepath.Glob(filepath.Join(a, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bad input exits 2 with a message naming what is wrong and writes nothing.
func TestFlyBadInput(t *testing.T) {
	dir := t.TempDir()
	plan, err := os.ReadFile("../../scenario/competition/mission2.plan")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "mission2.plan", string(plan))
	params := "NAV_ACC_RAD, 0.5\n"
	writeFile(t, dir, "params.csv", params)
	good := "drone:\n  port: ros\n  params_file: params.csv\n  mission_file: mission2.plan\nsimulation:\n  simulator: ros\n  speed: 1\n  headless: true\n"
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"missing file", []string{"fly", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
		{"unknown mission", []string{"fly", "mission9"}, []string{"mission9"}},
		{"malformed YAML", []string{"fly", writeFile(t, dir, "bad.yaml", "drone: [\n")}, []string{"bad.yaml"}},
		{"unknown key", []string{"fly", writeFile(t, dir, "key.yaml", good+"  colour: red\n")}, []string{"key.yaml", "colour"}},
		{"NaN in obstacle", []string{"fly", writeFile(t, dir, "nan.yaml", good+"  obstacles:\n  - size: {l: .nan, w: 4, h: 20}\n    position: {x: 0, y: 20, z: 0, r: 0}\n")}, []string{"nan.yaml", "l"}},
		{"malformed plan", []string{"fly", writeFile(t, dir, "broken.plan", "{\"mission\": ")}, []string{"broken.plan"}},
		{"obstacle flag not numbers", []string{"fly", "mission2", "--obstacle", "10,4,tall,0,20,0,0"}, []string{"--obstacle #1", "h"}},
		{"obstacle flag short", []string{"fly", "mission2", "--obstacle", "10,4,20"}, []string{"--obstacle #1"}},
		{"obstacle flag NaN", []string{"fly", "mission2", "--obstacle", "10,4,20,NaN,20,0,0"}, []string{"--obstacle #1", "x"}},
		{"outside the area", []string{"fly", "mission2", "--obstacle", "10,4,20,28,20,0,0"}, []string{"obstacle 1"}},
		{"overlap", []string{"fly", "mission2", "--obstacle", "10,4,20,0,20,0,0", "--obstacle", "10,4,20,2,21,0,0"}, []string{"obstacle 1", "obstacle 2", "overlap"}},
		{"width out of range", []string{"fly", "mission2", "--obstacle", "10,25,20,0,25,0,0"}, []string{"obstacle 1", "w"}},
		{"too many", []string{"fly", "mission2", "--obstacle", "2,2,20,-30,15,0,0", "--obstacle", "2,2,20,-20,15,0,0", "--obstacle", "2,2,20,-10,15,0,0", "--obstacle", "2,2,20,0,15,0,0"}, []string{"4"}},
		{"bad rules", []string{"fly", "mission2", "--rules", "1999"}, []string{"--rules"}},
		{"bad timeout", []string{"fly", "mission2", "--timeout", "-3"}, []string{"--timeout"}},
		{"bad autopilot", []string{"fly", "mission2", "--autopilot", "wishful"}, []string{"--autopilot", "wishful"}},
		{"no argument", []string{"fly"}, []string{"missing <mission1..7"}},
		{"unknown command", []string{"hover"}, []string{"hover"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			args := append(append([]string{}, c.args...), "--out", out)
			if c.name == "unknown command" || c.name == "no argument" {
				args = c.args
			}
			code, stdout, stderr := sh(t, args...)
			if code != 2 {
				t.Fatalf("exit %d; want 2\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output directory %s was created for bad input", out)
			}
		})
	}
}

func TestMissions(t *testing.T) {
	code, out, _ := sh(t, "missions")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for i := 1; i <= 7; i++ {
		if !strings.Contains(out, "mission"+string(rune('0'+i))) {
			t.Errorf("mission%d missing:\n%s", i, out)
		}
	}
	if !strings.Contains(out, "x=  -6.84 y=  53.97") {
		t.Errorf("mission2's waypoint (-6.84, 53.97) not listed:\n%s", out)
	}
}

func TestFlyRecord(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "flight.mcap")
	if code, _, e := sh(t, "fly", "mission1", "--record", f); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	b, err := os.ReadFile(f)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89MCAP0\r\n")) {
		t.Fatalf("no MCAP file written: %v", err)
	}
	// Bad input writes no recording.
	g := filepath.Join(dir, "bad.mcap")
	if code, _, _ := sh(t, "fly", "mission1", "--obstacle", "1,1,1", "--record", g); code != 2 {
		t.Fatalf("exit %d; want 2", code)
	}
	if _, err := os.Stat(g); err == nil {
		t.Error("a recording was written for bad input")
	}
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fly")
	if code, _, e := sh(t, "fly", "mission1", "--out", out); code != 0 {
		t.Fatalf("fly: exit %d: %s", code, e)
	}
	page := filepath.Join(dir, "fly.html")
	code, stdout, e := sh(t, "report", out, "--out", page)
	if code != 0 || !strings.Contains(stdout, "fly results, pass") {
		t.Fatalf("report: exit %d: %s%s", code, stdout, e)
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(b, []byte("data:image/png;base64,")) {
		t.Errorf("report page without its plot (%v)", err)
	}
	empty := t.TempDir()
	if code, _, e := sh(t, "report", empty); code != 2 || !strings.Contains(e, "not a results directory") {
		t.Errorf("empty directory: exit %d, %q", code, e)
	}
	if _, err := os.Stat(filepath.Join(empty, "report.html")); err == nil {
		t.Error("a page was written for an empty directory")
	}
	if code, _, _ := sh(t, "report", filepath.Join(dir, "missing")); code != 2 {
		t.Errorf("missing directory: exit %d", code)
	}
}
