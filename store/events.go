package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shakedown-robotics/shakedown/telemetry"
)

// AddEvents records telemetry events in one transaction: all or none. An
// event whose kind and id are already there replaces it, so recording a
// run twice keeps one copy of each event. An invalid event is an error
// before anything is written.
func (d *DB) AddEvents(ctx context.Context, events []telemetry.Event) error {
	for _, e := range events {
		if err := e.Validate(); err != nil {
			return err
		}
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO events(kind, id, time, doc) VALUES (?, ?, ?, ?)
		ON CONFLICT(kind, id) DO UPDATE SET time = excluded.time, doc = excluded.doc`)
	if err != nil {
		return d.wrap(err)
	}
	defer st.Close()
	for _, e := range events {
		var doc bytes.Buffer
		if err := json.Compact(&doc, e.Doc); err != nil {
			return fmt.Errorf("%w: %s %s: %v", telemetry.ErrBadEvent, e.Kind, e.ID, err)
		}
		if _, err := st.ExecContext(ctx, e.Kind, e.ID, e.Time.UTC().Format(timeFormat), doc.Bytes()); err != nil {
			return d.wrap(err)
		}
	}
	return d.wrap(tx.Commit())
}

// Events returns the events of kind whose id starts with prefix ("" for
// all), in time order and then by id.
func (d *DB) Events(ctx context.Context, kind, prefix string) ([]telemetry.Event, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, time, doc FROM events WHERE kind = ? AND substr(id, 1, ?) = ? ORDER BY time, id`,
		kind, len(prefix), prefix)
	if err != nil {
		return nil, d.wrap(err)
	}
	defer rows.Close()
	var out []telemetry.Event
	for rows.Next() {
		var id, ts string
		var doc []byte
		if err := rows.Scan(&id, &ts, &doc); err != nil {
			return nil, d.wrap(err)
		}
		t, err := time.Parse(timeFormat, ts)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: event %s %s: time %q", ErrCorrupt, d.path, kind, id, ts)
		}
		out = append(out, telemetry.Event{Kind: kind, ID: id, Time: t, Doc: doc})
	}
	return out, d.wrap(rows.Err())
}
