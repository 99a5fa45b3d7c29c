package gen

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// noisyFlight stands in for a simulator with run-to-run noise: a test
// whose obstacle 1 covers the point (-3, 24) of mission2's long leg fails
// on every flight (0.2 m), one whose obstacle 1 covers (-2.2, 17) just fails
// on every flight (1.4 m), one whose obstacle 1 covers (-3, 33) fails only
// on its even flights (0.4 m, else 2.5 m: a fluke), and any other test
// passes by the distance of obstacle 1 to the nearer point plus 1.5 m.
// flight is the test's flight number, from 0.
func noisyFlight(boxes []world.Box, flight int) float64 {
	robust, noisy, marginal := geom.Vec2{X: -3, Y: 24}, geom.Vec2{X: -3, Y: 33}, geom.Vec2{X: -2.2, Y: 17}
	switch {
	case boxes[0].Contains(robust):
		return 0.2
	case boxes[0].Contains(marginal):
		return 1.4
	case boxes[0].Contains(noisy):
		if flight%2 == 0 {
			return 0.4
		}
		return 2.5
	}
	return 1.5 + min(boxes[0].Distance(robust), boxes[0].Distance(noisy))
}

type searchRun struct {
	s       *Search
	props   []Proposal
	dist    []float64
	flights map[string][]float64 // each test's flights, by its boxes
}

func runSearch(t *testing.T, seed uint64, budget int, valid func([]world.Box) bool) searchRun {
	t.Helper()
	return runSearchPaths(t, seed, budget, valid, nil)
}

// runSearchPaths is runSearch with the search told where each failure
// flew, a path of one point at the first obstacle's centre, and similar
// (nil: no Similar) to compare them.
func runSearchPaths(t *testing.T, seed uint64, budget int, valid func([]world.Box) bool, similar func(a, b []geom.Vec3) bool) searchRun {
	t.Helper()
	f := canonicalFrame(t)
	inner := &Baseline{Draw: f.Generator(valid).Constrained, Frame: &f, Rng: rand.New(rand.NewPCG(seed, 1))}
	r := searchRun{s: &Search{Inner: inner, Valid: valid, Similar: similar, Rng: rand.New(rand.NewPCG(seed, 2))}, flights: map[string][]float64{}}
	for len(r.props) < budget {
		ps, err := r.s.Propose(budget - len(r.props))
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			break
		}
		if len(ps) > budget-len(r.props) {
			t.Fatalf("%d proposals for %d simulations left", len(ps), budget-len(r.props))
		}
		d := make([]float64, len(ps))
		for i, p := range ps {
			if p.Refly > 0 {
				if p.Refly > len(r.props) || r.props[p.Refly-1].Refly != 0 || !slices.Equal(r.props[p.Refly-1].Obstacles, p.Obstacles) {
					t.Fatalf("proposal %d re-flies %d, which is no test proposed before with its boxes", len(r.props)+i, p.Refly-1)
				}
			}
			k := boxKey(p.Obstacles)
			d[i] = noisyFlight(p.Obstacles, len(r.flights[k]))
			r.flights[k] = append(r.flights[k], d[i])
		}
		if similar != nil {
			paths := make([][]geom.Vec3, len(ps))
			for i, p := range ps {
				if d[i] < 1.5 {
					paths[i] = []geom.Vec3{{X: p.Obstacles[0].X, Y: p.Obstacles[0].Y}}
				}
			}
			if err := r.s.ObservePaths(paths); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.s.Observe(d); err != nil {
			t.Fatal(err)
		}
		r.props, r.dist = append(r.props, ps...), append(r.dist, d...)
	}
	return r
}

// propKey encodes what the proposals ask to fly (Pred is NaN, which JSON
// refuses).
func propKey(t *testing.T, ps []Proposal) string {
	t.Helper()
	type fly struct {
		Obstacles  []world.Box
		Leg, Refly int
	}
	var fs []fly
	for _, p := range ps {
		fs = append(fs, fly{p.Obstacles, p.Leg, p.Refly})
	}
	b, err := json.Marshal(fs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func boxKey(b []world.Box) string {
	k, _ := json.Marshal(b)
	return string(k)
}

// The search spends the budget exactly, proposes only tests Valid accepts
// (re-flights of earlier tests aside), and the same seed gives the same
// proposals, byte for byte.
func TestSearchBudgetValidDeterministic(t *testing.T) {
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	for _, budget := range []int{1, 2, 7, 40, 61} {
		r := runSearch(t, 3, budget, valid)
		if len(r.props) != budget {
			t.Errorf("budget %d: %d simulations", budget, len(r.props))
		}
		again := runSearch(t, 3, budget, valid)
		if a, b := propKey(t, r.props), propKey(t, again.props); a != b {
			t.Errorf("budget %d: the same seed proposed other tests", budget)
		}
	}
	// A Valid that refuses every box narrower than 3 m: no new test of the
	// search has one.
	wide := func(b []world.Box) bool {
		for _, x := range b {
			if x.W < 3 || x.L < 3 {
				return false
			}
		}
		return valid(b)
	}
	r := runSearch(t, 4, 40, wide)
	for i, p := range r.props {
		if p.Refly == 0 && !wide(p.Obstacles) {
			t.Errorf("proposal %d: %v refused by Valid", i, p.Obstacles)
		}
	}
}

// Known answers of the confirmation: a test is flown again only after
// failures (but for the last two flights, which go to the closest tests
// not confirmed); the robust failure gets three flights (no failure is left
// with fewer at the end of the budget, and the last flights do not go to
// a confirmed one), the marginal one (1.4 m) three to DefaultMaxFlights times, the fluke (a failure on
// its first flight, not its second) exactly two and a pass one; the search
// counts them and finds more robust failures than its seeds did.
func TestSearchConfirms(t *testing.T) {
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	r := runSearch(t, 1, 80, valid)
	robust, flukes, marginal, beyond := 0, 0, 0, 0
	// The flights before the last two: those, too few to confirm a new
	// test, may go to any test not confirmed.
	early := map[string][]float64{}
	for i, p := range r.props[:len(r.props)-2] {
		early[boxKey(p.Obstacles)] = append(early[boxKey(p.Obstacles)], r.dist[i])
	}
	for k, fs := range r.flights {
		var boxes []world.Box
		if err := json.Unmarshal([]byte(k), &boxes); err != nil {
			t.Fatal(err)
		}
		for i := range early[k][:max(0, len(early[k])-1)] {
			if !(fs[i] < 1.5) {
				t.Fatalf("%v flown again after a flight that was no failure: %v", boxes, fs)
			}
		}
		switch noisyFlight(boxes, 0) {
		case 0.2:
			robust++
			if len(fs) != 3 {
				t.Errorf("robust failure %v flown %d times; want 3", boxes, len(fs))
			}
		case 1.4:
			marginal++
			if len(fs) < 3 || len(fs) > DefaultMaxFlights {
				t.Errorf("marginal failure %v flown %d times; want 3 to %d", boxes, len(fs), DefaultMaxFlights)
			}
			if len(fs) > 3 {
				beyond++
			}
		case 0.4:
			flukes++
			if len(early[k]) != 2 {
				t.Errorf("the fluke %v was flown %d times: %v; want 2 (disproved by its second flight)", boxes, len(fs), fs)
			}
		default:
			if len(early[k]) > 1 {
				t.Errorf("the pass %v was flown %d times", boxes, len(fs))
			}
		}
	}
	if flukes == 0 || marginal == 0 || beyond == 0 {
		t.Errorf("%d flukes, %d marginal failures (%d flown more than 3 times): the test does not exercise the confirmation", flukes, marginal, beyond)
	}
	if r.s.Stats.Robust != robust || r.s.Stats.Confirmed != robust+marginal {
		t.Errorf("stats %+v; want %d robust, %d confirmed", r.s.Stats, robust, robust+marginal)
	}
	seeds := SearchConfig{}.SeedCount(80)
	seedRobust := 0
	for _, p := range r.props[:seeds] {
		if noisyFlight(p.Obstacles, 0) == 0.2 {
			seedRobust++
		}
	}
	if robust <= seedRobust || robust < 5 {
		t.Errorf("%d robust failures, %d of them among the %d seeds; want the search to find more", robust, seedRobust, seeds)
	}
	t.Logf("%d robust failures (%d among the seeds), %d marginal (%d flown more than 3 times), %d flukes, stats %+v", robust, seedRobust, marginal, beyond, flukes, r.s.Stats)
}

// With Similar, a failure that flies as an earlier failure still standing
// (confirmed or being confirmed) is a duplicate: flown once, never again,
// and no parent; no two confirmed failures fly similarly; the budget is
// spent as before. Without it no test is a duplicate.
func TestSearchDuplicates(t *testing.T) {
	valid := func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }
	const similarM = 1.0
	similar := func(a, b []geom.Vec3) bool { return a[0].Sub(b[0]).Norm() < similarM }
	r := runSearchPaths(t, 1, 80, valid, similar)
	if len(r.props) != 80 {
		t.Fatalf("%d simulations; want 80", len(r.props))
	}
	var tests []Proposal // first proposals, in order: the search's tests
	for _, p := range r.props {
		if p.Refly == 0 {
			tests = append(tests, p)
		}
	}
	dups := 0
	var confirmed []int
	for i, p := range tests {
		fs := r.flights[boxKey(p.Obstacles)]
		j := r.s.DuplicateOf(i)
		if j < 0 {
			if len(fs) >= 3 && slices.IndexFunc(fs, func(d float64) bool { return !(d < 1.5) }) < 0 {
				confirmed = append(confirmed, i)
			}
			continue
		}
		dups++
		if len(fs) != 1 || !(fs[0] < 1.5) || r.s.tests[i].children != 0 {
			t.Errorf("duplicate %d flown %v, %d mutants; want one failing flight and none", i, fs, r.s.tests[i].children)
		}
		q := tests[j]
		if j >= i || !similar([]geom.Vec3{{X: p.Obstacles[0].X, Y: p.Obstacles[0].Y}}, []geom.Vec3{{X: q.Obstacles[0].X, Y: q.Obstacles[0].Y}}) {
			t.Errorf("test %d is a duplicate of %d, which is not an earlier similar failure", i, j)
		}
		if qf := r.flights[boxKey(q.Obstacles)]; slices.IndexFunc(qf, func(d float64) bool { return !(d < 1.5) }) >= 0 {
			t.Errorf("test %d is a duplicate of %d, which was disproved: %v", i, j, qf)
		}
	}
	for _, i := range r.s.parents() {
		if r.s.DuplicateOf(i) >= 0 {
			t.Errorf("duplicate %d may be a parent", i)
		}
	}
	for a, i := range confirmed {
		for _, j := range confirmed[a+1:] {
			if d := tests[i].Obstacles[0].Center().Sub(tests[j].Obstacles[0].Center()).Norm(); d < similarM {
				t.Errorf("confirmed failures %d and %d fly similarly (%.2f m apart)", i, j, d)
			}
		}
	}
	if dups == 0 || dups != r.s.Stats.Duplicates || len(confirmed) != r.s.Stats.Confirmed || len(confirmed) < 2 {
		t.Errorf("%d duplicates, %d confirmed, stats %+v; want some of each, as counted", dups, len(confirmed), r.s.Stats)
	}
	plain := runSearch(t, 1, 80, valid)
	for i := range plain.s.tests {
		if plain.s.DuplicateOf(i) >= 0 {
			t.Fatalf("without Similar, test %d is a duplicate", i)
		}
	}
	t.Logf("%d duplicates, %d confirmed, stats %+v", dups, len(confirmed), r.s.Stats)
}

// scriptedInner proposes one 5-m box at each x in turn.
type scriptedInner struct{ xs []float64 }

func (s *scriptedInner) Propose(max int) ([]Proposal, error) {
	var ps []Proposal
	for len(ps) < max && len(s.xs) > 0 {
		ps = append(ps, Proposal{Obstacles: []world.Box{{L: 5, W: 5, H: 10, X: s.xs[0], Y: 20}}, Pred: math.NaN()})
		s.xs = s.xs[1:]
	}
	return ps, nil
}

func (s *scriptedInner) Observe([]float64) error { return nil }

// driveScripted spends budget on s, the k-th flight of the test whose box
// is at x giving fly(x, k), every failure's path one point at (x, 0); it
// returns each test's flights by x.
func driveScripted(t *testing.T, s *Search, budget int, fly func(x float64, k int) float64) map[float64][]float64 {
	t.Helper()
	flights := map[float64][]float64{}
	for done := 0; done < budget; {
		ps, err := s.Propose(budget - done)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			break
		}
		d := make([]float64, len(ps))
		paths := make([][]geom.Vec3, len(ps))
		for i, p := range ps {
			x := p.Obstacles[0].X
			d[i] = fly(x, len(flights[x]))
			flights[x] = append(flights[x], d[i])
			if d[i] < 1.5 {
				paths[i] = []geom.Vec3{{X: x}}
			}
		}
		if err := s.ObservePaths(paths); err != nil {
			t.Fatal(err)
		}
		if err := s.Observe(d); err != nil {
			t.Fatal(err)
		}
		done += len(ps)
	}
	return flights
}

func nearX(a, b []geom.Vec3) bool { return math.Abs(a[0].X-b[0].X) < 1 }

// A chain of modes, A ~ B ~ C but not A ~ C: B repeats A, C is a mode of
// its own and is confirmed; when A is disproved (its third flight), B
// repeats C, the confirmed one, and is flown no more; C never becomes a
// duplicate.
func TestSearchDuplicateFreed(t *testing.T) {
	s := &Search{Inner: &scriptedInner{xs: []float64{0, 0.8, 1.6}}, Valid: func([]world.Box) bool { return false },
		Similar: nearX, Rng: rand.New(rand.NewPCG(1, 2)), Config: SearchConfig{SeedShare: 0.3}}
	flights := driveScripted(t, s, 10, func(x float64, k int) float64 {
		if x == 0 && k == 2 {
			return 2.5
		}
		return 0.2
	})
	if got := flights[0.8]; len(got) != 1 {
		t.Errorf("B flown %v; want once", got)
	}
	if got := flights[1.6]; len(got) < 3 {
		t.Errorf("C flown %v; want confirmed", got)
	}
	if a, b, c := s.DuplicateOf(0), s.DuplicateOf(1), s.DuplicateOf(2); a != -1 || b != 2 || c != -1 {
		t.Errorf("duplicates of A, B, C: %d, %d, %d; want -1, 2 (C), -1", a, b, c)
	}
	if s.Stats.Confirmed != 1 || s.Stats.Duplicates != 1 {
		t.Errorf("stats %+v; want 1 confirmed, 1 duplicate", s.Stats)
	}
}

// Every test fails and flies alike: one mode, confirmed; the others are
// its duplicates, flown once, even when the last flights of the budget
// have nothing else to go to.
func TestSearchLastFlightsSkipDuplicates(t *testing.T) {
	s := &Search{Inner: &scriptedInner{xs: []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5}}, Valid: func([]world.Box) bool { return false },
		Similar: nearX, Rng: rand.New(rand.NewPCG(1, 2))}
	flights := driveScripted(t, s, 10, func(x float64, k int) float64 { return 0.2 })
	for x, fs := range flights {
		if x != 0 && len(fs) != 1 {
			t.Errorf("the duplicate at x=%v was flown %d times", x, len(fs))
		}
	}
	if s.Stats.Confirmed != 1 || s.Stats.Duplicates != 5 {
		t.Errorf("stats %+v; want 1 confirmed, 5 duplicates", s.Stats)
	}
}
