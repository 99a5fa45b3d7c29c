package blackbox

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// File names of the two exports.
const (
	CSVName     = "flight_events.csv"
	SummaryName = "flight_events_summary.json"
)

// sorted returns the held events ordered by time, ties by seq. Events are
// recorded in time order, so this is the ring order unless a caller
// recorded a time out of order.
func (r *Recorder) sorted() []Event {
	ev := r.Events(make([]Event, 0, r.Len()))
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].TimeS != ev[j].TimeS {
			return ev[i].TimeS < ev[j].TimeS
		}
		return ev[i].Seq < ev[j].Seq
	})
	return ev
}

func ms(f float64) string { return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', 3, 64) }

// WriteCSV writes the held events as flight_events.csv: a header
// "seq,time_s,kind,state,detail" and one row per event in time order, times
// in seconds with three decimals, fields quoted as RFC 4180 requires.
func (r *Recorder) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"seq", "time_s", "kind", "state", "detail"}); err != nil {
		return err
	}
	for _, e := range r.sorted() {
		if err := cw.Write([]string{strconv.FormatUint(e.Seq, 10), ms(e.TimeS), e.Kind, e.State, e.Detail}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Summary is flight_events_summary.json. It covers only the held events:
// after drops, Events and StateDurationsS describe the most recent part of
// the flight, and FirstSeq..LastSeq says which.
type Summary struct {
	// Events is the number of events held (not of the whole flight).
	Events int `json:"events"`
	// Dropped is how many older events the ring dropped.
	Dropped uint64 `json:"dropped"`
	// RefusalsDropped is how many refused commands the refusal ring
	// dropped (they never displace other events).
	RefusalsDropped uint64  `json:"refusals_dropped"`
	MaxEvents       int     `json:"record_max_events"`
	FirstSeq        uint64  `json:"first_seq"`
	LastSeq         uint64  `json:"last_seq"`
	DumpTimeS       float64 `json:"dump_time_s"`
	// Counts is the number of held events of each kind.
	Counts map[string]int `json:"counts"`
	// StateDurationsS sums, per state, the time between each held
	// transition into it and the next held transition; the last state
	// counts until the dump.
	StateDurationsS map[string]float64 `json:"state_durations_s"`
	// FailsafeReasons counts the reasons of the held transitions into
	// FAILSAFE (the "reason=" word of their detail).
	FailsafeReasons map[string]int `json:"failsafe_reasons"`
	// EventList is the held events in time order.
	EventList []Event `json:"event_list"`
}

// Summarize computes the summary at dump time nowS.
func (r *Recorder) Summarize(nowS float64) Summary {
	ev := r.sorted()
	s := Summary{Events: len(ev), Dropped: r.main.dropped, RefusalsDropped: r.refusals.dropped, MaxEvents: len(r.main.ev), DumpTimeS: nowS,
		Counts: map[string]int{}, StateDurationsS: map[string]float64{}, FailsafeReasons: map[string]int{},
		EventList: ev}
	if len(ev) > 0 {
		s.FirstSeq, s.LastSeq = ev[0].Seq, ev[0].Seq
	}
	last := -1
	for i, e := range ev {
		s.FirstSeq, s.LastSeq = min(s.FirstSeq, e.Seq), max(s.LastSeq, e.Seq)
		s.Counts[e.Kind]++
		if e.Kind != KindTransition {
			continue
		}
		if last >= 0 {
			s.StateDurationsS[ev[last].State] += e.TimeS - ev[last].TimeS
		}
		last = i
		if e.State == StateFailsafe {
			s.FailsafeReasons[Reason(e.Detail)]++
		}
	}
	if last >= 0 { // the open last state, until the dump
		s.StateDurationsS[ev[last].State] += max(0, nowS-ev[last].TimeS)
	}
	for k, v := range s.StateDurationsS {
		s.StateDurationsS[k] = math.Round(v*1000) / 1000
	}
	for i := range s.EventList {
		s.EventList[i].TimeS = math.Round(s.EventList[i].TimeS*1000) / 1000
	}
	return s
}

// Reason returns the word after "reason=" in a transition's detail, up to a
// colon or a space, or "unknown".
func Reason(detail string) string {
	_, after, ok := strings.Cut(detail, "reason=")
	if !ok {
		return "unknown"
	}
	if i := strings.IndexAny(after, ": "); i >= 0 {
		after = after[:i]
	}
	if after == "" {
		return "unknown"
	}
	return after
}

// WriteSummary writes the summary at dump time nowS as indented JSON with
// sorted keys.
func (r *Recorder) WriteSummary(w io.Writer, nowS float64) error {
	s := r.Summarize(nowS)
	s.DumpTimeS = math.Round(s.DumpTimeS*1000) / 1000
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
