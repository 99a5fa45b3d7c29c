package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/mission/statelog"
)

// streamWriter is a ResponseWriter that streams what the handler writes
// into a pipe, so that a test in a synctest bubble can read server-sent
// events without a socket.
type streamWriter struct {
	h  http.Header
	pw *io.PipeWriter
}

func (s *streamWriter) Header() http.Header         { return s.h }
func (s *streamWriter) WriteHeader(int)             {}
func (s *streamWriter) Write(b []byte) (int, error) { return s.pw.Write(b) }
func (s *streamWriter) Flush()                      {}

type sseEvent struct{ name, data string }

// stream opens the status stream and returns its events, parsed on the
// event: and data: lines up to the blank line; stop closes it.
func stream(t *testing.T, h http.Handler) (<-chan sseEvent, func()) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest("GET", "/v1/status/stream", nil).WithContext(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(&streamWriter{h: http.Header{}, pw: pw}, req)
		pw.Close()
	}()
	out := make(chan sseEvent, 1024)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				out <- ev
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			}
		}
	}()
	return out, func() { cancel(); pr.Close(); <-done }
}

func request(t *testing.T, h http.Handler, method, path, body string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", bearer)
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, req)
	return rr.Code, rr.Body.Bytes()
}

func points(n int, speed float64) string {
	wps := make([]string, n)
	for i := range wps {
		wps[i] = fmt.Sprintf(`{"x":%d,"y":0,"z":-2,"speed":%g}`, 4*(i+1), speed)
	}
	return `{"waypoints":[` + strings.Join(wps, ",") + `]}`
}

// TestGoals drives goals over the HTTP API with the status stream open:
// a goal with 101 points is refused, a goal succeeds, a second goal while
// one runs is refused, a goal canceled while paused ends CANCELED, each
// goal gets exactly one result on the stream (carrying its ID) after its
// feedback, and unknown IDs are 404.
func TestGoals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		slog, err := server.OpenStateLog(server.StateLogConfig{Path: filepath.Join(dir, "state.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		rec := recorder(t)
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewDemo(adapter.KinematicConfig{}),
			Recorder: rec, RecordDir: dir, StateLog: slog})
		h := s.Handler(token, 0)
		events, closeStream := stream(t, h)
		takeOff(t, s)

		code, body := request(t, h, "POST", "/v1/goals", points(101, 2))
		if code != 400 || !strings.Contains(string(body), "holds more than 100 waypoints (101 waypoints)") {
			t.Fatalf("101 points: %d %s", code, body)
		}
		var gr server.GoalReply
		code, body = request(t, h, "POST", "/v1/goals", points(2, 4))
		if err := json.Unmarshal(body, &gr); code != 200 || err != nil || gr.ID != 1 || !gr.Success {
			t.Fatalf("goal: %d %s", code, body)
		}
		code, body = request(t, h, "POST", "/v1/goals", points(1, 4))
		if err := json.Unmarshal(body, &gr); code != 409 || err != nil || gr.Code != mission.CodeQueueBusy || gr.ID != 0 {
			t.Fatalf("second goal while one runs: %d %s", code, body)
		}
		results := map[uint64][]string{}
		feedback := map[uint64]int{}
		until := func(id uint64, state string) {
			t.Helper()
			for ev := range events {
				if ev.name != "feedback" && ev.name != "result" {
					continue
				}
				var g server.GoalEvent
				if err := json.Unmarshal([]byte(ev.data), &g); err != nil || g.ID == 0 {
					t.Fatalf("%s event %q: %v", ev.name, ev.data, err)
				}
				if ev.name == "feedback" {
					if len(results[g.ID]) > 0 {
						t.Errorf("goal %d: feedback after its result", g.ID)
					}
					feedback[g.ID]++
				} else {
					results[g.ID] = append(results[g.ID], g.State)
				}
				if g.ID == id && g.State == state {
					return
				}
			}
			t.Fatalf("stream ended before goal %d was %s", id, state)
		}
		until(1, "SUCCEEDED")
		code, body = request(t, h, "GET", "/v1/goals/1", "")
		var g mission.GoalStatus
		if err := json.Unmarshal(body, &g); code != 200 || err != nil || g.State != "SUCCEEDED" || g.Completed != 2 {
			t.Fatalf("GET goal 1: %d %s", code, body)
		}
		for _, p := range []string{"/v1/goals/2", "/v1/goals/x", "/v1/goals/0"} {
			if code, body := request(t, h, "GET", p, ""); code != 404 || !strings.Contains(string(body), mission.CodeGoalNotFound) {
				t.Errorf("GET %s: %d %s", p, code, body)
			}
		}
		if code, body := request(t, h, "DELETE", "/v1/goals/1", ""); code != 409 || !strings.Contains(string(body), mission.CodeGoalDone) {
			t.Errorf("DELETE an ended goal: %d %s", code, body)
		}

		code, body = request(t, h, "POST", "/v1/goals", points(3, 1))
		if err := json.Unmarshal(body, &gr); err != nil || code != 200 || gr.ID != 2 {
			t.Fatalf("goal 2: %d %s", code, body)
		}
		until(2, "EXECUTING")
		do(t, s, mission.Pause{})
		waitFor(t, s, "PAUSED", time.Second, state("PAUSED"))
		if code, body := request(t, h, "DELETE", "/v1/goals/2", ""); code != 200 {
			t.Fatalf("DELETE goal 2: %d %s", code, body)
		}
		until(2, "CANCELED")
		if st := s.Status(); st.State != "PAUSED" {
			t.Errorf("canceled while paused: state %s; want PAUSED", st.State)
		}
		g, _ = s.Goal(2)
		if g.Reason != mission.CancelByCancel || g.Dropped != 3 {
			t.Errorf("goal 2: %+v", g)
		}
		closeStream()
		for id := uint64(1); id <= 2; id++ {
			if len(results[id]) != 1 || feedback[id] == 0 {
				t.Errorf("goal %d: results %v, %d feedback; want exactly one result after feedback", id, results[id], feedback[id])
			}
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		// the state log holds the goals' records, the refusal of the 101
		// points and of the second goal
		f, err := os.Open(filepath.Join(dir, "state.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		lg, err := statelog.Read(f, "state.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, e := range lg.Entries {
			kinds[e.Kind]++
			if e.Kind == "command" && e.Code != "" {
				kinds["refused "+e.Code]++
			}
		}
		for _, k := range []string{"refused invalid_command", "refused queue_busy", "refused goal_done", mission.KindGoalResult, statelog.KindDispatch, statelog.KindSample} {
			if kinds[k] == 0 {
				t.Errorf("state log: no %s entry (%v)", k, kinds)
			}
		}
		if kinds[mission.KindGoalResult] != 2 {
			t.Errorf("state log: %d goal results; want 2", kinds[mission.KindGoalResult])
		}
	})
}

// TestRefusalsRecorded: 20 malformed missions sent over HTTP are all in
// the black box, each with its code; then a flood of 5000 refusals leaves
// every transition in the ring, counts the refusals it dropped, and the
// state log reports those it left out.
func TestRefusalsRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		slog, err := server.OpenStateLog(server.StateLogConfig{Path: filepath.Join(dir, "state.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := blackbox.New(blackbox.DefaultMaxEvents)
		if err != nil {
			t.Fatal(err)
		}
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{}),
			Recorder: rec, RecordDir: dir, StateLog: slog})
		h := s.Handler(token, 0)
		takeOff(t, s)
		bad := []string{
			`{"event":"mission","waypoints":[]}`, `{"event":"mission","waypoints":[{"x":true,"y":0,"z":-2}]}`,
			`{"event":"mission","waypoints":[{"x":1,"y":0,"z":1e400}]}`, `{"event":"mission","waypoints":{}}`,
			`{"event":"mission","waypoints":[{"x":1,"y":0}]}`, `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2,"w":1}]}`,
			`{"event":"mission"}`, `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2,"speed":-1}]}`,
			`{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2}],"waypoints":[]}`, `{"event":"mission","waypoints":[1]}`,
			`{"event":"mission","waypoints":[{"x":"1","y":0,"z":-2}]}`, `{"event":"mission","waypoints":[null]}`,
			`{"event":"mission","waypoints":[{"x":1,"y":0,"z":5}]}`, `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-31}]}`,
			`{"event":"mission",`, `[{"event":"mission"}]`, `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2,"speed":0}]}`,
			`{"event":"mission","waypoints":"none"}`, `{"event":"mission","waypoints":[{}]}`, strings.Replace(points(101, 2), `{"waypoints"`, `{"event":"mission","waypoints"`, 1),
		}
		for _, b := range bad {
			if code, body := request(t, h, "POST", "/v1/command", b); code != 400 && code != 409 {
				t.Fatalf("%s: %d %s", b, code, body)
			}
		}
		refused := func() (n int, codes map[string]int) {
			codes = map[string]int{}
			for _, e := range rec.Events(nil) {
				if e.Kind == mission.KindCommand && strings.Contains(e.Detail, ": rejected (") {
					n++
					codes[e.Detail[strings.Index(e.Detail, "(")+1:strings.Index(e.Detail, ")")]]++
				}
			}
			return n, codes
		}
		if n, codes := refused(); n != len(bad) {
			t.Fatalf("black box holds %d refusals of %d malformed missions (%v)", n, len(bad), codes)
		}
		transitions := func() int {
			n := 0
			for _, e := range rec.Events(nil) {
				if e.Kind == mission.KindTransition {
					n++
				}
			}
			return n
		}
		before := transitions()
		for i := 0; i < 5000; i++ {
			request(t, h, "POST", "/v1/command", `{"event":"armed"}`) // wrong_state, through the machine
			if i%2 == 0 {
				req := httptest.NewRequest("POST", "/v1/pause", nil) // no token
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		}
		if got := transitions(); got != before {
			t.Errorf("after the flood %d transitions held; want %d", got, before)
		}
		if n, _ := refused(); n != blackbox.RefusalCap(blackbox.DefaultMaxEvents) || rec.DroppedRefusals() != uint64(len(bad)+7500-n) {
			t.Errorf("refusals held %d, dropped %d; want %d, %d", n, rec.DroppedRefusals(), blackbox.RefusalCap(blackbox.DefaultMaxEvents),
				len(bad)+7500-blackbox.RefusalCap(blackbox.DefaultMaxEvents))
		}
		time.Sleep(time.Second) // fake time: the next samples report the refusals left out of the state log
		do(t, s, mission.Land{})
		waitFor(t, s, "LANDED", 10*time.Second, state("LANDED"))
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "state.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lg, err := statelog.Read(strings.NewReader(string(data)), "state.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		var written, dropped, trans int
		for _, e := range lg.Entries {
			switch {
			case e.Kind == "command" && e.Code != "":
				written++
			case e.Kind == statelog.KindRefusalsDropped:
				dropped += int(e.Count)
			case e.Kind == mission.KindTransition:
				trans++
			}
		}
		if written+dropped != len(bad)+7500 || written > 100+20 || trans < 5 {
			t.Errorf("state log: %d refusals written, %d reported dropped (want %d in all, at most ~100 written), %d transitions",
				written, dropped, len(bad)+7500, trans)
		}
	})
}

// TestStateLogRotation: a small rotation size splits the log into parts,
// none larger than the limit, every line whole, the seq continuous from
// the oldest part to the newest, and no more parts than kept.
func TestStateLogRotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.jsonl")
		const max = 8192
		slog, err := server.OpenStateLog(server.StateLogConfig{Path: path, MaxBytes: max, Keep: 2})
		if err != nil {
			t.Fatal(err)
		}
		s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewDemo(adapter.KinematicConfig{}),
			StateLog: slog, SampleEvery: 100 * time.Millisecond})
		takeOff(t, s)
		do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 10, Z: -2, SpeedMS: 2}}})
		waitFor(t, s, "COMPLETED", 30*time.Second, func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" })
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path + ".3"); err == nil {
			t.Errorf("%s.3 exists; only 2 parts are kept", path)
		}
		var seqs []uint64
		for _, p := range []string{path + ".2", path + ".1", path} {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > max || len(data) == 0 || data[len(data)-1] != '\n' {
				t.Errorf("%s: %d bytes (limit %d), ends in newline %v", p, len(data), max, len(data) > 0 && data[len(data)-1] == '\n')
			}
			lg, err := statelog.Read(strings.NewReader(string(data)), p)
			if err != nil || lg.Partial {
				t.Fatalf("%s: %v partial %v", p, err, lg.Partial)
			}
			for _, e := range lg.Entries {
				seqs = append(seqs, e.Seq)
			}
		}
		for i := 1; i < len(seqs); i++ {
			if seqs[i] != seqs[i-1]+1 {
				t.Fatalf("seq jumps from %d to %d across the parts", seqs[i-1], seqs[i])
			}
		}
	})
}

func TestOpenStateLogErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  server.StateLogConfig
		want string
	}{
		{"missing folder", server.StateLogConfig{Path: filepath.Join(dir, "nope", "state.jsonl")}, "folder does not exist"},
		{"no path", server.StateLogConfig{}, "no path"},
		{"tiny rotation", server.StateLogConfig{Path: filepath.Join(dir, "a.jsonl"), MaxBytes: 10}, "rotation size"},
		{"keep", server.StateLogConfig{Path: filepath.Join(dir, "a.jsonl"), Keep: -1}, "parts kept"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := server.OpenStateLog(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want %q", err, tc.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left files behind: %v", ents)
			}
		})
	}
}
