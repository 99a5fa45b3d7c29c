package run

import (
	"fmt"
	"io"

	"github.com/shakedown-robotics/shakedown/flightlog"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// recorder writes a flight to an MCAP file as the simulation runs.
type recorder struct {
	flightlog.SimRecorder
}

func newRecorder(out io.Writer, cs *scenario.CaseStudy) (*recorder, error) {
	w, err := flightlog.New(out)
	if err != nil {
		return nil, err
	}
	area := world.DefaultArea
	w.Scene(0, &area, cs.Obstacles)
	w.IdealPath(0, cs.Mission.Path())
	w.Event(0, flightlog.LevelInfo, "run", fmt.Sprintf("%s: %d obstacles", cs.Name, len(cs.Obstacles)))
	return &recorder{flightlog.SimRecorder{W: w, Home: cs.Mission.Home}}, nil
}

// sample is the simulator's OnRecord hook (10 Hz).
func (r *recorder) sample(s *vehicle.Sim) { r.Sample(s) }

// finish writes the verdict and closes the file.
func (r *recorder) finish(s *vehicle.Sim, res *Result) error {
	r.sample(s)
	level := flightlog.LevelInfo
	if !res.Completed || res.Verdict != VerdictPass {
		level = flightlog.LevelWarning
	}
	if len(res.Collisions) > 0 {
		level = flightlog.LevelError
	}
	r.W.Event(s.Time(), level, "verdict", fmt.Sprintf("%s: %s", res.Verdict, res.Reason))
	r.W.Finish(s.Time())
	return r.W.Close()
}
