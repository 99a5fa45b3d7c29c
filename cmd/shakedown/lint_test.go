package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score/suite"
)

// lintYAML is a competition test in the old key layout with the given
// obstacles, each "l w h x y r".
func lintYAML(obstacles ...[6]float64) string {
	var b strings.Builder
	b.WriteString("drone:\n  port: 14541\n  params_file: case_studies/mission-params.csv\n  mission_file: case_studies/mission2.plan\nsimulation:\n  simulator: ros\n  headless: true\n  obstacles:\n")
	for _, o := range obstacles {
		fmt.Fprintf(&b, "  - size: {l: %v, w: %v, h: %v}\n    position: {x: %v, y: %v, z: 0, r: %v}\n", o[0], o[1], o[2], o[3], o[4], o[5])
	}
	b.WriteString("test:\n  commands_file: case_studies/mission-commands.csv\n")
	return b.String()
}

func writeSuite(t *testing.T, dir string, tests map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range tests {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLintSuite(t *testing.T) {
	dir := writeSuite(t, filepath.Join(t.TempDir(), "tool"), map[string]string{
		"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0}),                                  // valid
		"test_1.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0}),                                  // a duplicate of test_0
		"test_2.yaml": lintYAML([6]float64{5, 5, 20, 10, 39, 0}),                                  // footprint leaves the area
		"test_3.yaml": lintYAML([6]float64{5, 5, 20, -20, 25, 0.00357}),                           // not spawned
		"test_4.yaml": lintYAML([6]float64{4, 4, 20, -12.36, 0.13, 0}),                            // on the landing point (centre outside too)
		"test_5.yaml": lintYAML([6]float64{25, 3, 20, -10, 25, 0}),                                // l 25: 2025/2026 only
		"test_6.yaml": "drone: [unclosed\n",                                                       // unreadable
		"test_7.yaml": lintYAML([6]float64{3, 3, 20, -30, 20, 0}, [6]float64{3, 3, 20, 0, 20, 0}), // valid, two boxes
	})
	var out bytes.Buffer
	err := lintSuites(&out, []string{dir}, lintFlags{missions: []string{"mission2"}, rules: "2026", json: true, corridor: 15})
	var f *failure
	if !errors.As(err, &f) || !strings.Contains(f.msg, "4 of 8 tests") {
		t.Fatalf("error %v; want a failure naming 4 of 8 invalid tests (2, 4, 5, 6)", err)
	}
	var rep suite.LintReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	byName := map[string]suite.LintTest{}
	for _, lt := range rep.Tests {
		byName[lt.Test] = lt
	}
	check := func(name string, invalid bool, what string, ok bool) {
		t.Helper()
		lt := byName[name]
		if lt.Invalid != invalid || !ok {
			t.Errorf("%s: invalid %v (want %v), %s: %+v", name, lt.Invalid, invalid, what, lt)
		}
	}
	check("test_0.yaml", false, "no finding", len(byName["test_0.yaml"].Rules["2026"]) == 0 && byName["test_0.yaml"].DuplicateOf == "")
	check("test_1.yaml", false, "duplicate of test_0", byName["test_1.yaml"].DuplicateOf == "test_0.yaml")
	check("test_2.yaml", true, "footprint", len(byName["test_2.yaml"].Rules["2024"]) == 1 && byName["test_2.yaml"].Rules["2024"][0].Kind == "footprint")
	check("test_3.yaml", false, "unspawned", len(byName["test_3.yaml"].Unspawned) == 1)
	check("test_4.yaml", true, "near the landing point", len(byName["test_4.yaml"].Infeasible) == 1 && byName["test_4.yaml"].Infeasible[0].Kind == "near-waypoint")
	check("test_5.yaml", true, "size in 2025, not 2024", len(byName["test_5.yaml"].Rules["2024"]) == 0 && byName["test_5.yaml"].Rules["2025"][0].Kind == "size")
	check("test_6.yaml", true, "unreadable", byName["test_6.yaml"].Unreadable != "")
	check("test_7.yaml", false, "no finding", len(byName["test_7.yaml"].Infeasible) == 0)
	tot := rep.Totals["tool/mission2"]
	if tot.Tests != 8 || tot.Invalid != 4 || tot.Unreadable != 1 || tot.Unspawned != 1 || tot.Duplicates != 1 ||
		tot.Rules["2024"]["footprint"] != 1 || tot.Rules["2024"]["centre"] != 1 || tot.Rules["2025"]["size"] != 1 || tot.Infeasible["near-waypoint"] != 1 {
		t.Errorf("totals %+v", tot)
	}

	// Under the 2024 rules test_5 is valid.
	out.Reset()
	err = lintSuites(&out, []string{dir}, lintFlags{missions: []string{"mission2"}, rules: "2024", corridor: 15})
	if !errors.As(err, &f) || !strings.Contains(f.msg, "3 of 8 tests") {
		t.Errorf("2024: error %v; want 3 of 8 invalid", err)
	}
	for _, want := range []string{"## tool/mission2", "2024 rule breaks: 2 tests (centre 1, footprint 1)", "2025 rule breaks: 3 tests (centre 1, footprint 1, size 1)", "not spawned by Aerialist: 1; duplicates (IoU 1): 1", "what each finding does"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}

	// A valid suite exits 0.
	ok := writeSuite(t, filepath.Join(t.TempDir(), "ok"), map[string]string{"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0})})
	if err := lintSuites(&out, []string{ok}, lintFlags{missions: []string{"mission2"}, rules: "2026", corridor: 15}); err != nil {
		t.Errorf("valid suite: %v", err)
	}
}

func TestCheckSuiteDirs(t *testing.T) {
	root := t.TempDir()
	one := writeSuite(t, filepath.Join(root, "one"), map[string]string{"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0})})
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)
	parent := filepath.Join(root, "generated_tests")
	writeSuite(t, filepath.Join(parent, "01-02-03-04-05"), map[string]string{"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0})})
	writeSuite(t, filepath.Join(parent, "01-02-03-09-09"), map[string]string{"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0})})
	file := filepath.Join(one, "test_0.yaml")
	// A --mission layout: tests for mission2, none for mission4 (a
	// generator that found nothing there), and a layout empty on both.
	some := filepath.Join(root, "some")
	writeSuite(t, filepath.Join(some, "mission2"), map[string]string{"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 25, 0})})
	os.MkdirAll(filepath.Join(some, "mission4"), 0o755)
	none := filepath.Join(root, "none")
	os.MkdirAll(filepath.Join(none, "mission2"), 0o755)
	os.MkdirAll(filepath.Join(none, "mission4"), 0o755)
	for _, c := range []struct {
		name     string
		dirs     []string
		missions []string
		want     string // "" = accepted
	}{
		{"one suite", []string{one}, []string{"mission2"}, ""},
		{"empty", []string{empty}, []string{"mission2"}, "no test_*.yaml: the suite for mission2 is empty"},
		{"folder of suites", []string{parent}, []string{"mission2"}, "it is a folder of suites"},
		{"the same folder twice", []string{one, one + "/"}, []string{"mission2"}, "are the same suite folder"},
		{"the same folder by another path", []string{one, filepath.Join(root, "empty", "..", "one")}, []string{"mission2"}, "are the same suite folder"},
		{"a file", []string{file}, []string{"mission2"}, "not a folder"},
		{"missing", []string{filepath.Join(root, "nope")}, []string{"mission2"}, "no such file"},
		{"missing mission folder", []string{one}, []string{"mission2", "mission4"}, "no folder"},
		{"empty on one mission of two", []string{some}, []string{"mission2", "mission4"}, ""},
		{"empty on every mission", []string{none}, []string{"mission2", "mission4"}, "the suite for mission2 is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := suite.CheckDirs(c.dirs, c.missions)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("got %v; want accepted", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v; want an error containing %q", err, c.want)
			}
		})
	}
	// Through the command: exit 2, the reason on stderr.
	var stdout, stderr bytes.Buffer
	cmd := newLintCmd()
	cmd.SetArgs([]string{"--mission", "mission2", empty})
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || errors.As(err, new(*failure)) {
		t.Errorf("empty suite through the command: %v; want a could-not-run error", err)
	}
}

func TestLintWarnings(t *testing.T) {
	dir := writeSuite(t, filepath.Join(t.TempDir(), "tool"), map[string]string{
		"test_0.yaml": lintYAML([6]float64{5, 5, 20, 10, 39, 0}),
		"test_1.yaml": lintYAML([6]float64{5, 5, 20, -20, 25, 0.00357}),
	})
	var w bytes.Buffer
	cs := mustMission(t, "mission2")
	lintWarnings(&w, dir, "tool", cs, true, "2026")
	if got := w.String(); !strings.Contains(got, "tool/mission2: 1 of 2 tests invalid under 2026 (rules: footprint 1") || !strings.Contains(got, "1 with a box Aerialist will not spawn") {
		t.Errorf("warning %q", got)
	}
}

func mustMission(t *testing.T, name string) *scenario.CaseStudy {
	t.Helper()
	cs, err := scenario.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
