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
	w         *flightlog.Writer
	home      scenario.LatLonAlt
	events    int
	lastGNSS  float64
	lastRange float64
	lastBat   float64
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
	return &recorder{w: w, home: cs.Mission.Home, lastGNSS: -1, lastRange: -1, lastBat: -1}, nil
}

// sample is the simulator's OnRecord hook (10 Hz): the true pose, new
// autopilot events and the sensors' samples that are new since the last
// call.
func (r *recorder) sample(s *vehicle.Sim) {
	t := s.Time()
	tr := s.Quad().Truth()
	r.w.Pose(t, tr.Pos, tr.Att)
	if ev := s.Events(); len(ev) > r.events {
		for _, e := range ev[r.events:] {
			r.w.Event(e.T, flightlog.LevelInfo, "autopilot", e.Text)
		}
		r.events = len(ev)
	}
	tel := s.Telemetry()
	r.w.WriteIMU(t, flightlog.IMU{AccelMS2: tel.IMU.Accel, GyroRadS: tel.IMU.Gyro})
	if g := tel.GNSS; g.T != r.lastGNSS {
		r.lastGNSS = g.T
		lat, lon := scenario.Unproject(r.home, g.Pos.XY())
		r.w.WriteGNSS(t, flightlog.GNSS{Fix: g.Fix, Satellites: g.Satellites, EphM: g.EphM, EpvM: g.EpvM, Pos: g.Pos,
			LatDeg: lat, LonDeg: lon, Alt: r.home.AltM - g.Pos.Z, Valid: g.Fix >= 2})
	}
	if b := tel.Battery; b.T != r.lastBat {
		r.lastBat = b.T
		r.w.WriteBattery(t, b.VoltageV, b.CurrentA, b.Remaining)
	}
	if rg := tel.Range; rg.Ranges != nil && rg.T != r.lastRange {
		r.lastRange = rg.T
		r.w.WriteRange(t, rg.Ranges, rg.MaxM)
	}
}

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
	r.w.Event(s.Time(), level, "verdict", fmt.Sprintf("%s: %s", res.Verdict, res.Reason))
	r.w.Finish(s.Time())
	return r.w.Close()
}
