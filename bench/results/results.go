// Package results writes and reads the benchmark's results directory, the
// layout AirStack's test runs leave behind (airstack.md §5.1–5.3):
//
//	<root>/<YYYY-MM-DD_HH-MM-SS>/
//	├── summary.txt     human-readable: pass/fail and key numbers per trajectory type
//	├── results.xml     JUnit: one testcase per phase, wall-clock and simulated durations
//	├── metrics.json    {test id: {metric: {value, unit, direction}}}
//	├── run_meta.json   the campaign, its counts and its fingerprint
//	├── plots/          ideal vs flown path per type and robot; error over time
//	└── tracks/         the flown odometry and its errors, CSV
//
// Run is the directory's content as the compare reads it back; FromResult
// builds it from a finished campaign. Output is byte-stable for the same
// Result: sorted keys, fixed float formats.
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/bench"
)

// File names inside a run directory.
const (
	MetricsFile = "metrics.json"
	JUnitFile   = "results.xml"
	SummaryFile = "summary.txt"
	MetaFile    = "run_meta.json"
	PlotsDir    = "plots"
	TracksDir   = "tracks"
)

// DirLayout is the run directory's name layout (time.Format).
const DirLayout = "2006-01-02_15-04-05"

// Run is a results directory's content.
type Run struct {
	Name    string // directory name
	Meta    *bench.Meta
	Cases   []bench.Case                       // from results.xml; nil without it
	Metrics map[string]map[string]bench.Metric // from metrics.json
}

// FromResult returns the Run a campaign's result writes.
func FromResult(name string, res *bench.Result) *Run {
	m := res.Meta
	return &Run{Name: name, Meta: &m, Cases: res.Cases, Metrics: res.Metrics}
}

// ParseError is a results file that cannot be used: which file, and what.
type ParseError struct {
	File  string
	Field string // the test id or metric key at fault; "" for the whole file
	Err   error
}

func (e *ParseError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("results: %s: %s: %v", e.File, e.Field, e.Err)
	}
	return fmt.Sprintf("results: %s: %v", e.File, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrNoMetrics is returned for a directory without metrics.json.
var ErrNoMetrics = errors.New("results: no " + MetricsFile)

// jsonMetric is one metric in metrics.json.
type jsonMetric struct {
	Value     any    `json:"value"`
	Unit      string `json:"unit"`
	Direction string `json:"direction"`
}

// EncodeMetrics returns metrics.json: two-space indented, keys sorted.
func EncodeMetrics(m map[string]map[string]bench.Metric) ([]byte, error) {
	out := make(map[string]map[string]jsonMetric, len(m))
	for id, ms := range m {
		o := make(map[string]jsonMetric, len(ms))
		for k, v := range ms {
			jm := jsonMetric{Unit: v.Unit, Direction: string(v.Direction)}
			if v.IsNumber() {
				if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
					return nil, fmt.Errorf("results: %s %s: non-finite value %v", id, k, v.Value)
				}
				jm.Value = json.Number(strconv.FormatFloat(v.Value, 'f', -1, 64))
			} else {
				jm.Value = v.Sentinel
			}
			o[k] = jm
		}
		out[id] = o
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// DecodeMetrics parses metrics.json. Entries that are not metrics (the
// "<series>_samples" lists AirStack records) are skipped; a metric whose
// value is neither a number nor a string is a *ParseError.
func DecodeMetrics(data []byte) (map[string]map[string]bench.Metric, error) {
	var raw map[string]map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, &ParseError{File: MetricsFile, Err: err}
	}
	out := make(map[string]map[string]bench.Metric, len(raw))
	for id, ms := range raw {
		o := make(map[string]bench.Metric, len(ms))
		for k, rm := range ms {
			if strings.HasSuffix(k, "_samples") {
				continue
			}
			var jm jsonMetric
			d := json.NewDecoder(bytes.NewReader(rm))
			d.UseNumber()
			if err := d.Decode(&jm); err != nil {
				return nil, &ParseError{File: MetricsFile, Field: id + " " + k, Err: err}
			}
			m := bench.Metric{Unit: jm.Unit, Direction: bench.Direction(jm.Direction)}
			switch v := jm.Value.(type) {
			case json.Number:
				f, err := strconv.ParseFloat(string(v), 64)
				if err != nil || math.IsInf(f, 0) {
					return nil, &ParseError{File: MetricsFile, Field: id + " " + k, Err: fmt.Errorf("value %s is not a finite number", v)}
				}
				m.Value = f
			case string:
				if v == "" {
					return nil, &ParseError{File: MetricsFile, Field: id + " " + k, Err: errors.New("empty sentinel value")}
				}
				m.Sentinel = v
			default:
				return nil, &ParseError{File: MetricsFile, Field: id + " " + k, Err: fmt.Errorf("value %v is neither a number nor a string", jm.Value)}
			}
			if m.Direction == "" {
				m.Direction = bench.LowerIsBetter // parse_metrics' default
			}
			o[k] = m
		}
		out[id] = o
	}
	return out, nil
}

// EncodeMeta returns run_meta.json.
func EncodeMeta(m *bench.Meta) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Read loads a results directory. metrics.json is required; results.xml
// and run_meta.json are read when present.
func Read(dir string) (*Run, error) {
	r := &Run{Name: filepath.Base(filepath.Clean(dir))}
	data, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if errors.Is(err, os.ErrNotExist) {
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return nil, fmt.Errorf("results: %s is not a results directory", dir)
		}
		return nil, fmt.Errorf("%w in %s", ErrNoMetrics, dir)
	}
	if err != nil {
		return nil, err
	}
	if r.Metrics, err = DecodeMetrics(data); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, JUnitFile)); err == nil {
		if r.Cases, err = DecodeJUnit(data); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if data, err := os.ReadFile(filepath.Join(dir, MetaFile)); err == nil {
		var m bench.Meta
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, &ParseError{File: MetaFile, Err: err})
		}
		r.Meta = &m
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return r, nil
}

// sortedIDs returns the keys of m, sorted.
func sortedIDs[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// Newest returns dir when it is a results directory (it has metrics.json),
// else the newest run directory in it: the latest DirLayout name (with its
// "-2", "-3", … suffix) that has metrics.json, as Write makes them under
// --out. It returns the number of runs found beside the one chosen.
func Newest(dir string) (run string, runs int, err error) {
	if _, err := os.Stat(filepath.Join(dir, MetricsFile)); err == nil {
		return dir, 1, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", 0, fmt.Errorf("results: %w", err)
	}
	var best string
	var bestT time.Time
	bestN := 0
	for _, e := range entries {
		t, n, ok := runName(e.Name())
		if !ok || !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), MetricsFile)); err != nil {
			continue
		}
		runs++
		if best == "" || t.After(bestT) || (t.Equal(bestT) && n > bestN) {
			best, bestT, bestN = e.Name(), t, n
		}
	}
	if best == "" {
		return "", 0, fmt.Errorf("%w in %s, nor a run directory (%s) that has one", ErrNoMetrics, dir, DirLayout)
	}
	return filepath.Join(dir, best), runs, nil
}

// runName parses a run directory's name: DirLayout, then "-N" when Write
// found the name taken.
func runName(name string) (time.Time, int, bool) {
	if len(name) < len(DirLayout) {
		return time.Time{}, 0, false
	}
	t, err := time.Parse(DirLayout, name[:len(DirLayout)])
	if err != nil {
		return time.Time{}, 0, false
	}
	rest := name[len(DirLayout):]
	if rest == "" {
		return t, 1, true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(rest, "-"))
	if err != nil || !strings.HasPrefix(rest, "-") || n < 2 {
		return time.Time{}, 0, false
	}
	return t, n, true
}
