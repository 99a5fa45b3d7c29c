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
//
// Refused commands are kept in a ring of their own (RefusalCap of the
// size), so that a flood of refusals cannot push a transition out of the
// main ring; the refusals it drops are counted apart (DroppedRefusals).
type Recorder struct {
	main     ring
	refusals ring
	seq      uint64
}

// ring is one bounded ring of events, oldest first from start.
type ring struct {
	ev      []Event
	start   int
	n       int
	dropped uint64
}

func (r *ring) add(e Event) {
	if r.n < len(r.ev) {
		r.ev[(r.start+r.n)%len(r.ev)] = e
		r.n++
		return
	}
	r.ev[r.start] = e
	r.start = (r.start + 1) % len(r.ev)
	r.dropped++
}

func (r *ring) at(i int) Event { return r.ev[(r.start+i)%len(r.ev)] }

// RefusalCap returns the size of the refusal ring of a recorder of size
// max: a fifth of it, at least 1.
func RefusalCap(max int) int { return (max + 4) / 5 }

// New returns a recorder that keeps the newest max events, and apart from
// them the newest RefusalCap(max) refused commands.
func New(max int) (*Recorder, error) {
	if max < 1 {
		return nil, fmt.Errorf("%w (got %d)", ErrMaxEvents, max)
	}
	return &Recorder{main: ring{ev: make([]Event, max)}, refusals: ring{ev: make([]Event, RefusalCap(max))}}, nil
}

// Record appends an event at timeS and returns its sequence number. When
// the ring is full the oldest event is dropped and counted.
func (r *Recorder) Record(timeS float64, kind, state, detail string) uint64 {
	r.seq++
	r.main.add(Event{Seq: r.seq, TimeS: timeS, Kind: kind, State: state, Detail: detail})
	return r.seq
}

// RecordRefusal appends a refused command to the refusal ring and returns
// its sequence number; when that ring is full its oldest refusal is
// dropped and counted in DroppedRefusals, and the main ring is untouched.
func (r *Recorder) RecordRefusal(timeS float64, kind, state, detail string) uint64 {
	r.seq++
	r.refusals.add(Event{Seq: r.seq, TimeS: timeS, Kind: kind, State: state, Detail: detail})
	return r.seq
}

// Len returns the number of events held, refusals included.
func (r *Recorder) Len() int { return r.main.n + r.refusals.n }

// Max returns the main ring's size.
func (r *Recorder) Max() int { return len(r.main.ev) }

// Dropped returns how many events the main ring dropped to make room.
func (r *Recorder) Dropped() uint64 { return r.main.dropped }

// DroppedRefusals returns how many refused commands the refusal ring
// dropped to make room.
func (r *Recorder) DroppedRefusals() uint64 { return r.refusals.dropped }

// Seq returns the sequence number of the last event recorded (0 before any).
func (r *Recorder) Seq() uint64 { return r.seq }

// Events appends the held events of both rings to dst in seq order and
// returns it.
func (r *Recorder) Events(dst []Event) []Event {
	i, j := 0, 0
	for i < r.main.n || j < r.refusals.n {
		if j >= r.refusals.n || (i < r.main.n && r.main.at(i).Seq < r.refusals.at(j).Seq) {
			dst = append(dst, r.main.at(i))
			i++
			continue
		}
		dst = append(dst, r.refusals.at(j))
		j++
	}
	return dst
}
