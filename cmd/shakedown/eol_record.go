package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/flightlog"
	"github.com/shakedown-robotics/shakedown/store"
	"github.com/shakedown-robotics/shakedown/telemetry"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// eolRecord is the end-of-line run's record beside the reports: the bag
// (data/runs/<run_id>/eol.mcap), the eol_check events in the embedded store
// and, with --events, in an OpenSearch/Elasticsearch cluster.
type eolRecord struct {
	dir, tmp string // the run's folder; the bag while it is written
	file     *os.File
	w        *flightlog.Writer
	db       string
	bulk     *telemetry.Bulk
	events   string
}

// newEOLRecord checks the record's flags before anything moves.
func newEOLRecord(f eolFlags) (*eolRecord, error) {
	r := &eolRecord{db: f.db, events: f.events}
	if f.data != "" {
		r.dir = filepath.Join(f.data, "runs", f.runID)
		if r.db == "" {
			r.db = filepath.Join(f.data, "shakedown.db")
		}
	}
	if f.events != "" {
		b, err := telemetry.NewBulk(f.events, nil)
		if err != nil {
			return nil, fmt.Errorf("--events: %w", err)
		}
		r.bulk = b
	}
	return r, nil
}

// wrap starts the bag and returns the mower that records into it (m
// itself without --data).
func (r *eolRecord) wrap(m vehicle.Mower) (vehicle.Mower, error) {
	if r.dir == "" {
		return m, nil
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(r.dir, ".eol-*.mcap")
	if err != nil {
		return nil, err
	}
	w, err := flightlog.New(f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	r.file, r.tmp, r.w = f, f.Name(), w
	return &flightlog.MowerRecorder{Mower: m, W: w}, nil
}

// abort removes a bag that was being written: a run that could not finish
// leaves no half-written record.
func (r *eolRecord) abort() {
	if r.file != nil {
		r.file.Close()
		os.Remove(r.tmp)
		os.Remove(r.dir) // only if empty
		r.file = nil
	}
}

// finish writes the checks into the bag and closes it, records the events
// in the store and exports them; it returns what it wrote, for the
// summary.
func (r *eolRecord) finish(ctx context.Context, rep *eol.Report) ([]string, error) {
	var wrote []string
	if r.file != nil {
		for _, c := range rep.Checks {
			r.w.Event(0, flightlog.LevelInfo, "eol_check", fmt.Sprintf("%s %s: %s (limit %s)", c.Result, c.ID, c.Measured, c.Limit))
		}
		err := r.w.Close()
		if err == nil {
			err = r.file.Chmod(0o644) // CreateTemp makes it 0600
		}
		if cerr := r.file.Close(); err == nil {
			err = cerr
		}
		r.file = nil
		bag := filepath.Join(r.dir, "eol.mcap")
		if err == nil {
			err = os.Rename(r.tmp, bag)
		}
		if err != nil {
			os.Remove(r.tmp)
			return nil, fmt.Errorf("the bag: %w", err)
		}
		wrote = append(wrote, bag)
	}
	evs := rep.Events()
	if r.db != "" {
		if err := os.MkdirAll(filepath.Dir(r.db), 0o755); err != nil {
			return wrote, err
		}
		db, err := store.Open(ctx, r.db, store.Options{})
		if err != nil {
			return wrote, fmt.Errorf("--db: %w", err)
		}
		err = db.AddEvents(ctx, evs)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return wrote, fmt.Errorf("--db: %w", err)
		}
		wrote = append(wrote, fmt.Sprintf("%d %s events into %s", len(evs), eol.EventKind, r.db))
	}
	if r.bulk != nil {
		ectx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := r.bulk.Export(ectx, evs); err != nil {
			return wrote, fmt.Errorf("--events: %w", err)
		}
		wrote = append(wrote, fmt.Sprintf("%d %s events to %s", len(evs), eol.EventKind, redactURL(r.events)))
	}
	return wrote, nil
}

// reportRecord prints what the record wrote; an error of the record comes
// after the verdict, which stands.
func reportRecord(w io.Writer, wrote []string, err error) error {
	for _, s := range wrote {
		fmt.Fprintln(w, "wrote", s)
	}
	if err != nil {
		return fmt.Errorf("the reports are written, but the run's record is not complete: %w", err)
	}
	return nil
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "the events URL"
	}
	return u.Redacted()
}
