package server

import (
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
)

// DefaultMaxBody is the largest request body accepted: a mission of 100
// waypoints is about 6 KiB.
const DefaultMaxBody = 64 << 10

// DefaultMaxStreams is how many status streams may be open at once,
// authenticated or not: a live page holds one, and each costs a goroutine,
// a file descriptor and about 25 KB (issue 21: 3000 streams took 75 MB).
const DefaultMaxStreams = 64

// DefaultStreamWriteTimeout bounds one write to a status stream: a client
// that stops reading is dropped instead of holding the stream forever.
const DefaultStreamWriteTimeout = 10 * time.Second

// HTTPConfig configures the API handler. Zero values mean the defaults
// named.
type HTTPConfig struct {
	// Token is the bearer token POST and DELETE requests must carry; ""
	// refuses them all.
	Token string
	// MaxBody is the largest request body, bytes; 0 = DefaultMaxBody.
	MaxBody int64
	// MaxStreams bounds concurrent status streams; 0 = DefaultMaxStreams.
	// One more is refused with 429 too_many_streams.
	MaxStreams int
	// StreamWriteTimeout bounds each write to a stream; 0 =
	// DefaultStreamWriteTimeout.
	StreamWriteTimeout time.Duration
	// Addr is the address the daemon listens on. When set, a request's Host
	// header must name an IP address, "localhost", Addr's own host or one
	// of Hosts (any port), and is refused with 421 bad_host otherwise: a
	// DNS-rebinding page on another name cannot read the API. "" checks
	// nothing.
	Addr string
	// Hosts are further host names accepted in the Host header (a
	// reverse proxy's name), compared without case.
	Hosts []string
}

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
	CodeBadHost           = "bad_host"           // 421: a Host header that names another site
	CodeTooManyStreams    = "too_many_streams"   // 429: MaxStreams status streams are open
)

// HTTPStatus maps a reply's code to its HTTP status.
func HTTPStatus(code string) int {
	switch code {
	case "":
		return http.StatusOK
	case mission.CodeBadJSON, mission.CodeInvalid, mission.CodeGeofence:
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
	case CodeBadHost:
		return http.StatusMisdirectedRequest
	case CodeTooManyStreams:
		return http.StatusTooManyRequests
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
// own refusals. Handler has no Host check; NewHandler sets one up.
func (s *Server) Handler(token string, maxBody int64) http.Handler {
	return s.NewHandler(HTTPConfig{Token: token, MaxBody: maxBody})
}

// NewHandler returns the HTTP API of Handler configured by cfg. Every
// response forbids framing (X-Frame-Options DENY and a
// Content-Security-Policy with frame-ancestors 'none') and MIME sniffing.
func (s *Server) NewHandler(cfg HTTPConfig) http.Handler {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.StreamWriteTimeout <= 0 {
		cfg.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	a := &api{s: s, token: []byte(cfg.Token), maxBody: cfg.MaxBody, streams: make(chan struct{}, cfg.MaxStreams),
		writeTimeout: cfg.StreamWriteTimeout}
	if cfg.Addr != "" {
		host, _, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			host = cfg.Addr
		}
		a.hosts = map[string]bool{"localhost": true}
		if host != "" {
			a.hosts[strings.ToLower(host)] = true
		}
		for _, h := range cfg.Hosts {
			a.hosts[strings.ToLower(h)] = true
		}
	}
	return a
}

type api struct {
	s            *Server
	token        []byte
	maxBody      int64
	streams      chan struct{} // a semaphore: one element per open stream
	writeTimeout time.Duration
	hosts        map[string]bool // nil = no Host check
}

// livePolicy is the live page's Content-Security-Policy: its own inline
// script and styles, requests to the daemon only, never framed.
const livePolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
	"connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// apiPolicy is the Content-Security-Policy of every other response.
const apiPolicy = "default-src 'none'; frame-ancestors 'none'"

// hostAllowed reports whether the Host header names this daemon: an IP
// literal, or a name of a.hosts. The port is not compared (a proxy may
// change it); DNS rebinding needs a foreign name.
func (a *api) hostAllowed(hostport string) bool {
	if a.hosts == nil {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return a.hosts[strings.ToLower(strings.TrimSuffix(host, "."))]
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
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", apiPolicy)
	if !a.hostAllowed(r.Host) {
		fail(w, CodeBadHost, fmt.Sprintf("Host %q does not name this daemon; use its address or localhost", clipText(r.Host, 64)))
		return
	}
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
			w.Header().Set("Content-Security-Policy", livePolicy)
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
	if _, ok := w.(http.Flusher); !ok {
		fail(w, CodeNotFound, "streaming is not supported by this connection")
		return
	}
	select {
	case a.streams <- struct{}{}:
		defer func() { <-a.streams }()
	default:
		w.Header().Set("Retry-After", "5")
		fail(w, CodeTooManyStreams, fmt.Sprintf("%d status streams are open, the most allowed; close one or poll GET /v1/status", cap(a.streams)))
		return
	}
	// The server's read timeout covers the request, not the stream: lift
	// it (it would cancel the stream's context), and bound each write
	// instead so that a client that stops reading is dropped.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(a.writeTimeout)) } // wall time, as the connection's
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
		deadline()
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
		return rc.Flush() == nil
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

// clipText shortens s to at most n bytes for a message.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
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
