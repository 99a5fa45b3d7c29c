package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/shakedown-robotics/shakedown/internal/browsertest"
	"github.com/shakedown-robotics/shakedown/report"
	"github.com/shakedown-robotics/shakedown/score"
)

// hostileDir is a run results folder with things planted in it: an SVG
// with a script and an onload handler, a file whose name is markup, and a
// test name that is a script.
func hostileDir(t *testing.T) string {
	t.Helper()
	dir := runDir(t)
	write(t, dir, "evil.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="window.pwned='onload'">`+
		`<script>window.pwned='script'; document.title='pwned'</script><rect width="40" height="40" fill="red"/></svg>`))
	write(t, dir, `x"><img src=x onerror="window.pwned='name'">.svg`, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20"/></svg>`))
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "results.json", bytes.Replace(b, []byte(`"gen/test_0.yaml"`), []byte(`"<script>window.pwned='test'</script><img src=x onerror=\"window.pwned='img'\">"`), 1))
	return dir
}

// The reproduction: nothing planted in a results folder becomes
// markup of the page. SVGs go in as images (data: URLs), names as text,
// and the page's policy allows no script.
func TestReportHostileFolder(t *testing.T) {
	p, err := report.Build(os.DirFS(hostileDir(t)), "run")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, bad := range []string{"<script", "<svg", "<img src=x", `onerror="`, `onload="`} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(html, "<img "); n != 4 {
		t.Errorf("the page has %d <img> tags; want the 4 plots", n)
	}
	for _, want := range []string{`src="data:image/svg&#43;xml;base64,`, `Content-Security-Policy`, `default-src 'none'`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// In a browser: the planted SVGs render as images, and no script of them
// runs.
func TestReportHostileInBrowser(t *testing.T) {
	dir := hostileDir(t)
	p, err := report.Build(os.DirFS(dir), "run")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "report.html", b.Bytes())
	ctx := browsertest.New(t, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "report.html")), chromedp.WaitVisible("#summary")); err != nil {
		t.Fatal(err)
	}
	widths, err := chromedp.Run(ctx, chromedp.Poll[[]int](`(() => { const im = [...document.images]; return im.length > 0 && im.every(i => i.complete && i.naturalWidth > 0) ? im.map(i => i.naturalWidth) : null })()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("the images did not render: %v", err)
	}
	if len(widths) != 4 {
		t.Errorf("image widths %v; want 4 images", widths)
	}
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.pwned) + " " + document.title`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pwned, "pwned") || !strings.HasPrefix(pwned, "undefined") {
		t.Errorf("a planted script ran: window.pwned, title = %q", pwned)
	}
}

// Names from the outside cannot add markup, cells or lines to the score
// Markdown.
func TestScoreMarkdownHostileNames(t *testing.T) {
	tool := "gen|x<script>alert(1)</script>\n# injected"
	rep := report.Scores{Rules: score.Edition2025, Table: score.Table{Edition: score.Edition2025, Tools: []string{tool}, Missions: []string{"mission2"},
		Cells: [][]score.Cell{{{}}}, Overall: []score.Overall{{Place: 1}}},
		Invalid: []report.InvalidTest{{Tool: tool, Mission: "mission2", Test: "t`x`.yaml", Reason: "**bold** <b>x</b>"}}}
	var b bytes.Buffer
	report.WriteScoreMarkdown(&b, rep, false)
	md := b.String()
	for _, bad := range []string{"<script", "<b>", "\n# injected", "**bold**", "`x`"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown holds %q:\n%s", bad, md)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| gen") {
			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 7 {
				t.Errorf("the tool's row has %d cell borders; want 7 (6 cells):\n%s", n, line)
			}
		}
	}
}
