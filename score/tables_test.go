package score

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// paperTable is one of the paper's Tables III–V read from testdata/paper:
// the per-mission rows (inputs and printed ranks) and the overall rows.
type paperTable struct {
	tools, missions []string
	rows            map[[2]string]map[string]string // (tool, mission) → column → value
	overall         map[string]map[string]string    // tool → column → value
}

func readCSV(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "paper", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, k := range recs[0] {
			m[k] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func readPaperTable(t *testing.T, stem string) paperTable {
	t.Helper()
	p := paperTable{rows: map[[2]string]map[string]string{}, overall: map[string]map[string]string{}}
	for _, r := range readCSV(t, stem+".csv") {
		if !slices.Contains(p.tools, r["tool"]) {
			p.tools = append(p.tools, r["tool"])
		}
		if !slices.Contains(p.missions, r["mission"]) {
			p.missions = append(p.missions, r["mission"])
		}
		p.rows[[2]string{r["tool"], r["mission"]}] = r
	}
	for _, r := range readCSV(t, stem+"-overall.csv") {
		p.overall[r["tool"]] = r
	}
	if len(p.rows) != len(p.tools)*len(p.missions) || len(p.overall) != len(p.tools) {
		t.Fatalf("%s: %d rows for %d tools × %d missions, %d overall rows", stem, len(p.rows), len(p.tools), len(p.missions), len(p.overall))
	}
	return p
}

func num(t *testing.T, r map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(r[col], 64)
	if err != nil {
		t.Fatalf("%s %s: column %s = %q: %v", r["tool"], r["mission"], col, r[col], err)
	}
	return v
}

// TestPaperTables feeds each table's per-mission scores and diversities to
// Compare and checks every printed rank, every rank sum (summed from the
// printed ranks, and printed in 2024), the 2024 score sums, the 2025 and
// 2026 rank values, and each tool's place.
func TestPaperTables(t *testing.T) {
	for _, c := range []struct {
		stem string
		ed   Edition
	}{{"table3-2024", Edition2024}, {"table4-2025", Edition2025}, {"table5-2026", Edition2026}} {
		t.Run(c.stem, func(t *testing.T) {
			p := readPaperTable(t, c.stem)
			results := make([][]SuiteResult, len(p.tools))
			for i, tool := range p.tools {
				results[i] = make([]SuiteResult, len(p.missions))
				for j, m := range p.missions {
					r := p.rows[[2]string{tool, m}]
					res := SuiteResult{Tests: int(num(t, r, "tests"))}
					switch c.ed {
					case Edition2024:
						res.Score = num(t, r, "score")
					case Edition2025:
						res.Score, res.Diversity = num(t, r, "failure"), num(t, r, "diversity")
					case Edition2026:
						res.Score, res.InputDiversity, res.OutputDiversity = num(t, r, "failure"), num(t, r, "d_in"), num(t, r, "d_out")
					}
					results[i][j] = res
				}
			}
			tab, err := Compare(c.ed, p.missions, p.tools, results)
			if err != nil {
				t.Fatal(err)
			}
			for i, tool := range p.tools {
				var sums Ranks
				for j, m := range p.missions {
					r, got := p.rows[[2]string{tool, m}], tab.Cells[i][j].Ranks
					want := Ranks{}
					switch c.ed {
					case Edition2024:
						want.Score = int(num(t, r, "score_rank"))
					case Edition2025:
						want.Score, want.Diversity = int(num(t, r, "failure_rank")), int(num(t, r, "diversity_rank"))
					case Edition2026:
						want.Score, want.InputDiversity, want.OutputDiversity = int(num(t, r, "failure_rank")), int(num(t, r, "d_in_rank")), int(num(t, r, "d_out_rank"))
					}
					if got != want {
						t.Errorf("%s on %s: ranks %+v; the paper prints %+v", tool, m, got, want)
					}
					sums.Score += want.Score
					sums.Diversity += want.Diversity
					sums.InputDiversity += want.InputDiversity
					sums.OutputDiversity += want.OutputDiversity
				}
				o, ov := tab.Overall[i], p.overall[tool]
				if o.RankSums != sums {
					t.Errorf("%s: rank sums %+v; the paper's ranks sum to %+v", tool, o.RankSums, sums)
				}
				switch c.ed {
				case Edition2024:
					if got, want := o.RankSums.Score, int(num(t, ov, "rank_sum")); got != want {
						t.Errorf("%s: rank sum %d; the paper prints %d", tool, got, want)
					}
					if got, want := o.ScoreSum, num(t, ov, "score_sum"); !near2(got, want) {
						t.Errorf("%s: score sum %.4f; the paper prints %.2f", tool, got, want)
					}
				default:
					if got, want := o.Value, num(t, ov, "rank_value"); !near(got, want) {
						t.Errorf("%s: rank value %v; the paper prints %v", tool, got, want)
					}
				}
				if got, want := o.Place, int(num(t, ov, "place")); got != want {
					t.Errorf("%s: place %d; want %d", tool, got, want)
				}
			}
		})
	}
}

// near2 compares a sum of values printed with two decimals to its printed
// sum: each addend is off by at most 0.005.
func near2(got, want float64) bool {
	d := got - want
	return d > -0.0151 && d < 0.0151
}
