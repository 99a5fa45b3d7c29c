package fidelity

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// series builds a flight along x at 10 m: 20 s on the ground, then legs of
// (duration s, speed m/s), sampled every dt, then 20 s on the ground.
func series(dt float64, legs ...[2]float64) []sample {
	var out []sample
	t, x := 0.0, 0.0
	add := func(z float64) { out = append(out, sample{t: t, x: x, z: z}) }
	for ; t < 20; t += dt {
		add(0)
	}
	for _, l := range legs {
		end := t + l[0]
		for ; t < end-1e-9; t += dt {
			add(10)
			x += l[1] * dt
		}
	}
	for end := t + 20; t < end; t += dt {
		add(0)
	}
	return out
}

// decimal shifts the times of s by off and rounds them to 0.01 s, as a
// CSV's decimal times are.
func decimal(s []sample, off float64) []sample {
	for i := range s {
		s[i].t = math.Round((s[i].t+off)*100) / 100
	}
	return s
}

// climb makes the first and last 10 s in the air of s a vertical climb
// and descent between 0 and 10 m, standing still across the ground.
func climb(s []sample) []sample {
	first, last := -1, -1
	for i, p := range s {
		if p.z > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i := first; i <= last; i++ {
		if up := s[i].t - s[first].t; up < 10 {
			s[i].z, s[i].x = up, s[first].x
		}
		if down := s[last].t - s[i].t; down < 10 {
			s[i].z, s[i].x = down, s[last].x
		}
	}
	return s
}

// 40 s at 0.2 m/s and 60 s at 1.5 m/s: 40 % of the airborne time is slow,
// up to the windows that straddle the change of speed (within 5 %); the
// ground before take-off and after landing does not count, and a flight
// shorter than two windows has no share.
func TestSlowShareByHand(t *testing.T) {
	for _, c := range []struct {
		name string
		s    []sample
		want float64
	}{
		{"slow then fast", series(0.5, [2]float64{40, 0.2}, [2]float64{60, 1.5}), 0.4},
		{"fast then slow", series(0.66, [2]float64{60, 1.5}, [2]float64{40, 0.2}), 0.4},
		// Times read as decimals (27.3, 32.3 s…) are not exact: a window
		// whose length rounds to just under 5 s must not end the count.
		{"decimal times", decimal(series(0.5, [2]float64{40, 0.2}, [2]float64{60, 1.5}), 0.3), 0.4},
		{"all fast", series(0.5, [2]float64{100, 1.3}), 0},
		{"hover", series(0.5, [2]float64{100, 0}), 1},
		{"climb and descent left out", climb(series(0.5, [2]float64{100, 1.3})), 0},
	} {
		got := slowShare(c.s)
		if math.Abs(got-c.want) > 0.05 {
			t.Errorf("%s: slow share %.3f, want %.2f ± 0.05", c.name, got, c.want)
		}
	}
	if v := slowShare(series(0.5, [2]float64{8, 1})); !math.IsNaN(v) {
		t.Errorf("8 s airborne: share %v, want NaN", v)
	}
	if v := slowShare(series(0.5)); !math.IsNaN(v) {
		t.Errorf("never airborne: share %v, want NaN", v)
	}
}

func TestParseSeries(t *testing.T) {
	in := "# traced from a plot\nt_s,x,y,z\n0,0,0,0\n0.5,1,2,3\n\n1, 2 ,3,4\n"
	s, err := parseSeries("s.csv", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 3 || s[2] != (sample{t: 1, x: 2, y: 3, z: 4}) {
		t.Fatalf("got %+v", s)
	}
	for _, c := range []struct{ in, want string }{
		{"t,x,y,z\n0,0,0,0\n1,0,zero,0\n", "s.csv:3: field 3 (y)"},
		{"0,0,0,abc\n1,0,0,0\n", "s.csv:1: field 4 (z)"}, // a bad first row is no header
		{"t,x,y,z\nt,x,y,z\n", "s.csv:2: field 1 (t)"},
		{"0,0,0,0\n1,0,0\n", "s.csv:2: want t,x,y,z"},
		{"0,0,0,0\n1,NaN,0,0\n", "s.csv:2: field 2 (x)"},
		{"0,0,0,0\n1,1e300,0,0\n", "s.csv:2: field 2 (x)"},
		{"1,0,0,0\n0.5,0,0,0\n", "s.csv:2: time 0.5 s before"},
		{"0,0,0,0\n" + strings.Repeat("9", 70000) + ",0,0,0\n", "longer than 64 KiB"},
	} {
		if _, err := parseSeries("s.csv", strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.in[:min(len(c.in), 30)], err, c.want)
		}
	}
}

func TestSeriesFile(t *testing.T) {
	dir := t.TempDir()
	flat := filepath.Join(dir, "mission2-test_1.csv")
	nested := filepath.Join(dir, "mission3", "t9.csv")
	if err := os.MkdirAll(filepath.Dir(nested), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{flat, nested} {
		if err := os.WriteFile(f, []byte("0,0,0,0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := seriesFile(dir, "mission2", "test_1"); got != flat {
		t.Errorf("flat layout: %q", got)
	}
	if got := seriesFile(dir, "mission3", "t9"); got != nested {
		t.Errorf("nested layout: %q", got)
	}
	if got := seriesFile(dir, "mission3", "none"); got != "" {
		t.Errorf("missing: %q", got)
	}
}

var errPrefix = regexp.MustCompile(`^f\.csv(:[1-9][0-9]*)?: `)

// Whatever the input, parseSeries returns finite samples in time order or
// an error naming the file.
func FuzzParseSeries(f *testing.F) {
	f.Add("t,x,y,z\n0,0,0,0\n0.5,1,2,3\n")
	f.Add("# c\n1,2,3,4\n1,2,3,4\n")
	f.Add("0,0,0\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := parseSeries("f.csv", strings.NewReader(in))
		if err != nil {
			if !errPrefix.MatchString(err.Error()) {
				t.Fatalf("error %q does not name the file (and the line)", err)
			}
			return
		}
		for i, p := range s {
			for _, v := range []float64{p.t, p.x, p.y, p.z} {
				if math.IsNaN(v) || math.Abs(v) > 1e7 {
					t.Fatalf("sample %d: %+v", i, p)
				}
			}
			if i > 0 && p.t < s[i-1].t {
				t.Fatalf("time goes back at %d", i)
			}
		}
		if v := slowShare(s); !math.IsNaN(v) && !(v >= 0 && v <= 1) {
			t.Fatalf("share %v", v)
		}
	})
}

// With a time series beside one test of the tiny reference (PX4 hovering
// for its 100 s in the air), that test alone gets slow shares: PX4's 1,
// the simulator's low (it flies mission1's leg without stopping), and the
// pooled medians are over that one test.
func TestEvaluateSlowShare(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("t,x,y,z\n")
	for _, p := range series(0.5, [2]float64{100, 0}) {
		b.WriteString(strconv.FormatFloat(p.t, 'f', -1, 64) + ",0,0," + strconv.FormatFloat(p.z, 'f', -1, 64) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "mission1-near2.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open("testdata/tiny/reference.csv")
	if err != nil {
		t.Fatal(err)
	}
	refs, err := ParseCSV("testdata/tiny/reference.csv", fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(t.Context(), refs, Config{Runs: 1, Perms: 10, SeriesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tests {
		if tr.Test != "near2" {
			if tr.PX4Slow != nil || tr.SimSlow != nil {
				t.Errorf("%s: slow shares without a series", tr.Test)
			}
			continue
		}
		if tr.PX4Slow == nil || *tr.PX4Slow != 1 || tr.SimSlow == nil || !(*tr.SimSlow < 0.3) {
			t.Errorf("near2: PX4 %v, sim %v; want 1 and under 0.3", tr.PX4Slow, tr.SimSlow)
		}
	}
	if p := rep.Pooled; p.SlowN != 1 || p.PX4Slow != 1 || !(p.SimSlow < 0.3) {
		t.Errorf("pooled: %d tests, PX4 %v, sim %v", p.SlowN, p.PX4Slow, p.SimSlow)
	}
	if p := rep.Pooled; p.PX4SlowMean != 1 || p.PX4Crawled != 1 || p.SimSlowMean != p.SimSlow || p.SimCrawled != 0 {
		t.Errorf("pooled: PX4 mean %v crawled %v, sim mean %v crawled %v; want 1, 1, %v, 0",
			p.PX4SlowMean, p.PX4Crawled, p.SimSlowMean, p.SimCrawled, p.SimSlow)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "slower than 0.45 m/s") {
		t.Errorf("the text has no slow-share section:\n%s", out.String())
	}
}

// TestCrawlFigures: slow shares that are all or nothing per test, as the
// crawl is, have an unstable median; the mean and the share of tests that
// crawled are worked out by hand here, and a group with no series gives
// NaN (null in JSON) rather than 0.
func TestCrawlFigures(t *testing.T) {
	xs := []float64{0, 0.02, 0.8, 0.9, 0.3}
	mean, share := meanAndShareAtLeast(xs, CrawlShare)
	if math.Abs(mean-0.404) > 1e-12 || share != 0.6 {
		t.Errorf("mean %v, crawled %v; want 0.404 and 0.6 (0.3 counts)", mean, share)
	}
	if m := median(xs); m != 0.3 {
		t.Errorf("median %v, want 0.3", m)
	}
	if mean, share := meanAndShareAtLeast(nil, CrawlShare); !math.IsNaN(mean) || !math.IsNaN(share) {
		t.Errorf("no tests: %v, %v; want NaN, NaN", mean, share)
	}
	b, err := json.Marshal(Stats{PX4SlowMean: math.NaN(), SimSlowMean: 0.25, PX4Crawled: math.NaN(), SimCrawled: 0.5,
		Rho: math.NaN(), P: math.NaN(), RhoNear: math.NaN(), AirRatio: math.NaN(), PathErrM: math.NaN(), PX4Slow: math.NaN(), SimSlow: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"px4_slow_share_mean":null`, `"sim_slow_share_mean":0.25`, `"px4_crawled_share":null`, `"sim_crawled_share":0.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}
