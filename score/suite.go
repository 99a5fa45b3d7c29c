package score

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	sf "github.com/peterstace/simplefeatures/geom"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/score/dtw"
	"github.com/shakedown-robotics/shakedown/world"
)

// Edition is a year of the competition's scoring rules.
type Edition int

// The editions scored.
const (
	Edition2024 Edition = 2024
	Edition2025 Edition = 2025
	Edition2026 Edition = 2026
)

// ErrEdition is returned for an edition other than 2024, 2025 or 2026.
var ErrEdition = errors.New("score: unknown edition (want 2024, 2025 or 2026)")

// Selection is how S_s, the evaluated tests, is chosen from a suite.
type Selection int

// The selections.
const (
	// SelectDefault is the edition's: SelectRandom in 2024, SelectFirst in
	// 2025 and 2026.
	SelectDefault Selection = iota
	// SelectFirst takes the first tests in the generator's output order.
	SelectFirst
	// SelectRandom draws the tests at random.
	SelectRandom
	// SelectTopScore runs every test and keeps those with the highest test
	// score (Eq. 2), the earlier on a tie.
	SelectTopScore
)

func (s Selection) String() string {
	switch s {
	case SelectFirst:
		return "first"
	case SelectRandom:
		return "random"
	case SelectTopScore:
		return "top-score"
	}
	return "default"
}

// Config configures the scoring. Zero values mean the defaults named.
type Config struct {
	Edition    Edition   // required
	Select     Selection // SelectDefault: the edition's
	SampleSize int       // |S_s| at most; 0 = SampleSize (20)
	SimilarDTW float64   // DTW threshold of Eq. 4; 0 = SimilarDTW (75)
	Norm       Norm      // normalisation of Eq. 6; zero = NormPairs
	// Band is the Sakoe–Chiba band of the DTW distances, in 0.5-s points;
	// 0 = exact DTW.
	Band int
	// Iterations bounds the rounds of the average trajectories (DBA's, or
	// the soft-DTW barycenter's L-BFGS iterations); 0 = the method's
	// default (dtw.DefaultIterations, dtw.SoftMaxIterations).
	Iterations int
	// DTWNorm is the scale of the DTW distances of Eq. 4 and 12; zero =
	// DTWDefault, the edition's (see DTWNorm).
	DTWNorm DTWNorm
	// Average is how the runs of a test are averaged before the DTW
	// distances; zero = AverageSoft, Aerialist's.
	Average Average
	// Gamma is the soft-DTW barycenter's smoothing; 0 = dtw.AerialistGamma
	// (200).
	Gamma float64
	// Time is what avg_time of Eq. 2 averages; zero = TimeLog.
	Time TimeBasis
}

// DTWNorm is the scale of the DTW distances (package dtw's Norm), or the
// edition's default.
type DTWNorm int

// The scales.
const (
	// DTWDefault is DTWSum in 2024 and DTWPath in 2026. The 2024
	// threshold of 75 was chosen for the 2024 artifacts (paper §V-A-3),
	// which Aerialist's similaritymeasures.dtw produced as raw sums: on
	// Shakedown's flights of mission2 (about 240 points of 0.5 s) distinct
	// tests are 100–470 apart on that scale, so 75 separates near-copies.
	// The paper's 2026 D_out (Table V: 1.37–2.72 for its own suites) is
	// two orders of magnitude below raw sums and matches the mean distance
	// per matched pair: the same flights give 0.45–1.97 per pair (D_out
	// 1.08), 0.23–1.03 per point.
	DTWDefault DTWNorm = iota
	// DTWSum is the raw sum along the warping path, m (dtw.NormSum).
	DTWSum
	// DTWPath divides it by the pairs on the path (dtw.NormPath).
	DTWPath
	// DTWPoints divides it by the points of both trajectories
	// (dtw.NormPoints).
	DTWPoints
)

func (n DTWNorm) String() string {
	switch n {
	case DTWSum:
		return "sum"
	case DTWPath:
		return "path"
	case DTWPoints:
		return "points"
	}
	return "default"
}

// ParseDTWNorm reads "sum", "path", "points" or "default" ("" too).
func ParseDTWNorm(s string) (DTWNorm, error) {
	for _, n := range []DTWNorm{DTWDefault, DTWSum, DTWPath, DTWPoints} {
		if s == n.String() {
			return n, nil
		}
	}
	if s == "" {
		return DTWDefault, nil
	}
	return 0, fmt.Errorf("score: unknown DTW normalisation %q (want sum, path, points or default)", s)
}

func (n DTWNorm) dtw() dtw.Norm {
	switch n {
	case DTWPath:
		return dtw.NormPath
	case DTWPoints:
		return dtw.NormPoints
	}
	return dtw.NormSum
}

// Average is how a test's repeated runs are averaged into one trajectory.
type Average int

// The averages.
const (
	// AverageSoft is tslearn's soft-DTW barycenter with γ = Gamma, as
	// Aerialist's Trajectory.average computes it (dtw.SoftBarycenter);
	// Aerialist then also cuts the landed tail (ruptures), which is not
	// reproduced.
	AverageSoft Average = iota
	// AverageDBA is DTW barycenter averaging (dtw.Barycenter).
	AverageDBA
)

func (a Average) String() string {
	if a == AverageDBA {
		return "dba"
	}
	return "soft-dtw"
}

// ParseAverage reads "soft-dtw" ("" too) or "dba".
func ParseAverage(s string) (Average, error) {
	switch s {
	case "", "soft-dtw":
		return AverageSoft, nil
	case "dba":
		return AverageDBA, nil
	}
	return 0, fmt.Errorf("score: unknown average %q (want soft-dtw or dba)", s)
}

// TimeBasis is what a run's time in Eq. 2 is.
type TimeBasis int

// The time bases.
const (
	// TimeLog is the run's execution time as the competition measures it:
	// the length of Aerialist's log, from its start (about 19 s before
	// arming, run.DefaultPreArmS) to its end after landing, or up to the
	// time limit (500 s) when the run timed out, whether or not the
	// vehicle touched an obstacle (a contact does not end the flight):
	// Run.FlightTimeS.
	TimeLog TimeBasis = iota
	// TimeAirborne is the time in the air, from lift-off to the last
	// touchdown: Run.AirborneS. Not the competition's; for comparison.
	TimeAirborne
)

func (b TimeBasis) String() string {
	if b == TimeAirborne {
		return "airborne"
	}
	return "log"
}

// Describe says what a run's time in avg_time of Eq. 2 is under b, in
// one phrase for the header of a report.
func (b TimeBasis) Describe() string {
	if b == TimeAirborne {
		return "the time in the air, from lift-off to the last touchdown (not the competition's measure)"
	}
	return "the whole run as Aerialist logs it, from the log's start (before arming) to its end, 500 s on a timeout, crash or not"
}

// ParseTimeBasis reads "log" ("" too) or "airborne".
func ParseTimeBasis(s string) (TimeBasis, error) {
	switch s {
	case "", "log":
		return TimeLog, nil
	case "airborne":
		return TimeAirborne, nil
	}
	return 0, fmt.Errorf("score: unknown time basis %q (want log or airborne)", s)
}

// Scale returns the DTW scale c scores with: DTWDefault resolved for the
// edition. c must be valid.
func (c Config) Scale() DTWNorm {
	if c.DTWNorm != DTWDefault {
		return c.DTWNorm
	}
	if c.Edition == Edition2026 {
		return DTWPath
	}
	return DTWSum
}

// DTWHeader describes the distance, its scale and the averaging of c's
// DTW diversity in one line, for the header of a report; "" for 2025,
// which uses none. c must be valid.
func (c Config) DTWHeader() string {
	if c.Edition == Edition2025 {
		return ""
	}
	avg := fmt.Sprintf("soft-DTW barycenter (tslearn, γ = %g)", c.gamma())
	if c.Average == AverageDBA {
		avg = "DTW barycenter averaging (DBA)"
	}
	band := "exact"
	if c.Band > 0 {
		band = fmt.Sprintf("Sakoe-Chiba band %d", c.Band)
	}
	return fmt.Sprintf("DTW %s: %s, on x, y, z in 0.5-s bins, %s; runs averaged by %s", c.Scale(), c.Scale().dtw().Describe(), band, avg)
}

func (c Config) gamma() float64 {
	if c.Gamma > 0 {
		return c.Gamma
	}
	return dtw.AerialistGamma
}

// Validate checks c and returns it with the defaults filled in.
func (c Config) Validate() (Config, error) {
	switch c.Edition {
	case Edition2024, Edition2025, Edition2026:
	default:
		return c, fmt.Errorf("%w: %d", ErrEdition, c.Edition)
	}
	if c.Select == SelectDefault {
		c.Select = SelectFirst
		if c.Edition == Edition2024 {
			c.Select = SelectRandom
		}
	}
	if c.Select < SelectFirst || c.Select > SelectTopScore {
		return c, fmt.Errorf("score: unknown selection %d", c.Select)
	}
	if c.SampleSize == 0 {
		c.SampleSize = SampleSize
	}
	if c.SimilarDTW == 0 {
		c.SimilarDTW = SimilarDTW
	}
	if c.SampleSize < 0 || c.Band < 0 || c.Iterations < 0 || !(c.SimilarDTW > 0) {
		return c, fmt.Errorf("score: negative sample size, band or iterations, or a DTW threshold not above 0")
	}
	if c.Norm != NormPairs && c.Norm != NormTests {
		return c, fmt.Errorf("score: unknown normalisation %d", c.Norm)
	}
	if c.DTWNorm < DTWDefault || c.DTWNorm > DTWPoints {
		return c, fmt.Errorf("score: unknown DTW normalisation %d", c.DTWNorm)
	}
	if c.Average != AverageSoft && c.Average != AverageDBA {
		return c, fmt.Errorf("score: unknown average %d", c.Average)
	}
	if c.Time != TimeLog && c.Time != TimeAirborne {
		return c, fmt.Errorf("score: unknown time basis %d", c.Time)
	}
	if c.Gamma < 0 || math.IsNaN(c.Gamma) || math.IsInf(c.Gamma, 0) {
		return c, fmt.Errorf("score: soft-DTW gamma %v: want a finite number ≥ 0", c.Gamma)
	}
	return c, nil
}

// Run is one flight of a test, simulated or logged.
type Run struct {
	// ClearanceM is the minimum clearance to the test's obstacles by
	// Aerialist's rule, m; +Inf without obstacles.
	ClearanceM float64
	// FlightTimeS is the run's execution time, s, as the competition
	// measures it: the whole log, from its start (Aerialist's logs start
	// about 19 s before arming) to its end, up to the time limit (500 s)
	// on a timeout, crash or not. It is avg_time of Eq. 2 (TimeLog).
	FlightTimeS float64
	// AirborneS is the time from lift-off to the last touchdown, s; read
	// only with TimeAirborne.
	AirborneS float64
	TimedOut  bool // stopped by the time limit: 0 points
	// Path is the trajectory resampled into 0.5-s bins (trace.Resample),
	// origin at its first point; used for the DTW diversity.
	Path []geom.Vec3
}

// Test is one test of a suite: its obstacles and the runs made of it.
type Test struct {
	Name      string
	Obstacles []world.Box
	// Invalid says why the test cannot be run (unreadable, or breaking the
	// edition's obstacle rules); "" for a valid test. An invalid test
	// scores 0.
	Invalid string
	Runs    []Run
}

// Plan returns the indices of the tests of a suite of n that must be run,
// in increasing order: the first SampleSize (SelectFirst), SampleSize drawn
// with r (SelectRandom), or all (SelectTopScore). c must be valid.
func Plan(c Config, n int, r *rand.Rand) []int {
	k := min(n, c.SampleSize)
	switch c.Select {
	case SelectTopScore:
		k = n
	case SelectRandom:
		idx := r.Perm(n)[:k]
		slices.Sort(idx)
		return idx
	}
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// RunResult is a run as scored.
type RunResult struct {
	ClearanceM  *float64 `json:"clearance_m"` // nil without obstacles
	FlightTimeS float64  `json:"flight_time_s"`
	TimedOut    bool     `json:"timed_out,omitempty"`
	Points      float64  `json:"points"`
}

// TestResult is a test as scored.
type TestResult struct {
	Index     int         `json:"index"` // position in the suite, from 0
	Name      string      `json:"name"`
	Obstacles int         `json:"obstacles"`
	Invalid   string      `json:"invalid,omitempty"`
	Duplicate string      `json:"duplicate_of,omitempty"` // 2025, 2026: the earlier test with IoU 1
	Runs      []RunResult `json:"runs"`
	AvgPoint  float64     `json:"avg_point"`
	// AvgTimeMin is avg_time of Eq. 2: the mean over the runs of the
	// run's time on Config.Time's basis (the whole log by default),
	// minutes.
	AvgTimeMin float64 `json:"avg_time_min"`
	Score      float64 `json:"test_score"` // Eq. 2
	// MeanClearanceM is the mean clearance of the runs that did not time
	// out; nil when there is none or no obstacle.
	MeanClearanceM *float64 `json:"mean_clearance_m"`
	Critical       bool     `json:"critical"`
	// MinDTW is δ_j of Eq. 12 (2024 and 2026); nil when not computed.
	MinDTW  *float64 `json:"min_dtw,omitempty"`
	Similar bool     `json:"similar,omitempty"` // 2024: δ_j below the threshold
}

// SuiteResult is one suite scored on one mission.
type SuiteResult struct {
	Tests      int `json:"tests"`     // in the suite
	Evaluated  int `json:"evaluated"` // |S_s|
	Critical   int `json:"critical"`  // critical tests in S_s
	Invalid    int `json:"invalid"`   // invalid tests in S_s
	Duplicates int `json:"duplicates"`
	// Score is the suite score of Eq. 1 (2024) or the failure score, the
	// sum of the test scores without duplicates (2025, 2026).
	Score float64 `json:"score"`
	// 2024: Σ test_score(S_s), Eq. 3, #similar and Eq. 4.
	TestScoreSum float64 `json:"test_score_sum"`
	RestScore    float64 `json:"rest_score,omitempty"`
	Similar      int     `json:"similar,omitempty"`
	Penalty      float64 `json:"similarity_penalty,omitempty"`
	// 2025: Eq. 6.
	Diversity float64 `json:"diversity,omitempty"`
	// 2026: Eq. 9–11 and 13.
	InputDiversity  float64 `json:"input_diversity,omitempty"`
	DUnion          float64 `json:"d_union,omitempty"`
	CV              float64 `json:"cv,omitempty"`
	OutputDiversity float64 `json:"output_diversity,omitempty"`
	// DTW names the distance, scale and averaging of the DTW diversity
	// (Config.DTWHeader); empty in 2025.
	DTW     string       `json:"dtw,omitempty"`
	Details []TestResult `json:"details"` // S_s in suite order
}

// Evaluate scores a suite on one mission. tests is the whole suite in the
// generator's output order; planned are the indices Plan returned, whose
// tests carry their runs (the others' runs are not read). c must be valid
// (see Config.Validate). An error comes only from the polygon library.
func Evaluate(c Config, tests []Test, planned []int) (SuiteResult, error) {
	res := SuiteResult{Tests: len(tests)}
	details := make(map[int]TestResult, len(planned))
	res.DTW = c.DTWHeader()
	for _, i := range planned {
		details[i] = scoreTest(i, tests[i], c.Time)
	}
	sel := slices.Clone(planned)
	if c.Select == SelectTopScore {
		slices.SortStableFunc(sel, func(a, b int) int {
			sa, sb := details[a].Score, details[b].Score
			switch {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return a - b
		})
		sel = sel[:min(len(sel), c.SampleSize)]
		slices.Sort(sel)
	}
	res.Evaluated = len(sel)
	res.Details = make([]TestResult, len(sel))
	for k, i := range sel {
		res.Details[k] = details[i]
	}

	// The tests that take part in the diversities: valid, and for 2025
	// and 2026 not duplicates.
	var members []int // indices into res.Details
	var unions []sf.Geometry
	for k := range res.Details {
		d := &res.Details[k]
		if d.Invalid != "" {
			res.Invalid++
			continue
		}
		if c.Edition != Edition2024 {
			u, err := Union(tests[d.Index].Obstacles)
			if err != nil {
				return res, fmt.Errorf("score: %s: footprint union: %w", d.Name, err)
			}
			dup := -1
			for m, o := range members {
				iou, err := IoU(unions[m], u)
				if err != nil {
					return res, fmt.Errorf("score: %s and %s: IoU: %w", res.Details[o].Name, d.Name, err)
				}
				if iou >= DuplicateIoU {
					dup = o
					break
				}
			}
			if dup >= 0 {
				d.Duplicate = res.Details[dup].Name
				res.Duplicates++
				continue
			}
			unions = append(unions, u)
		}
		members = append(members, k)
	}
	for _, d := range res.Details {
		if d.Critical && d.Duplicate == "" {
			res.Critical++
		}
		if d.Duplicate == "" {
			res.TestScoreSum += d.Score
		}
	}

	switch c.Edition {
	case Edition2024:
		delta := res.minDTW(c, tests, members)
		res.Similar = CountSimilar(delta, c.SimilarDTW)
		for m, k := range members {
			res.Details[k].Similar = delta[m] < c.SimilarDTW
		}
		res.RestScore = RestScore(len(tests)-res.Evaluated, res.Evaluated, res.TestScoreSum)
		res.Penalty = SimilarityPenalty(res.Similar, res.Evaluated)
		res.Score = SuiteScore2024(res.TestScoreSum, res.RestScore, res.Penalty)
	case Edition2025:
		res.Score = res.TestScoreSum
		sim := make([][]float64, len(unions))
		for i := range unions {
			sim[i] = make([]float64, len(unions))
			for j := i + 1; j < len(unions); j++ {
				v, err := IoU(unions[i], unions[j])
				if err != nil {
					return res, fmt.Errorf("score: IoU: %w", err)
				}
				sim[i][j] = v
			}
		}
		res.Diversity = Diversity2025(sim, c.Norm)
	case Edition2026:
		res.Score = res.TestScoreSum
		var boxes []world.Box
		for _, k := range members {
			boxes = append(boxes, tests[res.Details[k].Index].Obstacles...)
		}
		ua, err := UnionArea(boxes)
		if err != nil {
			return res, fmt.Errorf("score: union of all obstacles: %w", err)
		}
		areas := make([]float64, len(boxes))
		for i, b := range boxes {
			areas[i] = b.L * b.W
		}
		res.DUnion, res.CV = DUnion(ua, areas), CV(areas)
		res.InputDiversity = InputDiversity(res.DUnion, res.CV)
		res.OutputDiversity = OutputDiversity(finite(res.minDTW(c, tests, members)))
	}
	return res, nil
}

// minDTW averages the runs of each member test and returns δ_j (Eq. 12)
// for each, recording it in the details. A member without a path, or
// alone, gets +Inf.
func (res *SuiteResult) minDTW(c Config, tests []Test, members []int) []float64 {
	avgs := make([][]geom.Vec3, len(members))
	for m, k := range members {
		var paths [][]geom.Vec3
		for _, r := range tests[res.Details[k].Index].Runs {
			paths = append(paths, r.Path)
		}
		if c.Average == AverageDBA {
			avgs[m] = dtw.Barycenter(paths, c.Iterations)
		} else {
			avgs[m] = dtw.SoftBarycenter(paths, c.gamma(), c.Iterations)
		}
	}
	norm := c.Scale().dtw()
	band := dtw.Exact
	if c.Band > 0 {
		band = c.Band
	}
	var ws dtw.Workspace
	d := make([][]float64, len(members))
	for i := range d {
		d[i] = make([]float64, len(members))
	}
	for i := range members {
		for j := i + 1; j < len(members); j++ {
			v := ws.Normalized(avgs[i], avgs[j], band, norm)
			d[i][j], d[j][i] = v, v
		}
	}
	delta := MinDistances(d)
	for m, k := range members {
		if v := delta[m]; !math.IsInf(v, 1) {
			res.Details[k].MinDTW = &v
		}
	}
	return delta
}

// finite returns the finite values of v.
func finite(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// scoreTest scores one test from its runs, their times on basis tb.
func scoreTest(i int, t Test, tb TimeBasis) TestResult {
	d := TestResult{Index: i, Name: t.Name, Obstacles: len(t.Obstacles), Invalid: t.Invalid, Runs: []RunResult{}}
	if t.Invalid != "" {
		return d
	}
	var pts, secs, clear float64
	nClear := 0
	for _, r := range t.Runs {
		rr := RunResult{FlightTimeS: r.FlightTimeS, TimedOut: r.TimedOut}
		if !math.IsInf(r.ClearanceM, 1) {
			v := r.ClearanceM
			rr.ClearanceM = &v
		}
		if !r.TimedOut {
			rr.Points = Points(r.ClearanceM)
			if rr.ClearanceM != nil {
				clear += r.ClearanceM
				nClear++
			}
		}
		pts += rr.Points
		if tb == TimeAirborne {
			secs += r.AirborneS
		} else {
			secs += r.FlightTimeS
		}
		d.Runs = append(d.Runs, rr)
	}
	if n := float64(len(t.Runs)); n > 0 {
		d.AvgPoint = pts / n
		d.AvgTimeMin = secs / n / 60
	}
	d.Score = TestScore(d.AvgPoint, len(t.Obstacles), d.AvgTimeMin)
	if nClear > 0 {
		m := clear / float64(nClear)
		d.MeanClearanceM = &m
		d.Critical = m < CriticalM
	}
	return d
}
