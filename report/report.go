// Package report turns a results directory (of bench, run, fly, eol,
// generate or score --out) into one self-contained HTML page: a summary
// table, every plot embedded (PNG and SVG as data URIs, shown as images:
// an SVG's scripts never run), pass and fail at a glance, each test's plot
// directly under its row (run, generate, fly) or its section linked from
// the row (bench). The page loads nothing from anywhere, so CI can archive
// it.
package report

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/results"
	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/run"
)

// Kinds of results directories.
const (
	KindBench    = "bench"
	KindRun      = "run"
	KindFly      = "fly"
	KindEOL      = "eol"
	KindGenerate = "generate"
	KindScore    = "score"
)

// ErrUnknownKind is returned for a directory that holds no results Shakedown
// writes.
var ErrUnknownKind = errors.New("report: not a results directory of bench, run, fly, eol, generate or score")

// Status is a verdict at a glance.
type Status string

// Statuses.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
	Info Status = "info"
)

// Plot is an image of the page.
type Plot struct {
	ID   string // HTML anchor
	Name string
	// Src is a data: URL of the PNG or SVG file. An SVG goes in as an
	// image, never inline: a browser runs no script and loads nothing
	// from an SVG shown with <img>, so a file planted in a results folder
	// (a <script>, an onload=, a link to elsewhere) does nothing; the
	// page's Content-Security-Policy forbids scripts besides.
	Src template.URL
}

// Row is a line of the summary table. Plot is the row's own plot, shown
// directly under it in the row's group; Link points at what it belongs to
// elsewhere on the page (a bench section).
type Row struct {
	Status    Status
	Cells     []string
	CellClass []string // a CSS class per cell ("better", "worse"), or none
	Link      string   // anchor of a section, or ""
	Plot      *Plot    // shown under the row, or nil
}

// Class returns cell i's CSS class.
func (r Row) Class(i int) string {
	if i < len(r.CellClass) {
		return r.CellClass[i]
	}
	return ""
}

// Page is a report ready to render.
type Page struct {
	Title    string
	Kind     string
	Status   Status // the whole directory's verdict
	Headline string
	Columns  []string
	Rows     []Row
	Plots    []Plot
	Sections []Section // tables with their plots beside them
	Text     []Block   // preformatted texts (summary.txt, Markdown reports)

	skipPlots map[string]bool // shown in a section already
}

// Links reports whether a row links elsewhere on the page: the table then
// has a column for the link.
func (p *Page) Links() bool {
	for _, r := range p.Rows {
		if r.Link != "" {
			return true
		}
	}
	return false
}

// Width is the summary table's number of columns: the verdict, the cells
// and the link column.
func (p *Page) Width() int {
	n := 1 + len(p.Columns)
	if p.Links() {
		n++
	}
	return n
}

// rowPlot returns the first of the images named that exists, embedded, to
// show under its row, and leaves it out of the page's other plots; nil
// when there is none.
func (p *Page) rowPlot(fsys fs.FS, names ...string) (*Plot, error) {
	for _, n := range names {
		if _, err := fs.Stat(fsys, n); err != nil {
			continue
		}
		pl, err := readPlot(fsys, n)
		if err != nil {
			return nil, err
		}
		if p.skipPlots == nil {
			p.skipPlots = map[string]bool{}
		}
		p.skipPlots[n] = true
		return &pl, nil
	}
	return nil, nil
}

// Block is a preformatted text shown on the page.
type Block struct {
	Name string
	Body string
}

// Detect tells which command wrote the directory.
func Detect(fsys fs.FS) (string, error) {
	has := func(name string) bool { _, err := fs.Stat(fsys, name); return err == nil }
	glob := func(p string) bool { m, _ := fs.Glob(fsys, p); return len(m) > 0 }
	switch {
	case has(results.MetricsFile):
		return KindBench, nil
	case has("results.json") && glob("*-run*.csv"):
		return KindRun, nil
	case has("result.json") && has("trajectory.csv"):
		return KindFly, nil
	case glob("*-eol.json"):
		return KindEOL, nil
	case glob("test_*.yaml"):
		return KindGenerate, nil
	case glob("*/*/test_*/run_*/result.json") || glob("*/test_*/run_*/result.json") || glob("test_*/run_*/result.json"):
		return KindScore, nil
	}
	return "", ErrUnknownKind
}

// Build reads the directory and assembles its page.
func Build(fsys fs.FS, title string) (*Page, error) {
	kind, err := Detect(fsys)
	if err != nil {
		return nil, err
	}
	p := &Page{Title: title, Kind: kind}
	switch kind {
	case KindBench:
		err = p.bench(fsys)
	case KindRun:
		err = p.run(fsys)
	case KindFly:
		err = p.fly(fsys)
	case KindEOL:
		err = p.eol(fsys)
	case KindGenerate:
		err = p.generate(fsys)
	case KindScore:
		err = p.score(fsys)
	}
	if err != nil {
		return nil, err
	}
	p.Status = Pass
	for _, r := range p.Rows {
		if r.Status == Fail {
			p.Status = Fail
		}
	}
	return p, nil
}

// plots embeds every image matching the patterns, in name order.
func (p *Page) plots(fsys fs.FS, patterns ...string) error {
	var names []string
	for _, pat := range patterns {
		m, err := fs.Glob(fsys, pat)
		if err != nil {
			return err
		}
		names = append(names, m...)
	}
	slices.Sort(names)
	for _, n := range names {
		if p.skipPlots[n] {
			continue
		}
		pl, err := readPlot(fsys, n)
		if err != nil {
			return err
		}
		p.Plots = append(p.Plots, pl)
	}
	return nil
}

// readPlot embeds one image.
func readPlot(fsys fs.FS, n string) (Plot, error) {
	b, err := fs.ReadFile(fsys, n)
	if err != nil {
		return Plot{}, err
	}
	pl := Plot{ID: anchor(n), Name: n}
	switch path.Ext(n) {
	case ".png":
		if !strings.HasPrefix(string(b), "\x89PNG") {
			return Plot{}, fmt.Errorf("report: %s is not a PNG image", n)
		}
		pl.Src = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
	case ".svg":
		if !strings.Contains(string(b[:min(len(b), 512)]), "<svg") {
			return Plot{}, fmt.Errorf("report: %s is not an SVG image", n)
		}
		pl.Src = template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b))
	}
	return pl, nil
}

func anchor(name string) string {
	r := strings.NewReplacer("/", "-", ".", "-", "#", "-", " ", "-", "[", "-", "]", "-")
	return "plot-" + r.Replace(name)
}

func (p *Page) bench(fsys fs.FS) error {
	data, err := fs.ReadFile(fsys, results.MetricsFile)
	if err != nil {
		return err
	}
	metrics, err := results.DecodeMetrics(data)
	if err != nil {
		return fmt.Errorf("%s: %w", results.MetricsFile, err)
	}
	var cases []bench.Case
	if data, err := fs.ReadFile(fsys, results.JUnitFile); err == nil {
		if cases, err = results.DecodeJUnit(data); err != nil {
			return fmt.Errorf("%s: %w", results.JUnitFile, err)
		}
	}
	used, err := p.benchSections(fsys, metrics)
	if err != nil {
		return err
	}
	p.skipPlots = used
	p.Columns = []string{"test", "status", "simulated s", "message"}
	failed := 0
	for _, c := range cases {
		st := Pass
		switch c.Status {
		case bench.Failed:
			st = Fail
			failed++
		case bench.Skipped:
			st = Skip
		}
		p.Rows = append(p.Rows, Row{Status: st, Cells: []string{c.Name(), string(c.Status), fmt.Sprintf("%.1f", c.SimS), c.Message}, Link: p.sectionFor(c.Param)})
	}
	p.Headline = fmt.Sprintf("%d phases, %d failed; %d metric groups", len(cases), failed, len(metrics))
	return p.plots(fsys, "plots/*.png", "plots/*.svg")
}

// runResult is the part of `shakedown run`'s results.json the page shows;
// the summary is run's own type.
type runResult struct {
	Test    string      `json:"test"`
	Mission string      `json:"mission"`
	Summary run.Summary `json:"summary"`
}

func decodeStrict(name string, data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("report: %s: %w", name, err)
	}
	return nil
}

func (p *Page) run(fsys fs.FS) error {
	data, err := fs.ReadFile(fsys, "results.json")
	if err != nil {
		return err
	}
	var rs []runResult
	if err := decodeStrict("results.json", data, &rs); err != nil {
		return err
	}
	p.Columns = []string{"test", "mission", "verdict", "min distance m", "points", "flight time s", "runs (soft / hard fails)"}
	failed := 0
	seen := map[string]int{}
	for _, r := range rs {
		st := Pass
		if r.Summary.Verdict != "pass" {
			st = Fail
			failed++
		}
		d := "—"
		if r.Summary.MinClearanceM != nil {
			d = fmt.Sprintf("%.2f", *r.Summary.MinClearanceM)
		}
		// The plot's name, as run gives it: the file's base name, and
		// the second of two with the same base test_0-2.
		name := strings.TrimSuffix(path.Base(r.Test), path.Ext(r.Test))
		base := name
		if n := seen[base]; n > 0 {
			name = fmt.Sprintf("%s-%d", base, n+1)
		}
		seen[base]++
		pl, err := p.rowPlot(fsys, name+".png", name+".svg")
		if err != nil {
			return err
		}
		p.Rows = append(p.Rows, Row{Status: st, Plot: pl, Cells: []string{r.Test, r.Mission, r.Summary.Verdict, d,
			fmt.Sprintf("%.2f", r.Summary.MeanPoints), fmt.Sprintf("%.1f", r.Summary.MeanTimeS),
			fmt.Sprintf("%d (%d / %d)", r.Summary.Runs, r.Summary.SoftFails, r.Summary.HardFails)}})
	}
	p.Headline = fmt.Sprintf("%d tests: %d passed, %d failed (closer than 1.5 m or collided)", len(rs), len(rs)-failed, failed)
	return p.plots(fsys, "*.png", "*.svg")
}

func (p *Page) fly(fsys fs.FS) error {
	data, err := fs.ReadFile(fsys, "result.json")
	if err != nil {
		return err
	}
	var r run.Result
	if err := decodeStrict("result.json", data, &r); err != nil {
		return err
	}
	st := Pass
	if !r.Completed || (r.Verdict != "" && r.Verdict != "pass") {
		st = Fail
	}
	d := "—"
	if r.MinClearanceM != nil {
		d = fmt.Sprintf("%.2f", *r.MinClearanceM)
	}
	pl, err := p.rowPlot(fsys, "flight.png")
	if err != nil {
		return err
	}
	p.Columns = []string{"mission", "completed", "reason", "flight time s", "path m", "min clearance m"}
	p.Rows = []Row{{Status: st, Plot: pl, Cells: []string{r.Mission, fmt.Sprint(r.Completed), r.Reason,
		fmt.Sprintf("%.1f", r.FlightTimeS), fmt.Sprintf("%.1f", r.PathLengthM), d}}}
	p.Headline = r.Reason
	return p.plots(fsys, "*.png", "*.svg")
}

func (p *Page) eol(fsys fs.FS) error {
	files, _ := fs.Glob(fsys, "*-eol.json")
	slices.Sort(files)
	p.Columns = []string{"run", "vehicle", "serial", "step", "check", "result", "measured", "limit"}
	failed := 0
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return err
		}
		var rec struct {
			EOL *eol.Report `json:"end_of_line"`
		}
		if err := decodeStrict(f, data, &rec); err != nil {
			return err
		}
		if rec.EOL == nil {
			return fmt.Errorf("report: %s: no end_of_line block", f)
		}
		r := rec.EOL
		if r.Result == eol.Fail {
			failed++
		}
		for _, c := range r.Checks {
			st := Info
			switch c.Result {
			case eol.Pass:
				st = Pass
			case eol.Fail:
				st = Fail
			case eol.Skip:
				st = Skip
			}
			p.Rows = append(p.Rows, Row{Status: st, Cells: []string{r.RunID, r.Vehicle, r.Serial, fmt.Sprintf("%d %s", c.Step, c.StepName), c.Name, string(c.Result), c.Measured, c.Limit}})
		}
		if md, err := fs.ReadFile(fsys, strings.TrimSuffix(f, ".json")+".md"); err == nil {
			p.Text = append(p.Text, Block{Name: strings.TrimSuffix(f, ".json") + ".md", Body: string(md)})
		}
	}
	p.Headline = fmt.Sprintf("%d end-of-line runs, %d failed", len(files), failed)
	return p.plots(fsys, "*.png", "*.svg")
}

func (p *Page) generate(fsys fs.FS) error {
	tests, _ := fs.Glob(fsys, "test_*.yaml")
	slices.SortFunc(tests, func(a, b string) int { return testIndex(a) - testIndex(b) })
	p.Columns = []string{"rank", "test"}
	for i, t := range tests {
		base := strings.TrimSuffix(t, ".yaml")
		pl, err := p.rowPlot(fsys, base+".png", base+".svg")
		if err != nil {
			return err
		}
		p.Rows = append(p.Rows, Row{Status: Info, Plot: pl, Cells: []string{fmt.Sprint(i + 1), t}})
	}
	p.Headline = fmt.Sprintf("%d generated tests, ranked by decreasing quality", len(tests))
	return p.plots(fsys, "*.png", "*.svg")
}

// score shows the simulated runs `shakedown score --out` leaves
// (<suite>/<mission>/test_N/run_K/result.json): per test, the runs, the
// least distance, the mean competition points and the verdict.
func (p *Page) score(fsys fs.FS) error {
	var files []string
	for _, pat := range []string{"*/*/test_*/run_*/result.json", "*/test_*/run_*/result.json", "test_*/run_*/result.json"} {
		m, _ := fs.Glob(fsys, pat)
		files = append(files, m...)
	}
	type agg struct {
		runs, points, hard, soft int
		min                      *float64
	}
	tests := map[string]*agg{}
	var order []string
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return err
		}
		var r struct {
			MinClearanceM *float64 `json:"min_clearance_m"`
			Points        int      `json:"points"`
			Verdict       string   `json:"verdict"`
		}
		if err := decodeStrict(f, data, &r); err != nil {
			return err
		}
		test := path.Dir(path.Dir(f))
		a := tests[test]
		if a == nil {
			a = &agg{}
			tests[test] = a
			order = append(order, test)
		}
		a.runs++
		a.points += r.Points
		switch r.Verdict {
		case "hard-fail":
			a.hard++
		case "soft-fail":
			a.soft++
		}
		if m := r.MinClearanceM; m != nil && (a.min == nil || *m < *a.min) {
			a.min = m
		}
	}
	slices.SortFunc(order, func(x, y string) int {
		if dx, dy := path.Dir(x), path.Dir(y); dx != dy {
			return strings.Compare(dx, dy)
		}
		return testIndex(x) - testIndex(y)
	})
	p.Columns = []string{"test", "runs", "min distance m", "mean points", "soft / hard fails"}
	critical := 0
	for _, name := range order {
		a := tests[name]
		st, d := Pass, "—"
		if a.min != nil {
			d = fmt.Sprintf("%.2f", *a.min)
		}
		if a.hard+a.soft > 0 {
			st = Fail
			critical++
		}
		p.Rows = append(p.Rows, Row{Status: st, Cells: []string{name, fmt.Sprint(a.runs), d,
			fmt.Sprintf("%.2f", float64(a.points)/float64(a.runs)), fmt.Sprintf("%d / %d", a.soft, a.hard)}})
	}
	p.Headline = fmt.Sprintf("%d tests simulated, %d critical (a run closer than 1.5 m)", len(order), critical)
	return p.scores(fsys)
}

// scores adds the scoring `score --out` writes beside the runs
// (ScoresFile), when there is one: its header (the rules, the DTW scale
// and averaging, what avg_time is) to the headline and its table as text.
func (p *Page) scores(fsys fs.FS) error {
	data, err := fs.ReadFile(fsys, ScoresFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var s Scores
	if err := decodeStrict(ScoresFile, data, &s); err != nil {
		return err
	}
	p.Headline += fmt.Sprintf("; scored with the %d rules", s.Rules)
	if s.DTW != "" {
		p.Headline += ". " + s.DTW
	}
	if s.TimeNote != "" {
		p.Headline += fmt.Sprintf(". avg_time (%s): %s", s.Time, s.TimeNote)
	}
	var md strings.Builder
	WriteScoreMarkdown(&md, s, false)
	p.Text = append(p.Text, Block{Name: "scores", Body: md.String()})
	return nil
}

func testIndex(name string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(path.Base(name), "test_"), "%d", &n)
	return n
}

// WriteHTML renders the page.
func (p *Page) WriteHTML(w io.Writer) error {
	return page.Execute(w, p)
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;color:#222;padding:0 1rem}
h1{margin-bottom:.2rem}.kind{color:#666;font-size:.9rem}
.badge{display:inline-block;padding:.15rem .6rem;border-radius:.8rem;font-weight:600;color:#fff}
.badge.pass{background:#2e7d32}.badge.fail{background:#c62828}.badge.skip{background:#757575}.badge.info{background:#1565c0}
table{border-collapse:collapse;width:100%;margin:1rem 0;font-size:.9rem}
th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top;color:#222}
th{background:#f5f5f5}tr.pass td{background:#fff}tr.fail td{background:#fdecea}tr.skip td{background:#fafafa;color:#555}
tbody.group.fail{border-left:4px solid #c62828}tr.plotrow td{padding:.2rem .5rem 1rem;border-bottom:2px solid #bbb}tr.plotrow figure{margin:0}tr.plotrow img{max-width:min(100%,720px)}
td.better{color:#1b5e20;font-weight:600}td.worse{color:#b71c1c;font-weight:600}
section.sec{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem;align-items:start;border-top:1px solid #ddd;margin-top:1rem}
section.sec.wide{grid-template-columns:minmax(0,1fr)}section.sec h3{grid-column:1/-1;margin:.8rem 0 0}section.sec figure{margin:.5rem 0}
pre{background:#f7f7f7;padding:.8rem;overflow:auto;font-size:.8rem}
figure{margin:1.5rem 0}figure img,figure svg{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:.85rem;color:#555}
</style></head><body>
<h1>{{.Title}}</h1>
<div class="kind">{{.Kind}} results · <span id="verdict" class="badge {{.Status}}">{{.Status}}</span> {{.Headline}}</div>
{{$links := .Links}}{{$width := .Width}}<table id="summary"><thead><tr><th>verdict</th>{{range .Columns}}<th>{{.}}</th>{{end}}{{if $links}}<th>details</th>{{end}}</tr></thead>
{{range .Rows}}<tbody class="group {{.Status}}"><tr class="{{.Status}}"><td><span class="badge {{.Status}}">{{.Status}}</span></td>{{range $i, $c := .Cells}}<td>{{$c}}</td>{{end}}{{if $links}}<td>{{if .Link}}<a href="#{{.Link}}">details</a>{{end}}</td>{{end}}</tr>
{{with .Plot}}<tr class="plotrow"><td colspan="{{$width}}"><figure id="{{.ID}}"><img alt="{{.Name}}" src="{{.Src}}"><figcaption>{{.Name}}</figcaption></figure></td></tr>
{{end}}</tbody>
{{end}}</table>
{{range .Sections}}<section class="sec{{if not .Plots}} wide{{end}}" id="{{.ID}}"><h3>{{.Name}}</h3><table><thead><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range $r := .Rows}}<tr class="{{$r.Status}}">{{range $i, $c := $r.Cells}}<td class="{{$r.Class $i}}">{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table><div>{{range .Plots}}<figure id="{{.ID}}"><img alt="{{.Name}}" src="{{.Src}}"><figcaption>{{.Name}}</figcaption></figure>{{end}}</div></section>
{{end}}
{{range .Text}}<h2>{{.Name}}</h2><pre>{{.Body}}</pre>
{{end}}
{{if .Plots}}<h2>Plots</h2>{{end}}
{{range .Plots}}<figure id="{{.ID}}"><img alt="{{.Name}}" src="{{.Src}}"><figcaption>{{.Name}}</figcaption></figure>
{{end}}
</body></html>
`))
