package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/bench/compare"
	"github.com/shakedown-robotics/shakedown/bench/results"
	"github.com/shakedown-robotics/shakedown/report"
)

func newReportCmd() *cobra.Command {
	var out, title, baseline string
	cmd := &cobra.Command{
		Use:   "report <results-dir>",
		Short: "Turn a results directory into one self-contained HTML page",
		Long: `Turn the results directory of bench (metrics.json, results.xml, plots), run
(results.json and the test plots), fly --out, eol (reports/*-eol.json) or
generate (ranked test_N.yaml with their plots) or score --out (the simulated runs) into one HTML page: the summary
table with pass and fail at a glance, every plot embedded, links from each
test to its plot. The page loads nothing from elsewhere, so CI can archive it.
A folder of bench runs (bench --out) gives the newest run's page. A
directory of another kind, or a corrupt results file, is exit 2.`,
		Example: `  shakedown report tests/results --out bench.html   # the newest bench run
  shakedown report results/feedforward --baseline results/airstack --out compare.html
  shakedown report results --out run.html          # shakedown run --out results
  shakedown report reports                         # shakedown eol
  shakedown report runs                            # shakedown score --out runs`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			st, err := os.Stat(dir)
			if err != nil {
				return err
			}
			if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			if run, n, err := results.Newest(dir); err == nil && run != dir {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: the newest of %d bench runs, %s\n", dir, n, filepath.Base(run))
				dir = run
			}
			if title == "" {
				title = "Shakedown report: " + filepath.Base(filepath.Clean(dir))
			}
			p, err := report.Build(os.DirFS(dir), title)
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			if baseline != "" {
				if p.Kind != report.KindBench {
					return fmt.Errorf("--baseline: %s holds %s results; a baseline compares bench runs", dir, p.Kind)
				}
				cur, err := results.Read(dir)
				if err != nil {
					return err
				}
				base, err := readRun("baseline", baseline)
				if err != nil {
					return err
				}
				rep, err := compare.Compare(cur, base, compare.DefaultOptions())
				if err != nil {
					return fmt.Errorf("--baseline: %w", err)
				}
				p.AddComparison(rep)
			}
			if out == "" {
				out = filepath.Join(dir, "report.html")
			}
			var b bytes.Buffer
			if err := p.WriteHTML(&b); err != nil {
				return err
			}
			if err := writeAtomic(out, b.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s results, %s (%s); wrote %s\n", dir, p.Kind, p.Status, p.Headline, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "HTML `file` to write (default <results-dir>/report.html)")
	cmd.Flags().StringVar(&title, "title", "", "page title")
	cmd.Flags().StringVar(&baseline, "baseline", "", "a bench run (or folder of runs) to compare a bench run against, as bench compare does")
	return cmd
}
