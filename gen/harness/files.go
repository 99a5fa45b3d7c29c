package harness

import (
	"bytes"
	"encoding/json"
	"fmt"

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
// generation.json (the outcome). Nothing is written; the caller makes the
// folder.
func (o *Outcome) Files() ([]File, error) {
	planName := SafeName(o.cs.Name) + ".plan"
	plan, err := scenario.EncodePlan(o.cs.Mission)
	if err != nil {
		return nil, err
	}
	files := []File{{planName, plan}}
	area := world.DefaultArea
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
		fl := plot.Flight{Title: fmt.Sprintf("%s (%s, %s): %s", name, o.Mission, o.Strategy, t.Verdict), Area: &area,
			Obstacles: t.Obstacles, Planned: o.cs.Mission.Path(), Flown: trace.Positions(res.Trace), Start: true, End: true,
			Note: note, Closest: res.Closest}
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
	return files, nil
}
