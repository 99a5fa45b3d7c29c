package main

import (
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
