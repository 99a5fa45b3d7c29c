package blackbox

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update and review the diff):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func mustNew(t testing.TB, max int) *Recorder {
	r, err := New(max)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNew(t *testing.T) {
	for _, max := range []int{0, -1} {
		if _, err := New(max); !errors.Is(err, ErrMaxEvents) {
			t.Errorf("New(%d): got %v; want ErrMaxEvents", max, err)
		}
	}
}

func TestRing(t *testing.T) {
	tests := []struct {
		name                string
		max, n              int
		held                int
		dropped, first, seq uint64
	}{
		{"empty", 3, 0, 0, 0, 0, 0},
		{"partly full", 3, 2, 2, 0, 1, 2},
		{"exactly full", 3, 3, 3, 0, 1, 3},
		{"one dropped", 3, 4, 3, 1, 2, 4},
		{"wrapped many times", 3, 1000, 3, 997, 998, 1000},
		{"size one", 1, 5, 1, 4, 5, 5},
		{"default size", DefaultMaxEvents, 1234, 500, 734, 735, 1234},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustNew(t, tt.max)
			for i := 0; i < tt.n; i++ {
				if got := r.Record(float64(i), "command", "IDLE", "x"); got != uint64(i+1) {
					t.Fatalf("seq: got %d; want %d", got, i+1)
				}
			}
			ev := r.Events(nil)
			if r.Len() != tt.held || len(ev) != tt.held || r.Dropped() != tt.dropped || r.Seq() != tt.seq {
				t.Fatalf("got len %d/%d dropped %d seq %d; want %d dropped %d seq %d",
					r.Len(), len(ev), r.Dropped(), r.Seq(), tt.held, tt.dropped, tt.seq)
			}
			for i, e := range ev {
				if e.Seq != tt.first+uint64(i) || e.TimeS != float64(e.Seq-1) {
					t.Fatalf("event %d: got %+v; want seq %d", i, e, tt.first+uint64(i))
				}
			}
		})
	}
}

// flight records a short flight with a FAILSAFE, commas and quotes in the
// details, and the open last state.
func flight(r *Recorder) {
	r.Record(0.5, "command", "IDLE", "connect: accepted")
	r.Record(0.5, "transition", "CONNECTING", "IDLE->CONNECTING")
	r.Record(1.25, "transition", "ARMING", "CONNECTING->ARMING home (0, 0, 0)")
	r.Record(2, "command", "ARMING", "armed: accepted")
	r.Record(2.1, "transition", "TAKEOFF", "ARMING->TAKEOFF armed")
	r.Record(5, "transition", "EXECUTING", "TAKEOFF->EXECUTING take-off confirmed by telemetry")
	r.Record(5.5, "command", "EXECUTING", "mission of 2 waypoints: accepted")
	r.Record(5.5, "mission_loaded", "EXECUTING", "2 waypoints")
	r.Record(8, "waypoint_reached", "EXECUTING", `waypoint 0 (4, 0, -2) 2 m/s, 1/2 "quoted"`)
	r.Record(9.0004, "transition", "FAILSAFE", "EXECUTING->FAILSAFE reason=telemetry_timeout: no telemetry for 1.001 s (timeout 1 s)")
	r.Record(12, "command", "FAILSAFE", "land: accepted")
	r.Record(12, "transition", "LANDING", "FAILSAFE->LANDING")
}

func TestExportGolden(t *testing.T) {
	r := mustNew(t, DefaultMaxEvents)
	flight(r)
	var b bytes.Buffer
	if err := r.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, CSVName, b.Bytes())
	rows, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	if err != nil || len(rows) != 13 || len(rows[0]) != 5 {
		t.Fatalf("CSV does not read back: %v, %d rows", err, len(rows))
	}
	b.Reset()
	if err := r.WriteSummary(&b, 20); err != nil {
		t.Fatal(err)
	}
	golden(t, SummaryName, b.Bytes())
	var s Summary
	if err := json.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"CONNECTING": 0.75, "ARMING": 0.85, "TAKEOFF": 2.9, "EXECUTING": 4, "FAILSAFE": 3, "LANDING": 8}
	for k, v := range want {
		if s.StateDurationsS[k] != v {
			t.Errorf("state_durations_s[%s]: got %v; want %v", k, s.StateDurationsS[k], v)
		}
	}
	if s.FailsafeReasons["telemetry_timeout"] != 1 || s.Events != 12 || s.Dropped != 0 {
		t.Errorf("summary: got %+v", s)
	}
}

// TestSummaryAfterDrops: only the held part counts, and seq says which part.
func TestSummaryAfterDrops(t *testing.T) {
	r := mustNew(t, 4)
	flight(r)
	s := r.Summarize(20)
	if s.Events != 4 || s.Dropped != 8 || s.FirstSeq != 9 || s.LastSeq != 12 {
		t.Fatalf("got events %d dropped %d seq %d..%d; want 4, 8, 9..12", s.Events, s.Dropped, s.FirstSeq, s.LastSeq)
	}
	want := map[string]float64{"FAILSAFE": 3, "LANDING": 8}
	if fmt.Sprint(s.StateDurationsS) != fmt.Sprint(want) {
		t.Errorf("state_durations_s: got %v; want %v", s.StateDurationsS, want)
	}
	if s.Counts["transition"] != 2 || s.Counts["command"] != 1 || s.Counts["waypoint_reached"] != 1 {
		t.Errorf("counts: got %v", s.Counts)
	}
}

func TestSummaryEmpty(t *testing.T) {
	r := mustNew(t, 3)
	var b bytes.Buffer
	if err := r.WriteSummary(&b, 1); err != nil {
		t.Fatal(err)
	}
	golden(t, "empty_summary.json", b.Bytes())
}

// TestOutOfOrderTimes: exports are time-ordered even if a caller recorded
// a time out of order.
func TestOutOfOrderTimes(t *testing.T) {
	r := mustNew(t, 5)
	r.Record(2, "command", "IDLE", "b")
	r.Record(1, "command", "IDLE", "a")
	r.Record(2, "command", "IDLE", "c")
	var got []string
	for _, e := range r.Summarize(3).EventList {
		got = append(got, e.Detail)
	}
	if fmt.Sprint(got) != "[a b c]" {
		t.Errorf("got %v; want [a b c]", got)
	}
}

func TestReason(t *testing.T) {
	tests := []struct{ in, want string }{
		{"EXECUTING->FAILSAFE reason=telemetry_timeout: no telemetry", "telemetry_timeout"},
		{"X->FAILSAFE reason=link_lost", "link_lost"},
		{"X->FAILSAFE reason=battery_low more", "battery_low"},
		{"X->FAILSAFE", "unknown"},
		{"reason=", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Reason(tt.in); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestRecordAllocs: 10,000 events through a warm recorder allocate nothing.
func TestRecordAllocs(t *testing.T) {
	r := mustNew(t, DefaultMaxEvents)
	for i := 0; i < 2*DefaultMaxEvents; i++ { // warm-up: fill and wrap the ring
		r.Record(float64(i), "command", "EXECUTING", "pause: accepted")
	}
	allocs := testing.AllocsPerRun(5, func() {
		for i := 0; i < 10000; i++ {
			r.Record(float64(i), "transition", "EXECUTING", "PAUSED->EXECUTING")
		}
	})
	if allocs != 0 {
		t.Errorf("got %v allocations per 10,000 events; want 0", allocs)
	}
}

// BenchmarkRecord reports the cost of one event; b.N events after warm-up.
func BenchmarkRecord(b *testing.B) {
	r := mustNew(b, DefaultMaxEvents)
	for i := 0; i < 2*DefaultMaxEvents; i++ {
		r.Record(float64(i), "command", "EXECUTING", "pause: accepted")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.Record(float64(i), "transition", "EXECUTING", "PAUSED->EXECUTING")
	}
}

// BenchmarkRecord10k records 10,000 events per iteration, the unit.
func BenchmarkRecord10k(b *testing.B) {
	r := mustNew(b, DefaultMaxEvents)
	for i := 0; i < 2*DefaultMaxEvents; i++ {
		r.Record(float64(i), "command", "EXECUTING", "pause: accepted")
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i < 10000; i++ {
			r.Record(float64(i), "transition", "EXECUTING", "PAUSED->EXECUTING")
		}
	}
}

// TestRefusalFlood: a flood of refused commands between transitions keeps
// every transition in the ring; the refusals keep their own newest
// RefusalCap and count the rest, and the export is in seq order.
func TestRefusalFlood(t *testing.T) {
	tests := []struct {
		name             string
		max, refusals    int
		wantHeldRefusals int
	}{
		{"none", 10, 0, 0},
		{"fits", 10, 2, 2},
		{"flood", 10, 10000, 2},
		{"size one", 1, 5, 1},
		{"default", DefaultMaxEvents, 100000, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustNew(t, tt.max)
			for i := 0; i < tt.max; i++ {
				r.Record(float64(i), KindTransition, "S", fmt.Sprintf("t%d", i))
				for j := 0; i == tt.max/2 && j < tt.refusals; j++ { // a burst amid the flight
					r.RecordRefusal(float64(i), "command", "S", "pause: rejected (wrong_state)")
				}
			}
			ev := r.Events(nil)
			var trans, refs int
			for i, e := range ev {
				if i > 0 && e.Seq <= ev[i-1].Seq {
					t.Fatalf("events out of seq order at %d: %d after %d", i, e.Seq, ev[i-1].Seq)
				}
				if e.Kind == KindTransition {
					trans++
				} else {
					refs++
				}
			}
			if trans != tt.max || r.Dropped() != 0 {
				t.Errorf("got %d transitions held, %d dropped; want %d, 0", trans, r.Dropped(), tt.max)
			}
			sent := tt.refusals
			if refs != tt.wantHeldRefusals || r.DroppedRefusals() != uint64(sent-tt.wantHeldRefusals) {
				t.Errorf("got %d refusals held, %d dropped; want %d, %d", refs, r.DroppedRefusals(), tt.wantHeldRefusals, sent-tt.wantHeldRefusals)
			}
			if s := r.Summarize(100); s.RefusalsDropped != r.DroppedRefusals() || s.Events != len(ev) {
				t.Errorf("summary: refusals_dropped %d events %d; want %d, %d", s.RefusalsDropped, s.Events, r.DroppedRefusals(), len(ev))
			}
		})
	}
}
