//go:build long

// The measurement table is not a test: it takes tens of minutes, so it is
// built only with -tags long (go test ./... neither runs nor skips it).

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shakedown-robotics/shakedown/gen/harness"
)

// tableRow is one generation of the measurement table.
type tableRow struct {
	Mission   string  `json:"mission"`
	Strategy  string  `json:"strategy"` // with its margin, e.g. "surrogate+m0.7"
	Budget    int     `json:"budget"`
	Seed      uint64  `json:"seed"`
	Critical  int     `json:"critical"`
	TimedOut  int     `json:"timed_out"`
	HitRate   float64 `json:"hit_rate"`          // critical flights / simulations
	ConfRate  float64 `json:"confirmed_rate"`    // distinct tests confirmed within the budget / simulations
	PrecFirst float64 `json:"precision_first20"` // NaN → -1 in the file
	PrecBest  float64 `json:"precision_best20"`
	SurPrec   float64 `json:"surrogate_precision"`
	RMSE      float64 `json:"rmse"`
	DIn20     float64 `json:"input_diversity_first20"`
	DOut20    float64 `json:"output_diversity_first20"`
	Legs      int     `json:"legs"` // legs and corners probed
	TrainSims int     `json:"training_simulations"`
	GenerateS float64 `json:"generate_s"`
	SimulateS float64 `json:"simulate_s"`
}

func envList(name, def string) []string {
	v := os.Getenv(name)
	if v == "" {
		v = def
	}
	return strings.Split(v, ",")
}

// TestGenerateTable produces the measurement table of issues 6 and 15: hit
// rate, precision of both evaluated populations, timed-out flights, input
// and output diversity of the first 20, and legs probed, of each strategy
// on missions 2, 4 and 5 with budgets 200 and 100 over 5 seeds (mean ±
// sd). SHAKEDOWN_TABLE_MISSIONS also takes .plan paths (the four shapes in
// gen/testdata). It takes hours and is built only with the long tag:
//
//	SHAKEDOWN_TABLE=/tmp/table go test -tags long -run TestGenerateTable -timeout 0 ./cmd/shakedown/
//
// Each generation is appended to $SHAKEDOWN_TABLE/runs.jsonl as it ends
// and skipped when already there, so an interrupted run resumes; the
// table is written to $SHAKEDOWN_TABLE/table.md. SHAKEDOWN_TABLE_MISSIONS,
// _BUDGETS, _SEEDS and _STRATEGIES (strategy[+mMARGIN][+fFLIGHTMODEL],
// comma-separated: search+foff is the search without its flight model)
// narrow it.
func TestGenerateTable(t *testing.T) {
	dir := os.Getenv("SHAKEDOWN_TABLE")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	missions := envList("SHAKEDOWN_TABLE_MISSIONS", "mission2,mission4,mission5")
	budgets := envList("SHAKEDOWN_TABLE_BUDGETS", "200,100")
	seeds := envList("SHAKEDOWN_TABLE_SEEDS", "1,2,3,4,5")
	strats := envList("SHAKEDOWN_TABLE_STRATEGIES", "random,constrained,surrogate,local,search")
	cache := os.Getenv("SHAKEDOWN_TABLE_CACHE")
	if cache == "" {
		cache = filepath.Join(dir, "cache")
	}
	runsPath := filepath.Join(dir, "runs.jsonl")
	done := map[string]tableRow{}
	key := func(m, s string, b int, seed uint64) string { return fmt.Sprintf("%s/%s/%d/%d", m, s, b, seed) }
	if fh, err := os.Open(runsPath); err == nil {
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var r tableRow
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				done[key(r.Mission, r.Strategy, r.Budget, r.Seed)] = r
			}
		}
		fh.Close()
	}
	out, err := os.OpenFile(runsPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()

	type job struct {
		mission, strat string
		budget         int
		seed           uint64
	}
	var jobs []job
	// Build the cached datasets first, one at a time.
	for _, m := range missions {
		for _, s := range strats {
			name, _, _ := tableStrategy(s)
			if name == harness.StratRandom || name == harness.StratConstrained {
				continue
			}
			f := tableFlags(cache, name, 0, 1)
			f.workers = 0
			if _, err := generate(context.Background(), io.Discard, m, 1, f); err != nil {
				t.Fatalf("%s %s: %v", m, s, err)
			}
		}
	}
	for _, m := range missions {
		for _, bs := range budgets {
			b, _ := strconv.Atoi(bs)
			for _, ss := range seeds {
				seed, _ := strconv.ParseUint(ss, 10, 64)
				for _, s := range strats {
					if _, ok := done[key(m, s, b, seed)]; !ok {
						jobs = append(jobs, job{m, s, b, seed})
					}
				}
			}
		}
	}
	t.Logf("%d generations to run, %d already done", len(jobs), len(done))
	// Two generations at a time, one simulation worker each: generation
	// is single-threaded, so this keeps both cores busy.
	var mu sync.Mutex
	next := make(chan job)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				name, margin, fm := tableStrategy(j.strat)
				f := tableFlags(cache, name, margin, j.seed)
				f.flightModel = fm
				o, err := generate(context.Background(), io.Discard, j.mission, j.budget, f)
				if err != nil {
					t.Errorf("%+v: %v", j, err)
					continue
				}
				// Each generation's outcome beside the table, to look into.
				if b, err := json.Marshal(o); err == nil {
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("gen-%s-%s-%d-%d.json", filepath.Base(j.mission), j.strat, j.budget, j.seed)), b, 0o644)
				}
				r := o.Report
				row := tableRow{Mission: j.mission, Strategy: j.strat, Budget: j.budget, Seed: j.seed, Critical: o.Critical, TimedOut: o.TimedOut,
					HitRate: r.HitRate, ConfRate: r.ConfirmedRate, PrecFirst: nanTo(float64(r.First20.Precision)), PrecBest: nanTo(float64(r.Best20.Precision)),
					SurPrec: nanTo(float64(r.SurrogatePrecision)), RMSE: nanTo(float64(r.RMSE)),
					DIn20: r.First20.InputDiversity, DOut20: r.First20.OutputDiversity, Legs: len(o.Legs),
					TrainSims: o.TrainingSims, GenerateS: o.GenerateS, SimulateS: o.SimulateS}
				line, _ := json.Marshal(row)
				mu.Lock()
				done[key(j.mission, j.strat, j.budget, j.seed)] = row
				fmt.Fprintf(out, "%s\n", line)
				mu.Unlock()
				t.Logf("%s %s budget %d seed %d: hit rate %.2f, precision %.2f/%.2f, D_in %.1f, D_out %.1f (gen %.1f s, sim %.1f s)",
					j.mission, j.strat, j.budget, j.seed, row.HitRate, row.PrecFirst, row.PrecBest, row.DIn20, row.DOut20, row.GenerateS, row.SimulateS)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()

	// The table is of the generations asked for: runs.jsonl may hold more.
	var rows []tableRow
	for _, r := range done {
		if slices.Contains(missions, r.Mission) && slices.Contains(budgets, strconv.Itoa(r.Budget)) &&
			slices.Contains(seeds, strconv.FormatUint(r.Seed, 10)) && slices.Contains(strats, r.Strategy) {
			rows = append(rows, r)
		}
	}
	md := renderTable(rows, missions, budgets, strats)
	if err := os.WriteFile(filepath.Join(dir, "table.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + md)
}

// tableStrategy parses strategy[+mMARGIN][+fFLIGHTMODEL]; the flight
// model is "" (the default) when not named.
func tableStrategy(s string) (name string, margin float64, flightModel string) {
	parts := strings.Split(s, "+")
	for _, p := range parts[1:] {
		switch {
		case strings.HasPrefix(p, "m"):
			margin, _ = strconv.ParseFloat(p[1:], 64)
		case strings.HasPrefix(p, "f"):
			flightModel = p[1:]
		}
	}
	return parts[0], margin, flightModel
}

func tableFlags(cache, strategy string, margin float64, seed uint64) generateFlags {
	return generateFlags{strategy: strategy, seed: seed, out: "unused", report: true, workers: 1, gust: defaultGust,
		timeout: 500, cacheDir: cache, rounds: harness.DefaultRefineRounds, runs: harness.DefaultReportRuns, datasetN: harness.DefaultDatasetN,
		margin: margin, quiet: true}
}

func nanTo(v float64) float64 {
	if math.IsNaN(v) {
		return -1
	}
	return v
}

// meanSD returns the mean and sample standard deviation of v, skipping
// negative values (no value).
func meanSD(v []float64) (m, sd float64, n int) {
	var xs []float64
	for _, x := range v {
		if x >= 0 {
			xs = append(xs, x)
		}
	}
	n = len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	for _, x := range xs {
		m += x
	}
	m /= float64(n)
	if n > 1 {
		for _, x := range xs {
			sd += (x - m) * (x - m)
		}
		sd = math.Sqrt(sd / float64(n-1))
	}
	return m, sd, n
}

func renderTable(rows []tableRow, missions, budgets, strats []string) string {
	var b strings.Builder
	cell := func(v []float64, scale float64, format string) string {
		m, sd, n := meanSD(v)
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf(format+" ± "+format, m*scale, sd*scale)
	}
	type col struct {
		name   string
		get    func(tableRow) float64
		scale  float64
		format string
	}
	cols := []col{
		{"hit rate % (critical flights / sims)", func(r tableRow) float64 { return r.HitRate }, 100, "%.1f"},
		{"critical tests / sims %", func(r tableRow) float64 { return float64(r.Critical) / float64(r.Budget) }, 100, "%.1f"},
		{"confirmed tests / sims %", func(r tableRow) float64 { return r.ConfRate }, 100, "%.1f"},
		{"precision first 20 %", func(r tableRow) float64 { return r.PrecFirst }, 100, "%.1f"},
		{"precision best 20 %", func(r tableRow) float64 { return r.PrecBest }, 100, "%.1f"},
		{"timed out", func(r tableRow) float64 { return float64(r.TimedOut) }, 1, "%.1f"},
		{"input diversity first 20", func(r tableRow) float64 { return r.DIn20 }, 1, "%.1f"},
		{"output diversity first 20", func(r tableRow) float64 { return r.DOut20 }, 1, "%.1f"},
		{"RMSE generated m", func(r tableRow) float64 { return r.RMSE }, 1, "%.2f"},
		{"legs and corners", func(r tableRow) float64 { return float64(r.Legs) }, 1, "%.1f"},
	}
	header := func(first string) {
		b.WriteString(first)
		for _, c := range cols {
			b.WriteString(" | " + c.name)
		}
		b.WriteString(" |\n|---" + strings.Repeat("|---:", strings.Count(first, "|")-1+len(cols)) + "|\n")
	}
	line := func(prefix string, sel []tableRow) {
		b.WriteString(prefix)
		for _, c := range cols {
			var v []float64
			for _, r := range sel {
				v = append(v, c.get(r))
			}
			b.WriteString(" | " + cell(v, c.scale, c.format))
		}
		b.WriteString(" |\n")
	}
	header("| mission | budget | strategy | seeds")
	for _, m := range missions {
		for _, bs := range budgets {
			bud, _ := strconv.Atoi(bs)
			for _, s := range strats {
				var sel []tableRow
				for _, r := range rows {
					if r.Mission == m && r.Budget == bud && r.Strategy == s {
						sel = append(sel, r)
					}
				}
				if len(sel) > 0 {
					line(fmt.Sprintf("| %s | %d | %s | %d", m, bud, s, len(sel)), sel)
				}
			}
		}
	}
	// Pooled over missions and budgets.
	b.WriteString("\n")
	header("| strategy | generations")
	for _, s := range strats {
		var sel []tableRow
		for _, r := range rows {
			if r.Strategy == s && slices.Contains(missions, r.Mission) {
				sel = append(sel, r)
			}
		}
		if len(sel) > 0 {
			line(fmt.Sprintf("| %s | %d", s, len(sel)), sel)
		}
	}
	return b.String()
}
