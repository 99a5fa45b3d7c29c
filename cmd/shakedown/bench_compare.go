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

--current and --baseline name a run directory, or a folder of runs (bench
--out), of which the newest is taken.

Exit status: 0 no regression, 1 a regression, 2 unusable input.`,
		Example: `  shakedown bench compare --current tests/results   # the newest run in bench's default folder
  shakedown bench --tracker airstack --num-robots 1 --stress-iterations 2 --out results/airstack
  shakedown bench --num-robots 1 --stress-iterations 2 --out results/feedforward
  shakedown bench compare --current results/feedforward --baseline results/airstack --threshold 20 --out report.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.current, "current", "", "the run to judge (a results `directory`)")
	fl.StringVar(&f.baseline, "baseline", "", "the run to compare against (a results `directory`)")
	fl.Float64Var(&f.threshold, "threshold", 20, "regression threshold, `percent`")
	fl.Float64Var(&f.floor, "floor", 0.05, "changes smaller than this, in the metric's unit, are noise")
	fl.StringVar(&f.output, "out", "", "also write the Markdown report to `FILE`")
	aliasFlags(cmd, map[string]string{"output": "out"})
	fl.BoolVar(&f.force, "force", false, "compare even when the campaigns differ")
	_ = cmd.MarkFlagRequired("current")
	return cmd
}

// readRun reads a run directory, or the newest run of a folder of runs.
func readRun(flag, dir string) (*results.Run, error) {
	d, _, err := results.Newest(dir)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	r, err := results.Read(d)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return r, nil
}

func runCompare(stdout, stderr io.Writer, f compareFlags) error {
	cur, err := readRun("current", f.current)
	if err != nil {
		return err
	}
	var rep *compare.Report
	if f.baseline == "" {
		rep = compare.Single(cur)
	} else {
		base, err := readRun("baseline", f.baseline)
		if err != nil {
			return err
		}
		rep, err = compare.Compare(cur, base, compare.Options{ThresholdPct: f.threshold, AbsFloor: f.floor, Force: f.force})
		if err != nil {
			return err
		}
	}
	md := rep.Markdown()
	if f.output != "" {
		if err := writeAtomic(f.output, []byte(md)); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	io.WriteString(stdout, md)
	if f.output != "" {
		fmt.Fprintf(stderr, "wrote %s\n", f.output) // stdout is the report itself
	}
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
