package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/compare"
	"github.com/shakedown-robotics/shakedown/bench/results"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/internal/browsertest"
	"github.com/shakedown-robotics/shakedown/plot"
	"github.com/shakedown-robotics/shakedown/report"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/world"
)

// runDir writes a results directory like `shakedown run --out` leaves: one
// passing and one failing test, each with its plot.
func runDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	area := world.DefaultArea
	for _, name := range []string{"test_0", "test_1"} {
		var b bytes.Buffer
		f := plot.Flight{Title: name, Area: &area, Obstacles: []world.Box{{L: 10, W: 4, H: 20, X: -5, Y: 25, R: 30}},
			Flown: []geom.Vec3{{}, {X: -10, Y: 25}, {X: -5, Y: 50}}, Start: true, End: true}
		if err := plot.WritePNG(&b, f, 600, 400); err != nil {
			t.Fatal(err)
		}
		write(t, dir, name+".png", b.Bytes())
		write(t, dir, name+"-run1.csv", []byte("t,x,y,z,heading\n"))
	}
	write(t, dir, "results.json", []byte(`[
 {"test":"gen/test_0.yaml","mission":"mission2","summary":{"runs":1,"min_clearance_m":2.5,"mean_points":0,"mean_flight_time_s":90,"hard_fails":0,"soft_fails":0,"verdict":"pass"},"runs":[]},
 {"test":"gen/test_1.yaml","mission":"mission2","summary":{"runs":1,"min_clearance_m":0.4,"mean_points":2,"mean_flight_time_s":95,"hard_fails":0,"soft_fails":1,"verdict":"soft-fail"},"runs":[]}
]`))
	return dir
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildRun(t *testing.T) {
	p, err := report.Build(os.DirFS(runDir(t)), "run")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != report.KindRun || p.Status != report.Fail || len(p.Rows) != 2 || len(p.Plots) != 0 {
		t.Fatalf("page %+v; want 2 rows owning their plots, none listed apart", p)
	}
	for i, r := range p.Rows {
		if want := fmt.Sprintf("test_%d.png", i); r.Plot == nil || r.Plot.Name != want {
			t.Errorf("row %d's plot %+v; want %s", i, r.Plot, want)
		}
	}
	if p.Rows[0].Status != report.Pass || p.Rows[1].Status != report.Fail {
		t.Errorf("rows %+v", p.Rows)
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	// Each plot is in its row's group, right after the row.
	for i, r := range p.Rows {
		start := strings.Index(html, `<tbody class="group `+string(r.Status)+`"><tr class="`+string(r.Status)+`">`)
		end := strings.Index(html[max(start, 0):], "</tbody>")
		if start < 0 || end < 0 {
			t.Fatalf("row %d has no group of its own", i)
		}
		group := html[start : start+end]
		if !strings.Contains(group, ">"+r.Cells[0]+"<") || !strings.Contains(group, `<tr class="plotrow"><td colspan="8"><figure id="`+r.Plot.ID+`">`) {
			t.Errorf("row %d's group lacks the row or its plot:\n%.300s", i, group)
		}
	}
	for _, w := range []string{`src="data:image/png;base64,`, "soft-fail"} {
		if !strings.Contains(html, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(html, "<h2>Plots</h2>") {
		t.Error("the plots are listed again below the table")
	}
	if strings.Contains(html, "http://") || strings.Contains(html, "https://") || strings.Contains(html, "ZgotmplZ") {
		t.Error("the page refers to an external address or has an escaped URL")
	}
}

func TestBadDirectories(t *testing.T) {
	empty := t.TempDir()
	if _, err := report.Build(os.DirFS(empty), "x"); err != report.ErrUnknownKind {
		t.Errorf("empty directory: got %v; want ErrUnknownKind", err)
	}
	corrupt := t.TempDir()
	write(t, corrupt, "metrics.json", []byte("{not json"))
	if _, err := report.Build(os.DirFS(corrupt), "x"); err == nil || !strings.Contains(err.Error(), "metrics.json") {
		t.Errorf("corrupt metrics.json: got %v; want an error naming it", err)
	}
	badRun := runDir(t)
	write(t, badRun, "results.json", []byte(`[{"test": 3}]`))
	if _, err := report.Build(os.DirFS(badRun), "x"); err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Errorf("corrupt results.json: got %v", err)
	}
	badPNG := runDir(t)
	write(t, badPNG, "test_0.png", []byte("not a png"))
	if _, err := report.Build(os.DirFS(badPNG), "x"); err == nil {
		t.Error("a broken PNG was embedded")
	}
}

// The report opens in a real browser and every plot renders (each image
// has decoded pixels); a screenshot is kept as a test artifact.
func TestReportInBrowser(t *testing.T) {
	dir := runDir(t)
	p, err := report.Build(os.DirFS(dir), "Shakedown report: run")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	write(t, dir, "report.html", b.Bytes())
	ctx := browsertest.New(t, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible("#summary")); err != nil {
		t.Fatal(err)
	}
	rendered, err := chromedp.Run(ctx, chromedp.Poll[[]int](`(() => { const im = [...document.images]; return im.length > 0 && im.every(i => i.complete && i.naturalWidth > 0) ? im.map(i => i.naturalWidth) : null })()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("plots did not render: %v", err)
	}
	if len(rendered) != 2 || rendered[0] != 600 {
		t.Errorf("rendered image widths %v; want two of 600 px", rendered)
	}
	// Every row is legible (a light background under dark text, whatever
	// its verdict) and the header has a cell for each column.
	cells, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => { const h = document.querySelectorAll('#summary thead th').length;
		return [...document.querySelectorAll('#summary tbody tr:not(.plotrow)')].map(r => { const s = getComputedStyle(r.cells[1]);
			return [r.cells.length, h, s.backgroundColor, s.color].join('|') }) })()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		f := strings.Split(c, "|")
		if f[0] != f[1] {
			t.Errorf("a row has %s cells under %s header cells", f[0], f[1])
		}
		if bg, fg := luminance(f[2]), luminance(f[3]); bg < 0.7 || fg > 0.4 {
			t.Errorf("row colours %s on %s: not legible (luminance %.2f on %.2f)", f[3], f[2], fg, bg)
		}
	}
	// Each plot sits in its row's block: in the row's group, as wide as
	// the table, directly below the row (its top at the row's bottom) and
	// above the next row; its caption names the row's test.
	blocks, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => { const t = document.querySelector('#summary').getBoundingClientRect();
		const rows = [...document.querySelectorAll('#summary tbody tr:not(.plotrow)')];
		return [...document.images].map(im => { const g = im.closest('tbody.group'); if (!g) return 'outside the table: ' + im.alt;
			const row = g.querySelector('tr:not(.plotrow)'), i = rows.indexOf(row), r = row.getBoundingClientRect(), f = im.closest('figure').getBoundingClientRect();
			const next = rows[i + 1] ? rows[i + 1].getBoundingClientRect().top : Infinity;
			return [row.cells[1].textContent, im.alt, Math.round(f.top - r.bottom), f.bottom <= next, im.closest('td').colSpan, row.cells.length, f.left >= t.left && f.right <= t.right].join('|') }) })()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Errorf("plots %v; want 2", blocks)
	}
	for _, blk := range blocks {
		f := strings.Split(blk, "|")
		if len(f) != 7 {
			t.Errorf("plot %s", blk)
			continue
		}
		test := strings.TrimSuffix(filepath.Base(f[0]), ".yaml")
		gap, err := strconv.Atoi(f[2])
		if f[1] != test+".png" || err != nil || gap < 0 || gap > 12 || f[3] != "true" || f[4] != f[5] || f[6] != "true" {
			t.Errorf("plot %s of row %s: %s; not in the row's block (want its caption to name the test, 0 to 12 px below the row, above the next, spanning the %s columns inside the table)", f[1], f[0], blk, f[5])
		}
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text("#verdict"))
	if err != nil || verdict != "fail" {
		t.Errorf("verdict badge %q (%v); want fail", verdict, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.SaveArtifact(t, "report.png", shot)
}

// A `score --out` directory: runs grouped per test, the least distance and
// the verdict.
func TestBuildScore(t *testing.T) {
	dir := t.TempDir()
	runs := map[string]string{
		"gen/mission2/test_0/run_1":  `{"min_clearance_m": 2.1, "points": 0, "verdict": "pass"}`,
		"gen/mission2/test_0/run_2":  `{"min_clearance_m": 1.9, "points": 0, "verdict": "pass"}`,
		"gen/mission2/test_10/run_1": `{"min_clearance_m": 0.2, "points": 5, "verdict": "hard-fail"}`,
		"gen/mission2/test_2/run_1":  `{"min_clearance_m": 1.2, "points": 1, "verdict": "soft-fail"}`,
	}
	for d, js := range runs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, d), "result.json", []byte(js))
		write(t, filepath.Join(dir, d), "trajectory.csv", []byte("t,x,y,z,heading\n"))
	}
	p, err := report.Build(os.DirFS(dir), "score")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != report.KindScore || len(p.Rows) != 3 {
		t.Fatalf("kind %s, %d rows", p.Kind, len(p.Rows))
	}
	got := []string{p.Rows[0].Cells[0], p.Rows[1].Cells[0], p.Rows[2].Cells[0]}
	want := []string{"gen/mission2/test_0", "gen/mission2/test_2", "gen/mission2/test_10"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v; want %v (test_2 before test_10)", got, want)
		}
	}
	if r := p.Rows[0]; r.Status != report.Pass || r.Cells[1] != "2" || r.Cells[2] != "1.90" {
		t.Errorf("test_0 row %+v; want 2 runs, 1.90 m, pass", r)
	}
	if p.Rows[2].Status != report.Fail || p.Status != report.Fail {
		t.Errorf("the failing test or the page is not marked failed")
	}
	if len(p.Text) != 0 || strings.Contains(p.Headline, "DTW") {
		t.Errorf("without %s: text %v, headline %q; want neither scores nor DTW", report.ScoresFile, p.Text, p.Headline)
	}

	// With the scores score --out writes beside the runs, the page's
	// header names the rules, the DTW scale and averaging, and avg_time.
	sc := report.Scores{Rules: score.Edition2026, Selection: "first", Sample: 20, Runs: 2, Seed: 1, Source: "simulated",
		DTW: "DTW path: per pair", DTWNorm: "path", Average: "soft-dtw", Time: "log", TimeNote: "the whole log",
		Table: score.Table{Edition: score.Edition2026, Missions: []string{"mission2"}, Tools: []string{"gen"},
			Cells: [][]score.Cell{{{SuiteResult: score.SuiteResult{Tests: 3}}}}, Overall: []score.Overall{{Place: 1}}}}
	js, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, report.ScoresFile, js)
	p, err = report.Build(os.DirFS(dir), "score")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Headline, "2026 rules. DTW path: per pair. avg_time (log): the whole log") {
		t.Errorf("headline %q; want the rules, the DTW scale and avg_time", p.Headline)
	}
	if len(p.Text) != 1 || !strings.Contains(p.Text[0].Body, "DTW path: per pair.\navg_time (log): the whole log.\n") {
		t.Errorf("text %+v; want the scores' Markdown with its header", p.Text)
	}
	var html bytes.Buffer
	if err := p.WriteHTML(&html); err != nil || !strings.Contains(html.String(), "DTW path: per pair") {
		t.Errorf("HTML lacks the DTW header (%v)", err)
	}
	write(t, dir, report.ScoresFile, []byte(`{"rules": "x"}`))
	if _, err := report.Build(os.DirFS(dir), "score"); err == nil || !strings.Contains(err.Error(), report.ScoresFile) {
		t.Errorf("a broken %s: error %v; want one naming it", report.ScoresFile, err)
	}
}

// luminance is the relative luminance of a CSS "rgb(r, g, b)" colour, 0 to 1
// (an approximation without the gamma curve).
func luminance(css string) float64 {
	var r, g, b float64
	if _, err := fmt.Sscanf(strings.TrimPrefix(strings.TrimPrefix(css, "rgba("), "rgb("), "%g, %g, %g", &r, &g, &b); err != nil {
		return -1
	}
	return (0.2126*r + 0.7152*g + 0.0722*b) / 255
}

// benchDir writes a bench results directory with one trajectory.
func benchDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "metrics.json", []byte(`{
 "test_fixed_trajectory.TestFixedTrajectory.test_fixed_trajectory[shakedown-rob#1-trajCircle-iter0]": {
  "robot_1.cross_track_error_mean_m": {"value": 0.898, "unit": "m", "direction": "lower_is_better"},
  "robot_1.trajectory_execution_time_sim_s": {"value": 43.6, "unit": "s", "direction": "lower_is_better"}},
 "test_fixed_trajectory.TestFixedTrajectory.test_takeoff[shakedown-rob#1-trajCircle-iter0]": {
  "robot_1.takeoff_duration_sim_s": {"value": 8.9, "unit": "s", "direction": "lower_is_better"}}
}`))
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	area := world.DefaultArea
	if err := plot.WritePNG(&b, plot.Flight{Title: "Circle", Area: &area, Flown: []geom.Vec3{{}, {X: 1}}}, 300, 200); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "plots/path-Circle-rob1-iter0-robot1.png", b.Bytes())
	write(t, dir, "plots/other.png", b.Bytes())
	return dir
}

// A bench page: the metrics as a table per trajectory and robot, with
// units and phases, the trajectory's plot beside it and not again below.
func TestBuildBenchSections(t *testing.T) {
	p, err := report.Build(os.DirFS(benchDir(t)), "bench")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 1 {
		t.Fatalf("%d sections; want 1", len(p.Sections))
	}
	s := p.Sections[0]
	var got []string
	for _, r := range s.Rows {
		got = append(got, strings.Join(r.Cells, "|"))
	}
	want := []string{"takeoff|takeoff duration|8.9|s|lower", "fixed_trajectory|cross track error mean|0.898|m|lower", "fixed_trajectory|trajectory execution time|43.6|s|lower"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("section rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Plots) != 1 || s.Plots[0].Name != "plots/path-Circle-rob1-iter0-robot1.png" {
		t.Errorf("section plots %v; want the Circle path", s.Plots)
	}
	if len(p.Plots) != 1 || p.Plots[0].Name != "plots/other.png" {
		t.Errorf("page plots %v; want only the one no section shows", p.Plots)
	}
}

// A comparison colours each change by the metric's direction: lower is
// better for an error, so a fall is green and a rise red.
func TestAddComparison(t *testing.T) {
	p, err := report.Build(os.DirFS(benchDir(t)), "bench")
	if err != nil {
		t.Fatal(err)
	}
	agg := func(v float64) compare.Agg {
		return compare.Agg{Mean: v, N: 1, Unit: "m", Direction: bench.LowerIsBetter}
	}
	rep := &compare.Report{Baseline: &results.Run{Name: "old"}, Opt: compare.DefaultOptions(), Rows: []compare.Row{
		{Test: "t", Metric: "robot_1.cross_track_error_mean_m", Base: agg(1), Cur: agg(0.5), ChangePct: -50, Flag: compare.Improvement},
		{Test: "t", Metric: "robot_1.path_rmse_m", Base: agg(1), Cur: agg(1.1), ChangePct: 10},
		{Test: "t", Metric: "robot_1.overshoot_m", Base: agg(1), Cur: agg(2), ChangePct: 100, Flag: compare.Regression},
	}}
	p.AddComparison(rep)
	s := p.Sections[0]
	var classes []string
	for _, r := range s.Rows {
		classes = append(classes, r.Class(4)+" "+r.Cells[4])
	}
	if want := []string{"better -50.0 %", "worse +10.0 %", "worse +100.0 %"}; strings.Join(classes, ",") != strings.Join(want, ",") {
		t.Errorf("changes %q; want %q", classes, want)
	}
	if p.Status != report.Fail || s.Rows[2].Status != report.Fail {
		t.Errorf("a regression does not fail the page")
	}
}
