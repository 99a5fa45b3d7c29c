package eol

import (
	"encoding/json"

	"github.com/shakedown-robotics/shakedown/telemetry"
)

// EventKind is the kind of the telemetry event of one check.
const EventKind = "eol_check"

// checkEvent is the document of an eol_check event: the check with the
// run it belongs to, flat, so that a fleet's dashboards can filter by any
// field.
type checkEvent struct {
	Timestamp string `json:"@timestamp"`
	Vehicle   string `json:"vehicle"`
	Serial    string `json:"serial"`
	RunID     string `json:"run_id"`
	Source    string `json:"source"`
	RunResult Result `json:"run_result"`
	Check
}

// Events returns one eol_check event per check of the report, in the
// report's order, identified by "<run_id>/<check id>" so that recording a
// run again replaces its events.
func (r *Report) Events() []telemetry.Event {
	out := make([]telemetry.Event, 0, len(r.Checks))
	ts := r.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	for _, c := range r.Checks {
		doc, err := json.Marshal(checkEvent{Timestamp: ts, Vehicle: r.Vehicle, Serial: r.Serial, RunID: r.RunID, Source: r.Source, RunResult: r.Result, Check: c})
		if err != nil {
			panic("eol: " + err.Error()) // plain strings and numbers: cannot fail
		}
		out = append(out, telemetry.Event{Kind: EventKind, ID: r.RunID + "/" + c.ID, Time: r.Time.UTC(), Doc: doc})
	}
	return out
}
