package suite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/world"
)

// LintOptions configures Lint.
type LintOptions struct {
	// Rules names the edition whose rules decide a test's validity:
	// "2024", "2025" or "2026" (scenario.LintEditions).
	Rules string
	// CorridorM is how far either side of a leg the vehicle may go round
	// a wall, m (scenario.Feasibility.CorridorM); must be above 0.
	CorridorM float64
}

// DefaultCorridorM is the corridor score and run lint with: 15 m either
// side of a leg, what `shakedown lint --corridor` defaults to.
const DefaultCorridorM = 15

// LintTest is one test as lint saw it.
type LintTest struct {
	Suite       string                            `json:"suite"`
	Mission     string                            `json:"mission"`
	Test        string                            `json:"test"`
	File        string                            `json:"file"`
	Unreadable  string                            `json:"unreadable,omitempty"`
	Rules       map[string][]scenario.LintFinding `json:"rules"` // edition → rule breaks
	Infeasible  []scenario.LintFinding            `json:"infeasible"`
	Unspawned   []scenario.LintFinding            `json:"unspawned"`
	DuplicateOf string                            `json:"duplicate_of,omitempty"`
	Invalid     bool                              `json:"invalid"` // under LintOptions.Rules
}

// LintReport is what `shakedown lint` finds in a set of suites; its JSON
// form is lint --json.
type LintReport struct {
	Rules     string               `json:"rules"`
	CorridorM float64              `json:"corridor_m"`
	Tests     []LintTest           `json:"tests"`
	Totals    map[string]LintTally `json:"totals"`  // "suite/mission" → tally
	Effects   map[string]string    `json:"effects"` // kind found → what it does to the score
}

// LintTally counts, per category, the tests with at least one finding of
// it: per edition for the rule breaks.
type LintTally struct {
	Tests      int                       `json:"tests"`
	Invalid    int                       `json:"invalid"`
	Unreadable int                       `json:"unreadable"`
	Rules      map[string]map[string]int `json:"rules"` // edition → kind → tests; "invalid" → tests with any
	Infeasible map[string]int            `json:"infeasible"`
	Unspawned  int                       `json:"unspawned"`
	Duplicates int                       `json:"duplicates"`
}

// Invalid counts the tests of the report that are invalid under its rules.
func (r LintReport) Invalid() int {
	n := 0
	for _, lt := range r.Tests {
		if lt.Invalid {
			n++
		}
	}
	return n
}

// Lint lints every suite (dirs, named tools, laid out as CheckDirs
// accepts) on every mission: the tests in suite, mission and file order,
// a tally per suite and mission, and the effect of every kind found.
func Lint(dirs, tools []string, missions []*scenario.CaseStudy, opt LintOptions) (LintReport, error) {
	rep := LintReport{Rules: opt.Rules, CorridorM: opt.CorridorM, Tests: []LintTest{}, Totals: map[string]LintTally{},
		Effects: map[string]string{}}
	for t, d := range dirs {
		for _, cs := range missions {
			tests, err := LintSuite(d, tools[t], cs, len(missions) == 1, opt)
			if err != nil {
				return rep, err
			}
			rep.Tests = append(rep.Tests, tests...)
			rep.Totals[tools[t]+"/"+cs.Name] = Tally(tests)
		}
	}
	for _, lt := range rep.Tests {
		for _, k := range lt.Kinds() {
			rep.Effects[string(k)] = k.Effect()
		}
	}
	return rep, nil
}

// LintSuite lints one tool's tests for one mission (single: the only
// mission, so dir may hold the tests itself; see Folder). A test that
// cannot be read is a finding (Unreadable), not an error.
func LintSuite(dir, tool string, cs *scenario.CaseStudy, single bool, opt LintOptions) ([]LintTest, error) {
	folder, err := Folder(dir, cs.Name, single)
	if err != nil {
		return nil, err
	}
	files, err := TestFiles(folder)
	if err != nil {
		return nil, err
	}
	feas := scenario.Feasibility{CorridorM: opt.CorridorM, AccRadM: cs.Params["NAV_ACC_RAD"]}
	out := make([]LintTest, len(files))
	boxes := make([][]world.Box, len(files))
	for i, name := range files {
		p := filepath.Join(folder, name)
		lt := LintTest{Suite: tool, Mission: cs.Name, Test: name, File: p, Rules: map[string][]scenario.LintFinding{},
			Infeasible: []scenario.LintFinding{}, Unspawned: []scenario.LintFinding{}}
		b, _, err := ReadTest(p, cs)
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
		lt.Invalid = len(lt.Rules[opt.Rules]) > 0 || len(lt.Infeasible) > 0
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

// Kinds lists the categories of the test's findings, each once: rule
// breaks of every edition, then infeasibility, unspawned boxes and
// duplication.
func (lt LintTest) Kinds() []scenario.LintKind {
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

// Tally counts the tests of one suite and mission per category; an
// unreadable test counts as unreadable and invalid only.
func Tally(tests []LintTest) LintTally {
	t := LintTally{Tests: len(tests), Rules: map[string]map[string]int{}, Infeasible: map[string]int{}}
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

// KindCounts writes counts per kind as "footprint 3, overlap 1", in
// scenario.LintKinds order, or "-" when there is none.
func KindCounts(m map[string]int) string {
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

// LintWarning lints one tool's tests for one mission as score and run do
// (DefaultCorridorM) and returns the one-line warning they print: how many
// tests break the edition's rules, are infeasible, hold boxes Aerialist
// will not spawn, or are IoU-1 duplicates; "" when there is nothing to
// say. A failure to lint is a warning too.
func LintWarning(dir, tool string, cs *scenario.CaseStudy, single bool, rules string) string {
	tests, err := LintSuite(dir, tool, cs, single, LintOptions{Rules: rules, CorridorM: DefaultCorridorM})
	if err != nil {
		return fmt.Sprintf("%s/%s: lint: %v", tool, cs.Name, err)
	}
	t := Tally(tests)
	if t.Invalid == 0 && t.Unspawned == 0 && t.Duplicates == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s: %d of %d tests invalid under %s (rules: %s; infeasible: %s; unreadable %d), %d with a box Aerialist will not spawn, %d duplicates (IoU 1); see shakedown lint",
		tool, cs.Name, t.Invalid, t.Tests, rules, KindCounts(t.Rules[rules]), KindCounts(t.Infeasible), t.Unreadable, t.Unspawned, t.Duplicates)
}
