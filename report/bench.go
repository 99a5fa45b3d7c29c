package report

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/compare"
)

// Section is a table of its own with the plots it belongs to beside it: a
// bench page has one per trajectory, iteration and robot.
type Section struct {
	ID      string
	Name    string
	Columns []string
	Rows    []Row
	Plots   []Plot
}

// benchKey is what a bench section is about.
type benchKey struct {
	traj  string // Circle
	rob   string // "1": the robot count of the world
	iter  string // "0"
	robot string // "1": the robot in that world
}

func (k benchKey) stem() string { return fmt.Sprintf("%s-rob%s-iter%s", k.traj, k.rob, k.iter) }

// paramOf parses "…[shakedown-rob#1-trajCircle-iter0]" into its parts.
func paramOf(id string) (traj, rob, iter string) {
	i, j := strings.LastIndexByte(id, '['), strings.LastIndexByte(id, ']')
	if i < 0 || j < i {
		return "", "", ""
	}
	for _, f := range strings.Split(id[i+1:j], "-") {
		switch {
		case strings.HasPrefix(f, "rob#"):
			rob = strings.TrimPrefix(f, "rob#")
		case strings.HasPrefix(f, "traj"):
			traj = strings.TrimPrefix(f, "traj")
		case strings.HasPrefix(f, "iter"):
			iter = strings.TrimPrefix(f, "iter")
		}
	}
	return traj, rob, iter
}

// phaseOf is the test function of a metric id: "test_takeoff" of
// "test_fixed_trajectory.TestFixedTrajectory.test_takeoff[…]".
func phaseOf(id string) string {
	s, _, _ := strings.Cut(id, "[")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, "test_")
}

// metricName turns "cross_track_error_mean_m" into "cross track error mean".
func metricName(key, unit string) string {
	for _, suf := range []string{"_sim_s", "_sys_s", "_" + unit} {
		if k, ok := strings.CutSuffix(key, suf); ok && unit != "" {
			key = k
			break
		}
	}
	return strings.ReplaceAll(key, "_", " ")
}

// benchSections makes a section per trajectory, iteration and robot: its
// metrics with their units, the phase each belongs to, and its path and
// error plots. It returns the plot names used, which the page then does not
// repeat.
func (p *Page) benchSections(fsys fs.FS, metrics map[string]map[string]bench.Metric) (map[string]bool, error) {
	secs := map[benchKey]*Section{}
	var keys []benchKey
	for id, ms := range metrics {
		traj, rob, iter := paramOf(id)
		if traj == "" {
			continue
		}
		for k, m := range ms {
			robot, key, ok := strings.Cut(strings.TrimPrefix(k, "robot_"), ".")
			if !ok {
				robot, key = "1", k
			}
			bk := benchKey{traj, rob, iter, robot}
			s := secs[bk]
			if s == nil {
				s = &Section{ID: "bench-" + bk.stem() + "-robot" + robot,
					Name:    fmt.Sprintf("%s, %s robot(s), iteration %s: robot %s", traj, rob, iter, robot),
					Columns: []string{"phase", "metric", "value", "unit", "better"}}
				secs[bk] = s
				keys = append(keys, bk)
			}
			v := fmt.Sprintf("%g", m.Value)
			if m.Sentinel != "" {
				v = m.Sentinel
			}
			better := map[bench.Direction]string{bench.LowerIsBetter: "lower", bench.HigherIsBetter: "higher"}[m.Direction]
			s.Rows = append(s.Rows, Row{Status: Info, Cells: []string{phaseOf(id), metricName(key, m.Unit), v, m.Unit, better}})
		}
	}
	slices.SortFunc(keys, func(a, b benchKey) int {
		return strings.Compare(a.traj+"\x00"+a.rob+"\x00"+a.iter+"\x00"+a.robot, b.traj+"\x00"+b.rob+"\x00"+b.iter+"\x00"+b.robot)
	})
	order := map[string]int{"px4_ready": 0, "takeoff": 1, "fixed_trajectory": 2, "hover": 3, "landing": 4}
	used := map[string]bool{}
	for _, k := range keys {
		s := secs[k]
		slices.SortStableFunc(s.Rows, func(a, b Row) int {
			if d := order[a.Cells[0]] - order[b.Cells[0]]; d != 0 {
				return d
			}
			return strings.Compare(a.Cells[1], b.Cells[1])
		})
		for _, name := range []string{"plots/path-" + k.stem() + "-robot" + k.robot + ".png", "plots/error-" + k.stem() + ".png"} {
			if _, err := fs.Stat(fsys, name); err != nil {
				continue
			}
			pl, err := readPlot(fsys, name)
			if err != nil {
				return nil, err
			}
			s.Plots = append(s.Plots, pl)
			used[name] = true
		}
		p.Sections = append(p.Sections, *s)
	}
	return used, nil
}

// sectionFor returns the id of the bench section of a phase's case
// parameter ("shakedown-rob#1-trajCircle-iter0"), robot 1, or "".
func (p *Page) sectionFor(param string) string {
	traj, rob, iter := paramOf("[" + param + "]")
	id := "bench-" + benchKey{traj, rob, iter, "1"}.stem() + "-robot1"
	for _, s := range p.Sections {
		if s.ID == id {
			return id
		}
	}
	return ""
}

// AddComparison adds the comparison of the page's bench run (the current
// one) against a baseline: per test, each metric's baseline and current
// mean and the change, coloured by whether it got better (green) or worse
// (red) in the metric's direction; regressions and improvements beyond
// the threshold are marked.
func (p *Page) AddComparison(rep *compare.Report) {
	byTest := map[string]*Section{}
	var tests []string
	for _, r := range rep.Rows {
		s := byTest[r.Test]
		if s == nil {
			s = &Section{ID: "compare-" + anchor(r.Test), Name: "against " + rep.Baseline.Name + ": " + path.Base(strings.ReplaceAll(r.Test, ".", "/")),
				Columns: []string{"metric", "baseline", "current", "unit", "change", "verdict"}}
			byTest[r.Test] = s
			tests = append(tests, r.Test)
		}
		dir := r.Cur.Direction
		if !r.Cur.Present() {
			dir = r.Base.Direction
		}
		unit := r.Cur.Unit
		if unit == "" {
			unit = r.Base.Unit
		}
		change, cls := "—", ""
		if !math.IsNaN(r.ChangePct) {
			change = fmt.Sprintf("%+.1f %%", r.ChangePct)
			d := r.Cur.Mean - r.Base.Mean
			switch {
			case d == 0 || (dir != bench.LowerIsBetter && dir != bench.HigherIsBetter):
			case (d < 0) == (dir == bench.LowerIsBetter):
				cls = "better"
			default:
				cls = "worse"
			}
		}
		verdict, st := r.Note, Info
		switch r.Flag {
		case compare.Regression:
			verdict, st, cls = strings.TrimSpace("regression "+r.Note), Fail, "worse"
		case compare.Improvement:
			verdict, st = strings.TrimSpace("improvement "+r.Note), Pass
		}
		s.Rows = append(s.Rows, Row{Status: st, Cells: []string{r.Metric, r.Base.String(), r.Cur.String(), unit, change, verdict},
			CellClass: []string{"", "", "", "", cls, ""}})
		if st == Fail {
			p.Status = Fail
		}
	}
	cmp := make([]Section, 0, len(tests)+len(p.Sections))
	for _, t := range tests {
		cmp = append(cmp, *byTest[t])
	}
	p.Sections = append(cmp, p.Sections...) // the change first, then the run's own metrics
	n := rep.Regressions()
	p.Headline += fmt.Sprintf("; against %s: %d regression(s) beyond %g %%", rep.Baseline.Name, n, rep.Opt.ThresholdPct)
	if n > 0 {
		p.Status = Fail
	}
}
