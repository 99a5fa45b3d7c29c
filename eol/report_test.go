package eol_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Golden reports, Markdown and JSON: the mower passing (the simulator's
// defaults) and failing (the seed's eol-1), and the quadrotor passing.
func TestGoldenReports(t *testing.T) {
	cases := []struct {
		name string
		rep  func(t *testing.T) *eol.Report
		want eol.Result
	}{
		{"mower-pass", func(t *testing.T) *eol.Report { return runMower(t, newMower(t, mowerCase{}), mowerCase{}, "eol-3") }, eol.Pass},
		{"mower-fail", func(t *testing.T) *eol.Report {
			c := mowerCase{noDog: true, unlimited: true}
			return runMower(t, newMower(t, c), c, "eol-1")
		}, eol.Fail},
		{"quad-pass", func(t *testing.T) *eol.Report { return runQuad(t, newQuad(t, 1), "quad-1") }, eol.Pass},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := c.rep(t)
			if rep.Result != c.want {
				t.Errorf("result: got %s; want %s\n%s", rep.Result, c.want, rep.Summary())
			}
			golden(t, c.name+".md.golden", rep.Markdown())
			golden(t, c.name+".json.golden", rep.JSON())
		})
	}
}

// The JSON is the build record's end_of_line block: serial, run id, time,
// and every check's result and measurement.
func TestJSONIsTheBuildRecordBlock(t *testing.T) {
	rep := runMower(t, newMower(t, mowerCase{}), mowerCase{}, "rec")
	var rec struct {
		EOL struct {
			Serial string `json:"serial"`
			RunID  string `json:"run_id"`
			Time   string `json:"time"`
			Result string `json:"result"`
			Checks []struct {
				ID       string   `json:"id"`
				Result   string   `json:"result"`
				Value    *float64 `json:"value"`
				Measured string   `json:"measured"`
				Limit    string   `json:"limit"`
			} `json:"checks"`
		} `json:"end_of_line"`
	}
	dec := json.NewDecoder(bytes.NewReader(rep.JSON()))
	dec.DisallowUnknownFields()
	if err := json.Unmarshal(rep.JSON(), &rec); err != nil {
		t.Fatal(err)
	}
	e := rec.EOL
	if e.Serial != "MB-0001" || e.RunID != "rec" || e.Time != "2026-01-02T03:04:05Z" || e.Result != "PASS" {
		t.Errorf("header: %+v", e)
	}
	if len(e.Checks) != len(rep.Checks) {
		t.Fatalf("checks: got %d; want %d", len(e.Checks), len(rep.Checks))
	}
	for _, c := range e.Checks {
		if c.ID == "" || c.Result == "" || c.Measured == "" || c.Limit == "" {
			t.Errorf("check without its measurement or limit: %+v", c)
		}
	}
}

// Every check of a run is in the Markdown table with its measured value.
func TestMarkdownHasEveryValue(t *testing.T) {
	rep := runMower(t, newMower(t, mowerCase{}), mowerCase{}, "md")
	md := string(rep.Markdown())
	for _, c := range rep.Checks {
		if c.Result == eol.Manual {
			if !strings.Contains(md, "- [ ] "+c.Name) {
				t.Errorf("manual check %s missing from the list", c.ID)
			}
			continue
		}
		if !strings.Contains(md, "| "+c.Measured+" |") {
			t.Errorf("measurement of %s (%q) missing from the table", c.ID, c.Measured)
		}
	}
	// The seven steps, in order.
	var steps []int
	for _, c := range rep.Checks {
		if len(steps) == 0 || steps[len(steps)-1] != c.Step {
			steps = append(steps, c.Step)
		}
	}
	if !slices.Equal(steps, []int{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("steps: got %v; want 1..7 in order", steps)
	}
}

// Two runs with the same seed write the same bytes.
func TestDeterministic(t *testing.T) {
	a := runMower(t, newMower(t, mowerCase{seed: 5}), mowerCase{}, "d").JSON()
	b := runMower(t, newMower(t, mowerCase{seed: 5}), mowerCase{}, "d").JSON()
	if !bytes.Equal(a, b) {
		t.Errorf("two runs with seed 5 differ")
	}
	qa, qb := runQuad(t, newQuad(t, 5), "q").JSON(), runQuad(t, newQuad(t, 5), "q").JSON()
	if !bytes.Equal(qa, qb) {
		t.Errorf("two quadrotor runs with seed 5 differ")
	}
}

// Both profiles pass on the simulator's defaults, whatever the seed.
func TestDefaultsPass(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		if rep := runMower(t, newMower(t, mowerCase{seed: seed}), mowerCase{}, "p"); rep.Result != eol.Pass {
			t.Errorf("mower, seed %d:\n%s", seed, rep.Summary())
		}
		if rep := runQuad(t, newQuad(t, seed), "p"); rep.Result != eol.Pass {
			t.Errorf("quad, seed %d:\n%s", seed, rep.Summary())
		}
	}
}

// The quadrotor's table expects the collision-prevention distance the
// simulated airframe is configured with.
func TestQuadTableMatchesAirframe(t *testing.T) {
	for _, th := range eol.Thresholds("quad") {
		if th.Key == "cp_dist_m" && th.Value != vehicle.QuadTestCPDistM {
			t.Errorf("cp_dist_m %v; the simulated airframe has CP_DIST %v", th.Value, vehicle.QuadTestCPDistM)
		}
	}
}

func BenchmarkRunMower(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		runMower(b, newMower(b, mowerCase{}), mowerCase{}, "bench")
	}
}

func BenchmarkRunQuad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		runQuad(b, newQuad(b, 1), "bench")
	}
}
