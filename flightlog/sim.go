package flightlog

import (
	"fmt"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// SimRecorder records an embedded simulator into a Writer: hand its Sample
// method to vehicle.SimConfig.OnRecord. Each sample writes the true pose,
// the autopilot's new events and the sensors' samples that are new since the
// previous one.
type SimRecorder struct {
	W    *Writer
	Home scenario.LatLonAlt // for the GNSS latitude and longitude; zero = PX4 SITL's spawn point

	events    int
	crashed   bool
	lastGNSS  float64
	lastRange float64
	lastBat   float64
	started   bool
}

// Sample is the simulator's OnRecord hook.
func (r *SimRecorder) Sample(s *vehicle.Sim) {
	if !r.started {
		r.started = true
		r.lastGNSS, r.lastRange, r.lastBat = -1, -1, -1
		if r.Home == (scenario.LatLonAlt{}) {
			r.Home = scenario.SITLHome
		}
	}
	t := s.Time()
	tr := s.Quad().Truth()
	r.W.Pose(t, tr.Pos, tr.Att)
	if ev := s.Events(); len(ev) > r.events {
		for _, e := range ev[r.events:] {
			r.W.Event(e.T, LevelInfo, "autopilot", e.Text)
		}
		r.events = len(ev)
	}
	if c, ok := s.Crash(); ok && !r.crashed {
		// The crash as it happens (the sample after the contact, within the
		// recording period), not only with the run's verdict.
		r.crashed = true
		what := "the ground"
		if c.Obstacle >= 0 {
			what = fmt.Sprintf("obstacle %d", c.Obstacle+1)
		}
		r.W.Event(t, LevelError, "crash", fmt.Sprintf("crashed into %s at t = %.2f s, %.1f m/s, at (%.2f, %.2f, %.2f) NED",
			what, c.T, c.SpeedMS, c.Pos.X, c.Pos.Y, c.Pos.Z))
	}
	tel := s.Telemetry()
	r.W.WriteIMU(t, IMU{AccelMS2: tel.IMU.Accel, GyroRadS: tel.IMU.Gyro})
	if g := tel.GNSS; g.T != r.lastGNSS {
		r.lastGNSS = g.T
		lat, lon := scenario.Unproject(r.Home, g.Pos.XY())
		r.W.WriteGNSS(t, GNSS{Fix: g.Fix, Satellites: g.Satellites, EphM: g.EphM, EpvM: g.EpvM, Pos: g.Pos,
			LatDeg: lat, LonDeg: lon, Alt: r.Home.AltM - g.Pos.Z, Valid: g.Fix >= 2})
	}
	if b := tel.Battery; b.T != r.lastBat {
		r.lastBat = b.T
		r.W.WriteBattery(t, b.VoltageV, b.CurrentA, b.Remaining)
	}
	if rg := tel.Range; rg.Ranges != nil && rg.T != r.lastRange {
		r.lastRange = rg.T
		r.W.WriteRange(t, rg.Ranges, rg.MaxM)
	}
}
