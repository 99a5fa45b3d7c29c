package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/score"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/ulog"
	"github.com/shakedown-robotics/shakedown/world"
)

type scoreFlags struct {
	rules     string
	missions  []string
	runs      int
	logs      string
	json      bool
	seed      uint64
	sel       string
	sample    int
	norm      string
	threshold float64
	band      int
	timeout   float64
	out       string
	details   bool
	jobs      int
	exec      execFlags
}

func newScoreCmd() *cobra.Command {
	var f scoreFlags
	cmd := &cobra.Command{
		Use:   "score --rules 2024|2025|2026 --mission <case-study> [--runs 3] [--logs DIR] <suite-dir>... [--json]",
		Short: "Score test suites the way the UAV Testing Competition does",
		Long: `Score one or more test suites (each a folder of test_*.yaml, any tool's
output) on a mission with the 2024, 2025 or 2026 rules of the UAV Testing
Competition, and rank them against each other, per mission and across
missions: the shape of the surrogate-assisted testing paper's Tables III–V.

Each evaluated test is flown --runs times on the embedded simulator, or read
from real PX4 logs (.ulg) or Shakedown results (trajectory.csv, result.json)
with --logs. Only the obstacles of a test file are used; every test flies the
--mission. A test that cannot be read or breaks the edition's obstacle rules
is scored as invalid (0 points) and named in the output.

With several --mission flags each suite folder holds one sub-folder per
mission, named after it (gen/mission2/test_0.yaml …). Exit status: 0 scored,
2 could not run (a missing folder or mission, bad flags, an unreadable log).`,
		Example: `  shakedown score --rules 2025 --mission mission2 out/gen-a out/gen-b
  shakedown score --rules 2026 --mission mission2 --mission mission4 --runs 3 tools/* --json
  shakedown score --rules 2024 --mission mission2 --logs px4-runs/ gen-a/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return scoreSuites(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rules, "rules", "2025", "scoring rules and obstacle rules: 2024, 2025 or 2026")
	fl.StringArrayVar(&f.missions, "mission", nil, "case study the suites were made for: mission1..7, a case-study YAML or a .plan; repeatable")
	fl.IntVar(&f.runs, "runs", 3, "simulated runs of each evaluated test")
	fl.StringVar(&f.logs, "logs", "", "read the runs from `DIR` (PX4 .ulg logs or Shakedown results) instead of simulating")
	fl.BoolVar(&f.json, "json", false, "print the results as JSON")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the simulations (run k uses seed+k) and of the 2024 random draw")
	fl.StringVar(&f.sel, "select", "", "which tests are evaluated: first, random or top-score (default: random in 2024, first after)")
	fl.IntVar(&f.sample, "sample", score.SampleSize, "number of tests evaluated per suite and mission")
	fl.StringVar(&f.norm, "norm", "pairs", "2025 diversity normalisation: pairs (mean over pairs) or tests (the paper's 1/|S_s|)")
	fl.Float64Var(&f.threshold, "dtw-threshold", score.SimilarDTW, "2024: DTW distance below which two tests are similar")
	fl.IntVar(&f.band, "band", 0, "Sakoe-Chiba band of the DTW distances in 0.5-s points; 0 = exact")
	fl.Float64Var(&f.timeout, "timeout", run.DefaultTimeoutS, "simulated `seconds` before a flight is stopped (a timed-out run scores 0)")
	fl.StringVar(&f.out, "out", "", "write every simulated run to `DIR`/<tool>/<mission>/<test>/run_<k>/ (trajectory.csv, result.json); --logs reads it back")
	fl.BoolVar(&f.details, "details", false, "also print each evaluated test's runs and score")
	fl.IntVar(&f.jobs, "jobs", 0, "simulations run at once with --executor local; 0 = one per CPU")
	addExecFlags(fl, &f.exec)
	return cmd
}

// scoreConfig turns the flags into a score.Config.
func scoreConfig(f scoreFlags) (score.Config, error) {
	ed, err := strconv.Atoi(f.rules)
	if err != nil {
		ed = 0
	}
	c := score.Config{Edition: score.Edition(ed), SampleSize: f.sample, SimilarDTW: f.threshold, Band: f.band}
	switch f.sel {
	case "":
	case "first":
		c.Select = score.SelectFirst
	case "random":
		c.Select = score.SelectRandom
	case "top-score":
		c.Select = score.SelectTopScore
	default:
		return c, fmt.Errorf("--select %q: want first, random or top-score", f.sel)
	}
	switch f.norm {
	case "pairs":
	case "tests":
		c.Norm = score.NormTests
	default:
		return c, fmt.Errorf("--norm %q: want pairs or tests", f.norm)
	}
	if f.sample <= 0 {
		return c, fmt.Errorf("--sample %d: want at least 1", f.sample)
	}
	if f.band < 0 {
		return c, fmt.Errorf("--band %d: want 0 (exact) or more", f.band)
	}
	if !(f.threshold > 0) || math.IsInf(f.threshold, 0) {
		return c, fmt.Errorf("--dtw-threshold %v: want a finite number above 0", f.threshold)
	}
	c, err = c.Validate()
	if errors.Is(err, score.ErrEdition) {
		return c, fmt.Errorf("--rules %q: want 2024, 2025 or 2026", f.rules)
	}
	return c, err
}

// suiteTest is one test file of a suite.
type suiteTest struct {
	path string
	test score.Test
	// results are the simulated flights, kept for --out.
	results []*run.Result
}

// suiteData is one tool's suite on one mission.
type suiteData struct {
	dir   string
	tests []suiteTest
	plan  []int
}

func scoreSuites(ctx context.Context, stdout, stderr io.Writer, dirs []string, f scoreFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := scoreConfig(f)
	if err != nil {
		return err
	}
	rules, err := rulesFor(f.rules)
	if err != nil {
		return err
	}
	if len(f.missions) == 0 {
		return errors.New("--mission is required: the case study the suites were made for (mission1..7, a YAML or a .plan)")
	}
	if f.logs == "" && f.runs < 1 {
		return fmt.Errorf("--runs %d: want at least 1", f.runs)
	}
	if !(f.timeout > 0) || math.IsInf(f.timeout, 0) {
		return fmt.Errorf("--timeout %v: want a finite number of seconds > 0", f.timeout)
	}
	if f.logs != "" && f.out != "" {
		return errors.New("--out writes simulated runs; it cannot be combined with --logs")
	}
	if err := f.exec.check(); err != nil {
		return err
	}
	if f.logs != "" {
		if err := isDir(f.logs); err != nil {
			return fmt.Errorf("--logs: %w", err)
		}
	}
	missions := make([]*scenario.CaseStudy, len(f.missions))
	names := make([]string, len(f.missions))
	for i, m := range f.missions {
		cs, err := scenario.Load(m)
		if err != nil {
			return fmt.Errorf("--mission %s: %w", m, err)
		}
		if slices.Contains(names, cs.Name) {
			return fmt.Errorf("--mission %s: mission %s given twice", m, cs.Name)
		}
		missions[i], names[i] = cs, cs.Name
	}
	for _, d := range dirs {
		if err := isDir(d); err != nil {
			return err
		}
	}
	tools := toolNames(dirs)

	// Read every suite: data[t][m].
	data := make([][]*suiteData, len(dirs))
	for t, d := range dirs {
		data[t] = make([]*suiteData, len(missions))
		for m, cs := range missions {
			sd, err := readSuite(d, cs, len(missions) == 1, rules, stderr, tools[t])
			if err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(f.seed, hashName(tools[t], cs.Name)))
			sd.plan = score.Plan(cfg, len(sd.tests), rng)
			data[t][m] = sd
		}
	}

	// Runs: from the logs or the simulator.
	if f.logs != "" {
		for t := range data {
			for m, sd := range data[t] {
				if err := readLogs(f.logs, tools[t], names[m], len(dirs) == 1, sd, f.timeout); err != nil {
					return err
				}
			}
		}
	} else if err := simulate(ctx, stderr, data, missions, tools, f); err != nil {
		return err
	}

	results := make([][]score.SuiteResult, len(dirs))
	for t := range data {
		results[t] = make([]score.SuiteResult, len(missions))
		for m, sd := range data[t] {
			tests := make([]score.Test, len(sd.tests))
			for i, st := range sd.tests {
				tests[i] = st.test
			}
			r, err := score.Evaluate(cfg, tests, sd.plan)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", tools[t], names[m], err)
			}
			results[t][m] = r
		}
	}
	tab, err := score.Compare(cfg.Edition, names, tools, results)
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := writeRuns(f.out, tools, names, data); err != nil {
			return err
		}
	}
	rep := scoreReport{Rules: cfg.Edition, Selection: cfg.Select.String(), Sample: cfg.SampleSize,
		Runs: f.runs, Seed: f.seed, Source: "simulated", Norm: cfg.Norm.String(), DTWThreshold: cfg.SimilarDTW,
		Band: cfg.Band, Table: tab, Invalid: []invalidTest{}}
	if f.logs != "" {
		rep.Source, rep.Runs = "logs", 0
	}
	for t := range data {
		for m, sd := range data[t] {
			for i, st := range sd.tests {
				if st.test.Invalid != "" {
					rep.Invalid = append(rep.Invalid, invalidTest{Tool: tools[t], Mission: names[m], Test: st.test.Name,
						File: st.path, Reason: st.test.Invalid, Evaluated: slices.Contains(sd.plan, i) && evaluated(results[t][m], i)})
				}
			}
		}
	}
	if f.json {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return nil
	}
	writeScoreMarkdown(stdout, rep, f.details)
	return nil
}

func evaluated(r score.SuiteResult, i int) bool {
	for _, d := range r.Details {
		if d.Index == i {
			return true
		}
	}
	return false
}

func isDir(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a folder", p)
	}
	return nil
}

// toolNames names each suite by its folder's base name, or by the path as
// given when two base names collide.
func toolNames(dirs []string) []string {
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

// hashName derives the random stream of a suite's 2024 draw from its tool
// and mission names, so that the draw does not depend on the order of the
// arguments.
func hashName(tool, mission string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write([]byte(mission))
	return h.Sum64()
}

// suiteFolder returns the folder holding a tool's tests for a mission:
// dir/<mission> when it exists, else dir itself when only one mission is
// scored.
func suiteFolder(dir, mission string, single bool) (string, error) {
	sub := filepath.Join(dir, mission)
	if st, err := os.Stat(sub); err == nil && st.IsDir() {
		return sub, nil
	}
	if single {
		return dir, nil
	}
	return "", fmt.Errorf("%s: no folder %s for mission %s", dir, sub, mission)
}

// testFiles lists the test_*.yaml (or .yml) files of dir in the
// generator's order: by the number after "test_", then by name.
func testFiles(dir string) ([]string, error) {
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

// readSuite reads the tests of one tool for one mission.
func readSuite(dir string, mission *scenario.CaseStudy, single bool, rules scenario.Rules, stderr io.Writer, tool string) (*suiteData, error) {
	folder, err := suiteFolder(dir, mission.Name, single)
	if err != nil {
		return nil, err
	}
	files, err := testFiles(folder)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "shakedown: %s/%s: no test_*.yaml in %s; the suite is empty\n", tool, mission.Name, folder)
	}
	sd := &suiteData{dir: folder}
	warned := false
	for _, name := range files {
		p := filepath.Join(folder, name)
		t := score.Test{Name: name}
		boxes, other, err := readTest(p, mission)
		switch {
		case err != nil:
			t.Invalid = err.Error()
		default:
			t.Obstacles = boxes
			if err := rules.Check(boxes); err != nil {
				t.Invalid = strings.TrimPrefix(err.Error(), "scenario: ")
			}
			if other != "" && !warned {
				fmt.Fprintf(stderr, "shakedown: %s/%s: %s names the mission %s, not %s; every test is scored on %s\n",
					tool, mission.Name, name, other, mission.Name, mission.Name)
				warned = true
			}
		}
		sd.tests = append(sd.tests, suiteTest{path: p, test: t})
	}
	return sd, nil
}

// readTest reads the obstacles of a test YAML. The files it refers to are
// looked up as scenario.LoadCaseStudy does; those not found are replaced
// by the mission's own, since only the obstacles are used. other names the
// test's mission when its plan was found and differs from the mission.
func readTest(path string, mission *scenario.CaseStudy) (boxes []world.Box, other string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Dir(path)
	foundPlan := ""
	resolve := func(ref string) ([]byte, error) {
		for _, c := range refCandidates(dir, ref) {
			b, err := os.ReadFile(c)
			if err == nil {
				if strings.EqualFold(filepath.Ext(ref), ".plan") {
					foundPlan = ref
				}
				return b, nil
			}
		}
		switch ext := strings.ToLower(filepath.Ext(ref)); {
		case ext == ".plan":
			return scenario.EncodePlan(mission.Mission)
		case strings.Contains(strings.ToLower(filepath.Base(ref)), "command"):
			return []byte("timestamp,mode,x,y,z,r\n1,3,0,0,0.5,0\n"), nil
		default:
			return nil, nil // an empty parameter file: the mission's are flown
		}
	}
	cs, err := scenario.ParseCaseStudy(path, data, resolve)
	if err != nil {
		return nil, "", err
	}
	if foundPlan != "" && !samePath(cs.Mission.Path(), mission.Mission.Path()) {
		other = foundPlan
	}
	return cs.Obstacles, other, nil
}

// refCandidates are the places scenario.LoadCaseStudy looks for a file ref
// named in a YAML in dir.
func refCandidates(dir, ref string) []string {
	if filepath.IsAbs(ref) {
		return []string{ref}
	}
	return []string{ref, filepath.Join(dir, ref), filepath.Join(dir, "..", ref), filepath.Join(dir, filepath.Base(ref))}
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

// simulate flies every planned valid test --runs times as one campaign,
// on the executor --executor names.
func simulate(ctx context.Context, stderr io.Writer, data [][]*suiteData, missions []*scenario.CaseStudy, tools []string, f scoreFlags) error {
	type slot struct {
		st *suiteTest
		k  int
	}
	var (
		jobs  []campaign.Job
		slots []slot
	)
	for t := range data {
		for m, sd := range data[t] {
			for _, i := range sd.plan {
				st := &sd.tests[i]
				if st.test.Invalid != "" {
					continue
				}
				st.test.Runs = make([]score.Run, f.runs)
				if f.out != "" {
					st.results = make([]*run.Result, f.runs)
				}
				cs := *missions[m]
				cs.Obstacles = st.test.Obstacles
				for k := range f.runs {
					j, err := campaign.NewJob(&cs, run.Options{Seed: f.seed + uint64(k), TimeoutS: f.timeout}, k, f.out != "")
					if err != nil {
						return fmt.Errorf("%s: run %d: %w", st.path, k+1, err)
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
	r, closeRunner, err := f.exec.runner(ctx, stderr, f.jobs)
	if err != nil {
		return err
	}
	defer closeRunner()
	bar := newProgress(stderr, len(jobs), "flying")
	r.Progress = func(done, _ int) { _ = bar.Set(done) }
	name := fmt.Sprintf("score --rules %s --runs %d --seed %d --timeout %g: %s", f.rules, f.runs, f.seed, f.timeout, strings.Join(tools, " "))
	res, err := r.Run(ctx, campaign.Campaign{Name: name}, jobs)
	if err != nil {
		return err
	}
	if i, err := campaign.FirstFailure(res); err != nil {
		return fmt.Errorf("%s: run %d: %w", slots[i].st.path, slots[i].k+1, err)
	}
	for i, x := range res {
		st, k := slots[i].st, slots[i].k
		if st.results != nil {
			st.results[k] = x.RunResult(jobs[i])
		}
		st.test.Runs[k] = scoredRun(x)
	}
	return nil
}

// scoredRun turns a campaign's result into a scored run: the path is the
// trajectory in Aerialist's 0.5-s bins that the result carries, what
// resampledPath makes of the full trace.
func scoredRun(res campaign.Result) score.Run {
	r := score.Run{ClearanceM: math.Inf(1), FlightTimeS: res.Run.FlightTimeS, Path: trace.Positions(res.Trajectory),
		TimedOut: res.Run.TimedOut}
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

// readLogs reads the runs of every planned valid test of a suite from the
// logs folder. For test S (test_3.yaml → test_3) of tool T on mission M it
// looks in LOGS/T/M, LOGS/T and, for a single suite, LOGS, and takes from
// the first that has any: S.ulg or S.csv (one run), or the folder S/ whose
// *.ulg and *.csv files and run folders (holding trajectory.csv and
// optionally result.json, as `shakedown fly --out` and `score --out`
// write them) are runs, in name order.
func readLogs(logs, tool, mission string, single bool, sd *suiteData, timeoutS float64) error {
	bases := []string{filepath.Join(logs, tool, mission), filepath.Join(logs, tool)}
	if single {
		bases = append(bases, logs)
	}
	for _, i := range sd.plan {
		st := &sd.tests[i]
		if st.test.Invalid != "" {
			continue
		}
		stem := strings.TrimSuffix(st.test.Name, filepath.Ext(st.test.Name))
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
			st.test.Invalid = fmt.Sprintf("no run logs (looked for %s.ulg, %s.csv or %s/ in %s)", stem, stem, stem, strings.Join(bases, ", "))
			continue
		}
		for _, p := range files {
			r, err := readRun(p, st.test.Obstacles, timeoutS)
			if err != nil {
				return err
			}
			st.test.Runs = append(st.test.Runs, r)
		}
	}
	return nil
}

// runFiles lists the runs of test stem in base (see readLogs).
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

// readRun reads one run: a PX4 log or a Shakedown trajectory CSV, with the
// flight time and timeout from a result.json beside the CSV when there is
// one. Without it the flight time is the trajectory's duration and the run
// timed out when that reaches timeoutS. The clearance is computed from the
// trajectory by Aerialist's rule.
func readRun(path string, boxes []world.Box, timeoutS float64) (score.Run, error) {
	data, err := os.ReadFile(path)
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
	r := score.Run{Path: resampledPath(samples)}
	r.FlightTimeS = samples[len(samples)-1].T - samples[0].T
	r.TimedOut = r.FlightTimeS >= timeoutS
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(path), "result.json")); err == nil && filepath.Base(path) == "trajectory.csv" {
		var res run.Result
		if err := json.Unmarshal(b, &res); err != nil {
			return score.Run{}, fmt.Errorf("%s: %w", filepath.Join(filepath.Dir(path), "result.json"), err)
		}
		r.FlightTimeS = res.FlightTimeS
		r.TimedOut = res.TimedOut || strings.HasPrefix(res.Reason, "timeout") // files written before timed_out existed
	}
	// Aerialist's rule over the whole trajectory, resampled.
	r.ClearanceM = world.MinClearance(boxes, r.Path, nil)
	return r, nil
}

// writeRuns writes the simulated runs, each into its own folder, in the
// layout --logs reads.
func writeRuns(out string, tools, missions []string, data [][]*suiteData) error {
	type file struct {
		path string
		data []byte
	}
	var files []file
	for t := range data {
		for m, sd := range data[t] {
			for _, st := range sd.tests {
				stem := strings.TrimSuffix(st.test.Name, filepath.Ext(st.test.Name))
				for k, res := range st.results {
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
		if err := writeAtomic(f.path, f.data); err != nil {
			return err
		}
	}
	return nil
}

// scoreReport is what `shakedown score` prints.
type scoreReport struct {
	Rules        score.Edition `json:"rules"`
	Selection    string        `json:"selection"`
	Sample       int           `json:"sample"`
	Runs         int           `json:"runs_per_test,omitempty"` // 0 with logs
	Seed         uint64        `json:"seed"`
	Source       string        `json:"source"` // simulated or logs
	Norm         string        `json:"diversity_norm"`
	DTWThreshold float64       `json:"dtw_threshold"`
	Band         int           `json:"dtw_band"`
	Table        score.Table   `json:"table"`
	Invalid      []invalidTest `json:"invalid_tests"`
}

type invalidTest struct {
	Tool      string `json:"tool"`
	Mission   string `json:"mission"`
	Test      string `json:"test"`
	File      string `json:"file"`
	Reason    string `json:"reason"`
	Evaluated bool   `json:"evaluated"` // in S_s, scored 0; otherwise not drawn
}

// writeScoreMarkdown prints the table in the shape of the paper's Tables
// III (2024), IV (2025) and V (2026).
func writeScoreMarkdown(w io.Writer, rep scoreReport, details bool) {
	tab := rep.Table
	src := fmt.Sprintf("%d simulated runs per test (seeds %d…%d)", rep.Runs, rep.Seed, rep.Seed+uint64(rep.Runs)-1)
	if rep.Source == "logs" {
		src = "runs read from logs"
	}
	fmt.Fprintf(w, "# Scores, %d rules\n\n", tab.Edition)
	fmt.Fprintf(w, "Missions %s; %s; selection %s %d", strings.Join(tab.Missions, ", "), src, rep.Selection, rep.Sample)
	switch tab.Edition {
	case score.Edition2024:
		fmt.Fprintf(w, "; similar below DTW %g", rep.DTWThreshold)
	case score.Edition2025:
		fmt.Fprintf(w, "; diversity normalised by %s", rep.Norm)
	}
	fmt.Fprint(w, ".\n\n")

	var head, align []string
	head = append(head, "tool")
	align = append(align, "---")
	for _, m := range tab.Missions {
		head = append(head, m+" tests (critical)")
		switch tab.Edition {
		case score.Edition2024:
			head = append(head, m+" score (rank)")
		case score.Edition2025:
			head = append(head, m+" failure (rank)", m+" diversity (rank)")
		case score.Edition2026:
			head = append(head, m+" failure (rank)", m+" D_in (rank)", m+" D_out (rank)")
		}
	}
	if tab.Edition == score.Edition2024 {
		head = append(head, "score sum (rank sum)", "place")
	} else {
		head = append(head, "rank value", "place")
	}
	for range head[1:] {
		align = append(align, "---:")
	}
	fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
	for t, tool := range tab.Tools {
		row := []string{tool}
		for m := range tab.Missions {
			c := tab.Cells[t][m]
			row = append(row, fmt.Sprintf("%d (%d)", c.Tests, c.Critical), fmt.Sprintf("%.2f (%d)", c.Score, c.Ranks.Score))
			switch tab.Edition {
			case score.Edition2025:
				row = append(row, fmt.Sprintf("%.2f (%d)", c.Diversity, c.Ranks.Diversity))
			case score.Edition2026:
				row = append(row, fmt.Sprintf("%.2f (%d)", c.InputDiversity, c.Ranks.InputDiversity),
					fmt.Sprintf("%.2f (%d)", c.OutputDiversity, c.Ranks.OutputDiversity))
			}
		}
		o := tab.Overall[t]
		if tab.Edition == score.Edition2024 {
			row = append(row, fmt.Sprintf("%.2f (%d)", o.ScoreSum, o.RankSums.Score))
		} else {
			row = append(row, fmt.Sprintf("%.2f", o.Value))
		}
		row = append(row, strconv.Itoa(o.Place))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	switch tab.Edition {
	case score.Edition2024:
		fmt.Fprint(w, "\nScore: (Σ test score + rest score) × similarity penalty (Eq. 1); tests (critical): submitted (critical among the evaluated). Place by score sum.\n")
	case score.Edition2025:
		fmt.Fprint(w, "\nFailure: Σ test score without duplicates; diversity: 1 − mean footprint IoU (Eq. 6); rank value 0.75·Σ failure rank + 0.25·Σ diversity rank (Eq. 5); lower is better.\n")
	case score.Edition2026:
		fmt.Fprint(w, "\nFailure: Σ test score without duplicates; D_in: D_union·(1 + CV) (Eq. 9); D_out: mean minimum DTW distance between average trajectories (Eq. 13); rank value 0.5·Σ failure + 0.25·Σ D_in + 0.25·Σ D_out ranks (Eq. 8); lower is better.\n")
	}
	if len(rep.Invalid) > 0 {
		fmt.Fprint(w, "\n## Invalid tests (0 points)\n\n")
		for _, iv := range rep.Invalid {
			note := ""
			if !iv.Evaluated {
				note = " (not evaluated)"
			}
			fmt.Fprintf(w, "- %s/%s/%s%s: %s\n", iv.Tool, iv.Mission, iv.Test, note, iv.Reason)
		}
	}
	if !details {
		return
	}
	for t, tool := range tab.Tools {
		for m, mission := range tab.Missions {
			c := tab.Cells[t][m]
			fmt.Fprintf(w, "\n## %s on %s\n\n", tool, mission)
			fmt.Fprintf(w, "%d tests, %d evaluated, %d critical, %d invalid, %d duplicates; score %.4f", c.Tests, c.Evaluated, c.Critical, c.Invalid, c.Duplicates, c.Score)
			switch tab.Edition {
			case score.Edition2024:
				fmt.Fprintf(w, " = (%.4f + rest %.4f) × penalty %.4f (%d similar)", c.TestScoreSum, c.RestScore, c.Penalty, c.Similar)
			case score.Edition2025:
				fmt.Fprintf(w, "; diversity %.4f", c.Diversity)
			case score.Edition2026:
				fmt.Fprintf(w, "; D_union %.4f, CV %.4f, D_in %.4f, D_out %.4f", c.DUnion, c.CV, c.InputDiversity, c.OutputDiversity)
			}
			fmt.Fprint(w, "\n\n| test | obstacles | runs: clearance m (points) | avg point | avg time min | test score | critical | min DTW | note |\n|---|---:|---|---:|---:|---:|---|---:|---|\n")
			for _, d := range c.Details {
				var runs []string
				for _, r := range d.Runs {
					s := "–"
					if r.ClearanceM != nil {
						s = fmt.Sprintf("%.2f", *r.ClearanceM)
					}
					if r.TimedOut {
						s += " timeout"
					}
					runs = append(runs, fmt.Sprintf("%s (%g)", s, r.Points))
				}
				dtwS := "–"
				if d.MinDTW != nil {
					dtwS = fmt.Sprintf("%.1f", *d.MinDTW)
				}
				note := d.Invalid
				if d.Duplicate != "" {
					note = "duplicate of " + d.Duplicate
				}
				if d.Similar {
					note = strings.TrimPrefix(note+"; similar", "; ")
				}
				crit := "no"
				if d.Critical {
					crit = "yes"
				}
				fmt.Fprintf(w, "| %s | %d | %s | %.3f | %.3f | %.4f | %s | %s | %s |\n", d.Name, d.Obstacles, strings.Join(runs, ", "),
					d.AvgPoint, d.AvgTimeMin, d.Score, crit, dtwS, note)
			}
		}
	}
}
