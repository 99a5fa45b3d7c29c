package server

import (
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/mission"
)

// DefaultMaxBody is the largest request body accepted: a mission of 100
// waypoints is about 6 KiB.
const DefaultMaxBody = 64 << 10

// Error codes of the HTTP API besides mission's (mission.Code*): each
// response body is {"success":false,"code":…,"message":…}.
const (
	CodeUnauthorized      = "unauthorized"       // 401: no or wrong bearer token
	CodeBodyTooLarge      = "body_too_large"     // 413
	CodeNotFound          = "not_found"          // 404
	CodeMethodNotAllowed  = "method_not_allowed" // 405
	CodeStopped           = "stopped"            // 503: the daemon is shutting down
	CodeRecordingDisabled = "recording_disabled" // 409: dump_log with record_events=false
	CodeDumpFailed        = "dump_failed"        // 500
)

// HTTPStatus maps a reply's code to its HTTP status.
func HTTPStatus(code string) int {
	switch code {
	case "":
		return http.StatusOK
	case mission.CodeBadJSON, mission.CodeInvalid:
		return http.StatusBadRequest
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case CodeBodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeNotFound, mission.CodeGoalNotFound:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodeStopped:
		return http.StatusServiceUnavailable
	case CodeDumpFailed:
		return http.StatusInternalServerError
	}
	return http.StatusConflict // refused in the current state
}

// services are the POST /v1/<name> endpoints besides command and dump_log.
var services = map[string]bool{"pause": true, "resume": true, "cancel": true, "return_home": true, "land": true}

// Handler returns the HTTP API:
//
//	POST /v1/command        a command JSON ({"event":"connect"}, goto, mission, …)
//	POST /v1/pause, /v1/resume, /v1/cancel, /v1/return_home, /v1/land, /v1/dump_log
//	GET  /v1/status         the status JSON
//	GET  /v1/status/stream  server-sent events: the status after every change
//	                        ("status") and each new machine record ("record")
//	GET  /v1/events?after=N the latest machine records after N (JSON)
//	GET  /v1/queue          the waypoints of the current or last queue (JSON)
//	POST /v1/goals          a goal: {"waypoints":[…]} → {"id":N,…}
//	GET  /v1/goals          the goals the daemon remembers
//	GET  /v1/goals/{id}     one goal's status (its last feedback or result)
//	DELETE /v1/goals/{id}   cancel the goal
//	GET  /                  the live mission page (live.html)
//
// The status stream also carries each goal's feedback ("feedback") and
// its result ("result"), the goal's status as data.
//
// POST and DELETE requests need "Authorization: Bearer <token>"; bodies
// above maxBody bytes (0 = DefaultMaxBody) are refused with 413; errors
// are JSON with a stable code. A refused or invalid request changes
// nothing, and is recorded (black box and state log) like the machine's
// own refusals.
func (s *Server) Handler(token string, maxBody int64) http.Handler {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	return &api{s: s, token: []byte(token), maxBody: maxBody}
}

type api struct {
	s       *Server
	token   []byte
	maxBody int64
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	w.Write(append(b, '\n'))
}

func fail(w http.ResponseWriter, code, msg string) {
	writeJSON(w, HTTPStatus(code), Reply{Success: false, Code: code, Message: msg})
}

func (a *api) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || len(a.token) == 0 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), a.token) == 1
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	name, isV1 := strings.CutPrefix(path, "/v1/")
	switch {
	case path == "/" || path == "/index.html" || path == "/v1/events" || path == "/v1/queue":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			fail(w, CodeMethodNotAllowed, r.Method+" "+path+": use GET")
			return
		}
		switch path {
		case "/v1/events":
			after, _ := strconv.ParseUint(r.URL.Query().Get("after"), 10, 64)
			recs, n := a.s.Feed(after)
			if recs == nil {
				recs = []FeedRecord{}
			}
			writeJSON(w, http.StatusOK, map[string]any{"records": recs, "last": n})
		case "/v1/queue":
			wps := a.s.Waypoints()
			out := make([]map[string]float64, len(wps))
			for i, p := range wps {
				out[i] = map[string]float64{"x": p.X, "y": p.Y, "z": p.Z, "speed": p.SpeedMS}
			}
			writeJSON(w, http.StatusOK, map[string]any{"waypoints": out})
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
			w.Write(livePage)
		}
	case path == "/v1/status" || path == "/v1/status/stream":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			fail(w, CodeMethodNotAllowed, r.Method+" "+path+": use GET")
			return
		}
		if path == "/v1/status" {
			js, _ := a.s.StatusJSON()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.Write(append(append([]byte(nil), js...), '\n'))
			return
		}
		a.stream(w, r)
	case isV1 && (name == "goals" || strings.HasPrefix(name, "goals/")):
		a.goals(w, r, strings.TrimPrefix(strings.TrimPrefix(name, "goals"), "/"))
	case isV1 && (name == "command" || name == "dump_log" || services[name]):
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			a.refuse(w, r, name, CodeMethodNotAllowed, r.Method+" "+path+": use POST")
			return
		}
		if !a.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="shakedown mission"`)
			a.refuse(w, r, name, CodeUnauthorized, "missing or wrong bearer token (Authorization: Bearer <token from the token file>)")
			return
		}
		body, ok := a.body(w, r, name)
		if !ok {
			return
		}
		a.post(w, r, name, body)
	default:
		fail(w, CodeNotFound, "no such endpoint: "+path)
	}
}

// refuse answers a request refused before the machine saw it, and records
// the refusal.
func (a *api) refuse(w http.ResponseWriter, r *http.Request, name, code, msg string) {
	_ = a.s.Refuse(r.Context(), name, code, msg) // a stopped daemon records nothing
	fail(w, code, msg)
}

// body reads the request body, refusing it above maxBody.
func (a *api) body(w http.ResponseWriter, r *http.Request, name string) ([]byte, bool) {
	if r.ContentLength > a.maxBody {
		a.refuse(w, r, name, CodeBodyTooLarge, fmt.Sprintf("request body of %d bytes is above the limit of %d", r.ContentLength, a.maxBody))
		return nil, false
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			a.refuse(w, r, name, CodeBodyTooLarge, fmt.Sprintf("request body is above the limit of %d bytes", a.maxBody))
			return nil, false
		}
		a.refuse(w, r, name, mission.CodeBadJSON, "reading the body: "+err.Error())
		return nil, false
	}
	return b, true
}

// GoalReply is the answer to POST /v1/goals: the reply and the new goal's
// ID (0 when refused).
type GoalReply struct {
	Reply
	ID uint64 `json:"id"`
}

// goals serves /v1/goals and /v1/goals/{id}.
func (a *api) goals(w http.ResponseWriter, r *http.Request, idText string) {
	if idText == "" {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			writeJSON(w, http.StatusOK, map[string]any{"goals": a.s.Goals()})
			return
		case http.MethodPost:
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			a.refuse(w, r, "goal", CodeMethodNotAllowed, r.Method+" /v1/goals: use GET or POST")
			return
		}
		if !a.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="shakedown mission"`)
			a.refuse(w, r, "goal", CodeUnauthorized, "missing or wrong bearer token (Authorization: Bearer <token from the token file>)")
			return
		}
		body, ok := a.body(w, r, "goal")
		if !ok {
			return
		}
		ev, err := mission.ParseGoal(body)
		if err != nil {
			a.refuse(w, r, "goal", mission.Code(err), err.Error())
			return
		}
		rep, err := a.s.Do(r.Context(), ev)
		if err != nil {
			fail(w, CodeStopped, err.Error())
			return
		}
		writeJSON(w, HTTPStatus(rep.Code), GoalReply{Reply: rep, ID: rep.GoalID})
		return
	}
	id, err := strconv.ParseUint(idText, 10, 64)
	if err != nil || id == 0 {
		if r.Method == http.MethodDelete {
			a.refuse(w, r, "cancel_goal", mission.CodeGoalNotFound, fmt.Sprintf("no goal %q: goal IDs are 1, 2, …", idText))
			return
		}
		fail(w, mission.CodeGoalNotFound, fmt.Sprintf("no goal %q: goal IDs are 1, 2, …", idText))
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		g, ok := a.s.Goal(id)
		if !ok {
			fail(w, mission.CodeGoalNotFound, fmt.Sprintf("no goal %d", id))
			return
		}
		writeJSON(w, http.StatusOK, g)
	case http.MethodDelete:
		if !a.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="shakedown mission"`)
			a.refuse(w, r, "cancel_goal", CodeUnauthorized, "missing or wrong bearer token (Authorization: Bearer <token from the token file>)")
			return
		}
		rep, err := a.s.Do(r.Context(), mission.CancelGoal{ID: id})
		if err != nil {
			fail(w, CodeStopped, err.Error())
			return
		}
		writeJSON(w, HTTPStatus(rep.Code), rep)
	default:
		w.Header().Set("Allow", "GET, HEAD, DELETE")
		a.refuse(w, r, "cancel_goal", CodeMethodNotAllowed, r.Method+" /v1/goals/"+idText+": use GET or DELETE")
	}
}

func (a *api) post(w http.ResponseWriter, r *http.Request, name string, body []byte) {
	var ev mission.Event
	switch {
	case name == "command":
		var err error
		if ev, err = mission.ParseCommand(body); err != nil {
			a.refuse(w, r, commandName(body), mission.Code(err), err.Error())
			return
		}
	case len(strings.TrimSpace(string(body))) > 0 && strings.TrimSpace(string(body)) != "{}":
		a.refuse(w, r, name, mission.CodeInvalid, name+" takes no parameters: send an empty body or {}")
		return
	case name != "dump_log":
		ev, _ = mission.CommandByName(name)
	}
	var rep Reply
	var err error
	if ev == nil {
		rep, err = a.s.DumpLog(r.Context())
	} else {
		rep, err = a.s.Do(r.Context(), ev)
	}
	if err != nil {
		fail(w, CodeStopped, err.Error())
		return
	}
	writeJSON(w, HTTPStatus(rep.Code), rep)
}

// stream sends the status as server-sent events ("event: status", "id:"
// the status version, "data:" the JSON), first at once and then after every
// change, until the client leaves or the daemon stops.
func (a *api) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		fail(w, CodeNotFound, "streaming is not supported by this connection")
		return
	}
	ch, unsub := a.s.Subscribe()
	defer unsub()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var last uint64
	_, lastRec := a.s.Feed(^uint64(0)) // records from now on
	send := func() bool {
		js, v := a.s.StatusJSON()
		if v != last {
			last = v
			if _, err := fmt.Fprintf(w, "event: status\nid: %d\ndata: %s\n\n", v, js); err != nil {
				return false
			}
		}
		recs, n := a.s.Feed(lastRec)
		lastRec = n
		for _, rec := range recs {
			b, _ := json.Marshal(rec)
			if _, err := fmt.Fprintf(w, "event: record\ndata: %s\n\n", b); err != nil {
				return false
			}
			if rec.Goal == nil {
				continue
			}
			ev := "feedback"
			if rec.Kind == mission.KindGoalResult {
				ev = "result"
			}
			g, _ := json.Marshal(GoalEvent{TimeS: rec.TimeS, GoalStatus: *rec.Goal})
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev, g); err != nil {
				return false
			}
		}
		fl.Flush()
		return true
	}
	if r.Method == http.MethodHead || !send() {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-a.s.Done():
			return
		case <-ch:
			if !send() {
				return
			}
		}
	}
}

// GoalEvent is the data of a "feedback" or "result" event of the status
// stream: the goal's status and the daemon time.
type GoalEvent struct {
	TimeS float64 `json:"time_s"`
	mission.GoalStatus
}

// commandName is the event name of a command body, for the record of its
// refusal: "command" when the body names none readable.
func commandName(body []byte) string {
	var v struct {
		Event string `json:"event"`
	}
	if json.Unmarshal(body, &v) != nil || v.Event == "" || len(v.Event) > 32 {
		return "command"
	}
	if _, ok := mission.CommandByName(v.Event); !ok {
		return "command"
	}
	return v.Event
}

// livePage is the live mission page served at /: plain HTML, CSS and a
// small script on the status stream, with no build step and no external
// assets.
//
//go:embed live.html
var livePage []byte
