package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

const token = "s3cret-token"

type httpCase struct {
	name       string
	method     string
	path       string
	auth       string // the Authorization header; "" = none
	body       string
	chunked    bool // send the body without a Content-Length
	wantStatus int
	wantCode   string
	unchanged  bool // the status must not change
}

var bearer = "Bearer " + token

func httpCases() []httpCase {
	big := `{"event":"goto","x":1,"y":0,"z":-2,"pad":"` + strings.Repeat("x", server.DefaultMaxBody) + `"}`
	return []httpCase{
		{"status", "GET", "/v1/status", "", "", false, 200, "", true},
		{"status HEAD", "HEAD", "/v1/status", "", "", false, 200, "", true},
		{"no token", "POST", "/v1/command", "", `{"event":"connect"}`, false, 401, server.CodeUnauthorized, true},
		{"wrong token", "POST", "/v1/command", "Bearer nope", `{"event":"connect"}`, false, 401, server.CodeUnauthorized, true},
		{"token without Bearer", "POST", "/v1/command", token, `{"event":"connect"}`, false, 401, server.CodeUnauthorized, true},
		{"basic auth", "POST", "/v1/pause", "Basic dXNlcjpwYXNz", ``, false, 401, server.CodeUnauthorized, true},
		{"no token service", "POST", "/v1/land", "", ``, false, 401, server.CodeUnauthorized, true},
		{"no token dump_log", "POST", "/v1/dump_log", "", ``, false, 401, server.CodeUnauthorized, true},
		{"no token and too large", "POST", "/v1/command", "", big, false, 401, server.CodeUnauthorized, true},
		{"too large", "POST", "/v1/command", bearer, big, false, 413, server.CodeBodyTooLarge, true},
		{"too large chunked", "POST", "/v1/command", bearer, big, true, 413, server.CodeBodyTooLarge, true},
		{"too large service", "POST", "/v1/pause", bearer, big, false, 413, server.CodeBodyTooLarge, true},
		{"bad JSON", "POST", "/v1/command", bearer, `{"event":"connect"`, false, 400, mission.CodeBadJSON, true},
		{"not JSON", "POST", "/v1/command", bearer, `connect`, false, 400, mission.CodeBadJSON, true},
		{"empty body", "POST", "/v1/command", bearer, ``, false, 400, mission.CodeBadJSON, true},
		{"JSON list", "POST", "/v1/command", bearer, `[{"event":"connect"}]`, false, 400, mission.CodeBadJSON, true},
		{"unknown event", "POST", "/v1/command", bearer, `{"event":"takeoff"}`, false, 400, mission.CodeInvalid, true},
		{"boolean waypoint", "POST", "/v1/command", bearer, `{"event":"goto","x":true,"y":0,"z":-2}`, false, 400, mission.CodeInvalid, true},
		{"body on a service", "POST", "/v1/pause", bearer, `{"force":true}`, false, 400, mission.CodeInvalid, true},
		{"wrong state", "POST", "/v1/pause", bearer, ``, false, 409, mission.CodeWrongState, true},
		{"wrong state command", "POST", "/v1/command", bearer, `{"event":"armed"}`, false, 409, mission.CodeWrongState, true},
		{"GET command", "GET", "/v1/command", bearer, ``, false, 405, server.CodeMethodNotAllowed, true},
		{"POST status", "POST", "/v1/status", bearer, ``, false, 405, server.CodeMethodNotAllowed, true},
		{"unknown path", "POST", "/v1/takeoff", bearer, ``, false, 404, server.CodeNotFound, true},
		{"unknown path", "GET", "/v2/status", "", ``, false, 404, server.CodeNotFound, true},
		{"dump_log", "POST", "/v1/dump_log", bearer, `{}`, false, 200, "", false},
		{"connect", "POST", "/v1/command", bearer, `{"event":"connect"}`, false, 200, "", false},
	}
}

// chunkedBody hides its length so the client sends it chunked.
type chunkedBody struct{ r io.Reader }

func (c chunkedBody) Read(p []byte) (int, error) { return c.r.Read(p) }

func newRequest(t *testing.T, base string, c httpCase) *http.Request {
	t.Helper()
	var body io.Reader = strings.NewReader(c.body)
	if c.chunked {
		body = chunkedBody{strings.NewReader(c.body)}
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	return req
}

// timeless returns the status JSON without the fields that move with the
// clock alone.
func timeless(t *testing.T, js []byte) string {
	var st mission.Status
	if err := json.Unmarshal(js, &st); err != nil {
		t.Fatal(err)
	}
	st.TimeS, st.StateTimeS, st.TelemetryAgeS = 0, 0, nil
	b, _ := json.Marshal(st)
	return string(b)
}

// check runs one case through send and checks the status code, the error
// code, and that the daemon's status did not change when it must not.
func check(t *testing.T, s *server.Server, c httpCase, send func(*http.Request) (int, []byte), base string) {
	t.Helper()
	before, v0 := s.StatusJSON()
	code, body := send(newRequest(t, base, c))
	if code != c.wantStatus {
		t.Fatalf("status: got %d; want %d (body %s)", code, c.wantStatus, body)
	}
	if c.method != "HEAD" && c.path != "/v1/status" {
		var rep server.Reply
		if err := json.Unmarshal(body, &rep); err != nil {
			t.Fatalf("body is not JSON: %v: %q", err, body)
		}
		if rep.Code != c.wantCode || rep.Success != (c.wantStatus == 200) || rep.Message == "" {
			t.Fatalf("reply: got %+v; want code %q", rep, c.wantCode)
		}
	}
	if c.unchanged {
		after, v1 := s.StatusJSON()
		if v1 != v0 || timeless(t, after) != timeless(t, before) {
			t.Fatalf("the status changed:\nbefore %s\nafter  %s", before, after)
		}
	}
}

// TestHTTPRecorder runs the cases through the handler in process
// (httptest.ResponseRecorder), in fake time.
func TestHTTPRecorder(t *testing.T) {
	for _, c := range httpCases() {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{}),
					Recorder: recorder(t), RecordDir: t.TempDir()})
				defer stop()
				waitFor(t, s, "first telemetry", time.Second, func(st mission.Status) bool { return st.Position != nil })
				h := s.Handler(token, 0)
				check(t, s, c, func(req *http.Request) (int, []byte) {
					rr := httptest.NewRecorder()
					h.ServeHTTP(rr, req)
					return rr.Code, rr.Body.Bytes()
				}, "http://mission.test")
			})
		})
	}
}

// TestHTTPLoopback runs the same cases over a real loopback socket, one
// daemon for all (the state-changing cases come last).
func TestHTTPLoopback(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{}),
		Recorder: recorder(t), RecordDir: t.TempDir()})
	defer stop()
	waitFor(t, s, "first telemetry", 10*time.Second, func(st mission.Status) bool { return st.Position != nil })
	ts := httptest.NewServer(s.Handler(token, 0))
	defer ts.Close()
	for _, c := range httpCases() {
		t.Run(c.name, func(t *testing.T) {
			check(t, s, c, func(req *http.Request) (int, []byte) {
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 without WWW-Authenticate")
				}
				return resp.StatusCode, b
			}, ts.URL)
		})
	}
}

// TestStatusStream reads server-sent events over a real socket while the
// daemon connects: the state is seen changing without polling.
func TestStatusStream(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewDemo(adapter.KinematicConfig{})})
	defer stop()
	ts := httptest.NewServer(s.Handler(token, 0))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/status/stream", nil)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var states []string
	var records []server.FeedRecord
	next := func() mission.Status {
		var event, id string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[7:]
			case strings.HasPrefix(line, "id: "):
				id = line[4:]
			case strings.HasPrefix(line, "data: ") && event == "record":
				var rec server.FeedRecord
				if err := json.Unmarshal([]byte(line[6:]), &rec); err != nil || rec.N == 0 || rec.Kind == "" {
					t.Fatalf("record %q: %v", line, err)
				}
				records = append(records, rec)
				event = ""
			case strings.HasPrefix(line, "data: "):
				var st mission.Status
				if err := json.Unmarshal([]byte(line[6:]), &st); err != nil {
					t.Fatal(err)
				}
				if event != "status" || id == "" {
					t.Fatalf("event %q id %q", event, id)
				}
				if len(states) == 0 || states[len(states)-1] != st.State {
					states = append(states, st.State)
				}
				return st
			}
		}
		t.Fatalf("stream ended: %v (states %v)", sc.Err(), states)
		return mission.Status{}
	}
	if st := next(); st.State != "IDLE" {
		t.Fatalf("first event: state %s", st.State)
	}
	post, _ := http.NewRequest("POST", ts.URL+"/v1/command", strings.NewReader(`{"event":"connect"}`))
	post.Header.Set("Authorization", bearer)
	presp, err := ts.Client().Do(post)
	if err != nil {
		t.Fatal(err)
	}
	presp.Body.Close()
	for st := next(); st.State != "ARMING"; st = next() {
	}
	if got := strings.Join(states, " "); got != "IDLE CONNECTING ARMING" {
		t.Errorf("states seen: %s", got)
	}
	// The machine's records come on the same stream: the connect command
	// and the transition to CONNECTING at least.
	var kinds []string
	for _, r := range records {
		kinds = append(kinds, r.Kind)
	}
	if k := strings.Join(kinds, " "); !strings.Contains(k, "command") || !strings.Contains(k, "transition") {
		t.Errorf("records streamed: %q; want the command and the transition", k)
	}
}

// The live page is served at / without a token and loads nothing from
// elsewhere; /v1/events and /v1/queue answer JSON.
func TestLivePageAndFeeds(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{})})
	defer stop()
	h := s.Handler(token, 0)
	get := func(path string) *httptest.ResponseRecorder {
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, httptest.NewRequest("GET", path, nil))
		return rr
	}
	rr := get("/")
	if rr.Code != 200 || !strings.Contains(rr.Body.String(), "EventSource(\"/v1/status/stream\")") {
		t.Fatalf("GET /: %d", rr.Code)
	}
	if b := rr.Body.String(); strings.Contains(b, "http://") || strings.Contains(b, "https://") {
		t.Error("the live page refers to an external address")
	}
	if _, err := s.Do(context.Background(), mission.Connect{}); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Records []server.FeedRecord `json:"records"`
		Last    uint64              `json:"last"`
	}
	if rr := get("/v1/events?after=0"); rr.Code != 200 || json.Unmarshal(rr.Body.Bytes(), &ev) != nil || len(ev.Records) == 0 || ev.Last != ev.Records[len(ev.Records)-1].N {
		t.Errorf("GET /v1/events: %d %s", rr.Code, rr.Body)
	}
	if rr := get("/v1/queue"); rr.Code != 200 || !strings.Contains(rr.Body.String(), `"waypoints":[]`) {
		t.Errorf("GET /v1/queue before a mission: %d %s", rr.Code, rr.Body)
	}
	rr = httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("POST", "/", nil))
	if rr.Code != 405 {
		t.Errorf("POST /: %d; want 405", rr.Code)
	}
}

// TestStopped: requests after the daemon stopped get 503.
func TestStopped(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{})})
	stop()
	rr := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/pause", nil)
	req.Header.Set("Authorization", bearer)
	s.Handler(token, 0).ServeHTTP(rr, req)
	if rr.Code != 503 || !strings.Contains(rr.Body.String(), server.CodeStopped) {
		t.Errorf("got %d %s; want 503 stopped", rr.Code, rr.Body)
	}
}
