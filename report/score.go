package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/score"
)

// ScoresFile is the file `shakedown score --out` writes beside the runs:
// the Scores, as --json prints them.
const ScoresFile = "scores.json"

// Scores is what `shakedown score` prints: its JSON form is --json.
type Scores struct {
	Rules        score.Edition `json:"rules"`
	Selection    string        `json:"selection"`
	Sample       int           `json:"sample"`
	Runs         int           `json:"runs_per_test,omitempty"` // 0 with logs
	Seed         uint64        `json:"seed"`
	Source       string        `json:"source"` // simulated or logs
	Norm         string        `json:"diversity_norm"`
	DTWThreshold float64       `json:"dtw_threshold"`
	Band         int           `json:"dtw_band"`
	// DTWNorm and Average name the DTW scale and the averaging of the runs
	// (2024 and 2026; empty in 2025), DTW says both in a sentence
	// (score.Config.DTWHeader).
	DTWNorm string `json:"dtw_norm,omitempty"`
	Average string `json:"average,omitempty"`
	DTW     string `json:"dtw,omitempty"`
	// Time names what avg_time of Eq. 2 is (score.TimeBasis), TimeNote
	// says it in a sentence.
	Time     string        `json:"avg_time"`
	TimeNote string        `json:"avg_time_note"`
	Table    score.Table   `json:"table"`
	Invalid  []InvalidTest `json:"invalid_tests"`
}

// InvalidTest is a test scored as invalid (0 points).
type InvalidTest struct {
	Tool      string `json:"tool"`
	Mission   string `json:"mission"`
	Test      string `json:"test"`
	File      string `json:"file"`
	Reason    string `json:"reason"`
	Evaluated bool   `json:"evaluated"` // in S_s, scored 0; otherwise not drawn
}

// WriteScoreMarkdown writes the scores as Markdown, the table in the shape
// of the surrogate-assisted testing paper's Tables III (2024), IV (2025)
// and V (2026); with details, each evaluated test's runs too.
func WriteScoreMarkdown(w io.Writer, rep Scores, details bool) {
	tab := rep.Table
	src := fmt.Sprintf("%d simulated runs per test (seeds %d…%d)", rep.Runs, rep.Seed, rep.Seed+uint64(rep.Runs)-1)
	if rep.Source == "logs" {
		src = "runs read from logs"
	}
	fmt.Fprintf(w, "# Scores, %d rules\n\n", tab.Edition)
	missions := make([]string, len(tab.Missions))
	for i, m := range tab.Missions {
		missions[i] = mdText(m)
	}
	fmt.Fprintf(w, "Missions %s; %s; selection %s %d", strings.Join(missions, ", "), src, mdText(rep.Selection), rep.Sample)
	switch tab.Edition {
	case score.Edition2024:
		fmt.Fprintf(w, "; similar below DTW %g", rep.DTWThreshold)
	case score.Edition2025:
		fmt.Fprintf(w, "; diversity normalised by %s", rep.Norm)
	}
	fmt.Fprint(w, ".\n")
	if rep.DTW != "" {
		fmt.Fprintf(w, "%s.\n", rep.DTW)
	}
	if rep.TimeNote != "" {
		fmt.Fprintf(w, "avg_time (%s): %s.\n", rep.Time, rep.TimeNote)
	}
	fmt.Fprint(w, "\n")

	var head, align []string
	head = append(head, "tool")
	align = append(align, "---")
	for _, m := range tab.Missions {
		m = mdText(m)
		head = append(head, m+" tests (critical)")
		switch tab.Edition {
		case score.Edition2024:
			head = append(head, m+" score (rank)")
		case score.Edition2025:
			head = append(head, m+" failure (rank)", m+" diversity (rank)")
		case score.Edition2026:
			head = append(head, m+" failure (rank)", m+" D_in (rank)", m+" D_out (rank)")
		}
	}
	if tab.Edition == score.Edition2024 {
		head = append(head, "score sum (rank sum)", "place")
	} else {
		head = append(head, "rank value", "place")
	}
	for range head[1:] {
		align = append(align, "---:")
	}
	fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
	for t, tool := range tab.Tools {
		row := []string{mdText(tool)}
		for m := range tab.Missions {
			c := tab.Cells[t][m]
			row = append(row, fmt.Sprintf("%d (%d)", c.Tests, c.Critical), fmt.Sprintf("%.2f (%d)", c.Score, c.Ranks.Score))
			switch tab.Edition {
			case score.Edition2025:
				row = append(row, fmt.Sprintf("%.2f (%d)", c.Diversity, c.Ranks.Diversity))
			case score.Edition2026:
				row = append(row, fmt.Sprintf("%.2f (%d)", c.InputDiversity, c.Ranks.InputDiversity),
					fmt.Sprintf("%.2f (%d)", c.OutputDiversity, c.Ranks.OutputDiversity))
			}
		}
		o := tab.Overall[t]
		if tab.Edition == score.Edition2024 {
			row = append(row, fmt.Sprintf("%.2f (%d)", o.ScoreSum, o.RankSums.Score))
		} else {
			row = append(row, fmt.Sprintf("%.2f", o.Value))
		}
		row = append(row, strconv.Itoa(o.Place))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	switch tab.Edition {
	case score.Edition2024:
		fmt.Fprint(w, "\nScore: (Σ test score + rest score) × similarity penalty (Eq. 1); tests (critical): submitted (critical among the evaluated). Place by score sum.\n")
	case score.Edition2025:
		fmt.Fprint(w, "\nFailure: Σ test score without duplicates; diversity: 1 − mean footprint IoU (Eq. 6); rank value 0.75·Σ failure rank + 0.25·Σ diversity rank (Eq. 5); lower is better.\n")
	case score.Edition2026:
		fmt.Fprint(w, "\nFailure: Σ test score without duplicates; D_in: D_union·(1 + CV) (Eq. 9); D_out: mean minimum DTW distance between average trajectories (Eq. 13); rank value 0.5·Σ failure + 0.25·Σ D_in + 0.25·Σ D_out ranks (Eq. 8); lower is better.\n")
	}
	if len(rep.Invalid) > 0 {
		fmt.Fprint(w, "\n## Invalid tests (0 points)\n\n")
		for _, iv := range rep.Invalid {
			note := ""
			if !iv.Evaluated {
				note = " (not evaluated)"
			}
			fmt.Fprintf(w, "- %s/%s/%s%s: %s\n", mdText(iv.Tool), mdText(iv.Mission), mdText(iv.Test), note, mdText(iv.Reason))
		}
	}
	if !details {
		return
	}
	for t, tool := range tab.Tools {
		for m, mission := range tab.Missions {
			c := tab.Cells[t][m]
			fmt.Fprintf(w, "\n## %s on %s\n\n", mdText(tool), mdText(mission))
			fmt.Fprintf(w, "%d tests, %d evaluated, %d critical, %d invalid, %d duplicates; score %.4f", c.Tests, c.Evaluated, c.Critical, c.Invalid, c.Duplicates, c.Score)
			switch tab.Edition {
			case score.Edition2024:
				fmt.Fprintf(w, " = (%.4f + rest %.4f) × penalty %.4f (%d similar)", c.TestScoreSum, c.RestScore, c.Penalty, c.Similar)
			case score.Edition2025:
				fmt.Fprintf(w, "; diversity %.4f", c.Diversity)
			case score.Edition2026:
				fmt.Fprintf(w, "; D_union %.4f, CV %.4f, D_in %.4f, D_out %.4f", c.DUnion, c.CV, c.InputDiversity, c.OutputDiversity)
			}
			fmt.Fprint(w, "\n\n| test | obstacles | runs: clearance m (points) | avg point | avg time min | test score | critical | min DTW | note |\n|---|---:|---|---:|---:|---:|---|---:|---|\n")
			for _, d := range c.Details {
				var runs []string
				for _, r := range d.Runs {
					s := "–"
					if r.ClearanceM != nil {
						s = fmt.Sprintf("%.2f", *r.ClearanceM)
					}
					if r.TimedOut {
						s += " timeout"
					}
					runs = append(runs, fmt.Sprintf("%s (%g)", s, r.Points))
				}
				dtwS := "–"
				if d.MinDTW != nil {
					dtwS = fmt.Sprintf("%.1f", *d.MinDTW)
				}
				note := d.Invalid
				if d.Duplicate != "" {
					note = "duplicate of " + d.Duplicate
				}
				if d.Similar {
					note = strings.TrimPrefix(note+"; similar", "; ")
				}
				crit := "no"
				if d.Critical {
					crit = "yes"
				}
				fmt.Fprintf(w, "| %s | %d | %s | %.3f | %.3f | %.4f | %s | %s | %s |\n", mdText(d.Name), d.Obstacles, strings.Join(runs, ", "),
					d.AvgPoint, d.AvgTimeMin, d.Score, crit, dtwS, mdText(note))
			}
		}
	}
}

// mdText makes a name from the outside (a folder, a file, a mission, a
// reason quoting either) safe in a line or table cell of Markdown: no
// markup (< > & as entities, so a renderer shows them and runs nothing),
// no cell break (\|), no code or bold spans, one line. Brackets stay
// (reasons read "want [2, 20]"): a link needs a target a renderer vets.
var mdText = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\\", "\\\\",
	"`", "\\`", "*", "\\*",
	"\r\n", " ", "\n", " ", "\r", " ",
).Replace
