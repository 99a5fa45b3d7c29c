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
	case CodeNotFound:
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
//	GET  /                  the live mission page (live.html)
//
// POST requests need "Authorization: Bearer <token>"; bodies above maxBody
// bytes (0 = DefaultMaxBody) are refused with 413; errors are JSON with a
// stable code. A refused or invalid request changes nothing.
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
	case isV1 && (name == "command" || name == "dump_log" || services[name]):
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			fail(w, CodeMethodNotAllowed, r.Method+" "+path+": use POST")
			return
		}
		if !a.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="shakedown mission"`)
			fail(w, CodeUnauthorized, "missing or wrong bearer token (Authorization: Bearer <token from the token file>)")
			return
		}
		body, ok := a.body(w, r)
		if !ok {
			return
		}
		a.post(w, r, name, body)
	default:
		fail(w, CodeNotFound, "no such endpoint: "+path)
	}
}

// body reads the request body, refusing it above maxBody.
func (a *api) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > a.maxBody {
		fail(w, CodeBodyTooLarge, fmt.Sprintf("request body of %d bytes is above the limit of %d", r.ContentLength, a.maxBody))
		return nil, false
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			fail(w, CodeBodyTooLarge, fmt.Sprintf("request body is above the limit of %d bytes", a.maxBody))
			return nil, false
		}
		fail(w, mission.CodeBadJSON, "reading the body: "+err.Error())
		return nil, false
	}
	return b, true
}

func (a *api) post(w http.ResponseWriter, r *http.Request, name string, body []byte) {
	var ev mission.Event
	switch {
	case name == "command":
		var err error
		if ev, err = mission.ParseCommand(body); err != nil {
			fail(w, mission.Code(err), err.Error())
			return
		}
	case len(strings.TrimSpace(string(body))) > 0 && strings.TrimSpace(string(body)) != "{}":
		fail(w, mission.CodeInvalid, name+" takes no parameters: send an empty body or {}")
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

// livePage is the live mission page served at /: plain HTML, CSS and a
// small script on the status stream, with no build step and no external
// assets.
//
//go:embed live.html
var livePage []byte
