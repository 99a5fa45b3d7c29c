package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/mission/statelog"
)

func newMissionStatsCmd() *cobra.Command {
	var asJSON, asCSV bool
	var outDir string
	cmd := &cobra.Command{
		Use:   "stats <state-log.jsonl | flight_events.csv>...",
		Short: "Mission statistics from state logs or black-box exports",
		Long: `Compute the mission statistics of state logs (--state-log, JSONL) or black-box
exports (flight_events.csv): per mission (one flight, from its connect to the
next) and in total, the duration and the time in each state, waypoints
reached and dropped, pauses, cancels, returns, failsafes by reason, goal
results, commands and refusals, command → dispatch latency, path length and
the largest altitude deviation from the target. A black-box export has no
dispatches and no samples: latency, path and altitude are left empty.

Prints a table, or --json, or --csv; --out DIR writes mission_stats.json and
mission_stats.csv (atomically). A line that cannot be read stops the
command with its file and line number (exit 2) and writes nothing; only the
last line of a state log still being written is skipped.`,
		Example: `  shakedown mission smoke --record-dir smoke-box --state-log smoke.jsonl
  shakedown mission stats smoke.jsonl
  shakedown mission stats smoke-box/flight_events.csv --json
  shakedown mission stats state.jsonl.1 state.jsonl --out eval/   # a rotated state log, oldest part first`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return fmt.Errorf("--json and --csv: choose one")
			}
			var missions []statelog.Stats
			for _, path := range args {
				f, err := os.Open(path)
				if err != nil {
					return err
				}
				lg, err := statelog.Read(f, path)
				f.Close()
				if err != nil {
					return err
				}
				if lg.Partial {
					fmt.Fprintf(cmd.ErrOrStderr(), "shakedown mission stats: %s: the last line is still being written; left out\n", path)
				}
				missions = append(missions, statelog.Missions(lg, filepath.Base(path))...)
			}
			sum := statelog.Summarize(missions)
			js, err := json.MarshalIndent(sum, "", "  ")
			if err != nil {
				return err
			}
			js = append(js, '\n')
			var csvBuf bytes.Buffer
			if err := sum.WriteCSV(&csvBuf); err != nil {
				return err
			}
			if outDir != "" {
				for _, f := range []struct {
					name string
					data []byte
				}{{"mission_stats.json", js}, {"mission_stats.csv", csvBuf.Bytes()}} {
					p := filepath.Join(outDir, f.name)
					if err := server.WriteAtomic(p, f.data); err != nil {
						return err
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", p) // stdout is the table
				}
			}
			out := cmd.OutOrStdout()
			switch {
			case asJSON:
				_, err = out.Write(js)
			case asCSV:
				_, err = out.Write(csvBuf.Bytes())
			default:
				err = printMissionStats(out, sum)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print CSV")
	cmd.Flags().StringVar(&outDir, "out", "", "also write mission_stats.json and mission_stats.csv into `DIR`")
	return cmd
}

func printMissionStats(w io.Writer, sum statelog.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mission\tdur s\texec s\tpaused s\treached\tdropped\tpauses\tcancels\treturns\tgoals ok/cx/ab\trefused\tlat p50/p99 ms\tpath m\talt dev m\tfailsafes\t")
	opt := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *p)
	}
	for _, m := range append(append([]statelog.Stats(nil), sum.Missions...), sum.Total) {
		lat := "-"
		if l := m.Latency; l != nil {
			lat = fmt.Sprintf("%.3f/%.3f", l.P50MS, l.P99MS)
		}
		fs := statelog.Reasons(m.Failsafes)
		if fs == "" {
			fs = "-"
		}
		refused := fmt.Sprint(m.Refusals)
		if m.RefusalsDropped > 0 {
			refused += fmt.Sprintf("+%d", m.RefusalsDropped)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%d\t%d\t%d\t%d\t%d\t%d/%d/%d\t%s\t%s\t%s\t%s\t%s\t\n", m.Mission, m.DurationS,
			m.StateDurationsS["EXECUTING"], m.StateDurationsS["PAUSED"], m.WaypointsReached, m.WaypointsDropped, m.Pauses,
			m.Cancels, m.Returns, m.Goals["SUCCEEDED"], m.Goals["CANCELED"], m.Goals["ABORTED"], refused, lat,
			opt(m.PathLengthM), opt(m.MaxAltDevM), strings.ReplaceAll(fs, ";", " "))
	}
	return tw.Flush()
}
