package mission

import (
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// ValidateBand checks the altitude parameters a queue is validated against:
// home_z must be a finite number within ±MaxCoordM and max_altitude a
// finite number > 0 and at most MaxAltitudeLimitM. (The JSON parsers refuse
// booleans and strings before a value gets here.)
func ValidateBand(homeZ, maxAltM float64) error {
	if !finite(homeZ) {
		return &ParseError{Field: "home_z", Err: ErrNotFinite, Detail: fmt.Sprint(homeZ)}
	}
	if math.Abs(homeZ) > MaxCoordM {
		return &ParseError{Field: "home_z", Err: ErrCoordRange, Detail: short(homeZ)}
	}
	if !finite(maxAltM) || maxAltM <= 0 {
		return &ParseError{Field: "max_altitude", Err: ErrMaxAltitude, Detail: fmt.Sprint(maxAltM)}
	}
	if maxAltM > MaxAltitudeLimitM {
		return &ParseError{Field: "max_altitude", Err: ErrRange, Detail: fmt.Sprintf("%s m above the limit of %s m", short(maxAltM), num(MaxAltitudeLimitM))}
	}
	return nil
}

// Fence is where waypoints may be: the altitude band
// home_z − max_altitude ≤ z ≤ home_z − ground_margin (z < home_z when the
// margin is 0, the specification's rule) and, horizontally, within
// max_hor_dist of home (PX4's GF_MAX_HOR_DIST).
type Fence struct {
	Home          geom.Vec3 // NED; only Z matters to the band
	MaxAltitudeM  float64   // max_altitude
	GroundMarginM float64   // ground_margin
	MaxHorDistM   float64   // max_hor_dist
}

// Fence returns the fence of c about home.
func (c Config) Fence(home geom.Vec3) Fence {
	return Fence{Home: home, MaxAltitudeM: c.MaxAltitudeM, GroundMarginM: c.GroundMarginM, MaxHorDistM: c.MaxHorDistM}
}

// Check checks one waypoint: finite x, y, z within ±MaxCoordM, a speed
// that is 0 (the default) or a finite number in (0, MaxSpeedMS], z in the
// band and the horizontal distance from home within MaxHorDistM (refused
// with ErrGeofence, CodeGeofence). field prefixes the error's field.
func (f Fence) Check(w Waypoint, field string) error {
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
		if math.Abs(c.v) > MaxCoordM {
			return &ParseError{Field: pre + c.name, Err: ErrCoordRange, Detail: short(c.v)}
		}
	}
	if !finite(w.SpeedMS) || w.SpeedMS < 0 {
		return &ParseError{Field: pre + "speed", Err: ErrSpeed, Detail: fmt.Sprint(w.SpeedMS)}
	}
	if w.SpeedMS > MaxSpeedMS {
		return &ParseError{Field: pre + "speed", Err: ErrSpeedRange, Detail: short(w.SpeedMS)}
	}
	homeZ, maxAltM := f.Home.Z, f.MaxAltitudeM
	lo, hi := homeZ-maxAltM, homeZ-f.GroundMarginM
	below := w.Z > hi || (f.GroundMarginM == 0 && w.Z == homeZ)
	if w.Z < lo || below {
		bound := hi
		if w.Z < lo {
			bound = lo
		}
		return &ParseError{Field: pre + "z", Err: ErrAltitude,
			Detail: fmt.Sprintf("z = %s, home_z = %s, max_altitude = %s, ground_margin = %s", numPast(w.Z, bound), num(homeZ), num(maxAltM), num(f.GroundMarginM))}
	}
	// Both terms are within 2×MaxCoordM: the distance cannot overflow.
	if d := math.Hypot(w.X-f.Home.X, w.Y-f.Home.Y); d > f.MaxHorDistM {
		return &ParseError{Field: pre + "x", Err: ErrGeofence,
			Detail: fmt.Sprintf("%s m from home (%s, %s), max_hor_dist = %s m", numPast(d, f.MaxHorDistM), num(f.Home.X), num(f.Home.Y), num(f.MaxHorDistM))}
	}
	return nil
}

// CheckMission checks a whole mission in the specification's order: the
// altitude parameters first, then the count (1 to MaxWaypoints), then every
// waypoint. It returns the first problem.
func (f Fence) CheckMission(wps []Waypoint) error {
	if err := ValidateBand(f.Home.Z, f.MaxAltitudeM); err != nil {
		return err
	}
	switch {
	case len(wps) == 0:
		return &ParseError{Field: "waypoints", Err: ErrEmptyMission}
	case len(wps) > MaxWaypoints:
		return &ParseError{Field: "waypoints", Err: ErrTooManyWaypoints, Detail: fmt.Sprintf("%d waypoints", len(wps))}
	}
	for i, w := range wps {
		if err := f.Check(w, fmt.Sprintf("waypoints[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// specFence is the specification's rule alone: no ground margin, and a
// geofence as wide as the coordinates may be.
func specFence(homeZ, maxAltM float64) Fence {
	return Fence{Home: geom.Vec3{Z: homeZ}, MaxAltitudeM: maxAltM, MaxHorDistM: MaxCoordM}
}

// ValidateWaypoint checks one waypoint against the specification's rule
// home_z − max_altitude ≤ z < home_z, with Fence.Check's bounds on x, y, z
// and speed but no ground margin and no geofence. The Machine checks the
// stricter Config.Fence.
func ValidateWaypoint(w Waypoint, homeZ, maxAltM float64, field string) error {
	return specFence(homeZ, maxAltM).Check(w, field)
}

// ValidateMission checks a whole mission as ValidateWaypoint checks one
// waypoint, after the band and the count.
func ValidateMission(wps []Waypoint, homeZ, maxAltM float64) error {
	return specFence(homeZ, maxAltM).CheckMission(wps)
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
	if !finite(f) || math.Abs(f) >= 1e12 {
		return f // beyond 1e12 m a float64 holds no millimetres to round (and f*1000 could overflow)
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
