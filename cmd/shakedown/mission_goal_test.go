package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/client"
)

// TestMissionWatchIgnoresRecords: the status stream interleaves records,
// goal feedback and results with the status; watch hands on only the
// status events, even though a record's JSON also decodes as a status
// (the false "IDLE pos unknown" lines of old), and copes with comments,
// multi-line data and a missing space after the colon.
func TestMissionWatchIgnoresRecords(t *testing.T) {
	stream := "event: status\nid: 1\ndata: {\"state\":\"IDLE\",\"time_s\":0.5}\n\n" +
		"event: record\ndata: {\"n\":1,\"time_s\":1.49,\"kind\":\"command\",\"state\":\"IDLE\",\"detail\":\"connect: accepted\"}\n\n" +
		": a comment\n\n" +
		"event: feedback\ndata: {\"time_s\":1.5,\"id\":1,\"state\":\"EXECUTING\"}\n\n" +
		"event:status\nid: 2\ndata: {\"state\":\"CONNECTING\",\n" + "data: \"time_s\":1.6}\n\n" +
		"event: result\ndata: {\"time_s\":1.7,\"id\":1,\"state\":\"SUCCEEDED\"}\n\n" +
		"data: {\"state\":\"LANDED\"}\n\n" + // no event name: "message", not a status
		"event: status\nid: 3\ndata: {\"state\":\"ARMING\",\"time_s\":2}\n\n"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, stream)
	}))
	defer ts.Close()
	c := client.New(ts.URL, "")
	var got []string
	err := c.Watch(context.Background(), func(st mission.Status, _ []byte) bool {
		got = append(got, fmt.Sprintf("%s@%g", st.State, st.TimeS))
		return true
	})
	if err == nil || !strings.Contains(err.Error(), "closed the status stream") {
		t.Errorf("watch: %v; want the stream's end", err)
	}
	if want := "IDLE@0.5 CONNECTING@1.6 ARMING@2"; strings.Join(got, " ") != want {
		t.Errorf("statuses: got %s; want %s", strings.Join(got, " "), want)
	}
	var names []string
	_ = c.Events(context.Background(), func(ev client.Event) bool { names = append(names, ev.Name); return true })
	if want := "status record feedback status result message status"; strings.Join(names, " ") != want {
		t.Errorf("events: got %s; want %s", strings.Join(names, " "), want)
	}
}

func TestMissionGoalCLI(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	slog := filepath.Join(dir, "state.jsonl")
	addr, _, stop := serveMission(t, "--token-file", tok, "--adapter", "state_only", "--state-log", slog, "--record-dir", dir)
	cl := []string{"mission", "--addr", addr, "--token-file", tok}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		code, out, errOut := sh(t, append(append([]string{}, cl...), args...)...)
		if code != wantCode {
			t.Fatalf("%v: exit %d; want %d\n%s%s", args, code, wantCode, out, errOut)
		}
		return out + errOut
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("%d,0,-2", i)
	}
	if out := run(2, append([]string{"send", "goal"}, many...)...); !strings.Contains(out, "more than 100 waypoints") {
		t.Errorf("101 points: %s", out)
	}
	run(2, "send", "goal", "1,0")    // not a point
	run(1, "send", "goal", "4,0,-2") // refused in IDLE: a finding
	if out := run(2, "wait", "99"); !strings.Contains(out, "no goal 99") {
		t.Errorf("wait 99: %s", out)
	}
	c := client.New(addr, "")
	run(0, "send", "connect")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "ARMING" }); err != nil {
		t.Fatal(err)
	}
	run(0, "send", "armed")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "TAKEOFF" && !st.CommandPending }); err != nil {
		t.Fatal(err)
	}
	run(0, "send", "airborne")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "EXECUTING" }); err != nil {
		t.Fatal(err)
	}
	out := run(0, "send", "goal", "4,0,-2,2", "8,0,-2", "--wait")
	if !strings.Contains(out, "goal 1 accepted") || !strings.Contains(out, "goal 1 SUCCEEDED: 2/2 waypoints reached") {
		t.Errorf("send goal --wait:\n%s", out)
	}
	if out := run(0, "wait", "1"); !strings.Contains(out, "SUCCEEDED") {
		t.Errorf("wait 1: %s", out)
	}
	run(0, "land")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	code, out2, errOut := sh(t, "mission", "stats", slog, "--csv")
	if code != 0 || !strings.Contains(out2, "state.jsonl#1") || !strings.Contains(out2, "\ntotal,") {
		t.Errorf("stats: exit %d\n%s%s", code, out2, errOut)
	}
}

func TestMissionStatsBadInput(t *testing.T) {
	dir := t.TempDir()
	good := `{"seq":1,"time_s":0,"kind":"transition","state":"CONNECTING","detail":"IDLE->CONNECTING"}` + "\n"
	corrupt := filepath.Join(dir, "corrupt.jsonl")
	os.WriteFile(corrupt, []byte(good+good+"{\"seq\":3,\"time_s\":1,\"kind\":\n"+good), 0o644)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"corrupt line", []string{"mission", "stats", corrupt, "--out", out}, "corrupt.jsonl:3: "},
		{"missing file", []string{"mission", "stats", filepath.Join(dir, "none.jsonl")}, "none.jsonl"},
		{"no file", []string{"mission", "stats"}, "missing <state-log.jsonl | flight_events.csv>"},
		{"json and csv", []string{"mission", "stats", corrupt, "--json", "--csv"}, "choose one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := sh(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d; want 2 with %q\nstdout %s\nstderr %s", code, tc.want, stdout, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input wrote %s", out)
			}
		})
	}
}

func TestMissionServeBadStateLogAndFaults(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "new-token")
	params := filepath.Join(dir, "params.json")
	os.WriteFile(params, []byte(`{"home_z": 0}`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"state log folder missing", []string{"--state-log", filepath.Join(dir, "nope", "state.jsonl")}, "does not exist"},
		{"state log rate", []string{"--state-log-rate", "-1"}, "--state-log-rate"},
		{"state log size", []string{"--state-log", filepath.Join(dir, "s.jsonl"), "--state-log-max-bytes", "10"}, "--state-log-max-bytes"},
		{"fault syntax", []string{"--fault", "gnss"}, "KIND@T"},
		{"fault kind", []string{"--fault", "fire@3"}, `unknown kind "fire"`},
		{"motor needs sim", []string{"--fault", "motor@3"}, "--adapter sim"},
		{"fault on mavlink", []string{"--adapter", "mavlink", "--connect", "udp://127.0.0.1:1", "--fault", "gnss@3"}, "not a real one"},
		{"home_z flag with mavlink", []string{"--adapter", "mavlink", "--connect", "udp://127.0.0.1:1", "--home-z", "-1"}, "home_z"},
		{"home_z param with mavlink", []string{"--adapter", "mavlink", "--connect", "udp://127.0.0.1:1", "--params", params}, "home_z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"mission", "serve", "--listen", "127.0.0.1:0", "--token-file", tok}, tc.args...)
			code, out, errOut := sh(t, args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d; want 2 with %q\nstdout %s\nstderr %s", code, tc.want, out, errOut)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 { // params.json only: no token, no state log
				t.Errorf("bad input left files: %v", ents)
			}
		})
	}
}
