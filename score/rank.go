package score

import "fmt"

// Ranks are a suite's ranks on one mission (1 = best), per criterion of
// its edition; the criteria an edition does not use are 0.
type Ranks struct {
	Score           int `json:"score"` // suite score (2024) or failure score
	Diversity       int `json:"diversity,omitempty"`
	InputDiversity  int `json:"input_diversity,omitempty"`
	OutputDiversity int `json:"output_diversity,omitempty"`
}

// Cell is one suite on one mission.
type Cell struct {
	SuiteResult
	Ranks Ranks `json:"ranks"`
}

// Overall is a tool's standing across the missions.
type Overall struct {
	ScoreSum float64 `json:"score_sum"` // sum of the score column over missions
	RankSums Ranks   `json:"rank_sums"` // each rank summed over missions
	// Value orders the tools: the score sum in 2024 (higher is better),
	// the rank value of Eq. 5 (2025) or Eq. 8 (2026) otherwise (lower is
	// better).
	Value float64 `json:"value"`
	Place int     `json:"place"` // rank of Value, ties shared
}

// Table is the comparison of several tools on several missions, the shape
// of the paper's Tables III (2024), IV (2025) and V (2026).
type Table struct {
	Edition  Edition   `json:"edition"`
	Missions []string  `json:"missions"`
	Tools    []string  `json:"tools"`
	Cells    [][]Cell  `json:"cells"` // [tool][mission]
	Overall  []Overall `json:"overall"`
}

// Compare ranks the results of several tools: results[t][m] is tool t's
// suite scored on mission m. On each mission the tools are ranked per
// criterion of the edition (higher scores and diversities rank first);
// the ranks are summed over the missions; and the tools are placed by the
// sum of their scores (2024) or by Eq. 5 (2025) or Eq. 8 (2026) of their
// rank sums. Ties share a rank (see Rank).
func Compare(ed Edition, missions, tools []string, results [][]SuiteResult) (Table, error) {
	if len(results) != len(tools) {
		return Table{}, fmt.Errorf("score: %d tools but results for %d", len(tools), len(results))
	}
	for t := range results {
		if len(results[t]) != len(missions) {
			return Table{}, fmt.Errorf("score: tool %s has results for %d of %d missions", tools[t], len(results[t]), len(missions))
		}
	}
	switch ed {
	case Edition2024, Edition2025, Edition2026:
	default:
		return Table{}, fmt.Errorf("%w: %d", ErrEdition, ed)
	}
	tab := Table{Edition: ed, Missions: missions, Tools: tools, Cells: make([][]Cell, len(tools)), Overall: make([]Overall, len(tools))}
	for t := range tools {
		tab.Cells[t] = make([]Cell, len(missions))
		for m := range missions {
			tab.Cells[t][m].SuiteResult = results[t][m]
		}
	}
	column := func(m int, f func(SuiteResult) float64) []int {
		v := make([]float64, len(tools))
		for t := range tools {
			v[t] = f(results[t][m])
		}
		return Rank(v, true)
	}
	for m := range missions {
		score := column(m, func(r SuiteResult) float64 { return r.Score })
		var div, in, out []int
		switch ed {
		case Edition2025:
			div = column(m, func(r SuiteResult) float64 { return r.Diversity })
		case Edition2026:
			in = column(m, func(r SuiteResult) float64 { return r.InputDiversity })
			out = column(m, func(r SuiteResult) float64 { return r.OutputDiversity })
		}
		for t := range tools {
			r := &tab.Cells[t][m].Ranks
			r.Score = score[t]
			if div != nil {
				r.Diversity = div[t]
			}
			if in != nil {
				r.InputDiversity, r.OutputDiversity = in[t], out[t]
			}
			o := &tab.Overall[t]
			o.ScoreSum += results[t][m].Score
			o.RankSums.Score += r.Score
			o.RankSums.Diversity += r.Diversity
			o.RankSums.InputDiversity += r.InputDiversity
			o.RankSums.OutputDiversity += r.OutputDiversity
		}
	}
	values := make([]float64, len(tools))
	for t := range tools {
		o := &tab.Overall[t]
		s := o.RankSums
		switch ed {
		case Edition2024:
			o.Value = o.ScoreSum
		case Edition2025:
			o.Value = OverallRank2025(float64(s.Score), float64(s.Diversity))
		case Edition2026:
			o.Value = OverallRank2026(float64(s.Score), float64(s.InputDiversity), float64(s.OutputDiversity))
		}
		values[t] = o.Value
	}
	places := Rank(values, ed == Edition2024)
	for t := range tools {
		tab.Overall[t].Place = places[t]
	}
	return tab, nil
}
