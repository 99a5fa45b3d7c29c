package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/plot"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// File is one file of the output folder.
type File struct {
	Name string
	Data []byte
}

// Files renders the output folder of a generation, in the UAV Testing
// Competition's layout: the mission's plan, test_0.yaml, test_1.yaml, …
// (Aerialist YAML, closest first) each with its plot test_N.png, and
// generation.json (the outcome), and for each leg tested
// leg_N/generation.json (its outcome and tests). Nothing is written; the
// caller makes the folders.
func (o *Outcome) Files() ([]File, error) {
	planName := SafeName(o.cs.Name) + ".plan"
	plan, err := scenario.EncodePlan(o.cs.Mission)
	if err != nil {
		return nil, err
	}
	files := []File{{planName, plan}}
	area := world.DefaultArea
	var legs []plot.Segment
	for _, l := range o.Legs {
		a, b := geom.Vec2{X: l.Zone.LegA[0], Y: l.Zone.LegA[1]}, geom.Vec2{X: l.Zone.LegB[0], Y: l.Zone.LegB[1]}
		if l.CornerAt == nil {
			legs = append(legs, plot.Segment{A: a, B: b, Label: l.Name()})
			continue
		}
		// A corner: the stretches into and out of the turn.
		at := geom.Vec2{X: l.CornerAt[0], Y: l.CornerAt[1]}
		legs = append(legs, plot.Segment{A: a, B: at, Label: l.Name(), LabelAtB: true}, plot.Segment{A: at, B: b})
	}
	for r, i := range o.order {
		t := o.Tests[i]
		c := *o.cs
		c.Obstacles = t.Obstacles
		y, err := scenario.EncodeCaseStudy(&c, "case_studies/"+planName)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("test_%d", r)
		files = append(files, File{name + ".yaml", y})
		res := t.result
		note := fmt.Sprintf("distance %.2f m (obstacle %d)", t.ClearanceM, res.MinObstacle)
		if t.Predicted != nil {
			note += fmt.Sprintf(", predicted %.2f m", *t.Predicted)
		}
		if t.Leg > 0 {
			note += fmt.Sprintf(", leg %d", t.Leg)
		}
		if t.Corner > 0 {
			note += fmt.Sprintf(", corner %d", t.Corner)
		}
		fl := plot.Flight{Title: fmt.Sprintf("%s (%s, %s): %s", name, o.Mission, o.Strategy, t.Verdict), Area: &area,
			Obstacles: t.Obstacles, Planned: o.cs.Mission.Path(), Flown: trace.Positions(res.Trace), Start: true, End: true,
			Note: note, Closest: res.Closest, Legs: legs}
		var png bytes.Buffer
		if err := plot.WritePNG(&png, fl, 1200, 800); err != nil {
			return nil, fmt.Errorf("%s.png: %w", name, err)
		}
		files = append(files, File{name + ".png", png.Bytes()})
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return nil, err
	}
	files = append(files, File{"generation.json", append(b, '\n')})
	for _, l := range o.Legs {
		lg := legGeneration{LegOutcome: l, Mission: o.Mission, Strategy: o.Strategy, Tests: []Test{}}
		for _, t := range o.Tests {
			if l.has(&t) {
				lg.Tests = append(lg.Tests, t)
			}
		}
		b, err := json.MarshalIndent(lg, "", "  ")
		if err != nil {
			return nil, err
		}
		files = append(files, File{strings.ReplaceAll(l.Name(), " ", "_") + "/generation.json", append(b, '\n')})
	}
	return files, nil
}

// legGeneration is a leg's generation.json (leg_N/generation.json): the
// leg's outcome and the tests generated for it, whose rank names their
// test_N files in the folder above.
type legGeneration struct {
	Mission  string `json:"mission"`
	Strategy string `json:"strategy"`
	LegOutcome
	Tests []Test `json:"tests"`
}
