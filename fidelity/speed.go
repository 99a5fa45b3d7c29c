package fidelity

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/trace"
)

// How the speed regimes are measured (SlowShare).
const (
	// SlowMS: slower than this over SpeedWindowS counts as slow flight.
	// PX4 + PX4-Avoidance in Aerialist fly the competition's legs at 1.0–
	// 1.4 m/s, or for minutes at a time at 0.2–0.35 m/s (px4-reference
	// series); the bound lies between the two.
	SlowMS = 0.45
	// SpeedWindowS is the window the horizontal speed is taken over, long
	// enough to span a plot-traced series' pixel steps (about 0.66 s).
	SpeedWindowS = 5.0
	// AirborneZM: samples higher than this above the ground are airborne.
	AirborneZM = 2.0
	// CruiseBandM: samples within this of the median airborne height are
	// at cruise height.
	CruiseBandM = 2.0
	// minAirborneS: a series airborne for less has no slow share.
	minAirborneS = 2 * SpeedWindowS
	// CrawlShare: a flight with at least this slow share crawled. Per test
	// the slow share is close to all or nothing (a leg locked at 0.2–0.3
	// m/s, or none), so over a group its median jumps between a few per
	// cent and tens of per cent with the share of tests that crawl near
	// one half; the share of tests that crawled and the mean are the
	// stable figures.
	CrawlShare = 0.3
)

// sample is one point of a time series: t in s, x North, y East, z up (m).
type sample struct{ t, x, y, z float64 }

// slowShare returns the share of the time at cruise height (within
// CruiseBandM of the median height of the samples above AirborneZM, so
// that the climb after take-off and the descent to land, slow across the
// ground by nature, do not count) spent moving slower than SlowMS
// horizontally, the speed of each sample taken to the first sample at
// least SpeedWindowS later (the last window of the flight has none and is
// left out); NaN when the vehicle was at cruise height for less than two
// windows. s must be in time order.
func slowShare(s []sample) float64 {
	var zs []float64
	for _, p := range s {
		if p.z > AirborneZM {
			zs = append(zs, p.z)
		}
	}
	if len(zs) == 0 {
		return math.NaN()
	}
	cruise := median(zs)
	at := func(p sample) bool { return math.Abs(p.z-cruise) < CruiseBandM }
	first, last := -1, -1
	for i, p := range s {
		if at(p) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if s[last].t-s[first].t < minAirborneS {
		return math.NaN()
	}
	slow, all := 0.0, 0.0
	j := first
	for i := first; i < last; i++ {
		for j < last && s[j].t-s[i].t < SpeedWindowS {
			j++
		}
		if s[j].t-s[i].t < SpeedWindowS {
			break // the last window is shorter than SpeedWindowS
		}
		if !at(s[i]) {
			continue
		}
		dt := s[i+1].t - s[i].t
		v := math.Hypot(s[j].x-s[i].x, s[j].y-s[i].y) / (s[j].t - s[i].t)
		all += dt
		if v < SlowMS {
			slow += dt
		}
	}
	if !(all > 0) {
		return math.NaN()
	}
	return slow / all
}

// simSeries is a simulated flight's 0.5-s samples as a series (NED to
// x North, y East, z up).
func simSeries(rs []trace.Sample) []sample {
	out := make([]sample, len(rs))
	for i, r := range rs {
		out[i] = sample{t: r.T, x: r.Pos.X, y: r.Pos.Y, z: -r.Pos.Z}
	}
	return out
}

// seriesFile finds the time series of a test in dir: <mission>-<test>.csv
// (the layout of px4-reference's series/) or <mission>/<test>.csv (that of
// wide/trajectories/); "" when neither exists.
func seriesFile(dir, mission, test string) string {
	for _, name := range []string{filepath.Join(dir, mission+"-"+test+".csv"), filepath.Join(dir, mission, test+".csv")} {
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
			return name
		}
	}
	return ""
}

// readSeries reads a time series t,x,y,z (s, m; x North, y East, z up):
// lines starting with # and a header line are skipped; times must not
// decrease. Errors name the file and line.
func readSeries(name string) ([]sample, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a series may have", name, st.Size(), int64(MaxFileBytes))
	}
	return parseSeries(name, io.LimitReader(f, MaxFileBytes))
}

// parseSeries is readSeries on r, name naming it in errors.
func parseSeries(name string, r io.Reader) ([]sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	var out []sample
	header := false
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		rec := strings.Split(text, ",")
		if len(rec) < 4 {
			return nil, fmt.Errorf("%s:%d: want t,x,y,z, got %d field(s)", name, line, len(rec))
		}
		var v [4]float64
		bad := -1
		for k := range v {
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[k]), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e7 {
				bad = k
				break
			}
			v[k] = x
		}
		if bad >= 0 {
			if _, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64); err != nil && !header && len(out) == 0 {
				header = true // the column names (a first field that is no number)
				continue
			}
			return nil, fmt.Errorf("%s:%d: field %d (%s) %q is not a finite number within ±1e7", name, line, bad+1, [4]string{"t", "x", "y", "z"}[bad], strings.TrimSpace(rec[bad]))
		}
		if n := len(out); n > 0 && v[0] < out[n-1].t {
			return nil, fmt.Errorf("%s:%d: time %g s before the previous line's %g s", name, line, v[0], out[n-1].t)
		}
		out = append(out, sample{t: v[0], x: v[1], y: v[2], z: v[3]})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: a line longer than 64 KiB", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
