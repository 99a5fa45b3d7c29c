// Package campaigntest builds campaigns for tests: constrained-random
// two-obstacle tests of the canonical mission, as `shakedown dataset`
// draws them.
package campaigntest

import (
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/world"
)

// Jobs returns n jobs: constrained-random tests of the canonical mission
// drawn from seed, flown with gusts of 0.3 m/s, each with its own noise
// seed, stopped after timeoutS simulated seconds (0 = the competition's
// 500). A short timeout makes cheap jobs that still fly past obstacles.
func Jobs(n int, seed uint64, timeoutS float64) ([]campaign.Job, error) {
	cs, err := scenario.Builtin("canonical")
	if err != nil {
		return nil, err
	}
	leg, err := gen.LongestLeg(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		return nil, err
	}
	g := gen.Generator{Leg: leg, Area: world.DefaultArea, Valid: func(b []world.Box) bool { return scenario.DefaultRules.Check(b) == nil }}
	rng := rand.New(rand.NewPCG(seed, 0xda7a))
	wind := sim.WindConfig{GustSigmaMS: 0.3, GustTauS: 2}
	jobs := make([]campaign.Job, n)
	for i := range jobs {
		t, err := g.Constrained(rng)
		if err != nil {
			return nil, err
		}
		c := *cs
		c.Obstacles = t.Obstacles
		jobs[i], err = campaign.NewJob(&c, run.Options{Seed: run.RunSeed(seed, i), TimeoutS: timeoutS, Wind: wind}, 0, false)
		if err != nil {
			return nil, err
		}
	}
	return jobs, nil
}
