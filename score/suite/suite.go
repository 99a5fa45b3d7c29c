// Package suite reads the test suites `shakedown score` scores: the
// folders of test_*.yaml a generator writes (one per tool, and per mission
// when several are scored), the obstacles of each test, and their runs,
// read from PX4 logs and trajectory CSVs or flown through a campaign
// runner on any engine; Score scores and ranks them with package score's
// formulas, and Lint checks them against the competition's rules and
// Aerialist's bench without flying (scenario's findings, tallied per
// suite and mission).
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/internal/atomicfile"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/ulog"
	"github.com/shakedown-robotics/shakedown/world"
)

// Test is one test file of a suite.
type Test struct {
	Path string
	Test score.Test
	// Results are the simulated flights, kept with Simulation.KeepRuns.
	Results []*run.Result
}

// Suite is one tool's suite on one mission.
type Suite struct {
	Dir   string
	Tests []Test
	Plan  []int // the tests evaluated (score.Plan)
}

// ToolNames names each suite by its folder's base name, or by the path as
// given when two base names collide.
func ToolNames(dirs []string) []string {
	names := make([]string, len(dirs))
	seen := map[string]int{}
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Clean(d))
		seen[names[i]]++
	}
	for i, d := range dirs {
		if seen[names[i]] > 1 {
			names[i] = filepath.ToSlash(filepath.Clean(d))
		}
	}
	return names
}

// HashName derives the random stream of a suite's 2024 draw from its tool
// and mission names, so that the draw does not depend on the order of the
// arguments.
func HashName(tool, mission string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write([]byte(mission))
	return h.Sum64()
}

// Folder returns the folder holding a tool's tests for a mission:
// dir/<mission> when it exists, else dir itself when only one mission is
// scored.
func Folder(dir, mission string, single bool) (string, error) {
	sub := filepath.Join(dir, mission)
	if st, err := os.Stat(sub); err == nil && st.IsDir() {
		return sub, nil
	}
	if single {
		return dir, nil
	}
	return "", fmt.Errorf("%s: no folder %s for mission %s", dir, sub, mission)
}

// TestFiles lists the test_*.yaml (or .yml) files of dir in the
// generator's order: by the number after "test_", then by name.
func TestFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		n := e.Name()
		ext := strings.ToLower(filepath.Ext(n))
		if e.IsDir() || !strings.HasPrefix(n, "test_") || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		files = append(files, n)
	}
	num := func(n string) (int, bool) {
		v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(n, "test_"), filepath.Ext(n)))
		return v, err == nil
	}
	slices.SortFunc(files, func(a, b string) int {
		na, oka := num(a)
		nb, okb := num(b)
		switch {
		case oka && okb && na != nb:
			return na - nb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return files, nil
}

// ReadOptions says how Read reads a suite.
type ReadOptions struct {
	// Single: dir holds the tests themselves, not one folder per mission.
	Single bool
	// Rules are the edition's obstacle rules; a test that breaks them is
	// invalid.
	Rules scenario.Rules
	// CorridorM is how far either side of a leg the vehicle may go round a
	// wall (scenario.Feasibility.CorridorM); 0 = DefaultCorridorM.
	CorridorM float64
	// ScoreInfeasible flies and scores a test whose mission cannot be
	// flown without a violation (scenario.Feasibility), with a warning.
	// By default such a test is invalid, as the competition counts it
	// and as lint says: it keeps its place and scores 0.
	ScoreInfeasible bool
}

// Read reads the tests of one tool for one mission.
func Read(dir string, mission *scenario.CaseStudy, opt ReadOptions, warn io.Writer, tool string) (*Suite, error) {
	single, rules := opt.Single, opt.Rules
	corridor := opt.CorridorM
	if corridor == 0 {
		corridor = DefaultCorridorM
	}
	feas := scenario.Feasibility{AccRadM: mission.Params["NAV_ACC_RAD"], CorridorM: corridor}
	folder, err := Folder(dir, mission.Name, single)
	if err != nil {
		return nil, err
	}
	files, err := TestFiles(folder)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		fmt.Fprintf(warn, "shakedown: %s/%s: no test_*.yaml in %s; the suite is empty\n", tool, mission.Name, folder)
	}
	sd := &Suite{Dir: folder}
	warned := false
	for _, name := range files {
		p := filepath.Join(folder, name)
		t := score.Test{Name: name}
		cs, other, err := ReadCase(p, mission)
		switch {
		case err != nil:
			t.Invalid = err.Error()
		default:
			t.Obstacles = cs.Obstacles
			if err := rules.CheckCaseStudy(cs); err != nil {
				t.Invalid = err.Error()
			}
			if fds := feas.Check(mission.Mission, cs.Obstacles); len(fds) > 0 {
				what := "counted invalid (0 points; --score-infeasible scores it)"
				if opt.ScoreInfeasible {
					what = "scored anyway (--score-infeasible); the competition counts it invalid"
				}
				for _, fd := range fds {
					fmt.Fprintf(warn, "shakedown: %s/%s: %s is infeasible (%s): %s; %s\n", tool, mission.Name, name, fd.Kind, fd.Msg, what)
				}
				if fd := fds[0]; !opt.ScoreInfeasible && t.Invalid == "" {
					t.Invalid = fmt.Sprintf("%s: infeasible (%s): %s", p, fd.Kind, fd.Msg)
				}
			}
			if other != "" && !warned {
				fmt.Fprintf(warn, "shakedown: %s/%s: %s names the mission %s, not %s; every test is scored on %s\n",
					tool, mission.Name, name, other, mission.Name, mission.Name)
				warned = true
			}
		}
		sd.Tests = append(sd.Tests, Test{Path: p, Test: t})
	}
	return sd, nil
}

// ReadTest reads the obstacles of a test YAML with
// scenario.LoadCaseStudyOr: the files it refers to are looked up, and size
// limited, as scenario.LoadCaseStudy does, and those found nowhere are
// replaced by the mission's own, since only the obstacles are used. other
// names the test's mission when its plan was found and differs from the
// mission.
func ReadTest(path string, mission *scenario.CaseStudy) (boxes []world.Box, other string, err error) {
	cs, other, err := ReadCase(path, mission)
	if err != nil {
		return nil, "", err
	}
	return cs.Obstacles, other, nil
}

// ReadCase is ReadTest with the whole case study, for errors that name the
// line of an obstacle (scenario.Rules.CheckCaseStudy).
func ReadCase(path string, mission *scenario.CaseStudy) (cs *scenario.CaseStudy, other string, err error) {
	planFound := true
	cs, err = scenario.LoadCaseStudyOr(path, func(ref string) ([]byte, error) {
		switch ext := strings.ToLower(filepath.Ext(ref)); {
		case ext == ".plan":
			planFound = false
			return scenario.EncodePlan(mission.Mission)
		case strings.Contains(strings.ToLower(filepath.Base(ref)), "command"):
			return []byte("timestamp,mode,x,y,z,r\n1,3,0,0,0.5,0\n"), nil
		default:
			return nil, nil // an empty parameter file: the mission's are flown
		}
	})
	if err != nil {
		return nil, "", err
	}
	if planFound && !samePath(cs.Mission.Path(), mission.Mission.Path()) {
		other = cs.Mission.Name
	}
	return cs, other, nil
}

// samePath reports whether two planned paths agree within 1 m.
func samePath(a, b []geom.Vec3) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Sub(b[i]).Norm() > 1 {
			return false
		}
	}
	return true
}

// Simulation is how Simulate flies the tests. Every flight's log starts
// run.DefaultPreArmS before arming, as Aerialist's do: the flight times the
// test scores divide by count from there.
type Simulation struct {
	Runs     int // flights per evaluated test, seeds Seed, Seed+1, …
	Seed     uint64
	TimeoutS float64          // simulated seconds per flight (a timed-out run scores 0)
	Engine   string           // the jobs' engine; "" = campaign.EngineEmbedded
	KeepRuns bool             // keep each flight (with its trace) in Test.Results, for WriteRuns
	Runner   *campaign.Runner // the executor and store (required)
	Name     string           // the campaign's name in the store
	// Progress, if not nil, is called with the flights done and their
	// total, never concurrently.
	Progress func(done, total int)
}

// Simulate flies every planned valid test of every suite (data[tool][mission])
// Runs times as one campaign on the runner, and records the runs in each
// test's score.Test.Runs.
func Simulate(ctx context.Context, data [][]*Suite, missions []*scenario.CaseStudy, sim Simulation) error {
	type slot struct {
		st *Test
		k  int
	}
	var (
		jobs  []campaign.Job
		slots []slot
	)
	for t := range data {
		for m, sd := range data[t] {
			for _, i := range sd.Plan {
				st := &sd.Tests[i]
				if st.Test.Invalid != "" {
					continue
				}
				st.Test.Runs = make([]score.Run, sim.Runs)
				if sim.KeepRuns {
					st.Results = make([]*run.Result, sim.Runs)
				}
				cs := *missions[m]
				cs.Obstacles = st.Test.Obstacles
				for k := range sim.Runs {
					j, err := campaign.NewJob(&cs, run.Options{Seed: sim.Seed + uint64(k), TimeoutS: sim.TimeoutS, PreArmS: run.DefaultPreArmS}, k, sim.KeepRuns)
					if err == nil && sim.Engine != "" && sim.Engine != campaign.EngineEmbedded {
						j, err = j.WithEngine(sim.Engine)
					}
					if err != nil {
						return fmt.Errorf("%s: run %d: %w", st.Path, k+1, err)
					}
					jobs = append(jobs, j)
					slots = append(slots, slot{st, k})
				}
			}
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	r := *sim.Runner
	r.Progress = sim.Progress
	res, err := r.Run(ctx, campaign.Campaign{Name: sim.Name}, jobs)
	if err != nil {
		return err
	}
	if i, err := campaign.FirstFailure(res); err != nil {
		return fmt.Errorf("%s: run %d: %w", slots[i].st.Path, slots[i].k+1, err)
	}
	for i, x := range res {
		st, k := slots[i].st, slots[i].k
		if st.Results != nil {
			st.Results[k] = x.RunResult(jobs[i])
		}
		st.Test.Runs[k] = scoredRun(x)
	}
	return nil
}

// scoredRun turns a campaign's result into a scored run: the path is the
// trajectory in Aerialist's 0.5-s bins that the result carries, what
// resampledPath makes of the full trace.
func scoredRun(res campaign.Result) score.Run {
	r := score.Run{ClearanceM: math.Inf(1), FlightTimeS: res.Run.FlightTimeS, AirborneS: res.Run.AirborneS,
		Path: trace.Positions(res.Trajectory), TimedOut: res.Run.TimedOut}
	if res.Run.MinClearanceM != nil {
		r.ClearanceM = *res.Run.MinClearanceM
	}
	return r
}

// resampledPath is the trajectory in Aerialist's 0.5-s bins, in the frame
// of the obstacles: simulated flights start at the origin, ulog.Trajectory
// moves a log's origin to its first sample as Aerialist does, and a
// trajectory CSV is taken as written.
func resampledPath(s []trace.Sample) []geom.Vec3 {
	return trace.Positions(trace.Resample(s, trace.AerialistPeriodS))
}

// ReadLogs reads the runs of every planned valid test of a suite from the
// logs folder. For test S (test_3.yaml → test_3) of tool T on mission M it
// looks in LOGS/T/M, LOGS/T and, for a single suite, LOGS, and takes from
// the first that has any: S.ulg or S.csv (one run), or the folder S/ whose
// *.ulg and *.csv files and run folders (holding trajectory.csv and
// optionally result.json, as `shakedown fly --out` and `score --out`
// write them) are runs, in name order.
func ReadLogs(logs, tool, mission string, single bool, sd *Suite, timeoutS float64) error {
	bases := []string{filepath.Join(logs, tool, mission), filepath.Join(logs, tool)}
	if single {
		bases = append(bases, logs)
	}
	for _, i := range sd.Plan {
		st := &sd.Tests[i]
		if st.Test.Invalid != "" {
			continue
		}
		stem := strings.TrimSuffix(st.Test.Name, filepath.Ext(st.Test.Name))
		var files []string
		for _, b := range bases {
			var err error
			if files, err = runFiles(b, stem); err != nil {
				return err
			}
			if len(files) > 0 {
				break
			}
		}
		if len(files) == 0 {
			st.Test.Invalid = fmt.Sprintf("no run logs (looked for %s.ulg, %s.csv or %s/ in %s)", stem, stem, stem, strings.Join(bases, ", "))
			continue
		}
		for _, p := range files {
			r, err := ReadRun(p, st.Test.Obstacles, timeoutS)
			if err != nil {
				return err
			}
			st.Test.Runs = append(st.Test.Runs, r)
		}
	}
	return nil
}

// runFiles lists the runs of test stem in base (see ReadLogs).
func runFiles(base, stem string) ([]string, error) {
	var out []string
	for _, ext := range []string{".ulg", ".csv"} {
		p := filepath.Join(base, stem+ext)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	dir := filepath.Join(base, stem)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch ext := strings.ToLower(filepath.Ext(e.Name())); {
		case e.IsDir():
			if _, err := os.Stat(filepath.Join(p, "trajectory.csv")); err == nil {
				out = append(out, filepath.Join(p, "trajectory.csv"))
			}
		case ext == ".ulg" || ext == ".csv":
			out = append(out, p)
		}
	}
	return out, nil
}

// ReadRun reads one run: a PX4 log or a Shakedown trajectory CSV, with the
// flight time and timeout from a result.json beside the CSV when there is
// one. Without it the flight time is the trajectory's duration, the time
// in the air run.Airborne's, and the run timed out when the duration
// reaches timeoutS. The clearance is computed from the
// trajectory by Aerialist's rule.
func ReadRun(path string, boxes []world.Box, timeoutS float64) (score.Run, error) {
	data, err := scenario.ReadFile(path, ulog.MaxBytes)
	if err != nil {
		return score.Run{}, err
	}
	var samples []trace.Sample
	if strings.EqualFold(filepath.Ext(path), ".ulg") {
		lf, err := ulog.Parse(data)
		if err == nil {
			samples, err = ulog.Trajectory(lf)
		}
		if err != nil {
			return score.Run{}, fmt.Errorf("%s: %w", path, err)
		}
	} else if samples, err = trace.ReadCSV(bytes.NewReader(data)); err != nil {
		return score.Run{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(samples) == 0 {
		return score.Run{}, fmt.Errorf("%s: no samples", path)
	}
	r := score.Run{Path: resampledPath(samples), AirborneS: run.Airborne(samples)}
	r.FlightTimeS = samples[len(samples)-1].T - samples[0].T
	r.TimedOut = r.FlightTimeS >= timeoutS
	if filepath.Base(path) == "trajectory.csv" {
		res, err := readResult(filepath.Join(filepath.Dir(path), "result.json"))
		if err != nil {
			return score.Run{}, err
		}
		if res != nil {
			r.FlightTimeS = res.FlightTimeS
			if res.AirborneS > 0 { // files written before airborne_s existed keep the trajectory's
				r.AirborneS = res.AirborneS
			}
			r.TimedOut = res.TimedOut || strings.HasPrefix(res.Reason, "timeout") // files written before timed_out existed
		}
	}
	// Aerialist's rule over the whole trajectory, resampled.
	r.ClearanceM = world.MinClearance(boxes, r.Path, nil)
	return r, nil
}

// readResult reads a run's result.json; a missing one is nil.
func readResult(path string) (*run.Result, error) {
	b, err := scenario.ReadFile(path, scenario.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var res run.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &res, nil
}

// WriteRuns writes the simulated runs, each into its own folder, in the
// layout --logs reads.
func WriteRuns(out string, tools, missions []string, data [][]*Suite) error {
	type file struct {
		path string
		data []byte
	}
	var files []file
	for t := range data {
		for m, sd := range data[t] {
			for _, st := range sd.Tests {
				stem := strings.TrimSuffix(st.Test.Name, filepath.Ext(st.Test.Name))
				for k, res := range st.Results {
					if res == nil {
						continue
					}
					dir := filepath.Join(out, tools[t], missions[m], stem, fmt.Sprintf("run_%d", k+1))
					var csv bytes.Buffer
					if err := trace.WriteCSV(&csv, res.Trace); err != nil {
						return fmt.Errorf("%s: %w", dir, err)
					}
					js, err := json.MarshalIndent(res, "", "  ")
					if err != nil {
						return err
					}
					files = append(files, file{filepath.Join(dir, "trajectory.csv"), csv.Bytes()},
						file{filepath.Join(dir, "result.json"), append(js, '\n')})
				}
			}
		}
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(f.path, f.data); err != nil {
			return err
		}
	}
	return nil
}
