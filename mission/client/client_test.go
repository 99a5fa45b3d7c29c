package client

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
)

// TestWatchIgnoresRecords: the status stream interleaves records, goal
// feedback and results with the status; Watch hands on only the status
// events, even though a record's JSON also decodes as a status, and copes
// with comments, multi-line data and a missing space after the colon.
func TestWatchIgnoresRecords(t *testing.T) {
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
	c := New(ts.URL, "")
	var got []string
	err := c.Watch(context.Background(), func(st mission.Status, _ []byte) bool {
		got = append(got, fmt.Sprintf("%s@%g", st.State, st.TimeS))
		return true
	})
	if err == nil || !strings.Contains(err.Error(), "closed the status stream") {
		t.Errorf("Watch: %v; want the stream's end", err)
	}
	if want := "IDLE@0.5 CONNECTING@1.6 ARMING@2"; strings.Join(got, " ") != want {
		t.Errorf("statuses: got %s; want %s", strings.Join(got, " "), want)
	}
	var names []string
	_ = c.Events(context.Background(), func(ev Event) bool { names = append(names, ev.Name); return true })
	if want := "status record feedback status result message status"; strings.Join(names, " ") != want {
		t.Errorf("events: got %s; want %s", strings.Join(names, " "), want)
	}
	st, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "CONNECTING" })
	if err != nil || st.TimeS != 1.6 {
		t.Errorf("WaitFor CONNECTING: got %s@%g, %v; want CONNECTING@1.6", st.State, st.TimeS, err)
	}
}

// TestPostErrors: a refusal is an *HTTPError that Refused recognises (409
// only); an answer that is not JSON and an unreachable daemon say so.
func TestPostErrors(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"success":false,"code":"unauthorized","message":"bad token"}`)
			return
		}
		switch r.URL.Path {
		case "/v1/pause":
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"success":false,"code":"wrong_state","message":"pause refused in IDLE"}`)
		case "/v1/html":
			fmt.Fprint(w, "<html>")
		default:
			fmt.Fprint(w, `{"success":true,"message":"ok"}`)
		}
	}))
	defer ts.Close()
	ctx := context.Background()
	c := New(ts.URL+"/", "tok")
	if rep, err := c.Post(ctx, "/v1/command", nil); err != nil || rep.Message != "ok" {
		t.Errorf("Post: %+v, %v; want ok", rep, err)
	}
	_, err := c.Post(ctx, "/v1/pause", nil)
	if he, ok := Refused(err); !ok || he.Reply.Code != "wrong_state" || he.Status != 409 {
		t.Errorf("Post pause: %v; want a 409 refusal", err)
	}
	_, err = New(ts.URL, "bad").Post(ctx, "/v1/command", nil)
	if _, ok := Refused(err); ok || err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("Post with a bad token: %v; want HTTP 401, not a refusal", err)
	}
	if _, err := c.Post(ctx, "/v1/html", nil); err == nil || !strings.Contains(err.Error(), "without a JSON reply") {
		t.Errorf("Post answered by HTML: %v", err)
	}
	ts.Close()
	if _, _, err := c.Status(ctx); err == nil || !strings.Contains(err.Error(), "cannot reach the mission daemon") {
		t.Errorf("Status of a closed daemon: %v", err)
	}
}

func TestBodies(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.json")
	os.WriteFile(file, []byte(`{"event":"connect"}`), 0o644)
	for _, tc := range []struct {
		name, arg, stdin, want, err string
	}{
		{"name", "connect", "", `{"event":"connect"}`, ""},
		{"json", `{"event":"goto","x":1,"y":0,"z":-2}`, "", `{"event":"goto","x":1,"y":0,"z":-2}`, ""},
		{"file", "@" + file, "", `{"event":"connect"}`, ""},
		{"stdin", "-", `{"event":"land"}`, `{"event":"land"}`, ""},
		{"goto without fields", "goto", "", "", "needs its fields"},
		{"unknown", "takeoff", "", "", `unknown event "takeoff"`},
		{"bad JSON", `{"event":`, "", "", "JSON"},
		{"missing file", "@" + filepath.Join(dir, "none"), "", "", "none"},
		{"huge", "-", `{"event":"` + strings.Repeat("x", 70000) + `"}`, "", "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := CommandBody(tc.arg, strings.NewReader(tc.stdin))
			switch {
			case tc.err == "" && (err != nil || string(b) != tc.want):
				t.Errorf("got %s, %v; want %s", b, err, tc.want)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("got %s, %v; want an error with %q", b, err, tc.err)
			}
		})
	}
	for _, tc := range []struct {
		name      string
		args      []string
		want, err string
	}{
		{"points", []string{"4,0,-2,2", "8,0,-2"}, `{"waypoints":[{"x":4,"y":0,"z":-2,"speed":2},{"x":8,"y":0,"z":-2}]}`, ""},
		{"json", []string{`{"waypoints":[{"x":1,"y":0,"z":-2}]}`}, `{"waypoints":[{"x":1,"y":0,"z":-2}]}`, ""},
		{"two fields", []string{"4,0"}, "", "want x,y,z"},
		{"not a number", []string{"4,0,NaNx"}, "", "is not a number"},
	} {
		t.Run("goal "+tc.name, func(t *testing.T) {
			b, err := GoalBody(tc.args, strings.NewReader(""))
			switch {
			case tc.err == "" && (err != nil || string(b) != tc.want):
				t.Errorf("got %s, %v; want %s", b, err, tc.want)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("got %s, %v; want an error with %q", b, err, tc.err)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	i := 1
	q := mission.QueueStatus{State: "RUNNING", Completed: 1, Total: 3, CurrentIndex: &i, Remaining: 2}
	if got, want := FormatQueue(q), "RUNNING 1/3 done, current 1, 2 remaining"; got != want {
		t.Errorf("FormatQueue: got %q; want %q", got, want)
	}
	if got, want := FormatPoint(&mission.Point{X: 1, Y: -2.345, Z: -3}), "(1.00, -2.35, -3.00)"; got != want {
		t.Errorf("FormatPoint: got %q; want %q", got, want)
	}
	g := mission.GoalStatus{ID: 2, State: "ABORTED", Reason: "battery_low", Completed: 1, Total: 3, Dropped: 2}
	if got, want := GoalLine(g), "goal 2 ABORTED (battery_low): 1/3 waypoints reached, 2 dropped"; got != want {
		t.Errorf("GoalLine: got %q; want %q", got, want)
	}
}
