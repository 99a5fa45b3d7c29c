package mission

import (
	"fmt"
	"math"
)

// ValidateBand checks the altitude parameters a queue is validated against:
// home_z must be a finite number and max_altitude a finite number > 0. (The
// JSON parsers refuse booleans and strings before a value gets here.)
func ValidateBand(homeZ, maxAltM float64) error {
	if !finite(homeZ) {
		return &ParseError{Field: "home_z", Err: ErrNotFinite, Detail: fmt.Sprint(homeZ)}
	}
	if !finite(maxAltM) || maxAltM <= 0 {
		return &ParseError{Field: "max_altitude", Err: ErrMaxAltitude, Detail: fmt.Sprint(maxAltM)}
	}
	return nil
}

// ValidateWaypoint checks one waypoint: finite x, y, z with
// home_z − max_altitude ≤ z < home_z (NED, z down), and a speed that is 0
// (the default) or a finite number > 0. field prefixes the error's field.
func ValidateWaypoint(w Waypoint, homeZ, maxAltM float64, field string) error {
	pre := field
	if pre != "" {
		pre += "."
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"x", w.X}, {"y", w.Y}, {"z", w.Z}} {
		if !finite(c.v) {
			return &ParseError{Field: pre + c.name, Err: ErrNotFinite, Detail: fmt.Sprint(c.v)}
		}
	}
	if !finite(w.SpeedMS) || w.SpeedMS < 0 {
		return &ParseError{Field: pre + "speed", Err: ErrSpeed, Detail: fmt.Sprint(w.SpeedMS)}
	}
	if lo := homeZ - maxAltM; !(w.Z >= lo && w.Z < homeZ) {
		bound := homeZ
		if w.Z < lo {
			bound = lo
		}
		return &ParseError{Field: pre + "z", Err: ErrAltitude,
			Detail: fmt.Sprintf("z = %s, home_z = %s, max_altitude = %s", numPast(w.Z, bound), num(homeZ), num(maxAltM))}
	}
	return nil
}

// ValidateMission checks a whole mission in the specification's order: the
// altitude parameters first, then the count (1 to MaxWaypoints), then every
// waypoint. It returns the first problem.
func ValidateMission(wps []Waypoint, homeZ, maxAltM float64) error {
	if err := ValidateBand(homeZ, maxAltM); err != nil {
		return err
	}
	switch {
	case len(wps) == 0:
		return &ParseError{Field: "waypoints", Err: ErrEmptyMission}
	case len(wps) > MaxWaypoints:
		return &ParseError{Field: "waypoints", Err: ErrTooManyWaypoints, Detail: fmt.Sprintf("%d waypoints", len(wps))}
	}
	for i, w := range wps {
		if err := ValidateWaypoint(w, homeZ, maxAltM, fmt.Sprintf("waypoints[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// queue is the waypoint queue. index is the current waypoint while the
// queue is live; completed counts waypoints reached.
type queue struct {
	state     QueueState
	wps       []Waypoint
	index     int
	completed int
}

// QueueStatus is the queue as the status shows it (mission_queue).
// CurrentIndex counts from 0 and is nil unless the queue is live; Remaining
// includes the current waypoint and is 0 unless the queue is live.
type QueueStatus struct {
	State        string `json:"state"`
	Total        int    `json:"total"`
	Completed    int    `json:"completed"`
	CurrentIndex *int   `json:"current_index"`
	Remaining    int    `json:"remaining"`
}

func (q *queue) status() QueueStatus {
	s := QueueStatus{State: q.state.String(), Total: len(q.wps), Completed: q.completed}
	if q.state.Live() {
		i := q.index
		s.CurrentIndex = &i
		s.Remaining = len(q.wps) - q.index
	}
	return s
}

func (s QueueStatus) String() string {
	idx := "null"
	if s.CurrentIndex != nil {
		idx = fmt.Sprint(*s.CurrentIndex)
	}
	return fmt.Sprintf("queue %s total=%d completed=%d current_index=%s remaining=%d",
		s.State, s.Total, s.Completed, idx, s.Remaining)
}

// end moves a live queue to a terminal state, keeping total and completed.
func (q *queue) end(st QueueState) bool {
	if !q.state.Live() {
		return false
	}
	q.state = st
	return true
}

// round3 rounds to millimetres (and milliseconds) for a byte-stable status.
func round3(f float64) float64 {
	if !finite(f) {
		return f
	}
	r := math.Round(f*1000) / 1000
	if r == 0 {
		return 0
	}
	return r
}

// Waypoints returns a copy of the waypoints of the current or last queue
// (nil before any was loaded), for displays.
func (m *Machine) Waypoints() []Waypoint { return append([]Waypoint(nil), m.q.wps...) }
