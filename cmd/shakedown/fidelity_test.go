package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that breaks the placement-area rule, as competition entrants hand
// them to Aerialist, is flown after a warning; --strict refuses it.
func TestRunOutOfAreaWarnsAndFlies(t *testing.T) {
	file := filepath.Join("testdata", "fidelity", "outside.yaml")
	code, out, errOut := sh(t, "run", file)
	if code == 2 || !strings.Contains(errOut, "warning: "+file+": breaks the rules:") || !strings.Contains(errOut, "footprint leaves the placement area") ||
		!strings.Contains(errOut, "obstacle 1") || !strings.Contains(out, "1 tests, 1 runs each") {
		t.Errorf("exit %d\nstdout %s\nstderr %s\nwant a warning naming the file, the rule and the obstacle, and a flight", code, out, errOut)
	}
	code, out, errOut = sh(t, "run", "--strict", file)
	if code != 2 || !strings.Contains(errOut, file+": invalid test:") || out != "" {
		t.Errorf("--strict: exit %d\nstdout %s\nstderr %s\nwant exit 2 naming the file and nothing flown", code, out, errOut)
	}
}

func TestFidelityBadInput(t *testing.T) {
	dir := t.TempDir()
	yaml, err := filepath.Abs(filepath.Join("testdata", "fidelity", "outside.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, csv, want string }{
		{"missing test file", "test,yaml,px4_min_distance_m\nok," + yaml + ",1\ngone,nowhere.yaml,2\n", "ref.csv:3: yaml: test file"},
		{"text distance", "test,yaml,px4_min_distance_m\nok," + yaml + ",close\n", `ref.csv:2: px4_min_distance_m: "close" is not a distance`},
		{"unknown mission", "mission,test,px4_min_distance_m\nmission8,ok,1\n", `ref.csv:2: mission: unknown mission "mission8"`},
		{"no distance column", "test,yaml\nok," + yaml + "\n", "ref.csv:1: px4_min_distance_m: missing column"},
	} {
		ref := filepath.Join(dir, "ref.csv")
		if err := os.WriteFile(ref, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := sh(t, "fidelity", ref, "--runs", "1")
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%s: exit %d\nstdout %q\nstderr %q\nwant exit 2 with %q", c.name, code, out, errOut, c.want)
		}
	}
	empty := t.TempDir()
	if code, _, errOut := sh(t, "fidelity", empty, "--runs", "1"); code != 2 || !strings.Contains(errOut, "no test YAML") {
		t.Errorf("an empty folder: exit %d, %q", code, errOut)
	}
	if code, _, _ := sh(t, "fidelity", filepath.Join(dir, "ref.csv"), "--runs", "0"); code != 2 {
		t.Errorf("--runs 0: exit %d; want 2", code)
	}
}

// On the hand-made reference of package fidelity, the command prints the
// known ρ = 1 on its pooled line.
func TestFidelityKnownRho(t *testing.T) {
	code, out, errOut := sh(t, "fidelity", filepath.Join("..", "..", "fidelity", "testdata", "tiny", "reference.csv"), "--runs", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var pooled string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "pooled ") {
			pooled = l
		}
	}
	if f := strings.Fields(pooled); len(f) < 3 || f[1] != "3" || f[2] != "1.00" {
		t.Errorf("pooled line %q; want n 3, rho 1.00\n%s", pooled, out)
	}
}

// --planner-params flies the embedded planner with a user's PX4-Avoidance
// parameters: a narrower smoothing margin takes the vehicle closer to the
// boxes than PX4-Avoidance's 40°, and a bad file is refused naming its
// line before anything is flown.
func TestRunPlannerParams(t *testing.T) {
	file := filepath.Join("testdata", "fidelity", "outside.yaml")
	dir := t.TempDir()
	params := filepath.Join(dir, "planner.yaml")
	if err := os.WriteFile(params, []byte("# a bolder planner\nsmoothing_margin_degrees_: 10\nmax_point_age_s_: 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, def, _ := sh(t, "run", file, "--json")
	_, bold, errOut := sh(t, "run", file, "--json", "--planner-params", params)
	if !strings.Contains(errOut, "planner parameters from "+params+": smoothing_margin_degrees_ 10 (default 40)") ||
		strings.Contains(errOut, "max_point_age_s_") {
		t.Errorf("stderr %q; want the changed parameter and its default, and not the restated default", errOut)
	}
	dDef, dBold := minDistanceOf(t, def), minDistanceOf(t, bold)
	if !(dBold < dDef-0.5) {
		t.Errorf("min distance with a 10° margin %.2f m, with PX4-Avoidance's 40° %.2f m; want the narrower margin at least 0.5 m closer", dBold, dDef)
	}
	tiny := filepath.Join("..", "..", "fidelity", "testdata", "tiny", "reference.csv")
	_, fDef, _ := sh(t, "fidelity", tiny, "--runs", "1", "--json")
	_, fBold, _ := sh(t, "fidelity", tiny, "--runs", "1", "--json", "--planner-params", params)
	if fDef == "" || fDef == fBold {
		t.Errorf("fidelity flies the same with a 10° margin as with the default:\n%.300s", fBold)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("smoothing_margin_degrees_: 30\nn_expanded_nodes_: 400\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", file}, {"fidelity", filepath.Join("..", "..", "fidelity", "testdata", "tiny", "reference.csv"), "--runs", "1"}} {
		code, out, errOut := sh(t, append(args, "--planner-params", bad)...)
		if code != 2 || out != "" || !strings.Contains(errOut, bad+":2: n_expanded_nodes_: 400 out of [0, 200]") {
			t.Errorf("%s with a bad file: exit %d\nstdout %q\nstderr %q\nwant exit 2 naming the line", args[0], code, out, errOut)
		}
	}
}

func minDistanceOf(t *testing.T, js string) float64 {
	t.Helper()
	var res []struct {
		Summary struct {
			MinClearanceM float64 `json:"min_clearance_m"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil || len(res) != 1 {
		t.Fatalf("run --json: %v (%d results)\n%s", err, len(res), js)
	}
	return res[0].Summary.MinClearanceM
}
