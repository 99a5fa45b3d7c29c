package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/plot"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// summarizeTests groups results (runs consecutive results per test, in the
// order of cases) into one testResult per test.
func summarizeTests(files []string, cases []*scenario.CaseStudy, results []*run.Result, runs int) []testResult {
	out := make([]testResult, len(cases))
	for i, cs := range cases {
		rs := results[i*runs : (i+1)*runs]
		tr := testResult{Test: files[i], Mission: cs.Mission.Name, Summary: run.Summarize(rs), Runs: rs}
		for _, b := range cs.Obstacles {
			tr.Obstacles = append(tr.Obstacles, obstacleOut{b.L, b.W, b.H, b.X, b.Y, b.Z, b.R})
		}
		out[i] = tr
	}
	return out
}

// reportTests prints the tests as JSON or one line each with a total, and
// returns a *failure when any test failed (exit 1).
func reportTests(stdout io.Writer, asJSON bool, names []string, out []testResult, runs int) error {
	failed := 0
	for _, tr := range out {
		if tr.Summary.Verdict != run.VerdictPass {
			failed++
		}
	}
	if asJSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		for i, tr := range out {
			printTest(stdout, names[i], tr)
		}
		fmt.Fprintf(stdout, "%d tests, %d runs each: %d passed, %d failed\n", len(out), runs, len(out)-failed, failed)
	}
	if failed > 0 {
		return &failure{}
	}
	return nil
}

func printTest(w io.Writer, name string, tr testResult) {
	s := tr.Summary
	dist := "no obstacles"
	if s.MinClearanceM != nil {
		dist = fmt.Sprintf("min distance %.2f m", *s.MinClearanceM)
	}
	per := make([]string, len(tr.Runs))
	for k, r := range tr.Runs {
		if r.MinClearanceM != nil {
			per[k] = strconv.FormatFloat(*r.MinClearanceM, 'f', 2, 64)
		} else {
			per[k] = "-"
		}
		if !r.Completed {
			per[k] += "*"
		}
	}
	fmt.Fprintf(w, "%s (%s, %d obstacles): %s, points %.2f, flight time %.1f s, %s  [runs: %s]\n",
		name, tr.Mission, len(tr.Obstacles), dist, s.MeanPoints, s.MeanTimeS, s.Verdict, strings.Join(per, " "))
}

// writeRunOutputs renders all files first, then writes them atomically.
func writeRunOutputs(dir string, names []string, cases []*scenario.CaseStudy, out []testResult) error {
	type file struct {
		name string
		data []byte
	}
	var files []file
	area := world.DefaultArea
	for i, tr := range out {
		// The run that came closest.
		best := tr.Runs[0]
		for _, r := range tr.Runs {
			if r.MinClearanceM != nil && (best.MinClearanceM == nil || *r.MinClearanceM < *best.MinClearanceM) {
				best = r
			}
		}
		for k, r := range tr.Runs {
			var b bytes.Buffer
			if err := trace.WriteCSV(&b, r.Trace); err != nil {
				return err
			}
			files = append(files, file{fmt.Sprintf("%s-run%d.csv", names[i], k+1), b.Bytes()})
		}
		title := fmt.Sprintf("%s (%s): %s", names[i], tr.Mission, tr.Summary.Verdict)
		note := "no obstacles"
		if best.MinClearanceM != nil {
			note = fmt.Sprintf("distance: %.2f m (obstacle %d), run seed %d", *best.MinClearanceM, best.MinObstacle, best.Seed)
		}
		fl := plot.Flight{Title: title, Area: &area, Obstacles: cases[i].Obstacles, Planned: cases[i].Mission.Path(),
			Flown: trace.Positions(best.Trace), Start: true, End: true, Note: note, Closest: best.Closest}
		var png bytes.Buffer
		if err := plot.WritePNG(&png, fl, 1200, 800); err != nil {
			return fmt.Errorf("%s.png: %w", names[i], err)
		}
		files = append(files, file{names[i] + ".png", png.Bytes()})
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, file{"results.json", append(js, '\n')})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}
