package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/bench/compare"
	"github.com/shakedown-robotics/shakedown/bench/results"
)

type compareFlags struct {
	current, baseline, output string
	threshold, floor          float64
	force                     bool
}

func newBenchCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare --current DIR [--baseline DIR]",
		Short: "Diff two bench runs and fail on regression (parse_metrics.py)",
		Long: `Print a Markdown table of every metric of a bench run, and with --baseline
its change against another run, flagging a metric that got worse by more than
--threshold percent in its bad direction (lower-is-better or
higher-is-better). A timeout or a lost metric against a numeric baseline and
a fallen pass rate are regressions too. Changes smaller than --floor in the
metric's unit are noise; signed and wall-clock metrics are shown, not judged.

Runs whose campaigns differ (trajectory types or attributes, robot counts,
iterations, selection, wind) are refused unless --force; the tracker and the
seed may differ, that is what the compare is for.

Exit status: 0 no regression, 1 a regression, 2 unusable input.`,
		Example: `  shakedown bench compare --current tests/results/2026-07-10_12-00-00
  shakedown bench compare --current NEW --baseline OLD --threshold 20 --output report.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.current, "current", "", "the run to judge (a results `directory`)")
	fl.StringVar(&f.baseline, "baseline", "", "the run to compare against (a results `directory`)")
	fl.Float64Var(&f.threshold, "threshold", 20, "regression threshold, `percent`")
	fl.Float64Var(&f.floor, "floor", 0.05, "changes smaller than this, in the metric's unit, are noise")
	fl.StringVar(&f.output, "output", "", "also write the Markdown report to `FILE`")
	fl.BoolVar(&f.force, "force", false, "compare even when the campaigns differ")
	_ = cmd.MarkFlagRequired("current")
	return cmd
}

func runCompare(stdout io.Writer, f compareFlags) error {
	cur, err := results.Read(f.current)
	if err != nil {
		return fmt.Errorf("--current: %w", err)
	}
	var rep *compare.Report
	if f.baseline == "" {
		rep = compare.Single(cur)
	} else {
		base, err := results.Read(f.baseline)
		if err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
		rep, err = compare.Compare(cur, base, compare.Options{ThresholdPct: f.threshold, AbsFloor: f.floor, Force: f.force})
		if err != nil {
			return err
		}
	}
	md := rep.Markdown()
	if f.output != "" {
		if err := writeAtomic(f.output, []byte(md)); err != nil {
			return fmt.Errorf("--output: %w", err)
		}
	}
	io.WriteString(stdout, md)
	if n := rep.Regressions(); f.baseline != "" && n > 0 {
		return &failure{msg: fmt.Sprintf("%d regression(s) beyond %g %%", n, f.threshold)}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
