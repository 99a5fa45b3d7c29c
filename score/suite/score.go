package suite

import (
	"fmt"

	"github.com/shakedown-robotics/shakedown/score"
)

// Score scores every suite (data[tool][mission], each with its Plan and
// the runs of its planned tests) with cfg and ranks the tools per mission
// and overall: results[tool][mission] and the table of score.Compare.
func Score(cfg score.Config, data [][]*Suite, tools, missions []string) (score.Table, [][]score.SuiteResult, error) {
	results := make([][]score.SuiteResult, len(data))
	for t := range data {
		results[t] = make([]score.SuiteResult, len(data[t]))
		for m, sd := range data[t] {
			tests := make([]score.Test, len(sd.Tests))
			for i, st := range sd.Tests {
				tests[i] = st.Test
			}
			r, err := score.Evaluate(cfg, tests, sd.Plan)
			if err != nil {
				return score.Table{}, nil, fmt.Errorf("%s/%s: %w", tools[t], missions[m], err)
			}
			results[t][m] = r
		}
	}
	tab, err := score.Compare(cfg.Edition, missions, tools, results)
	if err != nil {
		return score.Table{}, nil, err
	}
	return tab, results, nil
}

// Evaluated reports whether test i of a suite was scored in r (it is in
// the suite's plan and was not left out).
func Evaluated(r score.SuiteResult, i int) bool {
	for _, d := range r.Details {
		if d.Index == i {
			return true
		}
	}
	return false
}
