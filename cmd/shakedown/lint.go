package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score/suite"
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
		Example: `  shakedown lint --mission mission2 cmd/shakedown/testdata/score/gen-a
  shakedown lint --mission mission2 --rules 2024 cmd/shakedown/testdata/score/gen-a cmd/shakedown/testdata/score/gen-b --json
  shakedown lint --mission mission2 --mission mission4 path/to/tlqd   # a competitor's folder of mission2/ and mission4/`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return lintSuites(cmd.OutOrStdout(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.missions, "mission", nil, "case study the suites were made for: mission1..7, a case-study YAML or a .plan; repeatable")
	fl.StringVar(&f.rules, "rules", "2026", "edition whose rules decide the exit status: 2024, 2025 or 2026")
	fl.BoolVar(&f.json, "json", false, "print the findings as JSON")
	fl.Float64Var(&f.corridor, "corridor", suite.DefaultCorridorM, "`metres` either side of a leg the vehicle may use to go round a wall")
	return cmd
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
	rep, err := suite.Lint(dirs, tools, missions, suite.LintOptions{Rules: f.rules, CorridorM: f.corridor})
	if err != nil {
		return err
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
	if n := rep.Invalid(); n > 0 {
		return &failure{fmt.Sprintf("%d of %d tests would be invalid under the %s rules", n, len(rep.Tests), f.rules)}
	}
	return nil
}

func findingKinds(fs []scenario.LintFinding) string {
	m := map[string]int{}
	for _, f := range fs {
		m[string(f.Kind)]++
	}
	if len(fs) == 0 {
		return "ok"
	}
	return suite.KindCounts(m)
}

func writeLint(w io.Writer, rep suite.LintReport, tools, missions []string) {
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
				fmt.Fprintf(w, "  %s rule breaks: %d tests (%s)\n", e.Name, t.Rules[e.Name]["invalid"], suite.KindCounts(t.Rules[e.Name]))
			}
			fmt.Fprintf(w, "  infeasible: %s; not spawned by Aerialist: %d; duplicates (IoU 1): %d\n", suite.KindCounts(t.Infeasible), t.Unspawned, t.Duplicates)
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

// lintWarnings writes the lint warning of one tool's tests for one
// mission (suite.LintWarning), if any, for score and run.
func lintWarnings(w io.Writer, dir, tool string, cs *scenario.CaseStudy, single bool, rules string) {
	if msg := suite.LintWarning(dir, tool, cs, single, rules); msg != "" {
		fmt.Fprintf(w, "shakedown: %s\n", msg)
	}
}
