// Package telemetry is the events a run emits for a fleet's telemetry
// store (the end-of-line test's eol_check, one per check), and the
// exporter that sends them to OpenSearch or Elasticsearch through the
// _bulk API. The embedded store (package store) keeps the same events in
// SQLite.
//
// The _bulk request body is NDJSON: for each event an action line
// {"index":{"_index":…,"_id":…}} and the document on the next line, the body
// ending with a newline, sent as application/x-ndjson (the Elasticsearch
// and OpenSearch "Bulk API" reference). The response carries "errors" and
// one item per action in order; an item with a status outside 200–299 is a
// failed event, reported with its type and reason. Indexing with _id makes
// a re-export of the same run replace its documents instead of doubling
// them.
package telemetry

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Event is one telemetry event.
type Event struct {
	Kind string          // what happened, e.g. "eol_check"; names the index when the exporter's URL names none
	ID   string          // unique within Kind, e.g. "<run_id>/<check id>": a re-sent event replaces the first
	Time time.Time       // when, UTC
	Doc  json.RawMessage // the document: one JSON object
}

// ErrBadEvent wraps every problem with an event.
var ErrBadEvent = errors.New("telemetry: bad event")

// Validate reports an event that cannot be stored or exported.
func (e Event) Validate() error {
	switch {
	case !validName(e.Kind):
		return fmt.Errorf("%w: kind %q: want 1 to 64 lower-case letters, digits, '_' or '-'", ErrBadEvent, e.Kind)
	case e.ID == "" || len(e.ID) > 512:
		return fmt.Errorf("%w: %s: id of %d bytes: want 1 to 512", ErrBadEvent, e.Kind, len(e.ID))
	case e.Time.IsZero():
		return fmt.Errorf("%w: %s %s: no time", ErrBadEvent, e.Kind, e.ID)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(e.Doc, &obj); err != nil || obj == nil {
		return fmt.Errorf("%w: %s %s: the document is not a JSON object", ErrBadEvent, e.Kind, e.ID)
	}
	return nil
}

// validName is an index name both stores accept: lower case, no spaces or
// the characters Elasticsearch forbids, not starting with '-' or '_'.
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[0] == '_' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
