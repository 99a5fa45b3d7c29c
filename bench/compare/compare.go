// Package compare diffs two benchmark runs the way AirStack's
// tests/parse_metrics.py does (airstack.md §5.4), and refuses to compare
// runs that did not fly the same campaign.
//
// Merge: a test's -iterN suffix is stripped and its numeric values over the
// iterations become mean, population standard deviation and count;
// non-numeric sentinels ("timeout", "aborted") are counted as failures.
// Unlike parse_metrics.py, every robot keeps its own keys (robot_1.…,
// robot_2.…): nothing is dropped.
//
// Regression rule: change = (current − baseline) / baseline × 100 %, in the
// direction the current entry declares. A lower-is-better metric regresses
// when it rises by more than the threshold, a higher-is-better one when it
// falls by more; a sentinel in the current run against an all-numeric
// baseline, a metric the current run lost, and a pass rate that fell are
// regressions too. Two departures from parse_metrics.py, both against
// noise: a change smaller than the absolute floor (0.05 in the metric's
// unit by default) never counts, and a zero baseline counts any change
// above that floor (parse_metrics.py takes it as 0 %). Informational
// metrics (a signed bias) and wall-clock ones (*_sys_s: they measure the
// machine, not the tracker) are shown and never judged.
package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/results"
)

// Errors.
var (
	// ErrIncomparable is returned when the two runs flew different
	// campaigns (fingerprints differ) and Force is not set.
	ErrIncomparable = errors.New("compare: runs are not comparable")
	// ErrBadOptions is returned for a threshold or floor that is not a
	// finite number ≥ 0.
	ErrBadOptions = errors.New("compare: bad options")
)

// Options of a comparison.
type Options struct {
	ThresholdPct float64 // regression threshold, %; parse_metrics' default is 20
	AbsFloor     float64 // changes smaller than this (metric units) are noise
	Force        bool    // compare even when the campaigns differ
}

// DefaultOptions returns a 20 % threshold and a 0.05 floor.
func DefaultOptions() Options { return Options{ThresholdPct: 20, AbsFloor: 0.05} }

// Flag marks a row.
type Flag int

// Flags.
const (
	None Flag = iota
	Improvement
	Regression
)

// Agg is a metric over a test's iterations.
type Agg struct {
	Mean, Std float64 // of the numeric values; NaN when none
	N         int     // numeric values
	Failures  []string
	Unit      string
	Direction bench.Direction
}

// Present reports whether the run has the metric at all.
func (a Agg) Present() bool { return a.N > 0 || len(a.Failures) > 0 }

// String formats the aggregate: "0.123 m", "0.123 ± 0.004 m (n=10)",
// "timeout", "0.5 s (n=9, 1 timeout)".
func (a Agg) String() string {
	if !a.Present() {
		return "–"
	}
	u := ""
	if a.Unit != "" {
		u = " " + a.Unit
	}
	var s string
	switch {
	case a.N == 1 && len(a.Failures) == 0:
		s = f3(a.Mean) + u
	case a.N >= 1:
		s = fmt.Sprintf("%s ± %s%s (n=%d", f3(a.Mean), f3(a.Std), u, a.N)
		if len(a.Failures) > 0 {
			s += ", " + strings.Join(a.Failures, ", ")
		}
		s += ")"
	default:
		s = strings.Join(a.Failures, ", ")
	}
	return s
}

func f3(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) }

// Row is one metric of one test.
type Row struct {
	Test      string // test id without -iterN
	Metric    string // robot_N.key
	Base, Cur Agg
	ChangePct float64 // NaN when not computable
	Flag      Flag
	Note      string // why it is flagged or not judged
}

// PassRate is one test's outcomes over its iterations.
type PassRate struct {
	Test                    string
	Passed, Failed, Skipped int
}

// Rate returns passed / (passed + failed), NaN with neither.
func (p PassRate) Rate() float64 {
	if p.Passed+p.Failed == 0 {
		return math.NaN()
	}
	return float64(p.Passed) / float64(p.Passed+p.Failed)
}

// Report is a comparison (or, without a baseline, a table of one run).
type Report struct {
	Current, Baseline *results.Run // Baseline nil for a single run
	Opt               Options
	Rows              []Row
	CurRates          map[string]PassRate
	BaseRates         map[string]PassRate
	RateRegressions   []string // tests whose pass rate fell
	ConfigDiff        []string // differing campaign options (when forced)
}

// Regressions returns the number of regressed metrics and pass rates.
func (r *Report) Regressions() int {
	n := len(r.RateRegressions)
	for _, row := range r.Rows {
		if row.Flag == Regression {
			n++
		}
	}
	return n
}

// merge aggregates a run's metrics by test id without -iterN.
func merge(run *results.Run) map[string]map[string]Agg {
	vals := map[string]map[string][]bench.Metric{}
	for id, ms := range run.Metrics {
		g := results.GroupID(id)
		if vals[g] == nil {
			vals[g] = map[string][]bench.Metric{}
		}
		for k, m := range ms {
			vals[g][k] = append(vals[g][k], m)
		}
	}
	out := map[string]map[string]Agg{}
	for g, ks := range vals {
		out[g] = map[string]Agg{}
		for k, ms := range ks {
			var nums []float64
			a := Agg{Unit: ms[0].Unit, Direction: ms[0].Direction}
			for _, m := range ms {
				if m.IsNumber() {
					nums = append(nums, m.Value)
				} else {
					a.Failures = append(a.Failures, m.Sentinel)
				}
			}
			sort.Strings(a.Failures)
			a.N = len(nums)
			a.Mean, a.Std = meanStd(nums)
			out[g][k] = a
		}
	}
	return out
}

func rates(run *results.Run) map[string]PassRate {
	out := map[string]PassRate{}
	for _, c := range run.Cases {
		g := results.GroupID(c.ID())
		p := out[g]
		p.Test = g
		switch c.Status {
		case bench.Passed:
			p.Passed++
		case bench.Failed:
			p.Failed++
		case bench.Skipped:
			p.Skipped++
		}
		out[g] = p
	}
	return out
}

// judged reports whether a metric is judged, and why not.
func judged(key string, dir bench.Direction) (bool, string) {
	switch {
	case strings.HasSuffix(key, "_sys_s"):
		return false, "wall clock, not judged"
	case dir == bench.Informational:
		return false, "informational"
	case dir != bench.LowerIsBetter && dir != bench.HigherIsBetter:
		return false, "unknown direction " + string(dir)
	}
	return true, ""
}

// Compare diffs cur against base. It returns ErrIncomparable (wrapped, with
// the differing options) when the campaigns differ and opt.Force is false,
// or when either run lacks run_meta.json to tell.
func Compare(cur, base *results.Run, opt Options) (*Report, error) {
	if !(opt.ThresholdPct >= 0) || math.IsInf(opt.ThresholdPct, 0) || !(opt.AbsFloor >= 0) || math.IsInf(opt.AbsFloor, 0) {
		return nil, fmt.Errorf("%w: threshold %v %% and floor %v must be finite numbers ≥ 0", ErrBadOptions, opt.ThresholdPct, opt.AbsFloor)
	}
	r := &Report{Current: cur, Baseline: base, Opt: opt, CurRates: rates(cur), BaseRates: rates(base)}
	diff, err := configDiff(cur, base)
	if err != nil && !opt.Force {
		return nil, err
	}
	r.ConfigDiff = diff
	cm, bm := merge(cur), merge(base)
	tests := map[string]bool{}
	for g := range cm {
		tests[g] = true
	}
	for g := range bm {
		tests[g] = true
	}
	for _, g := range sortedKeys(tests) {
		keys := map[string]bool{}
		for k := range cm[g] {
			keys[k] = true
		}
		for k := range bm[g] {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			r.Rows = append(r.Rows, judge(g, k, cm[g][k], bm[g][k], opt))
		}
	}
	for _, g := range sortedKeys(r.BaseRates) {
		b, c := r.BaseRates[g], r.CurRates[g]
		br, cr := b.Rate(), c.Rate()
		if !math.IsNaN(br) && (c.Passed+c.Failed+c.Skipped > 0) && (math.IsNaN(cr) || cr < br) {
			r.RateRegressions = append(r.RateRegressions, g)
		}
	}
	return r, nil
}

// Single tabulates one run without judging it.
func Single(cur *results.Run) *Report {
	r := &Report{Current: cur, Opt: DefaultOptions(), CurRates: rates(cur)}
	cm := merge(cur)
	for _, g := range sortedKeys(cm) {
		for _, k := range sortedKeys(cm[g]) {
			r.Rows = append(r.Rows, Row{Test: g, Metric: k, Cur: cm[g][k], ChangePct: math.NaN()})
		}
	}
	return r
}

func judge(test, key string, cur, base Agg, opt Options) Row {
	row := Row{Test: test, Metric: key, Cur: cur, Base: base, ChangePct: math.NaN()}
	dir := cur.Direction
	if !cur.Present() {
		dir = base.Direction
	}
	ok, why := judged(key, dir)
	if cur.N > 0 && base.N > 0 {
		if base.Mean != 0 {
			row.ChangePct = (cur.Mean - base.Mean) / base.Mean * 100
		} else {
			row.ChangePct = 0
		}
	}
	if !ok {
		row.Note = why
		return row
	}
	switch {
	case !cur.Present() && base.N > 0:
		row.Flag, row.Note = Regression, "missing in the current run"
		return row
	case !base.Present():
		row.Note = "new"
		return row
	case len(cur.Failures) > len(base.Failures):
		row.Flag, row.Note = Regression, strings.Join(cur.Failures, ", ")
		return row
	case cur.N == 0 || base.N == 0:
		return row
	}
	d := cur.Mean - base.Mean
	if dir == bench.HigherIsBetter {
		d = -d // d > 0 is worse
	}
	worse := d > opt.AbsFloor
	better := -d > opt.AbsFloor
	pct := math.Abs(row.ChangePct)
	beyond := base.Mean == 0 || pct > opt.ThresholdPct
	switch {
	case worse && beyond:
		row.Flag = Regression
	case better && beyond:
		row.Flag = Improvement
	}
	return row
}

// configDiff returns the differing campaign options, and ErrIncomparable
// when there are any (or a run has no run_meta.json).
func configDiff(cur, base *results.Run) ([]string, error) {
	if cur.Meta == nil || base.Meta == nil {
		which := cur.Name
		if cur.Meta != nil {
			which = base.Name
		}
		return []string{which + " has no " + results.MetaFile}, fmt.Errorf("%w: %s has no %s to tell what it flew (use --force)", ErrIncomparable, which, results.MetaFile)
	}
	if cur.Meta.Fingerprint == base.Meta.Fingerprint {
		return nil, nil
	}
	ck, bk := cur.Meta.ConfigKeys(), base.Meta.ConfigKeys()
	var diff []string
	for i := range max(len(ck), len(bk)) {
		var c, b string
		if i < len(ck) {
			c = ck[i]
		}
		if i < len(bk) {
			b = bk[i]
		}
		if c != b {
			diff = append(diff, fmt.Sprintf("current %q vs baseline %q", c, b))
		}
	}
	if len(diff) == 0 {
		diff = append(diff, "the selected tests differ")
	}
	return diff, fmt.Errorf("%w: the campaigns differ: %s (use --force)", ErrIncomparable, strings.Join(diff, "; "))
}

func meanStd(v []float64) (float64, float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	var q float64
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	return m, math.Sqrt(q / float64(len(v)))
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}
