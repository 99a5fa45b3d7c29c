package telemetry_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/telemetry"
	"github.com/shakedown-robotics/shakedown/telemetry/telemetrytest"
)

var at = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ev(id string, doc string) telemetry.Event {
	return telemetry.Event{Kind: "eol_check", ID: id, Time: at, Doc: json.RawMessage(doc)}
}

func TestBody(t *testing.T) {
	got, err := telemetry.Body([]telemetry.Event{ev("r/a", `{"x": 1,
  "y": "two"}`), ev("r/b", `{}`)}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"index":{"_id":"r/a","_index":"eol_check"}}
{"x":1,"y":"two"}
{"index":{"_id":"r/b","_index":"eol_check"}}
{}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestBulkExport(t *testing.T) {
	c := telemetrytest.NewCluster()
	srv := httptest.NewServer(c)
	defer srv.Close()
	b, err := telemetry.NewBulk(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.MaxBatch = 2
	var evs []telemetry.Event
	for i := range 5 {
		evs = append(evs, ev(fmt.Sprintf("run-1/check.%d", i), fmt.Sprintf(`{"check":"check.%d","value":%d}`, i, i)))
	}
	if err := b.Export(t.Context(), evs); err != nil {
		t.Fatal(err)
	}
	if c.Requests != 3 {
		t.Errorf("%d requests; want 3 (batches of 2)", c.Requests)
	}
	docs := c.Docs("eol_check")
	if len(docs) != 5 || string(docs["run-1/check.3"]) != `{"check":"check.3","value":3}` {
		t.Errorf("indexed %v", docs)
	}
	// Re-exporting replaces by _id; a document whose field has another type
	// is refused, and the refusal is reported by item.
	evs[1] = ev("run-1/check.1", `{"check":"check.1","value":"not a number"}`)
	err = b.Export(t.Context(), evs)
	var be *telemetry.BulkError
	if !errors.As(err, &be) {
		t.Fatalf("error %v; want a *BulkError", err)
	}
	if be.Sent != 5 || len(be.Failed) != 1 || be.Failed[0].ID != "run-1/check.1" || be.Failed[0].Status != 400 || be.Failed[0].Type != "mapper_parsing_exception" {
		t.Errorf("bulk error %+v", be)
	}
	if !strings.Contains(err.Error(), "1 of 5 events refused; eol_check/run-1/check.1: 400 mapper_parsing_exception: failed to parse field [value]") {
		t.Errorf("message %q", err)
	}
	if len(c.Docs("eol_check")) != 5 {
		t.Errorf("re-export doubled documents: %d", len(c.Docs("eol_check")))
	}
	// An index in the URL's path takes every event.
	b2, err := telemetry.NewBulk(srv.URL+"/fleet-eol", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b2.Export(t.Context(), evs[:1]); err != nil {
		t.Fatal(err)
	}
	if len(c.Docs("fleet-eol")) != 1 {
		t.Errorf("fleet-eol: %v", c.Docs("fleet-eol"))
	}
}

func TestBulkFailures(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"HTTP 401", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"error":"security_exception"}`, http.StatusUnauthorized)
		}, "HTTP 401 Unauthorized: {\"error\":\"security_exception\"}"},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>") }, "bulk response: invalid character"},
		{"items missing", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"errors":false}`) }, "no items"},
		{"too few items", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"errors":false,"items":[{"index":{"status":201}}]}`)
		}, "1 items for 2 actions"},
		{"string error", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"errors":true,"items":[{"index":{"_id":"a","status":201}},{"index":{"_index":"eol_check","_id":"b","status":429,"error":"es_rejected_execution_exception"}}]}`)
		}, "1 of 2 events refused; eol_check/b: 429 : es_rejected_execution_exception"},
		{"huge response", func(w http.ResponseWriter, _ *http.Request) {
			for range 33 {
				w.Write([]byte(strings.Repeat(" ", 1<<20)))
			}
		}, "response over 32 MiB"},
	}
	evs := []telemetry.Event{ev("a", `{"v":1}`), ev("b", `{"v":2}`)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			u := strings.Replace(srv.URL, "http://", "http://elastic:s3cret@", 1)
			b, err := telemetry.NewBulk(u, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = b.Export(t.Context(), evs)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the password is in the error: %v", err)
			}
		})
	}
}

func TestBadEventsAndURLs(t *testing.T) {
	c := telemetrytest.NewCluster()
	srv := httptest.NewServer(c)
	defer srv.Close()
	b, _ := telemetry.NewBulk(srv.URL, nil)
	for _, e := range []telemetry.Event{
		{Kind: "EOL", ID: "a", Time: at, Doc: json.RawMessage(`{}`)},
		{Kind: "eol_check", ID: "", Time: at, Doc: json.RawMessage(`{}`)},
		{Kind: "eol_check", ID: "a", Doc: json.RawMessage(`{}`)},
		{Kind: "eol_check", ID: "a", Time: at, Doc: json.RawMessage(`[1]`)},
		{Kind: "eol_check", ID: "a", Time: at, Doc: json.RawMessage(`{"a":`)},
	} {
		if err := b.Export(t.Context(), []telemetry.Event{ev("ok", `{}`), e}); !errors.Is(err, telemetry.ErrBadEvent) {
			t.Errorf("%+v: error %v; want ErrBadEvent", e, err)
		}
	}
	if c.Requests != 0 {
		t.Errorf("%d requests sent with a bad event among them; want none", c.Requests)
	}
	for _, u := range []string{"ftp://es:9200", "http://", "http://es:9200/Upper", "http://es:9200/?pretty", "http://es:9200/a/b", "::"} {
		if _, err := telemetry.NewBulk(u, nil); err == nil {
			t.Errorf("NewBulk(%q) accepted", u)
		}
	}
}

// FuzzParseBulkResponse: any response is parsed without panicking; when it
// is accepted, every refused item had a status outside 2xx or an error.
func FuzzParseBulkResponse(f *testing.F) {
	f.Add([]byte(`{"errors":false,"items":[{"index":{"status":201}},{"index":{"status":200}}]}`), 2)
	f.Add([]byte(`{"errors":true,"items":[{"index":{"_id":"a","status":400,"error":{"type":"t","reason":"r"}}}]}`), 1)
	f.Add([]byte(`{"items":[{"create":{"status":409,"error":"conflict"}}]}`), 1)
	f.Add([]byte(`{"items":[{}]}`), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		failed, err := telemetry.ParseBulkResponse(data, n)
		if err != nil {
			return
		}
		if len(failed) > n {
			t.Fatalf("%d refused of %d", len(failed), n)
		}
		for _, it := range failed {
			if it.Status >= 200 && it.Status <= 299 && it.Reason == "" && it.Type == "" {
				t.Fatalf("a 2xx item without an error refused: %+v", it)
			}
		}
	})
}
