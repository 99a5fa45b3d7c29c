package fidelity

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
)

// Config says how the tests are flown and compared. Zero values mean the
// defaults named.
type Config struct {
	Runs    int    // flights per test; 0 = 2
	Seed    uint64 // base noise seed (run.RunSeed(Seed, i) for run i)
	Workers int    // parallel flights; 0 = one per core
	// Options are the flights' options; zero PreArmS means
	// run.DefaultPreArmS (Aerialist's logs start before arming).
	Options run.Options
	// Classes keeps only the tests of these px4_class values; empty keeps
	// all. Tests marked usable = no are always left out.
	Classes []string
	// Sample keeps a seeded random subset of this many tests; 0 keeps all.
	Sample int
	// PathsDir holds PX4's traced XY paths as <mission>-<test>.csv (x,y);
	// "" = none.
	PathsDir string
	// SeriesDir holds PX4's time series t,x,y,z as <mission>-<test>.csv or
	// <mission>/<test>.csv, for the speed regimes (SlowShare); "" = none.
	SeriesDir string
	Perms     int // permutations for the p-value; 0 = 2000
	// OnDone, when not nil, is called after each finished flight with the
	// flights done and in all (never concurrently).
	OnDone func(done, total int)
}

// farM stands for the clearance of a flight with no obstacle to measure.
const farM = 1000.0

// CriticalM is the competition's safe distance.
const CriticalM = run.CriticalM

// NearM bounds the tests the generator works on: those where PX4 came
// within this distance of a box.
const NearM = 3.0

// TestResult is one test's prediction beside PX4's measurement.
type TestResult struct {
	Ref      Reference `json:"-"`
	Test     string    `json:"test"`
	Mission  string    `json:"mission,omitempty"`
	Source   string    `json:"source,omitempty"`
	PX4M     float64   `json:"px4_min_distance_m"`
	SimM     []float64 `json:"sim_min_distance_m"` // per run
	MeanM    float64   `json:"sim_mean_m"`
	Collided int       `json:"sim_collided_runs"`
	TimedOut int       `json:"sim_timed_out_runs"`
	// AirborneS is the mean time in the air over the runs.
	AirborneS    float64  `json:"sim_airborne_s"`
	PX4AirborneS *float64 `json:"px4_airborne_s,omitempty"`
	// PathErrM is the mean lateral distance between the simulated and
	// PX4's traced XY paths, nil without a traced path.
	PathErrM *float64 `json:"path_error_m,omitempty"`
	// PX4Slow is the share of PX4's airborne time spent slower than
	// SlowMS, from its time series (nil without one); SimSlow the mean of
	// the runs' (nil without PX4's series or when no run was airborne long
	// enough).
	PX4Slow *float64 `json:"px4_slow_share,omitempty"`
	SimSlow *float64 `json:"sim_slow_share,omitempty"`
	// Grounded: PX4's distance is the take-off point's distance to the
	// nearest footprint (within GroundedTolM) while every simulated flight
	// came at least GroundedGapM closer: PX4 apparently never left the
	// ground, and the row measures no avoidance.
	Grounded bool `json:"px4_grounded,omitempty"`
	// Across: a footprint crosses the mission's straight path, which must
	// then detour by DetourM (the smaller sideways shift that clears the
	// worst crossing footprint); Beside: the test has boxes and none
	// crosses it.
	Across  bool    `json:"across_path"`
	Beside  bool    `json:"beside_path"`
	DetourM float64 `json:"detour_m"`
}

// The grounded-row test (TestResult.Grounded).
const (
	GroundedTolM = 0.05
	GroundedGapM = 1.0
)

// grounded reports whether PX4's distance px4 is the take-off point's
// distance to the nearest box of cs while every simulated run came at
// least GroundedGapM closer.
func grounded(cs *scenario.CaseStudy, px4 float64, sim []float64) bool {
	if len(cs.Obstacles) == 0 || len(sim) == 0 {
		return false
	}
	home := cs.Mission.Path()[0]
	d := math.Inf(1)
	for _, b := range cs.Obstacles {
		d = math.Min(d, b.Distance(geom.Vec2{X: home.X, Y: home.Y}))
	}
	if math.Abs(px4-d) > GroundedTolM {
		return false
	}
	for _, v := range sim {
		if v > px4-GroundedGapM {
			return false
		}
	}
	return true
}

// px4Collided is PX4's collision as the reference tells it: its class, or
// a distance of 0 when no class is given.
func (t TestResult) px4Collided() bool {
	if t.Ref.Class != "" {
		return t.Ref.Class == "crash"
	}
	return t.PX4M == 0
}

// simCollided: a majority of the runs touched a box.
func (t TestResult) simCollided() bool { return 2*t.Collided > len(t.SimM) }

// Stats compares predictions and measurements over a group of tests.
type Stats struct {
	Group          string  `json:"group"`
	N              int     `json:"n"`
	Rho            float64 `json:"spearman_rho"`
	P              float64 `json:"p_value"`
	NearN          int     `json:"near_n"`
	RhoNear        float64 `json:"spearman_rho_near"` // tests where PX4 came within NearM
	MAE            float64 `json:"clearance_mae_m"`
	Bias           float64 `json:"clearance_bias_m"` // simulator − PX4
	CollisionAgree float64 `json:"collision_agreement"`
	CriticalAgree  float64 `json:"critical_agreement"`
	// The simulator's critical verdict read as a prediction of PX4's, as a
	// test generator uses it: of the SimCritN tests the simulator flew
	// within CriticalM (its mean over the runs), BothCritN were within
	// CriticalM on PX4 too (CritPrecision = BothCritN / SimCritN); of the
	// PX4CritN tests critical on PX4, the simulator found BothCritN
	// (CritRecall = BothCritN / PX4CritN). NaN for an empty denominator.
	SimCritN      int     `json:"sim_critical_n"`
	PX4CritN      int     `json:"px4_critical_n"`
	BothCritN     int     `json:"both_critical_n"`
	CritPrecision float64 `json:"critical_precision"`
	CritRecall    float64 `json:"critical_recall"`
	AirN          int     `json:"airborne_n"`
	AirRatio      float64 `json:"airborne_ratio_median"` // simulator / PX4
	PathN         int     `json:"path_n"`
	PathErrM      float64 `json:"path_error_mean_m"`
	// SlowN tests have both slow shares (PX4's from its time series and
	// the simulator's); PX4Slow and SimSlow are their medians
	// (TestResult.PX4Slow, SimSlow), the Mean fields their means, and
	// PX4Crawled and SimCrawled the shares of those tests whose slow share
	// is at least CrawlShare.
	SlowN       int     `json:"slow_n"`
	PX4Slow     float64 `json:"px4_slow_share_median"`
	SimSlow     float64 `json:"sim_slow_share_median"`
	PX4SlowMean float64 `json:"px4_slow_share_mean"`
	SimSlowMean float64 `json:"sim_slow_share_mean"`
	PX4Crawled  float64 `json:"px4_crawled_share"`
	SimCrawled  float64 `json:"sim_crawled_share"`
}

// Report is the outcome of Evaluate.
type Report struct {
	Runs   int          `json:"runs"`
	Tests  []TestResult `json:"tests"`
	Pooled Stats        `json:"pooled"`
	Groups []Stats      `json:"groups"` // per source and mission, then per mission
	// Bands compares the clearances by PX4's clearance band, pooled.
	Bands []Band `json:"bands"`
	// Geometry compares them by where the boxes stand: beside the
	// mission's straight path, or across it by the detour they force.
	Geometry []Geometry `json:"geometry"`
	// Grounded lists the tests PX4 apparently never flew
	// (TestResult.Grounded); "pooled, not grounded" in Groups leaves them
	// out.
	Grounded []TestResult `json:"px4_grounded"`
	// Repeat is the repeat scatter of PX4 and of the simulator.
	Repeat []Scatter `json:"repeat_scatter"`
	// Floor scores PX4 as its own predictor on the layouts flown more than
	// once, beside the simulator on the same flights (floorStats).
	Floor []Stats      `json:"px4_floor"`
	Worst []TestResult `json:"worst"` // the tests that disagree most
}

// Evaluate flies every reference test cfg.Runs times and compares.
func Evaluate(ctx context.Context, refs []Reference, cfg Config) (*Report, error) {
	cfg.Runs = cmp.Or(cfg.Runs, 2)
	cfg.Perms = cmp.Or(cfg.Perms, 2000)
	if cfg.Runs < 1 || cfg.Runs > 100 {
		return nil, fmt.Errorf("fidelity: runs %d out of [1, 100]", cfg.Runs)
	}
	if cfg.Options.PreArmS == 0 {
		cfg.Options.PreArmS = run.DefaultPreArmS
	}
	var keep []Reference
	for _, r := range refs {
		if !r.Usable || len(cfg.Classes) > 0 && !slices.Contains(cfg.Classes, r.Class) {
			continue
		}
		keep = append(keep, r)
	}
	if cfg.Sample > 0 && cfg.Sample < len(keep) {
		rng := rand.New(rand.NewPCG(cfg.Seed, 0xf1de))
		rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
		keep = keep[:cfg.Sample]
		slices.SortFunc(keep, func(a, b Reference) int { return a.Line - b.Line })
	}
	if len(keep) == 0 {
		return nil, errors.New("fidelity: no test left to fly (check --classes and the usable column)")
	}
	cases := make([]*scenario.CaseStudy, len(keep))
	for i, r := range keep {
		cs, err := scenario.LoadCaseStudy(r.YAML)
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", r.Line, r.Test, err)
		}
		cases[i] = cs
	}
	// Every run of every test in one batch on all cores (run.Batch: results
	// in job order whatever the number of workers); traces are kept only
	// for the path error.
	jobs := make([]run.Job, 0, len(keep)*cfg.Runs)
	for i := range keep {
		for k := range cfg.Runs {
			opt := cfg.Options
			opt.Seed = run.RunSeed(cfg.Seed, k)
			jobs = append(jobs, run.Job{Case: cases[i], Opt: opt})
		}
	}
	var onDone func(int)
	if cfg.OnDone != nil {
		onDone = func(done int) { cfg.OnDone(done, len(jobs)) }
	}
	results, err := run.Batch(ctx, jobs, cfg.Workers, cfg.PathsDir != "" || cfg.SeriesDir != "", onDone)
	if err != nil {
		return nil, fmt.Errorf("fidelity: %w", err)
	}
	out := make([]TestResult, len(keep))
	for i := range keep {
		tr, err := summarize(keep[i], results[i*cfg.Runs:(i+1)*cfg.Runs], cfg.PathsDir, cfg.SeriesDir)
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", keep[i].Line, keep[i].Test, err)
		}
		tr.Grounded = grounded(cases[i], tr.PX4M, tr.SimM)
		tr.Across, tr.DetourM = detour(cases[i])
		tr.Beside = !tr.Across && len(cases[i].Obstacles) > 0
		out[i] = tr
	}
	rep := &Report{Runs: cfg.Runs, Tests: out}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5bea))
	rep.Pooled = compare("pooled", out, cfg.Perms, rng)
	var flown []TestResult
	for _, t := range out {
		if t.Grounded {
			rep.Grounded = append(rep.Grounded, t)
		} else {
			flown = append(flown, t)
		}
	}
	groups := map[string][]TestResult{}
	var names []string
	add := func(k string, t TestResult) {
		if _, ok := groups[k]; !ok {
			names = append(names, k)
		}
		groups[k] = append(groups[k], t)
	}
	for _, t := range out {
		if t.Source != "" {
			add(t.Source+" "+cmp.Or(t.Mission, "-"), t)
		}
	}
	for _, t := range out {
		if t.Mission != "" {
			add(t.Mission, t)
		}
	}
	if len(rep.Grounded) > 0 && len(flown) > 0 {
		rep.Groups = append(rep.Groups, compare("pooled, not grounded", flown, cfg.Perms, rng))
	}
	for _, k := range names {
		if len(groups[k]) == len(out) && len(names) == 1 {
			continue
		}
		rep.Groups = append(rep.Groups, compare(k, groups[k], cfg.Perms, rng))
	}
	rep.Bands = bands(out)
	rep.Geometry = geometry(out)
	rep.Repeat = repeats(out)
	rep.Floor = floorStats(out)
	worst := slices.Clone(out)
	slices.SortStableFunc(worst, func(a, b TestResult) int {
		return cmp.Compare(math.Abs(b.MeanM-b.PX4M), math.Abs(a.MeanM-a.PX4M))
	})
	rep.Worst = worst[:min(10, len(worst))]
	return rep, nil
}

// summarize is one test's prediction from its runs.
func summarize(ref Reference, rs []*run.Result, pathsDir, seriesDir string) (TestResult, error) {
	tr := TestResult{Ref: ref, Test: ref.Test, Mission: ref.Mission, Source: ref.Source, PX4M: ref.MinDistM}
	if !math.IsNaN(ref.AirborneS) {
		a := ref.AirborneS
		tr.PX4AirborneS = &a
	}
	var px4Path []geom.Vec2
	if pathsDir != "" {
		p, err := readPath(filepath.Join(pathsDir, ref.Mission+"-"+ref.Test+".csv"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return tr, err
		}
		px4Path = p
	}
	var px4Series []sample
	if seriesDir != "" {
		if name := seriesFile(seriesDir, ref.Mission, ref.Test); name != "" {
			s, err := readSeries(name)
			if err != nil {
				return tr, err
			}
			px4Series = s
		}
	}
	var pathErr float64
	slow, slowN := 0.0, 0
	for _, r := range rs {
		d := farM
		if r.MinClearanceM != nil {
			d = math.Min(*r.MinClearanceM, farM)
		}
		tr.SimM = append(tr.SimM, d)
		tr.MeanM += d
		tr.AirborneS += r.AirborneS
		if len(r.Collisions) > 0 {
			tr.Collided++
		}
		if r.TimedOut {
			tr.TimedOut++
		}
		if len(px4Path) > 1 {
			// At Aerialist's 0.5-s resampling, enough for a path error.
			pathErr += lateral(trace.Positions(r.Resampled), px4Path)
		}
		if px4Series != nil {
			if v := slowShare(simSeries(r.Resampled)); !math.IsNaN(v) {
				slow += v
				slowN++
			}
		}
	}
	if px4Series != nil {
		if v := slowShare(px4Series); !math.IsNaN(v) {
			tr.PX4Slow = &v
		}
		if slowN > 0 {
			v := slow / float64(slowN)
			tr.SimSlow = &v
		}
	}
	n := float64(len(rs))
	tr.MeanM /= n
	tr.AirborneS /= n
	if len(px4Path) > 1 {
		e := pathErr / n
		tr.PathErrM = &e
	}
	return tr, nil
}

// lateral is the mean lateral distance between the airborne part of the
// simulated path and PX4's traced XY path: the mean distance from each
// simulated point to the nearest traced point, averaged with the mean
// distance from each traced point to the simulated polyline. The traced
// path is a set of points read off a plot's pixels, in no particular
// order, so it is never joined into a line.
func lateral(sim []geom.Vec3, px4 []geom.Vec2) float64 {
	var pts []geom.Vec2
	for _, p := range sim {
		if -p.Z > 1 {
			pts = append(pts, p.XY())
		}
	}
	if len(pts) < 2 || len(px4) == 0 {
		return math.NaN()
	}
	toPX4 := 0.0
	for _, p := range pts {
		best := math.Inf(1)
		for _, q := range px4 {
			best = math.Min(best, p.Dist(q))
		}
		toPX4 += best
	}
	toSim := 0.0
	for _, q := range px4 {
		best := math.Inf(1)
		for i := 1; i < len(pts); i++ {
			best = math.Min(best, segDist(q, pts[i-1], pts[i]))
		}
		toSim += best
	}
	return (toPX4/float64(len(pts)) + toSim/float64(len(px4))) / 2
}

func segDist(p, a, b geom.Vec2) float64 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	t := 0.0
	if l2 > 0 {
		t = geom.Clamp(p.Sub(a).Dot(ab)/l2, 0, 1)
	}
	return p.Dist(a.Add(ab.Scale(t)))
}

// readPath reads a traced path x,y (competition frame: x North, y East).
func readPath(name string) ([]geom.Vec2, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(io.LimitReader(f, MaxFileBytes))
	var out []geom.Vec2
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(rec) < 2 {
			return nil, fmt.Errorf("%s:%d: want x,y", name, line)
		}
		x, ex := strconv.ParseFloat(rec[0], 64)
		y, ey := strconv.ParseFloat(rec[1], 64)
		if ex != nil || ey != nil {
			if line == 1 {
				continue // header
			}
			return nil, fmt.Errorf("%s:%d: %q,%q are not numbers", name, line, rec[0], rec[1])
		}
		out = append(out, geom.Vec2{X: x, Y: y})
	}
}

func compare(group string, ts []TestResult, perms int, rng *rand.Rand) Stats {
	st := Stats{Group: group, N: len(ts)}
	var px, sm, pxN, smN, ratio, pxSlow, smSlow []float64
	var coll, crit, pathN int
	var path float64
	for _, t := range ts {
		px = append(px, t.PX4M)
		sm = append(sm, t.MeanM)
		st.MAE += math.Abs(t.MeanM - t.PX4M)
		st.Bias += t.MeanM - t.PX4M
		if t.PX4M < NearM {
			pxN = append(pxN, t.PX4M)
			smN = append(smN, t.MeanM)
		}
		if t.px4Collided() == t.simCollided() {
			coll++
		}
		pxCrit, smCrit := t.PX4M < CriticalM, t.MeanM < CriticalM
		if pxCrit == smCrit {
			crit++
		}
		if smCrit {
			st.SimCritN++
		}
		if pxCrit {
			st.PX4CritN++
		}
		if pxCrit && smCrit {
			st.BothCritN++
		}
		if t.PX4AirborneS != nil && *t.PX4AirborneS > 0 {
			ratio = append(ratio, t.AirborneS / *t.PX4AirborneS)
		}
		if t.PathErrM != nil && !math.IsNaN(*t.PathErrM) {
			path += *t.PathErrM
			pathN++
		}
		if t.PX4Slow != nil && t.SimSlow != nil {
			pxSlow = append(pxSlow, *t.PX4Slow)
			smSlow = append(smSlow, *t.SimSlow)
		}
	}
	n := float64(len(ts))
	st.MAE /= n
	st.Bias /= n
	st.CollisionAgree = float64(coll) / n
	st.CriticalAgree = float64(crit) / n
	st.CritPrecision, st.CritRecall = ratioOrNaN(st.BothCritN, st.SimCritN), ratioOrNaN(st.BothCritN, st.PX4CritN)
	st.Rho, st.P = Spearman(sm, px, perms, rng)
	st.NearN = len(pxN)
	st.RhoNear, _ = Spearman(smN, pxN, 0, nil)
	st.AirN = len(ratio)
	st.AirRatio = median(ratio)
	st.PathN = pathN
	st.PathErrM = math.NaN()
	if pathN > 0 {
		st.PathErrM = path / float64(pathN)
	}
	st.SlowN = len(pxSlow)
	st.PX4Slow, st.SimSlow = median(pxSlow), median(smSlow)
	st.PX4SlowMean, st.PX4Crawled = meanAndShareAtLeast(pxSlow, CrawlShare)
	st.SimSlowMean, st.SimCrawled = meanAndShareAtLeast(smSlow, CrawlShare)
	return st
}

// ratioOrNaN is a/b, NaN when b is 0.
func ratioOrNaN(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// meanAndShareAtLeast returns the mean of xs and the share of them at
// least bound; NaN, NaN for none.
func meanAndShareAtLeast(xs []float64, bound float64) (mean, share float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	n := 0
	for _, x := range xs {
		mean += x
		if x >= bound {
			n++
		}
	}
	return mean / float64(len(xs)), float64(n) / float64(len(xs))
}
