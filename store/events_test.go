package store_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/store"
	"github.com/shakedown-robotics/shakedown/telemetry"
)

func TestEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db := open(t, path, store.Options{})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	evs := []telemetry.Event{
		{Kind: "eol_check", ID: "r1/b", Time: t0.Add(time.Second), Doc: json.RawMessage(`{"check": "b"}`)},
		{Kind: "eol_check", ID: "r1/a", Time: t0, Doc: json.RawMessage(`{"check":"a"}`)},
		{Kind: "eol_check", ID: "r2/a", Time: t0, Doc: json.RawMessage(`{"check":"a","run":2}`)},
	}
	if err := db.AddEvents(t.Context(), evs); err != nil {
		t.Fatal(err)
	}
	// Again, with one changed: replaced, not doubled.
	evs[0].Doc = json.RawMessage(`{"check":"b","again":true}`)
	if err := db.AddEvents(t.Context(), evs); err != nil {
		t.Fatal(err)
	}
	// A bad event among good ones writes nothing.
	bad := append([]telemetry.Event{{Kind: "eol_check", ID: "r3/a", Time: t0, Doc: json.RawMessage(`{}`)}},
		telemetry.Event{Kind: "eol_check", ID: "r3/b", Time: t0, Doc: json.RawMessage(`"x"`)})
	if err := db.AddEvents(t.Context(), bad); !errors.Is(err, telemetry.ErrBadEvent) {
		t.Errorf("bad event: %v; want ErrBadEvent", err)
	}
	db.Close()
	db = open(t, path, store.Options{ReadOnly: true})
	got, err := db.Events(t.Context(), "eol_check", "r1/")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "r1/a" || got[1].ID != "r1/b" || string(got[1].Doc) != `{"check":"b","again":true}` || !got[0].Time.Equal(t0) {
		t.Errorf("events %+v", got)
	}
	all, err := db.Events(t.Context(), "eol_check", "")
	if err != nil || len(all) != 3 {
		t.Errorf("all events: %d, %v; want 3 (r3 not written)", len(all), err)
	}
	if v := store.Version(); v != 2 {
		t.Errorf("schema version %d; want 2", v)
	}
}
