package results

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/bench"
)

// label is one metric line of summary.txt: AirStack's labels in
// run_summary.py's order, with the tracking metrics that mean what they say
// after AirStack's cross-track lines.
type label struct{ key, text, test string } // test "" = any phase

var labels = []label{
	{"ready_duration_sys_s", "PX4 ready time", ""},
	{"takeoff_duration_sim_s", "Takeoff duration", ""},
	{"altitude_error_m", "Altitude error after takeoff", ""},
	{"overshoot_m", "Takeoff overshoot", ""},
	{"trajectory_success", "Trajectory success", ""},
	{"trajectory_execution_time_sim_s", "Trajectory duration", ""},
	{"cross_track_error_mean_m", "Cross-track error (mean)", ""},
	{"cross_track_error_max_m", "Cross-track error (max)", ""},
	{"path_rmse_m", "Path RMSE", ""},
	{"segment_cross_track_error_mean_m", "Distance to path (mean)", ""},
	{"segment_cross_track_error_max_m", "Distance to path (max)", ""},
	{"segment_path_rmse_m", "Distance to path (RMSE)", ""},
	{"lateral_error_mean_m", "Lateral error (signed mean, + left)", ""},
	{"along_track_lag_mean_m", "Lag behind schedule (mean)", ""},
	{"along_track_lag_max_m", "Lag behind schedule (max)", ""},
	{"arrival_error_m", "Arrival error", ""},
	{"hover_altitude_mean_error_m", "Hover altitude error", ""},
	{"hover_position_stddev_m", "Hover position stddev", ""},
	{"velocity_rmse_m_sim_s", "Climb rate RMSE", bench.TestTakeoff},
	{"velocity_rmse_m_sim_s", "Descent rate RMSE", bench.TestLanding},
	{"land_duration_sim_s", "Landing duration", ""},
	{"final_altitude_m", "Final altitude", ""},
}

var iterSuffix = regexp.MustCompile(`-iter\d+$`)

// GroupParam returns a parameter id without its -iterN suffix.
func GroupParam(param string) string { return iterSuffix.ReplaceAllString(param, "") }

// GroupID returns a test id without the -iterN suffix of its parameter.
func GroupID(id string) string {
	if i := strings.LastIndexByte(id, '['); i >= 0 && strings.HasSuffix(id, "]") {
		return id[:i+1] + GroupParam(id[i+1:len(id)-1]) + "]"
	}
	return id
}

var (
	robotsRe = regexp.MustCompile(`-rob#(\d+)`)
	trajRe   = regexp.MustCompile(`-traj([A-Za-z0-9]+)`)
	velRe    = regexp.MustCompile(`-vel([0-9.eE+-]+)`)
)

// heading returns a group's title: "Circle | shakedown | 1 robot(s)" or
// "takeoff-hover-land @ 0.5 m/s | shakedown | 1 robot(s)".
func heading(param string) string {
	sim, _, _ := strings.Cut(param, "-")
	robots := "?"
	if m := robotsRe.FindStringSubmatch(param); m != nil {
		robots = m[1]
	}
	what := param
	if m := trajRe.FindStringSubmatch(param); m != nil {
		what = m[1]
	} else if m := velRe.FindStringSubmatch(param); m != nil {
		what = "takeoff-hover-land @ " + m[1] + " m/s"
	}
	return fmt.Sprintf("── %s | %s | %s robot(s) ──", what, sim, robots)
}

type group struct {
	module, param string // param without -iterN
	cases         []bench.Case
	ids           []string // metric test ids
	iters         map[string]bool
}

// Summary renders summary.txt.
func Summary(r *Run) []byte {
	var b strings.Builder
	var passed, failed, skipped int
	for _, c := range r.Cases {
		switch c.Status {
		case bench.Passed:
			passed++
		case bench.Failed:
			failed++
		case bench.Skipped:
			skipped++
		}
	}
	fmt.Fprintf(&b, "Shakedown Test Run Summary\nRun directory: %s\n", r.Name)
	fmt.Fprintf(&b, "Overall: %d passed, %d failed, %d skipped (%d tests)\n", passed, failed, skipped, len(r.Cases))
	if m := r.Meta; m != nil {
		fmt.Fprintf(&b, "Tracker: %s · seed %d · wind %g m/s, gusts %g m/s · fingerprint %.12s\n", m.Tracker, m.Seed, m.WindMS, m.GustMS, m.Fingerprint)
	}
	for _, g := range groups(r) {
		b.WriteString("\n" + heading(g.param) + "\n")
		b.WriteString("Result: " + result(g) + "\n")
		robots := robotsOf(r, g)
		for _, l := range labels {
			if s, ok := line(r, g, 1, l); ok {
				fmt.Fprintf(&b, "%s: %s\n", l.text, s)
			}
		}
		if len(g.iters) > 1 {
			fmt.Fprintf(&b, "Aggregated over %d stress iterations (mean ± stddev).\n", len(g.iters))
		}
		if len(robots) > 1 {
			b.WriteString("\nPer-robot metrics:\n")
			for _, n := range robots {
				var parts []string
				for _, l := range labels {
					if s, ok := line(r, g, n, l); ok {
						parts = append(parts, l.text+" "+s)
					}
				}
				fmt.Fprintf(&b, "  robot_%d: %s\n", n, strings.Join(parts, "; "))
			}
		}
		b.WriteString("\nPhase wall times:\n")
		for _, t := range phases(g) {
			var wall, sim []float64
			status := ""
			for _, c := range g.cases {
				if c.Test != t {
					continue
				}
				status = strings.ToUpper(string(c.Status))
				if c.Status != bench.Skipped {
					wall = append(wall, c.WallS)
					sim = append(sim, c.SimS)
				}
			}
			switch {
			case len(wall) == 0:
				fmt.Fprintf(&b, "  %s: (%s)\n", t, status)
			case len(wall) == 1:
				fmt.Fprintf(&b, "  %s: %.3fs wall, %.1fs simulated (%s)\n", t, wall[0], sim[0], status)
			default:
				mw, sw := meanStd(wall)
				ms, _ := meanStd(sim)
				fmt.Fprintf(&b, "  %s: %.3f s ± %.3f s (n=%d), %.1fs simulated mean\n", t, mw, sw, len(wall), ms)
			}
		}
	}
	return []byte(b.String())
}

// groups collects the test groups in order of first appearance: cases
// first, then metric ids without a case.
func groups(r *Run) []*group {
	var out []*group
	index := map[string]*group{}
	get := func(module, param string) *group {
		k := module + "\x00" + GroupParam(param)
		g, ok := index[k]
		if !ok {
			g = &group{module: module, param: GroupParam(param), iters: map[string]bool{}}
			index[k] = g
			out = append(out, g)
		}
		g.iters[param] = true
		return g
	}
	for _, c := range r.Cases {
		g := get(c.Module, c.Param)
		g.cases = append(g.cases, c)
	}
	for _, id := range sortedIDs(r.Metrics) {
		module, param, ok := splitID(id)
		if !ok {
			continue
		}
		g := get(module, param)
		g.ids = append(g.ids, id)
	}
	return out
}

// splitID returns the module and parameter of a test id.
func splitID(id string) (module, param string, ok bool) {
	i := strings.LastIndexByte(id, '[')
	if i < 0 || !strings.HasSuffix(id, "]") {
		return "", "", false
	}
	module, _, _ = strings.Cut(id, ".")
	return module, id[i+1 : len(id)-1], true
}

func result(g *group) string {
	if len(g.iters) > 1 {
		var k, n int
		for _, c := range g.cases {
			if c.Test == bench.TestLanding {
				n++
				if c.Status == bench.Passed {
					k++
				}
			}
		}
		s := fmt.Sprintf("%d/%d flight cycles passed (%d iterations)", k, n, len(g.iters))
		failed := 0
		for _, c := range g.cases {
			if c.Status == bench.Failed {
				failed++
			}
		}
		if failed > 0 {
			s += fmt.Sprintf("; %d test(s) failed", failed)
		}
		return s
	}
	if len(g.cases) == 0 {
		return "UNKNOWN"
	}
	all := bench.Skipped
	for _, c := range g.cases {
		if c.Status == bench.Failed {
			return "FAILED"
		}
		if c.Status == bench.Passed {
			all = bench.Passed
		}
	}
	return strings.ToUpper(string(all))
}

func phases(g *group) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range g.cases {
		if !seen[c.Test] {
			seen[c.Test] = true
			out = append(out, c.Test)
		}
	}
	return out
}

func robotsOf(r *Run, g *group) []int {
	seen := map[int]bool{}
	var out []int
	for _, id := range g.ids {
		for k := range r.Metrics[id] {
			if !strings.HasPrefix(k, "robot_") {
				continue
			}
			ns, _, _ := strings.Cut(strings.TrimPrefix(k, "robot_"), ".")
			if n, err := strconv.Atoi(ns); err == nil && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Ints(out)
	return out
}

// line formats robot n's metric of label l over the group's iterations.
func line(r *Run, g *group, n int, l label) (string, bool) {
	key := l.key
	k := "robot_" + strconv.Itoa(n) + "." + key
	var vals []float64
	var sentinels []string
	unit := ""
	for _, id := range g.ids {
		if l.test != "" && !strings.Contains(id, "."+l.test+"[") {
			continue
		}
		m, ok := r.Metrics[id][k]
		if !ok {
			continue
		}
		unit = m.Unit
		if m.IsNumber() {
			vals = append(vals, m.Value)
		} else {
			sentinels = append(sentinels, m.Sentinel)
		}
	}
	if len(vals)+len(sentinels) == 0 {
		return "", false
	}
	if key == "trajectory_success" {
		if len(vals) == 1 && len(sentinels) == 0 {
			if vals[0] >= 1 {
				return "yes", true
			}
			return "no", true
		}
		k := 0
		for _, v := range vals {
			if v >= 1 {
				k++
			}
		}
		return fmt.Sprintf("%d/%d passed", k, len(vals)+len(sentinels)), true
	}
	u := ""
	if unit != "" {
		u = " " + unit
	}
	var s string
	switch len(vals) {
	case 0:
	case 1:
		s = strconv.FormatFloat(vals[0], 'g', -1, 64) + u
	default:
		m, sd := meanStd(vals)
		s = fmt.Sprintf("%s ± %s%s", fmt3(m), fmt3(sd), u)
	}
	if len(sentinels) > 0 {
		if s != "" {
			s += " "
		}
		s += "(" + strings.Join(countWords(sentinels), ", ") + ")"
	}
	return s, true
}

// countWords turns ["timeout", "timeout", "aborted"] into ["2 timeout",
// "1 aborted"] in order of first appearance.
func countWords(ws []string) []string {
	var order []string
	n := map[string]int{}
	for _, w := range ws {
		if n[w] == 0 {
			order = append(order, w)
		}
		n[w]++
	}
	out := make([]string, len(order))
	for i, w := range order {
		out[i] = fmt.Sprintf("%d %s", n[w], w)
	}
	return out
}

func fmt3(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) }

// meanStd returns the mean and the population standard deviation.
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
