// Package blackbox is the flight-event recorder of the mission manager: a
// bounded ring of events (state transitions with their FAILSAFE reasons,
// mission milestones, operator commands) and its two exports,
// flight_events.csv and flight_events_summary.json.
//
// The ring keeps the newest Max events; when full it drops the oldest and
// counts the drop. Sequence numbers are global and never wrap or restart, so
// the seq range of an export says which part of the flight it covers, and
// several exports can be joined by seq. Recording allocates nothing once the
// ring is allocated.
//
// The package is pure: it writes to an io.Writer and never touches files;
// the daemon writes the exports atomically.
package blackbox

import (
	"errors"
	"fmt"
)

// DefaultMaxEvents is the ring's default size (record_max_events).
const DefaultMaxEvents = 500

// Kinds the summary understands; any other kind is counted as is.
const (
	KindTransition = "transition"
	StateFailsafe  = "FAILSAFE"
)

// ErrMaxEvents is returned by New for a size below 1.
var ErrMaxEvents = errors.New("blackbox: record_max_events must be at least 1")

// Event is one recorded event.
type Event struct {
	Seq    uint64  `json:"seq"`
	TimeS  float64 `json:"time_s"`
	Kind   string  `json:"kind"`
	State  string  `json:"state"`
	Detail string  `json:"detail"`
}

// Recorder is the ring buffer. Its methods must not be called concurrently.
type Recorder struct {
	ring    []Event
	start   int // index of the oldest event
	n       int // events held
	seq     uint64
	dropped uint64
}

// New returns a recorder that keeps the newest max events.
func New(max int) (*Recorder, error) {
	if max < 1 {
		return nil, fmt.Errorf("%w (got %d)", ErrMaxEvents, max)
	}
	return &Recorder{ring: make([]Event, max)}, nil
}

// Record appends an event at timeS and returns its sequence number. When
// the ring is full the oldest event is dropped and counted.
func (r *Recorder) Record(timeS float64, kind, state, detail string) uint64 {
	r.seq++
	e := Event{Seq: r.seq, TimeS: timeS, Kind: kind, State: state, Detail: detail}
	if r.n < len(r.ring) {
		r.ring[(r.start+r.n)%len(r.ring)] = e
		r.n++
		return r.seq
	}
	r.ring[r.start] = e
	r.start = (r.start + 1) % len(r.ring)
	r.dropped++
	return r.seq
}

// Len returns the number of events held.
func (r *Recorder) Len() int { return r.n }

// Max returns the ring's size.
func (r *Recorder) Max() int { return len(r.ring) }

// Dropped returns how many events were dropped to make room.
func (r *Recorder) Dropped() uint64 { return r.dropped }

// Seq returns the sequence number of the last event recorded (0 before any).
func (r *Recorder) Seq() uint64 { return r.seq }

// Events appends the held events to dst, oldest first, and returns it.
func (r *Recorder) Events(dst []Event) []Event {
	for i := 0; i < r.n; i++ {
		dst = append(dst, r.ring[(r.start+i)%len(r.ring)])
	}
	return dst
}
