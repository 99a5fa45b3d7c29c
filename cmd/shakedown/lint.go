package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/score/suite"
	"github.com/shakedown-robotics/shakedown/world"
)

type lintFlags struct {
	missions []string
	rules    string
	json     bool
	corridor float64
}

func newLintCmd() *cobra.Command {
	var f lintFlags
	cmd := &cobra.Command{
		Use:   "lint --mission <case-study> [--rules 2026] <suite-dir>... [--json]",
		Short: "Check test suites against the competition's rules and Aerialist's bench, without flying",
		Long: `Check every test_*.yaml of one or more suites (folders laid out as for
score) and say, per test and in total:

  - the rule breaks per edition (2024; 2025 and 2026 share their rules):
    obstacle count, centre outside the placement area, footprint leaving
    it, overlap, sizes, rotation, z, non-numbers;
  - infeasible tests, invalid in every edition: a footprint closer than
    1.5 m − NAV_ACC_RAD to the take-off point, a waypoint or the landing
    point, or boxes that close a leg's corridor (--corridor m either side);
  - boxes Aerialist's Gazebo will not spawn (a rotation whose yaw Python
    prints in exponent notation, 0 < |r| < 1e-4 rad): PX4 flies through them;
  - near-duplicates (footprint unions with IoU 1), dropped in 2025 and 2026;

and what each does to the edition's score. Exit status: 0 every test valid
under --rules, 1 some test would be invalid (or is unreadable), 2 could not
run (a missing folder, an empty suite, a folder of suites, bad flags).`,
		Example: `  shakedown lint --mission mission4 tlqd/mission4
  shakedown lint --mission mission2 --mission mission4 --rules 2024 gen-a gen-b --json`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return lintSuites(cmd.OutOrStdout(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.missions, "mission", nil, "case study the suites were made for: mission1..7, a case-study YAML or a .plan; repeatable")
	fl.StringVar(&f.rules, "rules", "2026", "edition whose rules decide the exit status: 2024, 2025 or 2026")
	fl.BoolVar(&f.json, "json", false, "print the findings as JSON")
	fl.Float64Var(&f.corridor, "corridor", 15, "`metres` either side of a leg the vehicle may use to go round a wall")
	return cmd
}

// lintTest is one test as lint saw it.
type lintTest struct {
	Suite       string                            `json:"suite"`
	Mission     string                            `json:"mission"`
	Test        string                            `json:"test"`
	File        string                            `json:"file"`
	Unreadable  string                            `json:"unreadable,omitempty"`
	Rules       map[string][]scenario.LintFinding `json:"rules"` // edition → rule breaks
	Infeasible  []scenario.LintFinding            `json:"infeasible"`
	Unspawned   []scenario.LintFinding            `json:"unspawned"`
	DuplicateOf string                            `json:"duplicate_of,omitempty"`
	Invalid     bool                              `json:"invalid"` // under --rules
}

type lintReport struct {
	Rules     string               `json:"rules"`
	CorridorM float64              `json:"corridor_m"`
	Tests     []lintTest           `json:"tests"`
	Totals    map[string]lintTally `json:"totals"` // "suite/mission" → tally
	Effects   map[string]string    `json:"effects"`
}

// lintTally counts, per category, the tests with at least one finding of
// it: per edition for the rule breaks.
type lintTally struct {
	Tests      int                       `json:"tests"`
	Invalid    int                       `json:"invalid"`
	Unreadable int                       `json:"unreadable"`
	Rules      map[string]map[string]int `json:"rules"` // edition → kind → tests
	Infeasible map[string]int            `json:"infeasible"`
	Unspawned  int                       `json:"unspawned"`
	Duplicates int                       `json:"duplicates"`
}

func lintSuites(stdout io.Writer, dirs []string, f lintFlags) error {
	if _, err := rulesFor(f.rules); err != nil {
		return err
	}
	if !(f.corridor > 0) || f.corridor > 1000 {
		return fmt.Errorf("--corridor %v: want metres in (0, 1000]", f.corridor)
	}
	if len(f.missions) == 0 {
		return errors.New("--mission is required: the case study the suites were made for (mission1..7, a YAML or a .plan)")
	}
	missions, names, err := suite.LoadMissions(f.missions)
	if err != nil {
		return err
	}
	if err := suite.CheckDirs(dirs, names); err != nil {
		return err
	}
	tools := suite.ToolNames(dirs)
	rep := lintReport{Rules: f.rules, CorridorM: f.corridor, Totals: map[string]lintTally{}, Effects: map[string]string{}}
	for t, d := range dirs {
		for _, cs := range missions {
			tests, err := lintSuite(d, tools[t], cs, len(missions) == 1, f)
			if err != nil {
				return err
			}
			rep.Tests = append(rep.Tests, tests...)
			rep.Totals[tools[t]+"/"+cs.Name] = tally(tests)
		}
	}
	invalid := 0
	for _, lt := range rep.Tests {
		for _, k := range lintKindsOf(lt) {
			rep.Effects[string(k)] = k.Effect()
		}
		if lt.Invalid {
			invalid++
		}
	}
	if f.json {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		writeLint(stdout, rep, tools, names)
	}
	if invalid > 0 {
		return &failure{fmt.Sprintf("%d of %d tests would be invalid under the %s rules", invalid, len(rep.Tests), f.rules)}
	}
	return nil
}

// lintSuite lints one tool's tests for one mission.
func lintSuite(dir, tool string, cs *scenario.CaseStudy, single bool, f lintFlags) ([]lintTest, error) {
	folder, err := suite.Folder(dir, cs.Name, single)
	if err != nil {
		return nil, err
	}
	files, err := suite.TestFiles(folder)
	if err != nil {
		return nil, err
	}
	feas := scenario.Feasibility{CorridorM: f.corridor, AccRadM: cs.Params["NAV_ACC_RAD"]}
	out := make([]lintTest, len(files))
	boxes := make([][]world.Box, len(files))
	for i, name := range files {
		p := filepath.Join(folder, name)
		lt := lintTest{Suite: tool, Mission: cs.Name, Test: name, File: p, Rules: map[string][]scenario.LintFinding{},
			Infeasible: []scenario.LintFinding{}, Unspawned: []scenario.LintFinding{}}
		b, _, err := suite.ReadTest(p, cs)
		if err != nil {
			lt.Unreadable, lt.Invalid = err.Error(), true
			out[i] = lt
			continue
		}
		boxes[i] = b
		if boxes[i] == nil {
			boxes[i] = []world.Box{}
		}
		for _, e := range scenario.LintEditions {
			lt.Rules[e.Name] = append([]scenario.LintFinding{}, scenario.RuleFindings(e.Rules, b)...)
		}
		lt.Infeasible = append(lt.Infeasible, feas.Check(cs.Mission, b)...)
		lt.Unspawned = append(lt.Unspawned, scenario.UnspawnedFindings(b)...)
		lt.Invalid = len(lt.Rules[f.rules]) > 0 || len(lt.Infeasible) > 0
		out[i] = lt
	}
	dup, err := scenario.Duplicates(boxes, score.BoxIoU)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", folder, err)
	}
	for i, j := range dup {
		if j >= 0 {
			out[i].DuplicateOf = files[j]
		}
	}
	return out, nil
}

// lintKindsOf lists the categories of a test's findings, each once.
func lintKindsOf(lt lintTest) []scenario.LintKind {
	var ks []scenario.LintKind
	add := func(fs []scenario.LintFinding) {
		for _, f := range fs {
			if !slices.Contains(ks, f.Kind) {
				ks = append(ks, f.Kind)
			}
		}
	}
	for _, e := range scenario.LintEditions {
		add(lt.Rules[e.Name])
	}
	add(lt.Infeasible)
	add(lt.Unspawned)
	if lt.DuplicateOf != "" {
		ks = append(ks, scenario.LintDuplicate)
	}
	return ks
}

func tally(tests []lintTest) lintTally {
	t := lintTally{Tests: len(tests), Rules: map[string]map[string]int{}, Infeasible: map[string]int{}}
	for _, e := range scenario.LintEditions {
		t.Rules[e.Name] = map[string]int{}
	}
	once := func(fs []scenario.LintFinding, m map[string]int) {
		seen := map[scenario.LintKind]bool{}
		for _, f := range fs {
			if !seen[f.Kind] {
				seen[f.Kind] = true
				m[string(f.Kind)]++
			}
		}
	}
	for _, lt := range tests {
		if lt.Invalid {
			t.Invalid++
		}
		if lt.Unreadable != "" {
			t.Unreadable++
			continue
		}
		for _, e := range scenario.LintEditions {
			once(lt.Rules[e.Name], t.Rules[e.Name])
			if len(lt.Rules[e.Name]) > 0 {
				t.Rules[e.Name]["invalid"]++
			}
		}
		once(lt.Infeasible, t.Infeasible)
		if len(lt.Unspawned) > 0 {
			t.Unspawned++
		}
		if lt.DuplicateOf != "" {
			t.Duplicates++
		}
	}
	return t
}

// kindCounts writes "footprint 3, overlap 1" in LintKinds order, or "-".
func kindCounts(m map[string]int) string {
	var parts []string
	for _, k := range scenario.LintKinds {
		if n := m[string(k)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func findingKinds(fs []scenario.LintFinding) string {
	m := map[string]int{}
	for _, f := range fs {
		m[string(f.Kind)]++
	}
	if len(fs) == 0 {
		return "ok"
	}
	return kindCounts(m)
}

func writeLint(w io.Writer, rep lintReport, tools, missions []string) {
	fmt.Fprintf(w, "lint: validity under the %s rules; infeasible: a footprint within 1.5 m − NAV_ACC_RAD of a mission point, or a leg closed within %g m\n", rep.Rules, rep.CorridorM)
	for _, tool := range tools {
		for _, m := range missions {
			key := tool + "/" + m
			fmt.Fprintf(w, "\n## %s\n\n", key)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "test\t2024\t2025\t2026\tfeasibility\taerialist\tduplicate of\tverdict")
			for _, lt := range rep.Tests {
				if lt.Suite != tool || lt.Mission != m {
					continue
				}
				verdict := "valid"
				if lt.Invalid {
					verdict = "INVALID"
				}
				if lt.Unreadable != "" {
					fmt.Fprintf(tw, "%s\tunreadable: %s\t\t\t\t\t\t%s\n", lt.Test, lt.Unreadable, verdict)
					continue
				}
				aer := "spawned"
				if len(lt.Unspawned) > 0 {
					aer = fmt.Sprintf("%d not spawned", len(lt.Unspawned))
				}
				dup := "-"
				if lt.DuplicateOf != "" {
					dup = lt.DuplicateOf
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", lt.Test, findingKinds(lt.Rules["2024"]), findingKinds(lt.Rules["2025"]),
					findingKinds(lt.Rules["2026"]), findingKinds(lt.Infeasible), aer, dup, verdict)
			}
			tw.Flush()
			t := rep.Totals[key]
			fmt.Fprintf(w, "\ntotal %d tests: %d invalid under %s, %d unreadable\n", t.Tests, t.Invalid, rep.Rules, t.Unreadable)
			for _, e := range scenario.LintEditions {
				fmt.Fprintf(w, "  %s rule breaks: %d tests (%s)\n", e.Name, t.Rules[e.Name]["invalid"], kindCounts(t.Rules[e.Name]))
			}
			fmt.Fprintf(w, "  infeasible: %s; not spawned by Aerialist: %d; duplicates (IoU 1): %d\n", kindCounts(t.Infeasible), t.Unspawned, t.Duplicates)
		}
	}
	if len(rep.Effects) > 0 {
		fmt.Fprintf(w, "\nwhat each finding does to the score:\n")
		for _, k := range scenario.LintKinds {
			if e, ok := rep.Effects[string(k)]; ok {
				fmt.Fprintf(w, "  %-13s %s\n", k, e)
			}
		}
	}
	for _, lt := range rep.Tests {
		if lt.Unreadable != "" {
			continue
		}
		var msgs []string
		for _, f := range lt.Rules[rep.Rules] {
			msgs = append(msgs, f.Msg)
		}
		for _, f := range append(append([]scenario.LintFinding{}, lt.Infeasible...), lt.Unspawned...) {
			msgs = append(msgs, f.Msg)
		}
		if len(msgs) > 0 {
			fmt.Fprintf(w, "%s: %s\n", lt.File, strings.Join(msgs, "; "))
		}
	}
}

// lintWarnings lints the tests of a suite for score and run and writes one
// warning line per suite with findings to w: how many tests break the
// edition's rules, are infeasible, hold boxes Aerialist will not spawn,
// or are IoU-1 duplicates. It never fails the command; an error is written
// as a warning too.
func lintWarnings(w io.Writer, dir, tool string, cs *scenario.CaseStudy, single bool, rules string) {
	tests, err := lintSuite(dir, tool, cs, single, lintFlags{rules: rules, corridor: 15})
	if err != nil {
		fmt.Fprintf(w, "shakedown: %s/%s: lint: %v\n", tool, cs.Name, err)
		return
	}
	t := tally(tests)
	ed := t.Rules[rules]
	if t.Invalid == 0 && t.Unspawned == 0 && t.Duplicates == 0 {
		return
	}
	fmt.Fprintf(w, "shakedown: %s/%s: %d of %d tests invalid under %s (rules: %s; infeasible: %s; unreadable %d), %d with a box Aerialist will not spawn, %d duplicates (IoU 1); see shakedown lint\n",
		tool, cs.Name, t.Invalid, t.Tests, rules, kindCounts(ed), kindCounts(t.Infeasible), t.Unreadable, t.Unspawned, t.Duplicates)
}
