package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/shakedown-robotics/shakedown/store"
	"github.com/shakedown-robotics/shakedown/telemetry"
	"github.com/shakedown-robotics/shakedown/telemetry/telemetrytest"
)

// The end-of-line record: the bag under data/runs/<run_id>/ (MCAP with the
// robot's own topics and the runner's requests), one eol_check event per
// check in the SQLite store, and the same events in a _bulk cluster; a
// cluster that refuses some events makes the command fail (exit 2) naming
// them, after the reports and the rest of the record are written.
func TestEOLRecord(t *testing.T) {
	fixedEOLClock(t)
	cl := telemetrytest.NewCluster()
	srv := httptest.NewServer(cl)
	defer srv.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	code, out, errOut := sh(t, "eol", "--serial", "MB-0001", "--run-id", "rec", "--out", dir, "--data", data, "--events", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	bag := filepath.Join(data, "runs", "rec", "eol.mcap")
	for _, w := range []string{"wrote " + bag, "wrote 28 eol_check events into " + filepath.Join(data, "shakedown.db"), "wrote 28 eol_check events to " + srv.URL} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	b, err := os.ReadFile(bag)
	if err != nil {
		t.Fatal(err)
	}
	r, err := mcap.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for id, n := range info.Statistics.ChannelMessageCounts {
		counts[info.Channels[id].Topic] = n
	}
	// About 60 s of the run: the IMU at 100 Hz, the joints at 50 Hz.
	if counts["/telemetry/imu"] < 4000 || counts["/telemetry/joints"] < 2000 || counts["/safety/request"] < 100 || counts["/safety/status"] < 3 || counts["/events"] < 28 {
		t.Errorf("bag message counts %v", counts)
	}
	db, err := store.Open(context.Background(), filepath.Join(data, "shakedown.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := db.Events(context.Background(), "eol_check", "rec/")
	db.Close()
	if err != nil || len(evs) != 28 {
		t.Fatalf("store: %d events, %v; want 28", len(evs), err)
	}
	docs := cl.Docs("eol_check")
	if len(docs) != 28 {
		t.Fatalf("cluster: %d documents; want 28", len(docs))
	}
	var stop struct {
		RunID, Result string
		Value         float64
	}
	var doc map[string]any
	if err := json.Unmarshal(docs["rec/stop.standstill"], &doc); err != nil {
		t.Fatal(err)
	}
	stop.RunID, _ = doc["run_id"].(string)
	stop.Result, _ = doc["result"].(string)
	stop.Value, _ = doc["value"].(float64)
	if stop.RunID != "rec" || stop.Result != "PASS" || !(stop.Value > 0 && stop.Value < 1) || doc["@timestamp"] != "2026-01-02T03:04:05.000Z" {
		t.Errorf("stop.standstill document %s", docs["rec/stop.standstill"])
	}
	if string(evs[0].Doc) == "" || !bytes.Contains(docs["rec/"+strings.TrimPrefix(evs[0].ID, "rec/")], []byte(`"run_id":"rec"`)) {
		t.Errorf("store and cluster disagree: %s", evs[0].Doc)
	}

	// A cluster whose mapping has value as a string refuses the numeric ones.
	bad := telemetrytest.NewCluster()
	bsrv := httptest.NewServer(bad)
	defer bsrv.Close()
	bb, _ := telemetry.NewBulk(bsrv.URL, nil)
	if err := bb.Export(context.Background(), []telemetry.Event{{Kind: "eol_check", ID: "x", Time: evs[0].Time, Doc: json.RawMessage(`{"value":"text"}`)}}); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = sh(t, "eol", "--serial", "MB-0001", "--run-id", "rec2", "--out", dir, "--data", data, "--events", bsrv.URL)
	if code != 2 || !strings.Contains(errOut, "21 of 28 events refused") || !strings.Contains(errOut, "eol_check/rec2/sensors.imu_rate: 400 mapper_parsing_exception") {
		t.Errorf("refusing cluster: exit %d; want 2 naming the refused items\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "rec2-eol.json")); err != nil {
		t.Errorf("the report was not written: %v", err)
	}

	// A bad events URL is refused before anything moves.
	code, _, errOut = sh(t, "eol", "--run-id", "rec3", "--out", dir, "--data", data, "--events", "ftp://es")
	if code != 2 || !strings.Contains(errOut, "--events") {
		t.Errorf("bad URL: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(data, "runs", "rec3")); !os.IsNotExist(err) {
		t.Errorf("a bad URL left %v", err)
	}
}
