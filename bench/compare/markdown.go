package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/shakedown-robotics/shakedown/bench/results"
)

// Markdown renders the report: per module a "Pass rates" and a "Metrics"
// table (GitHub style), then the verdict. Regressions are flagged
// :red_circle:, improvements :green_circle:, as parse_metrics.py does.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Shakedown bench report\n\n")
	desc := func(run *results.Run) string {
		if run.Meta == nil {
			return "`" + run.Name + "`"
		}
		return fmt.Sprintf("`%s` (tracker %s, seed %d)", run.Name, run.Meta.Tracker, run.Meta.Seed)
	}
	fmt.Fprintf(&b, "Current: %s\n", desc(r.Current))
	if r.Baseline != nil {
		fmt.Fprintf(&b, "Baseline: %s\n", desc(r.Baseline))
		fmt.Fprintf(&b, "Threshold: ±%g %% (changes below %g in the metric's unit are noise)\n", r.Opt.ThresholdPct, r.Opt.AbsFloor)
		if len(r.ConfigDiff) > 0 {
			fmt.Fprintf(&b, "\n**Campaigns differ (compared with --force):** %s\n", strings.Join(r.ConfigDiff, "; "))
		}
	}
	modules := map[string]bool{}
	for _, row := range r.Rows {
		modules[module(row.Test)] = true
	}
	for g := range r.CurRates {
		modules[module(g)] = true
	}
	for g := range r.BaseRates {
		modules[module(g)] = true
	}
	for _, m := range sortedKeys(modules) {
		fmt.Fprintf(&b, "\n## %s\n", m)
		r.passRates(&b, m)
		r.metrics(&b, m)
	}
	b.WriteString("\n")
	if r.Baseline == nil {
		return b.String()
	}
	if n := r.Regressions(); n > 0 {
		fmt.Fprintf(&b, "**Regression detected**: %d regression(s) beyond ±%g %%.\n", n, r.Opt.ThresholdPct)
	} else {
		fmt.Fprintf(&b, "No regression beyond ±%g %%.\n", r.Opt.ThresholdPct)
	}
	return b.String()
}

func module(test string) string {
	m, _, _ := strings.Cut(test, ".")
	return m
}

// short drops the module and class from a test id.
func short(test string) string {
	if i := strings.LastIndexByte(test[:max(0, strings.IndexByte(test, '['))], '.'); i >= 0 {
		return test[i+1:]
	}
	return test
}

func rate(p PassRate, ok bool) string {
	if !ok {
		return "–"
	}
	s := fmt.Sprintf("%d/%d/%d", p.Passed, p.Failed, p.Skipped)
	if r := p.Rate(); !math.IsNaN(r) {
		s += fmt.Sprintf(" (%.0f %%)", 100*r)
	}
	return s
}

func (r *Report) passRates(b *strings.Builder, m string) {
	tests := map[string]bool{}
	for g := range r.CurRates {
		if module(g) == m {
			tests[g] = true
		}
	}
	for g := range r.BaseRates {
		if module(g) == m {
			tests[g] = true
		}
	}
	if len(tests) == 0 {
		return
	}
	b.WriteString("\n### Pass rates (passed/failed/skipped)\n\n")
	regressed := map[string]bool{}
	for _, g := range r.RateRegressions {
		regressed[g] = true
	}
	if r.Baseline == nil {
		table(b, []string{"Test", "Current"}, func(add func(...string)) {
			for _, g := range sortedKeys(tests) {
				c, ok := r.CurRates[g]
				add(short(g), rate(c, ok))
			}
		})
		return
	}
	table(b, []string{"Test", "Baseline", "Current", ""}, func(add func(...string)) {
		for _, g := range sortedKeys(tests) {
			bp, bok := r.BaseRates[g]
			cp, cok := r.CurRates[g]
			flag := ""
			if regressed[g] {
				flag = ":red_circle:"
			}
			add(short(g), rate(bp, bok), rate(cp, cok), flag)
		}
	})
}

func (r *Report) metrics(b *strings.Builder, m string) {
	var rows []Row
	for _, row := range r.Rows {
		if module(row.Test) == m {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Test < rows[j].Test })
	b.WriteString("\n### Metrics\n\n")
	if r.Baseline == nil {
		table(b, []string{"Test", "Metric", "Value"}, func(add func(...string)) {
			for _, row := range rows {
				add(short(row.Test), row.Metric, row.Cur.String())
			}
		})
		return
	}
	table(b, []string{"Test", "Metric", "Baseline", "Current", "Change", ""}, func(add func(...string)) {
		for _, row := range rows {
			ch := "–"
			if !math.IsNaN(row.ChangePct) {
				ch = fmt.Sprintf("%+.1f %%", row.ChangePct)
			}
			flag := row.Note
			switch row.Flag {
			case Regression:
				flag = strings.TrimSpace(":red_circle: " + row.Note)
			case Improvement:
				flag = ":green_circle:"
			}
			add(short(row.Test), row.Metric, row.Base.String(), row.Cur.String(), ch, flag)
		}
	})
}

// table writes a GitHub-style table with padded columns.
func table(b *strings.Builder, head []string, fill func(add func(...string))) {
	rows := [][]string{head}
	fill(func(cells ...string) { rows = append(rows, cells) })
	w := make([]int, len(head))
	for i := range w {
		w[i] = 3
	}
	for _, row := range rows {
		for i, c := range row {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			fmt.Fprintf(b, " %s%s |", c, strings.Repeat(" ", w[i]-len([]rune(c))))
		}
		b.WriteString("\n")
	}
	line(rows[0])
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = strings.Repeat("-", max(3, w[i]))
	}
	b.WriteString("|")
	for i, s := range sep {
		fmt.Fprintf(b, " %s%s |", s, strings.Repeat(" ", max(0, w[i]-len(s))))
	}
	b.WriteString("\n")
	for _, row := range rows[1:] {
		line(row)
	}
}
