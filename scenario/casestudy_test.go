package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/shakedown-robotics/shakedown/world"
)

// ignoreLines leaves ObstacleLines out of comparisons: a re-encoded case
// study has its obstacles on other lines. TestObstacleLines checks them.
var ignoreLines = cmpopts.IgnoreFields(CaseStudy{}, "ObstacleLines")

// negZero is −0. A literal -0.0 is +0 in Go (the constant is negated
// exactly), so tests of how negative zero is written need this.
var negZero = math.Copysign(0, -1)

// competitionParams and competitionCommands are the contents of the
// competition's mission-params.csv and mission-commands.csv (competition.md
// §7 and §1.5).
var (
	competitionParams = map[string]float64{
		"NAV_ACC_RAD": 0.5, "NAV_MC_ALT_RAD": 0.5, "NAV_RCL_ACT": 3, "NAV_DLL_ACT": 0,
		"MIS_YAW_ERR": 12, "MIS_TAKEOFF_ALT": 1, "MPC_YAW_MODE": 0, "SDLOG_PROFILE": 7,
	}
	competitionIntParams = map[string]bool{"NAV_RCL_ACT": true, "NAV_DLL_ACT": true, "MPC_YAW_MODE": true, "SDLOG_PROFILE": true}
	competitionCommands  = []Command{{TimestampUS: 1, Mode: 3, Z: 0.5}}
)

func TestBuiltin(t *testing.T) {
	if got, want := BuiltinNames(), []string{"mission1", "mission2", "mission3", "mission4", "mission5", "mission6", "mission7", "canonical"}; !cmp.Equal(got, want) {
		t.Fatalf("BuiltinNames() = %v; want %v", got, want)
	}
	for _, c := range builtinMissions {
		t.Run(c.name, func(t *testing.T) {
			cs, err := Builtin(c.name)
			if err != nil {
				t.Fatalf("Builtin: %v", err)
			}
			m, err := ParsePlan(c.name+".plan", mustBuiltinFile(c.name+".plan"))
			if err != nil {
				t.Fatal(err)
			}
			want := &CaseStudy{
				Name: c.name, Source: "builtin", Mission: m,
				Params: competitionParams, IntParams: competitionIntParams,
				Port: "ros", Simulator: "ros", Speed: 1, Headless: true,
				Commands: competitionCommands,
			}
			if d := cmp.Diff(want, cs, ignoreLines); d != "" {
				t.Errorf("Builtin(%q) mismatch (-want +got):\n%s", c.name, d)
			}
		})
	}
	if _, err := Builtin("mission8"); !errors.Is(err, ErrUnknownCaseStudy) {
		t.Errorf("Builtin(mission8): got error %v; want ErrUnknownCaseStudy", err)
	}
	if _, err := Builtin("../competition/mission1"); !errors.Is(err, ErrUnknownCaseStudy) {
		t.Errorf("Builtin(../competition/mission1): got error %v; want ErrUnknownCaseStudy", err)
	}
}

// sharedCompetitionDir finds shared/data/competition by walking up from the
// package directory (CI checks the module out beside shared/), "" if absent.
func sharedCompetitionDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		d := filepath.Join(dir, "shared", "data", "competition")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestEmbeddedFilesMatchShared checks the embedded competition files
// against testdata/competition.sha256, the SHA-256 sums of the upstream
// files (shared/data/competition, byte for byte), and, when that folder is
// found above the package directory, the folder against the sums too: so a
// clean clone compares the embedded copies, and a checkout beside shared/
// also notices an upstream file that changed.
func TestEmbeddedFilesMatchShared(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join("testdata", "competition.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(manifest)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("competition.sha256:%d: %q is not \"<sha256>  <name>\"", i+1, line)
		}
		want[name] = sum
	}
	sumOf := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	embedded, err := fs.Glob(competitionFS, "competition/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(embedded) != len(want) {
		t.Errorf("got %d embedded files; want the %d of competition.sha256", len(embedded), len(want))
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, err := fs.ReadFile(competitionFS, "competition/"+name)
		if err != nil {
			t.Errorf("%s is not embedded: %v", name, err)
			continue
		}
		if s := sumOf(got); s != want[name] {
			t.Errorf("embedded %s: sha256 %s; want %s", name, s, want[name])
		}
	}
	dir := sharedCompetitionDir(t)
	if dir == "" {
		t.Log("shared/data/competition not found above the package directory; compared with competition.sha256 only")
		return
	}
	shared, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range shared {
		base := filepath.Base(f)
		if base == "README.md" {
			continue
		}
		n++
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s := sumOf(b); s != want[base] {
			t.Errorf("%s: sha256 %s; want %q (competition.sha256)", f, s, want[base])
		}
	}
	if n != len(want) {
		t.Errorf("%s has %d data files; competition.sha256 lists %d", dir, n, len(want))
	}
}

// testFiles resolves the files the YAML cases name: the built-in files by
// base name, plus a few bad ones.
func testFiles(p string) ([]byte, error) {
	switch p {
	case "bad-params.csv":
		return []byte("NAV_ACC_RAD, 0.5\nMPC_XY_CRUISE, fast\n"), nil
	case "bad-commands.csv":
		return []byte("timestamp,mode,x,y,z,r\n1,9,0,0,0.5,0\n"), nil
	case "bad.plan":
		return []byte(planJSON(takeoffJSON(), waypointJSON("95", "8.5"), landJSON())), nil
	case "params.csv":
		return []byte("MPC_XY_CRUISE, 3.0\nNAV_ACC_RAD, 1\n"), nil
	}
	if b, err := builtinFile(p); err == nil {
		return b, nil
	}
	return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
}

// The inputs of the YAML tests, also seeds of FuzzParseCaseStudy.
const (
	// yamlReport is the example of competition.md §1.8.
	yamlReport = `drone:
  port: ros
  params_file: case_studies/mission-params.csv
  mission_file: case_studies/mission2.plan
simulation:
  simulator: ros
  speed: 1
  headless: true
  obstacles:
  - size:     {l: 12.0, w: 4.0, h: 20.0}
    position: {x: -8.0, y: 24.5, z: 0, r: 30.0}
  - size:     {l: 6.0, w: 6.0, h: 15.0}
    position: {x: 12.0, y: 30.0, z: 0, r: 0}
test:
  commands_file: case_studies/mission-commands.csv
`
	// yamlSaved is in the form Aerialist's to_yaml writes (sorted keys,
	// inline params and commands, integer port).
	yamlSaved = `drone:
  mission_file: case_studies/mission4.plan
  params: {MIS_TAKEOFF_ALT: 1.0, MIS_YAW_ERR: 12.0, MPC_YAW_MODE: 0, NAV_ACC_RAD: 0.5,
           NAV_DLL_ACT: 0, NAV_MC_ALT_RAD: 0.5, NAV_RCL_ACT: 3, SDLOG_PROFILE: 7}
  port: 14541
simulation:
  headless: true
  obstacles:
  - position: {r: 58.15587086255367, x: -13.054133665700302, y: 33.68311930976796, z: 0}
    size: {h: 25, l: 19.261921863632395, w: 6.52618684629659}
  simulator: ros
test:
  commands:
  - {mode: 3, r: 0, timestamp: 1, x: 0, y: 0, z: 0.5}
`
	// yamlNew uses the newer Aerialist keys and extras.
	yamlNew = `robot:
  port: px4_ros
  params: {NAV_ACC_RAD: 2.0}
  mission_file: case_studies/mission5.plan
simulation:
  simulator: gazebo
  speed: 2.5
  headless: false
  world: default
  home_position: [47.397742, 8.545594, 488]
  timeout: 300
  wind: {velocity_mean: 3, direction: [1, 0, 0]}
  obstacles:
  - shape: box
    size: {l: 5, w: 3, h: 11, r: 0}
    position: {x: 1, y: 20, z: 0, r: 45}
mission:
  commands:
  - {timestamp: 1000000, mode: 3}
  speed: 2.5
  waypoints: [{x: 1, y: 2, z: 3}]
assertion:
  log_file: samples/flights/mission1.ulg
  variable: trajectory
agent:
  engine: k8s
  count: 1
`
)

func TestParseCaseStudy(t *testing.T) {
	m2 := mustPlan(t, "mission2")
	m4 := mustPlan(t, "mission4")
	m5 := mustPlan(t, "mission5")
	for _, c := range []struct {
		name string
		in   string
		want *CaseStudy
	}{
		{"competition.md example", yamlReport, &CaseStudy{
			Name: "t", Source: "t.yaml", Mission: m2,
			Params: competitionParams, IntParams: competitionIntParams,
			Port: "ros", Simulator: "ros", Speed: 1, Headless: true,
			Obstacles: []world.Box{
				{L: 12, W: 4, H: 20, X: -8, Y: 24.5, Z: 0, R: 30},
				{L: 6, W: 6, H: 15, X: 12, Y: 30, Z: 0, R: 0},
			},
			Commands: competitionCommands,
		}},
		{"as Aerialist saves it", yamlSaved, &CaseStudy{
			Name: "t", Source: "t.yaml", Mission: m4,
			Params: competitionParams, IntParams: competitionIntParams,
			Port: "14541", Simulator: "ros", Speed: 1, Headless: true,
			Obstacles: []world.Box{{L: 19.261921863632395, W: 6.52618684629659, H: 25, X: -13.054133665700302, Y: 33.68311930976796, Z: 0, R: 58.15587086255367}},
			Commands:  competitionCommands,
		}},
		{"newer keys", yamlNew, &CaseStudy{
			Name: "t", Source: "t.yaml", Mission: m5,
			Params: map[string]float64{"NAV_ACC_RAD": 2},
			Port:   "px4_ros", Simulator: "gazebo", Speed: 2.5, Headless: false,
			Obstacles: []world.Box{{L: 5, W: 3, H: 11, X: 1, Y: 20, R: 45}},
			// Aerialist's defaults for the absent x, y, z, r.
			Commands: []Command{{TimestampUS: 1000000, Mode: 3, Z: 0.5}},
		}},
		{"inline params replace the file", "drone:\n  mission_file: mission2.plan\n  params_file: params.csv\n  params: {NAV_ACC_RAD: 2}\n", &CaseStudy{
			Name: "t", Source: "t.yaml", Mission: m2, Params: map[string]float64{"NAV_ACC_RAD": 2}, IntParams: map[string]bool{"NAV_ACC_RAD": true},
			Speed: 1, Headless: true,
		}},
		{"params file", "drone:\n  mission_file: mission2.plan\n  params_file: params.csv\n", &CaseStudy{
			Name: "t", Source: "t.yaml", Mission: m2,
			Params:    map[string]float64{"MPC_XY_CRUISE": 3, "NAV_ACC_RAD": 1},
			IntParams: map[string]bool{"NAV_ACC_RAD": true},
			Speed:     1, Headless: true,
		}},
		{"mission only", "drone:\n  mission_file: mission2.plan\nsimulation:\n  obstacles:\ntest: {}\n", &CaseStudy{
			Name: "t", Source: "t.yaml", Mission: m2, Speed: 1, Headless: true,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCaseStudy("t.yaml", []byte(c.in), testFiles)
			if err != nil {
				t.Fatalf("ParseCaseStudy: %v", err)
			}
			if d := cmp.Diff(c.want, got, ignoreLines); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func mustPlan(t *testing.T, name string) Mission {
	t.Helper()
	m, err := ParsePlan(name+".plan", mustBuiltinFile(name+".plan"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// caseStudyErrors feed TestParseCaseStudyErrors and the seeds of
// FuzzParseCaseStudy. Each input is prefixed with a drone section naming
// mission2.plan unless it starts with "!".
var caseStudyErrors = []struct {
	name string
	in   string
	want string // the whole error message
}{
	{"unknown top-level key", "simulations:\n  speed: 1\n", `t.yaml:3: simulations: unknown key "simulations"`},
	{"unknown drone key", "!drone:\n  mission_file: mission2.plan\n  mission: x\n", `t.yaml:3: drone.mission: unknown key "mission"`},
	{"unknown obstacle key", "simulation:\n  obstacles:\n  - size: {l: 2, w: 2, h: 12, d: 3}\n    position: {x: 0, y: 20, z: 0, r: 0}\n", `t.yaml:5: simulation.obstacles[0].size.d: unknown key "d"`},
	{"angle instead of r", "simulation:\n  obstacles:\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: 0, y: 20, z: 0, angle: 0}\n", `t.yaml:6: simulation.obstacles[0].position.angle: unknown key "angle"`},
	{"missing obstacle field", "simulation:\n  obstacles:\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: 0, y: 20, z: 0}\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: 0, y: 30, r: 0}\n", `t.yaml:6: simulation.obstacles[0].position.r: missing`},
	{"missing z of second obstacle", "simulation:\n  obstacles:\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: 0, y: 20, z: 0, r: 0}\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: 0, y: 30, r: 0}\n", `t.yaml:8: simulation.obstacles[1].position.z: missing`},
	{"missing size", "simulation:\n  obstacles:\n  - position: {x: 0, y: 20, z: 0, r: 0}\n", `t.yaml:5: simulation.obstacles[0].size.l: missing`},
	{"null obstacle", "simulation:\n  obstacles:\n  -\n", `t.yaml:5: simulation.obstacles[0].size.l: missing`},
	{"NaN", "simulation:\n  obstacles:\n  - size: {l: 2, w: .nan, h: 12}\n    position: {x: 0, y: 20, z: 0, r: 0}\n", `t.yaml:5: simulation.obstacles[0].size.w: NaN is not a finite number`},
	{"Inf", "simulation:\n  obstacles:\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: -.inf, y: 20, z: 0, r: 0}\n", `t.yaml:6: simulation.obstacles[0].position.x: -Inf is not a finite number`},
	{"text for a number", "simulation:\n  obstacles:\n  - size: {l: '2', w: 2, h: 12}\n    position: {x: 0, y: 20, z: 0, r: 0}\n", `t.yaml:5: simulation.obstacles[0].size.l: want a number, got text`},
	{"list for a number", "simulation:\n  speed: [1]\n", `t.yaml:4: simulation.speed: wrong type: want a number`},
	{"cylinder", "simulation:\n  obstacles:\n  - shape: cylinder\n    size: {l: 2, w: 2, h: 12}\n    position: {x: 0, y: 20, z: 0, r: 0}\n", `t.yaml:5: simulation.obstacles[0].shape: "cylinder" is not supported, want box`},
	{"drone and robot", "robot:\n  port: ros\n", `t.yaml:3: robot: both drone and robot are given; robot is the newer name of drone, use one`},
	{"test and mission", "test: {}\nmission: {}\n", `t.yaml:4: mission: both test and mission are given; mission is the newer name of test, use one`},
	{"no mission file", "!drone:\n  port: ros\n", `t.yaml:1: drone.mission_file: missing: a case study needs a mission (a QGroundControl .plan file)`},
	{"empty file", "!", `t.yaml: drone.mission_file: missing: a case study needs a mission (a QGroundControl .plan file)`},
	{"mission file not found", "!drone:\n  mission_file: nowhere.plan\n", `t.yaml:2: drone.mission_file: open nowhere.plan: file does not exist`},
	{"bad plan", "!robot:\n  mission_file: bad.plan\n", `t.yaml:2: robot.mission_file: bad.plan: mission.items[1].params[4]: latitude 95 out of range [-90, 90]`},
	{"bad params file", "!drone:\n  mission_file: mission2.plan\n  params_file: bad-params.csv\n", `t.yaml:3: drone.params_file: bad-params.csv:2: MPC_XY_CRUISE: value "fast" is not a number`},
	{"bad commands file", "test:\n  commands_file: bad-commands.csv\n", `t.yaml:4: test.commands_file: bad-commands.csv:2: mode: mode 9 is not an Aerialist flight mode`},
	{"bad port", "!drone:\n  mission_file: mission2.plan\n  port: rosx\n", `t.yaml:3: drone.port: port "rosx": want a UDP port number or one of sitl, sim, ros, avoidance, cf, hw, px4_sitl, px4_ros, px4_cf`},
	{"fractional port", "!drone:\n  mission_file: mission2.plan\n  port: 14541.5\n", `t.yaml:3: drone.port: want a port number or name, got the fraction 14541.5`},
	{"lower-case param", "!drone:\n  mission_file: mission2.plan\n  params: {nav_acc_rad: 1}\n", `t.yaml:3: drone.params.nav_acc_rad: parameter name "nav_acc_rad": want upper-case letters, digits and underscores, starting with a letter`},
	{"param too big", "!drone:\n  mission_file: mission2.plan\n  params: {SDLOG_PROFILE: 4294967296}\n", `t.yaml:3: drone.params.SDLOG_PROFILE: integer 4294967296 outside the int32 range of PX4 parameters`},
	{"param NaN", "!drone:\n  mission_file: mission2.plan\n  params: {NAV_ACC_RAD: .nan}\n", `t.yaml:3: drone.params.NAV_ACC_RAD: parameter NAV_ACC_RAD = NaN is not a finite number`},
	{"bad simulator", "simulation:\n  simulator: airsim\n", `t.yaml:4: simulation.simulator: "airsim": want gazebo, jmavsim or ros`},
	{"zero speed", "simulation:\n  speed: 0\n", `t.yaml:4: simulation.speed: 0, want a speed factor above 0 and at most 1000`},
	// Issue 21 items 16 and 20: hostile shapes and numbers.
	{"1e308 is a number, out of range", "simulation:\n  obstacles:\n  - size: {l: 2, w: 2, h: 12}\n    position: {x: 1e308, y: 20, z: 0, r: 0}\n", `t.yaml:6: simulation.obstacles[0].position.x: 1e+308 out of range [-100000, 100000]`},
	{"!!str 10 is text", "simulation:\n  obstacles:\n  - size: {l: !!str 10, w: 2, h: 12}\n    position: {x: 0, y: 20, z: 0, r: 0}\n", `t.yaml:5: simulation.obstacles[0].size.l: want a number, got text`},
	{"quoted 1e3 is text", "simulation:\n  speed: \"1e3\"\n", `t.yaml:4: simulation.speed: want a number, got text`},
	{"speed 1e308", "simulation:\n  speed: 1e308\n", `t.yaml:4: simulation.speed: 1e+308, want a speed factor above 0 and at most 1000`},
	{"command x 1e308", "test:\n  commands:\n  - {timestamp: 1, mode: 100, x: 1e308}\n", `t.yaml:5: test.commands[0].x: x = 1e+308 out of range [-100000, 100000]`},
	{"flow nesting 20000 deep", "simulation:\n  world: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", `t.yaml:4: YAML nested more than 64 levels deep in [ ] and { }`},
	{"block nesting 20000 deep", "simulation:\n  world:\n" + strings.Repeat("  - ", 1) + strings.Repeat("- ", 20000) + "x\n", `t.yaml:5: more than 32 nested entries on one line: nested too deeply`},
	{"mapping indented 300 columns", "simulation:\n  world:\n" + deepMap(300), `t.yaml:257: YAML indented 257 columns, more than 256: nested too deeply`},
	{"billion laughs", "simulation:\n  world:\n" + laughs(12), `t.yaml:16: more than 100 YAML aliases`},
	{"1001 obstacles", "simulation:\n  obstacles:\n" + strings.Repeat("  - {size: {l: 2, w: 2, h: 12}, position: {x: 0, y: 20, z: 0, r: 0}}\n", 1001), `t.yaml:4: simulation.obstacles: 1001 obstacles, more than 1000`},
	{"empty commands", "test:\n  commands: []\n", `t.yaml:4: test.commands: empty list (Aerialist fails on it); leave the key out`},
	{"bad mode", "mission:\n  commands:\n  - {timestamp: 1, mode: 9}\n", `t.yaml:5: mission.commands[0].mode: mode 9 is not an Aerialist flight mode`},
	{"fractional timestamp", "test:\n  commands:\n  - {timestamp: 1.5, mode: 3}\n", `t.yaml:5: test.commands[0].timestamp: 1.5 is not an integer`},
	{"duplicate key", "simulation:\n  speed: 1\n  speed: 2\n", `t.yaml:5: mapping key "speed" already defined at [4:3]`},
	{"two documents", "!---\ntest: {}\n---\ntest: {}\n", `t.yaml: 2 YAML documents, want one`},
	{"not a mapping", "!- drone\n", `t.yaml:1: want a mapping, got a sequence`},
	{"syntax error", "simulation: [\n", `t.yaml:3: sequence end token ']' not found`},
}

// deepMap is a block mapping n levels deep, one column a level.
func deepMap(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i+4) + "k:\n")
	}
	return b.String()
}

// laughs is the billion-laughs document: n levels of ten aliases each.
func laughs(n int) string {
	var b strings.Builder
	b.WriteString("    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "    a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	return b.String()
}

func caseStudyInput(in string) string {
	if strings.HasPrefix(in, "!") {
		return in[1:]
	}
	return "drone:\n  mission_file: mission2.plan\n" + in
}

func TestParseCaseStudyErrors(t *testing.T) {
	for _, c := range caseStudyErrors {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCaseStudy("t.yaml", []byte(caseStudyInput(c.in)), testFiles)
			if err == nil {
				t.Fatalf("got no error; want %q", c.want)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got error %q; want %q", got, c.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("got error of type %T; want a *ParseError", err)
			}
		})
	}
}

func TestParseCaseStudyNoResolver(t *testing.T) {
	_, err := ParseCaseStudy("t.yaml", []byte("drone:\n  mission_file: m.plan\n"), nil)
	if want := "t.yaml:2: drone.mission_file: cannot read m.plan: no file resolver"; err == nil || err.Error() != want {
		t.Errorf("got error %v; want %q", err, want)
	}
}

// roundTripCaseStudy encodes cs, parses the result back with the mission
// served from EncodePlan, and reports any difference.
func roundTripCaseStudy(t *testing.T, cs *CaseStudy) {
	t.Helper()
	b, err := EncodeCaseStudy(cs, "case_studies/mission.plan")
	if err != nil {
		t.Fatalf("EncodeCaseStudy: %v", err)
	}
	plan, err := EncodePlan(cs.Mission)
	if err != nil {
		t.Fatalf("EncodePlan: %v", err)
	}
	resolve := func(p string) ([]byte, error) {
		if p == "case_studies/mission.plan" {
			return plan, nil
		}
		return nil, fmt.Errorf("unexpected file %s", p)
	}
	got, err := ParseCaseStudy("again.yaml", b, resolve)
	if err != nil {
		t.Fatalf("ParseCaseStudy(EncodeCaseStudy(cs)): %v\n%s", err, b)
	}
	if d := missionDiff(got.Mission, cs.Mission, 1e-6); d != "" {
		t.Errorf("mission: %s", d)
	}
	want := *cs
	want.Name, want.Source, want.Mission = got.Name, got.Source, got.Mission
	if d := cmp.Diff(&want, got, ignoreLines); d != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s\n%s", d, b)
	}
	b2, err := EncodeCaseStudy(got, "case_studies/mission.plan")
	if err != nil || string(b2) != string(b) {
		t.Errorf("re-encoding differs (err %v):\n%s\nwant:\n%s", err, b2, b)
	}
}

func TestCaseStudyRoundTrip(t *testing.T) {
	var css []*CaseStudy
	for _, name := range CompetitionNames() {
		cs, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		css = append(css, cs)
	}
	for _, in := range []string{yamlReport, yamlSaved, yamlNew} {
		cs, err := ParseCaseStudy("t.yaml", []byte(in), testFiles)
		if err != nil {
			t.Fatal(err)
		}
		css = append(css, cs)
	}
	odd := NewCaseStudy(mustPlan(t, "mission6"))
	odd.Name = "odd"
	odd.Params = map[string]float64{"A": 1e-7, "B": 1e20, "C": -3, "D": 123456.75, "E": negZero, "TRUE": 1}
	odd.IntParams = map[string]bool{"C": true}
	odd.Port, odd.Simulator, odd.Speed, odd.Headless = "", "", 0.1, false
	odd.Obstacles = []world.Box{{L: 1e-9, W: 99999.5, H: -2, X: 0.1, Y: -1e5, Z: 5, R: 1.0 / 3}}
	odd.Commands = nil
	css = append(css, odd)
	for _, cs := range css {
		t.Run(cs.Name+"-"+cs.Source, func(t *testing.T) { roundTripCaseStudy(t, cs) })
	}
}

func TestEncodeCaseStudyGolden(t *testing.T) {
	cs, err := ParseCaseStudy("t.yaml", []byte(yamlReport), testFiles)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeCaseStudy(cs, "case_studies/mission2.plan")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "mission2-obstacles.yaml.golden", got)
}

func TestEncodeCaseStudyRejects(t *testing.T) {
	for _, c := range []struct {
		name        string
		edit        func(cs *CaseStudy)
		missionFile string
		want        string
	}{
		{"nil", nil, "m.plan", "nil case study"},
		{"no mission file", func(*CaseStudy) {}, "", "mission file"},
		{"two-line mission file", func(*CaseStudy) {}, "a\nb", "mission file"},
		{"bad param name", func(cs *CaseStudy) { cs.Params["bad name"] = 1 }, "m.plan", `parameter name "bad name"`},
		{"fractional int param", func(cs *CaseStudy) { cs.Params["NAV_RCL_ACT"] = 2.5 }, "m.plan", "NAV_RCL_ACT = 2.5 is not an int32"},
		{"stray IntParams", func(cs *CaseStudy) { cs.IntParams["XYZ"] = true }, "m.plan", "IntParams names XYZ"},
		{"bad port", func(cs *CaseStudy) { cs.Port = "0" }, "m.plan", `port "0"`},
		{"bad simulator", func(cs *CaseStudy) { cs.Simulator = "x" }, "m.plan", `simulator "x"`},
		{"zero speed", func(cs *CaseStudy) { cs.Speed = 0 }, "m.plan", "speed 0"},
		{"NaN obstacle", func(cs *CaseStudy) { cs.Obstacles = []world.Box{{L: nan()}} }, "m.plan", "obstacle 1"},
		{"bad mode", func(cs *CaseStudy) { cs.Commands[0].Mode = 9 }, "m.plan", "command 1: mode 9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cs *CaseStudy
			if c.edit != nil {
				var err error
				if cs, err = Builtin("mission1"); err != nil {
					t.Fatal(err)
				}
				c.edit(cs)
			}
			_, err := EncodeCaseStudy(cs, c.missionFile)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v; want one containing %q", err, c.want)
			}
		})
	}
}

func TestYAMLScalars(t *testing.T) {
	for _, c := range []struct {
		f    func(float64) string
		v    float64
		want string
	}{
		{pyFloat, 12, "12.0"},
		{pyFloat, 0.5, "0.5"},
		{pyFloat, negZero, "0.0"},
		{pyFloat, 1e20, "1.0e+20"},
		{pyFloat, 2.5e-7, "2.5e-07"},
		{pyFloat, 123456.75, "123456.75"},
		{yamlNum, 25, "25"},
		{yamlNum, negZero, "0"},
		{yamlNum, 0.1, "0.1"},
		{yamlNum, 1e15, "1000000000000000.0"},
		{yamlNum, -1e16, "-1.0e+16"},
		{yamlNum, -13.054133665700302, "-13.054133665700302"},
	} {
		if got := c.f(c.v); got != c.want {
			t.Errorf("format %v: got %q; want %q", c.v, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"case_studies/mission2.plan": "case_studies/mission2.plan",
		"/abs/m.plan":                `"/abs/m.plan"`,
		"yes":                        `"yes"`,
		"TRUE":                       `"TRUE"`,
		"a b":                        `"a b"`,
		"":                           `""`,
		"NAV_ACC_RAD":                "NAV_ACC_RAD",
	} {
		if got := yamlString(in); got != want {
			t.Errorf("yamlString(%q) = %s; want %s", in, got, want)
		}
	}
}

func TestLoadCaseStudy(t *testing.T) {
	// The competition's layout: YAML and data in case_studies/, paths in
	// the YAML relative to case_studies' parent.
	root := t.TempDir()
	dir := filepath.Join(root, "case_studies")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := fs.Glob(competitionFS, "competition/*")
	for _, e := range entries {
		b, _ := fs.ReadFile(competitionFS, e)
		if err := os.WriteFile(filepath.Join(dir, path.Base(e)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := Builtin("mission3")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "mission3.yaml")} {
		got, err := LoadCaseStudy(p)
		if err != nil {
			t.Fatalf("LoadCaseStudy(%s): %v", p, err)
		}
		want.Source = p
		if d := cmp.Diff(want, got, ignoreLines); d != "" {
			t.Errorf("LoadCaseStudy(%s) mismatch (-want +got):\n%s", p, d)
		}
	}
	// A YAML beside its files, naming them by a path that resolves nowhere
	// else: the base name in the YAML's directory is found.
	other := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mission1.plan", "mission-params.csv"} {
		if err := os.WriteFile(filepath.Join(other, f), mustBuiltinFile(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	y := filepath.Join(other, "t.yaml")
	if err := os.WriteFile(y, []byte("drone:\n  mission_file: x/y/mission1.plan\n  params_file: x/mission-params.csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := LoadCaseStudy(y)
	if err != nil {
		t.Fatalf("LoadCaseStudy(%s): %v", y, err)
	}
	if cs.Mission.Name != "mission1" || len(cs.Params) != 8 {
		t.Errorf("got mission %q and %d params; want mission1 and 8", cs.Mission.Name, len(cs.Params))
	}
	// Missing files name every path tried.
	if err := os.WriteFile(y, []byte("drone:\n  mission_file: nope.plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCaseStudy(y); err == nil || !strings.Contains(err.Error(), "nope.plan not found (tried nope.plan, "+filepath.Join(other, "nope.plan")) {
		t.Errorf("got error %v; want it to list the paths tried", err)
	}
	if _, err := LoadCaseStudy(filepath.Join(root, "absent.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent file: got error %v; want fs.ErrNotExist", err)
	}
}

func TestReferenceCandidates(t *testing.T) {
	for _, c := range []struct {
		dir, ref string
		want     []string
	}{
		{"case_studies", "case_studies/mission2.plan", []string{"case_studies/mission2.plan", "case_studies/case_studies/mission2.plan", "case_studies/mission2.plan"}},
		{"a/b", "c/d.csv", []string{"c/d.csv", "a/b/c/d.csv", "a/c/d.csv", "a/b/d.csv"}},
		{"a", "/abs/x.plan", []string{"/abs/x.plan"}},
		{".", "m.plan", []string{"m.plan", "../m.plan"}},
	} {
		got := referenceCandidates(filepath.FromSlash(c.dir), filepath.FromSlash(c.ref))
		for i := range c.want {
			c.want[i] = filepath.FromSlash(c.want[i])
		}
		// Repeats are removed: case_studies/mission2.plan appears once.
		want := dedupe(c.want)
		if !cmp.Equal(got, want) {
			t.Errorf("referenceCandidates(%q, %q) = %q; want %q", c.dir, c.ref, got, want)
		}
	}
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "mine.plan")
	if err := os.WriteFile(plan, mustBuiltinFile("mission5.plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(plan)
	if err != nil {
		t.Fatalf("Load(%s): %v", plan, err)
	}
	want, err := Builtin("mission5")
	if err != nil {
		t.Fatal(err)
	}
	want.Name, want.Source, want.Mission.Name = "mine", plan, "mine"
	if d := cmp.Diff(want, got, ignoreLines); d != "" {
		t.Errorf("Load(.plan) mismatch with the built-in defaults (-want +got):\n%s", d)
	}
	if got, err := Load("mission7"); err != nil || got.Source != "builtin" || got.Name != "mission7" {
		t.Errorf("Load(mission7) = %v, %v; want the built-in", got, err)
	}
	yaml := filepath.Join(dir, "t.YML")
	if err := os.WriteFile(yaml, []byte("drone:\n  mission_file: mine.plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(yaml); err != nil || got.Mission.Name != "mine" {
		t.Errorf("Load(%s) = %v, %v; want the YAML's case study", yaml, got, err)
	}
	for _, arg := range []string{"mission0", "notes.txt", ""} {
		if _, err := Load(arg); !errors.Is(err, ErrUnknownCaseStudy) {
			t.Errorf("Load(%q): got error %v; want ErrUnknownCaseStudy", arg, err)
		}
	}
	if _, err := Load(dir); !errors.Is(err, ErrUnknownCaseStudy) || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("Load(a directory): got %v; want ErrUnknownCaseStudy saying it is a directory", err)
	}
}
