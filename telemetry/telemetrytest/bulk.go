// Package telemetrytest is an in-memory stand-in for an OpenSearch or
// Elasticsearch cluster's _bulk endpoint, for tests of the exporter.
package telemetrytest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Cluster answers POST /_bulk and POST /{index}/_bulk the way the Bulk API
// does: NDJSON pairs of an action line (index or create, with _index and
// _id) and a document, the body ending with a newline; one response item
// per action, in order, with "errors" true when any failed. Its dynamic
// mapping gives each field the JSON type it first had in an index; a later
// document with another type for it is refused with
// mapper_parsing_exception (400), as a real cluster does. create on an
// existing _id is refused with version_conflict_engine_exception (409).
type Cluster struct {
	mu       sync.Mutex
	docs     map[string]map[string]json.RawMessage // index → _id → document
	mapping  map[string]map[string]string          // index → field → JSON type
	Requests int
}

// NewCluster returns an empty cluster.
func NewCluster() *Cluster {
	return &Cluster{docs: map[string]map[string]json.RawMessage{}, mapping: map[string]map[string]string{}}
}

// Docs returns the documents of index by _id.
func (c *Cluster) Docs(index string) map[string]json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]json.RawMessage{}
	for k, v := range c.docs[index] {
		out[k] = v
	}
	return out
}

func httpError(w http.ResponseWriter, status int, typ, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": typ, "reason": reason}, "status": status})
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return ""
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// ServeHTTP implements the endpoint.
func (c *Cluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.URL.Path, "/")
	defIndex, ok := strings.CutSuffix(path, "_bulk")
	if !ok || r.Method != http.MethodPost {
		httpError(w, http.StatusNotFound, "no_handler", r.Method+" "+r.URL.Path)
		return
	}
	defIndex = strings.TrimSuffix(defIndex, "/")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") && !strings.HasPrefix(ct, "application/json") {
		httpError(w, http.StatusNotAcceptable, "media_type_header_exception", "Content-Type "+ct)
		return
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, 100<<20)); err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, "content_too_long", err.Error())
		return
	}
	if body.Len() == 0 || body.Bytes()[body.Len()-1] != '\n' {
		httpError(w, http.StatusBadRequest, "illegal_argument_exception", "The bulk request must be terminated by a newline [\\n]")
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Requests++
	sc := bufio.NewScanner(&body)
	sc.Buffer(nil, 100<<20)
	var items []map[string]any
	anyErr := false
	line := 0
	for sc.Scan() {
		line++
		var action map[string]struct {
			Index string `json:"_index"`
			ID    string `json:"_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &action); err != nil || len(action) != 1 {
			httpError(w, http.StatusBadRequest, "illegal_argument_exception", fmt.Sprintf("line %d: malformed action", line))
			return
		}
		if !sc.Scan() {
			httpError(w, http.StatusBadRequest, "illegal_argument_exception", fmt.Sprintf("line %d: action without a document", line))
			return
		}
		line++
		doc := append(json.RawMessage(nil), sc.Bytes()...)
		for op, a := range action {
			ix := a.Index
			if ix == "" {
				ix = defIndex
			}
			res := map[string]any{"_index": ix, "_id": a.ID}
			fail := func(status int, typ, reason string) {
				res["status"], res["error"] = status, map[string]any{"type": typ, "reason": reason}
				anyErr = true
			}
			var fields map[string]any
			switch {
			case op != "index" && op != "create":
				httpError(w, http.StatusBadRequest, "illegal_argument_exception", fmt.Sprintf("line %d: unknown action %q", line-1, op))
				return
			case ix == "" || a.ID == "":
				fail(400, "action_request_validation_exception", "index or id missing")
			case json.Unmarshal(doc, &fields) != nil || fields == nil:
				fail(400, "mapper_parsing_exception", "failed to parse: not an object")
			case op == "create" && c.docs[ix][a.ID] != nil:
				fail(409, "version_conflict_engine_exception", "["+a.ID+"]: document already exists")
			default:
				m := c.mapping[ix]
				if m == nil {
					m = map[string]string{}
					c.mapping[ix] = m
				}
				bad := ""
				for k, v := range fields {
					if t, had := m[k]; had && jsonType(v) != "" && t != jsonType(v) {
						bad = fmt.Sprintf("failed to parse field [%s] of type [%s] in document with id '%s'", k, t, a.ID)
					}
				}
				if bad != "" {
					fail(400, "mapper_parsing_exception", bad)
					break
				}
				for k, v := range fields {
					if _, had := m[k]; !had && jsonType(v) != "" {
						m[k] = jsonType(v)
					}
				}
				if c.docs[ix] == nil {
					c.docs[ix] = map[string]json.RawMessage{}
				}
				status := 201
				if c.docs[ix][a.ID] != nil {
					status = 200
				}
				c.docs[ix][a.ID] = doc
				res["status"], res["result"] = status, map[int]string{200: "updated", 201: "created"}[status]
			}
			items = append(items, map[string]any{op: res})
		}
	}
	if items == nil {
		httpError(w, http.StatusBadRequest, "action_request_validation_exception", "no requests added")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"took": 1, "errors": anyErr, "items": items})
}
