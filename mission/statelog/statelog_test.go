package statelog

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/mission"
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

func sample(t float64, state string, x, z float64, target *mission.Target) Entry {
	return Entry{TimeS: t, Kind: KindSample, State: state,
		Status: &mission.Status{State: state, Position: &mission.Point{X: x, Z: z}, Target: target}}
}

// flight is a hand-made log of two flights: a goal flown with a pause, a
// refusal and a cancel, a return; then a second flight ended by a FAILSAFE.
func flight() []Entry {
	tgt := &mission.Target{X: 4, Z: -2, SpeedMS: 2}
	es := []Entry{
		{TimeS: 0, Kind: "command", State: "IDLE", Command: "pause", Code: "wrong_state", Detail: "pause: rejected (wrong_state): mission: not allowed in this state: pause in IDLE"},
		{TimeS: 0.1, Kind: "command", State: "IDLE", Command: "connect", Detail: "connect: accepted"},
		{TimeS: 0.1, Kind: KindDispatch, State: "CONNECTING", Command: "connect", Detail: "#1 connect"},
		{TimeS: 0.1, Kind: "transition", State: "CONNECTING", Detail: "IDLE->CONNECTING"},
		{TimeS: 0.2, Kind: "transition", State: "ARMING", Detail: "CONNECTING->ARMING home (0, 0, 0)"},
		{TimeS: 0.3, Kind: "transition", State: "TAKEOFF", Detail: "ARMING->TAKEOFF armed"},
		{TimeS: 2.3, Kind: "transition", State: "EXECUTING", Detail: "TAKEOFF->EXECUTING take-off confirmed by telemetry"},
		{TimeS: 2.5, Kind: "command", State: "EXECUTING", Command: "mission", Detail: "mission of 2 waypoints: accepted"},
		{TimeS: 2.5, Kind: KindDispatch, State: "EXECUTING", Command: "cancel", Detail: "#4 cancel"},
		{TimeS: 2.5012, Kind: KindDispatch, State: "EXECUTING", Command: "goto", Detail: "#5 goto (4, 0, -2) 2 m/s wp=0"},
		sample(3, "EXECUTING", 0, -2, tgt),
		sample(4, "EXECUTING", 3, -2.5, tgt),
		{TimeS: 4.5, Kind: mission.KindWaypointReached, State: "EXECUTING", Detail: "waypoint 0 (4, 0, -2) 2 m/s, 1/2"},
		{TimeS: 5, Kind: "command", State: "EXECUTING", Command: "pause", Detail: "pause: accepted"},
		{TimeS: 5, Kind: "transition", State: "PAUSED", Detail: "EXECUTING->PAUSED target (8, 0, -2) 2 m/s"},
		{TimeS: 5.5, Kind: "command", State: "PAUSED", Command: "cancel", Detail: "cancel: accepted"},
		{TimeS: 5.5, Kind: mission.KindGoalResult, State: "PAUSED", Detail: "goal 1 CANCELED (cancel): 1/2 waypoints reached, 1 dropped"},
		{TimeS: 6, Kind: KindRefusalsDropped, State: "PAUSED", Count: 7},
		{TimeS: 7, Kind: "transition", State: "RETURNING", Detail: "PAUSED->RETURNING to (0, 0, -2)"},
		{TimeS: 9, Kind: "transition", State: "LANDING", Detail: "RETURNING->LANDING"},
		{TimeS: 12, Kind: "transition", State: "LANDED", Detail: "LANDING->LANDED disarmed"},
		{TimeS: 13, Kind: "command", State: "LANDED", Command: "connect", Detail: "connect: accepted"},
		{TimeS: 13, Kind: "transition", State: "CONNECTING", Detail: "LANDED->CONNECTING"},
		{TimeS: 14, Kind: "transition", State: "FAILSAFE", Detail: "CONNECTING->FAILSAFE reason=connect_timeout: no vehicle"},
	}
	for i := range es {
		es[i].Seq = uint64(i + 1)
	}
	return es
}

func encode(_ testing.TB, es []Entry) []byte {
	var b []byte
	for _, e := range es {
		var err error
		if b, err = Append(b, e); err != nil {
			panic(err)
		}
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	es := flight()
	data := encode(t, es)
	if n := bytes.Count(data, []byte("\n")); n != len(es) {
		t.Fatalf("got %d lines; want %d", n, len(es))
	}
	lg, err := Read(bytes.NewReader(data), "log.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(es, lg.Entries); diff != "" || lg.Partial || lg.CSV {
		t.Errorf("round trip (-want +got):\n%s partial %v csv %v", diff, lg.Partial, lg.CSV)
	}
	// a last line still being written is left out, not an error
	lg, err = Read(bytes.NewReader(append(data, `{"seq":99,"time_s":1`...)), "log.jsonl")
	if err != nil || !lg.Partial || len(lg.Entries) != len(es) {
		t.Errorf("partial line: %v, partial %v, %d entries", err, lg.Partial, len(lg.Entries))
	}
}

func TestStatsGolden(t *testing.T) {
	lg, err := Read(bytes.NewReader(encode(t, flight())), "log.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(Missions(lg, "log.jsonl"))
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "stats.json", append(js, '\n'))
	var csvBuf bytes.Buffer
	if err := sum.WriteCSV(&csvBuf); err != nil {
		t.Fatal(err)
	}
	golden(t, "stats.csv", csvBuf.Bytes())
	// figures checked by hand
	m := sum.Missions
	if len(m) != 3 {
		t.Fatalf("got %d missions; want 3 (pre-flight, two flights)", len(m))
	}
	f := m[1]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"duration (connect to LANDED)", f.DurationS, 11.9},
		{"EXECUTING", f.StateDurationsS["EXECUTING"], 2.7},
		{"PAUSED", f.StateDurationsS["PAUSED"], 2},
		{"LANDED (the flight's last entry)", f.StateDurationsS["LANDED"], 0},
		{"LANDING", f.StateDurationsS["LANDING"], 3},
		{"reached", float64(f.WaypointsReached), 1},
		{"dropped", float64(f.WaypointsDropped), 1},
		{"pauses", float64(f.Pauses), 1},
		{"cancels", float64(f.Cancels), 1},
		{"returns", float64(f.Returns), 1},
		{"refusals dropped", float64(f.RefusalsDropped), 7},
		{"latency samples (connect, mission)", float64(f.Latency.N), 2},
		{"latency p50 (connect → connect 0 ms)", f.Latency.P50MS, 0},
		{"latency p99 (mission → goto 1.2 ms, the cancel skipped)", f.Latency.P99MS, 1.2},
		{"path 3 m along x, 0.5 m down", *f.PathLengthM, 3.041},
		{"altitude deviation", *f.MaxAltDevM, 0.5},
		{"refusals in total", float64(sum.Total.Refusals), 1},
		{"failsafes of flight 2", float64(m[2].Failsafes["connect_timeout"]), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v; want %v", c.name, c.got, c.want)
		}
	}
}

// TestReadCSV: a black-box export reads into the same entries (commands
// with their names and codes), without dispatches or samples, so latency
// and path are unknown.
func TestReadCSV(t *testing.T) {
	in := CSVHeader + "\n" +
		`1,0.000,command,IDLE,"pause: rejected (wrong_state): mission: not allowed in this state: pause in IDLE"` + "\n" +
		"2,0.100,command,IDLE,connect: accepted\n" +
		"3,0.100,transition,CONNECTING,IDLE->CONNECTING\n" +
		`4,1.500,transition,FAILSAFE,"CONNECTING->FAILSAFE reason=connect_timeout: x"` + "\n"
	lg, err := Read(strings.NewReader(in), "flight_events.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !lg.CSV || len(lg.Entries) != 4 || lg.Entries[0].Command != "pause" || lg.Entries[0].Code != "wrong_state" || lg.Entries[1].Code != "" {
		t.Fatalf("got %+v", lg)
	}
	sum := Summarize(Missions(lg, "f.csv"))
	if sum.Total.Latency != nil || sum.Total.PathLengthM != nil || sum.Total.Refusals != 1 || sum.Total.Failsafes["connect_timeout"] != 1 {
		t.Errorf("total %+v", sum.Total)
	}
}

// badLines are inputs Read refuses, with the line and field it must name;
// they seed FuzzRead too.
var badLines = []struct {
	name, in, want string
}{
	{"not JSON", "{\"seq\":1,\"time_s\":0,\"kind\":\"x\",\"state\":\"IDLE\"}\nnot json\n", "log:2: "},
	{"unknown field", `{"seq":1,"time_s":0,"kind":"x","state":"IDLE","extra":1}` + "\n", "log:1: "},
	{"time a string", `{"seq":1,"time_s":"0","kind":"x","state":"IDLE"}` + "\n", "log:1: time_s: "},
	{"negative time", `{"seq":1,"time_s":-1,"kind":"x","state":"IDLE"}` + "\n", "log:1: time_s: "},
	{"no kind", `{"seq":1,"time_s":0,"state":"IDLE"}` + "\n", "log:1: kind: missing"},
	{"no time", `{"seq":1,"kind":"x","state":"IDLE"}` + "\n", "log:1: time_s: missing"},
	{"sample without status", "\n\n" + `{"seq":1,"time_s":0,"kind":"sample","state":"IDLE"}` + "\n", "log:3: status: "},
	{"two objects", `{"time_s":0,"kind":"x"} {"time_s":0,"kind":"x"}` + "\n", "log:1: "},
	{"a list", "[]\n", "log:1: "},
	{"csv bad time", CSVHeader + "\n1,abc,command,IDLE,x\n", "log:2: time_s: "},
	{"csv bad seq", CSVHeader + "\n1,0,command,IDLE,x\nz,0,command,IDLE,x\n", "log:3: seq: "},
	{"csv short row", CSVHeader + "\n1,0,command\n", "log:2: "},
	{"csv bad quote", CSVHeader + "\n1,0,command,IDLE,\"x\n", "log:2: "},
}

func TestReadRefuses(t *testing.T) {
	for _, tc := range badLines {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "log")
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v; want a *ParseError starting %q", err, tc.want)
			}
		})
	}
}

// FuzzRead: Read never panics; an error is a *ParseError with a line
// number within the input; what it accepts has a kind and a finite time ≥
// 0, and (JSONL) encodes back to lines that read to the same entries.
func FuzzRead(f *testing.F) {
	for _, tc := range badLines {
		f.Add([]byte(tc.in))
	}
	f.Add(encode(nil, flight()))
	f.Add([]byte(CSVHeader + "\n1,0.000,command,IDLE,connect: accepted\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lg, err := Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error %v (%T) is not a *ParseError with a line in the input", err, err)
			}
			return
		}
		for _, e := range lg.Entries {
			if e.Kind == "" || !(e.TimeS >= 0) || e.TimeS > 1e308 {
				t.Fatalf("accepted %+v", e)
			}
		}
		if lg.CSV {
			return
		}
		var out []byte
		for _, e := range lg.Entries {
			if out, err = Append(out, e); err != nil {
				t.Fatalf("accepted an entry that does not encode: %v", err)
			}
		}
		again, err := Read(bytes.NewReader(out), "again")
		if err != nil || len(again.Entries) != len(lg.Entries) {
			t.Fatalf("re-read: %v, %d entries; want %d", err, len(again.Entries), len(lg.Entries))
		}
		for i := range again.Entries {
			if again.Entries[i].Kind != lg.Entries[i].Kind || again.Entries[i].Seq != lg.Entries[i].Seq {
				t.Fatalf("entry %d changed: %+v → %+v", i, lg.Entries[i], again.Entries[i])
			}
		}
		_ = Summarize(Missions(lg, "fuzz"))
	})
}
