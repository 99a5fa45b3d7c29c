package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/scenario"
)

// testYAML is a competition test in the old key layout with the given
// obstacles, each "l w h x y r".
func testYAML(obstacles ...[6]float64) string {
	var b strings.Builder
	b.WriteString("drone:\n  port: 14541\n  params_file: case_studies/mission-params.csv\n  mission_file: case_studies/mission2.plan\nsimulation:\n  simulator: ros\n  headless: true\n  obstacles:\n")
	for _, o := range obstacles {
		fmt.Fprintf(&b, "  - size: {l: %v, w: %v, h: %v}\n    position: {x: %v, y: %v, z: 0, r: %v}\n", o[0], o[1], o[2], o[3], o[4], o[5])
	}
	b.WriteString("test:\n  commands_file: case_studies/mission-commands.csv\n")
	return b.String()
}

func writeTests(t *testing.T, dir string, tests map[string]string) string {
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

func mission(t *testing.T, name string) *scenario.CaseStudy {
	t.Helper()
	cs, err := scenario.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestLint lints two suites on mission2 and checks every test's findings
// and the tallies, counted by hand from the boxes:
//
//	a/test_0  valid
//	a/test_1  test_0's box: a duplicate (IoU 1), still valid
//	a/test_2  footprint leaves the area (y 39 + 2.5 > 40.1): invalid everywhere
//	a/test_3  r = 0.00357°: not spawned by Aerialist, valid
//	a/test_4  l = 25: invalid in 2025 and 2026 (size), valid in 2024
//	a/test_5  a wall across the legs: infeasible, invalid everywhere, no rule broken
//	b/test_0  on the landing point: infeasible (and centre outside the area)
//	b/test_1  not YAML: unreadable, invalid
func TestLint(t *testing.T) {
	root := t.TempDir()
	a := writeTests(t, filepath.Join(root, "a"), map[string]string{
		"test_0.yaml": testYAML([6]float64{5, 5, 20, 10, 25, 0}),
		"test_1.yaml": testYAML([6]float64{5, 5, 20, 10, 25, 0}),
		"test_2.yaml": testYAML([6]float64{5, 5, 20, 10, 39, 0}),
		"test_3.yaml": testYAML([6]float64{5, 5, 20, -20, 25, 0.00357}),
		"test_4.yaml": testYAML([6]float64{25, 3, 20, -10, 25, 0}),
		// A wall across both legs with 1-m gaps (scenario's lint test).
		"test_5.yaml": testYAML([6]float64{14, 2, 20, -15, 25, 0}, [6]float64{14, 2, 20, 0, 25, 0}, [6]float64{14, 2, 20, 15, 25, 0}),
	})
	b := writeTests(t, filepath.Join(root, "b"), map[string]string{
		"test_0.yaml": testYAML([6]float64{4, 4, 20, -12.36, 0.13, 0}),
		"test_1.yaml": "drone: [unclosed\n",
	})
	cs := mission(t, "mission2")
	for _, c := range []struct {
		rules            string
		invalidA, totalA int
	}{{"2024", 2, 6}, {"2026", 3, 6}} {
		rep, err := Lint([]string{a, b}, []string{"a", "b"}, []*scenario.CaseStudy{cs}, LintOptions{Rules: c.rules, CorridorM: DefaultCorridorM})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Tests) != 8 || rep.Tests[0].Suite != "a" || rep.Tests[6].Test != "test_0.yaml" || rep.Tests[6].Suite != "b" {
			t.Fatalf("%s: tests %+v; want a's 6 then b's 2 in file order", c.rules, rep.Tests)
		}
		if w := rep.Tests[5]; !w.Invalid || len(w.Rules[c.rules]) != 0 || len(w.Infeasible) != 1 || w.Infeasible[0].Kind != scenario.LintWall {
			t.Errorf("%s: the wall %+v; want invalid by one wall finding alone", c.rules, w)
		}
		if got, want := rep.Invalid(), c.invalidA+2; got != want {
			t.Errorf("%s: %d invalid; want %d", c.rules, got, want)
		}
		ta := rep.Totals["a/mission2"]
		if ta.Tests != c.totalA || ta.Invalid != c.invalidA || ta.Duplicates != 1 || ta.Unspawned != 1 || ta.Infeasible["wall"] != 1 ||
			ta.Rules["2024"]["footprint"] != 1 || ta.Rules["2024"]["invalid"] != 1 || ta.Rules["2025"]["size"] != 1 || ta.Rules["2026"]["invalid"] != 2 {
			t.Errorf("%s: tally of a %+v", c.rules, ta)
		}
		tb := rep.Totals["b/mission2"]
		if tb.Tests != 2 || tb.Invalid != 2 || tb.Unreadable != 1 || tb.Infeasible["near-waypoint"] != 1 || tb.Rules["2024"]["centre"] != 1 {
			t.Errorf("%s: tally of b %+v", c.rules, tb)
		}
		for _, k := range []scenario.LintKind{scenario.LintFootprint, scenario.LintSize, scenario.LintUnspawned, scenario.LintDuplicate, scenario.LintWaypoint, scenario.LintWall} {
			if rep.Effects[string(k)] != k.Effect() {
				t.Errorf("%s: effect of %s %q; want %q", c.rules, k, rep.Effects[string(k)], k.Effect())
			}
		}
		if _, ok := rep.Effects[string(scenario.LintOverlap)]; ok {
			t.Errorf("%s: an effect for overlap, which no test has", c.rules)
		}
	}
	// A folder that is not there: an error, not a finding.
	if _, err := Lint([]string{filepath.Join(root, "none")}, []string{"none"}, []*scenario.CaseStudy{cs}, LintOptions{Rules: "2026", CorridorM: 15}); err == nil {
		t.Error("missing folder: no error")
	}
}

func TestTallyAndKinds(t *testing.T) {
	fp := scenario.LintFinding{Kind: scenario.LintFootprint}
	ov := scenario.LintFinding{Kind: scenario.LintOverlap}
	tests := []LintTest{
		// Two footprint breaks and an overlap in 2024 count once each.
		{Rules: map[string][]scenario.LintFinding{"2024": {fp, fp, ov}, "2025": {fp}}, Invalid: true, DuplicateOf: "test_9.yaml"},
		{Rules: map[string][]scenario.LintFinding{}, Unspawned: []scenario.LintFinding{{Kind: scenario.LintUnspawned}, {Kind: scenario.LintUnspawned}}},
		// Unreadable: counted as such and as invalid, nothing else.
		{Unreadable: "broken", Invalid: true, Rules: map[string][]scenario.LintFinding{"2024": {fp}}},
	}
	got := Tally(tests)
	if got.Tests != 3 || got.Invalid != 2 || got.Unreadable != 1 || got.Unspawned != 1 || got.Duplicates != 1 ||
		got.Rules["2024"]["footprint"] != 1 || got.Rules["2024"]["overlap"] != 1 || got.Rules["2024"]["invalid"] != 1 ||
		got.Rules["2025"]["invalid"] != 1 || got.Rules["2026"]["invalid"] != 0 {
		t.Errorf("tally %+v", got)
	}
	if s, want := KindCounts(got.Rules["2024"]), "footprint 1, overlap 1"; s != want {
		t.Errorf("KindCounts %q; want %q (scenario.LintKinds order, not \"invalid\")", s, want)
	}
	if s := KindCounts(map[string]int{"invalid": 3}); s != "-" {
		t.Errorf("KindCounts of no kind %q; want -", s)
	}
	if ks, want := tests[0].Kinds(), []scenario.LintKind{scenario.LintFootprint, scenario.LintOverlap, scenario.LintDuplicate}; !slices.Equal(ks, want) {
		t.Errorf("Kinds %v; want %v", ks, want)
	}
}

func TestLintWarning(t *testing.T) {
	cs := mission(t, "mission2")
	dir := writeTests(t, filepath.Join(t.TempDir(), "tool"), map[string]string{
		"test_0.yaml": testYAML([6]float64{5, 5, 20, 10, 39, 0}),
		"test_1.yaml": testYAML([6]float64{5, 5, 20, -20, 25, 0.00357}),
	})
	want := "tool/mission2: 1 of 2 tests invalid under 2026 (rules: footprint 1; infeasible: -; unreadable 0), 1 with a box Aerialist will not spawn, 0 duplicates (IoU 1); see shakedown lint"
	if got := LintWarning(dir, "tool", cs, true, "2026"); got != want {
		t.Errorf("got %q; want %q", got, want)
	}
	ok := writeTests(t, filepath.Join(t.TempDir(), "ok"), map[string]string{"test_0.yaml": testYAML([6]float64{5, 5, 20, 10, 25, 0})})
	if got := LintWarning(ok, "ok", cs, true, "2026"); got != "" {
		t.Errorf("a clean suite: %q; want no warning", got)
	}
	if got := LintWarning(filepath.Join(ok, "gone"), "gone", cs, true, "2026"); !strings.Contains(got, "gone/mission2: lint: ") {
		t.Errorf("a missing folder: %q; want a lint warning naming it", got)
	}
}
