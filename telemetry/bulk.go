package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Bulk exports events to OpenSearch or Elasticsearch through _bulk.
type Bulk struct {
	endpoint string // …/_bulk
	index    string // from the URL's path; "" = each event's Kind
	redacted string // the URL without its password, for errors
	client   *http.Client
	// MaxBatch is the most events in one request; 0 = 500.
	MaxBatch int
}

// maxResponse bounds the response read: a _bulk answer is a few hundred
// bytes per item.
const maxResponse = 32 << 20

// NewBulk returns an exporter to the cluster at rawURL: http(s)://host:port,
// optionally with an index as its path (http://es:9200/fleet-eol), and
// user:password for basic authentication. client nil = http.DefaultClient.
func NewBulk(rawURL string, client *http.Client) (*Bulk, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("telemetry: events URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("telemetry: events URL %s: want http(s)://host:port[/index]", u.Redacted())
	}
	index := strings.Trim(u.Path, "/")
	if index != "" && !validName(index) {
		return nil, fmt.Errorf("telemetry: events URL %s: index %q: want lower-case letters, digits, '_' or '-'", u.Redacted(), index)
	}
	if client == nil {
		client = http.DefaultClient
	}
	base := *u
	base.Path = "/_bulk"
	if index != "" {
		base.Path = "/" + index + "/_bulk"
	}
	return &Bulk{endpoint: base.String(), index: index, redacted: base.Redacted(), client: client}, nil
}

// ItemError is one event the cluster refused.
type ItemError struct {
	Index, ID string
	Status    int
	Type      string // e.g. "mapper_parsing_exception"
	Reason    string
}

// BulkError is a _bulk request some of whose events were refused.
type BulkError struct {
	URL    string
	Sent   int
	Failed []ItemError
}

func (e *BulkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "telemetry: %s: %d of %d events refused", e.URL, len(e.Failed), e.Sent)
	for i, f := range e.Failed {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Failed)-5)
			break
		}
		fmt.Fprintf(&b, "; %s/%s: %d %s: %s", f.Index, f.ID, f.Status, f.Type, f.Reason)
	}
	return b.String()
}

// Export sends the events in batches of MaxBatch. Invalid events are an
// error before anything is sent. A refused event is a *BulkError listing
// every refused item; the events the cluster took stay indexed.
func (b *Bulk) Export(ctx context.Context, events []Event) error {
	for _, e := range events {
		if err := e.Validate(); err != nil {
			return err
		}
	}
	n := b.MaxBatch
	if n <= 0 {
		n = 500
	}
	all := &BulkError{URL: b.redacted}
	for start := 0; start < len(events); start += n {
		batch := events[start:min(start+n, len(events))]
		failed, err := b.send(ctx, batch)
		if err != nil {
			return err
		}
		all.Sent += len(batch)
		all.Failed = append(all.Failed, failed...)
	}
	if len(all.Failed) > 0 {
		return all
	}
	return nil
}

// Body returns the NDJSON request body for events, each indexed into
// index (or its Kind when index is "").
func Body(events []Event, index string) ([]byte, error) {
	var body bytes.Buffer
	for _, e := range events {
		ix := index
		if ix == "" {
			ix = e.Kind
		}
		action, err := json.Marshal(map[string]map[string]string{"index": {"_index": ix, "_id": e.ID}})
		if err != nil {
			return nil, err
		}
		body.Write(action)
		body.WriteByte('\n')
		if err := json.Compact(&body, e.Doc); err != nil {
			return nil, fmt.Errorf("%w: %s %s: %v", ErrBadEvent, e.Kind, e.ID, err)
		}
		body.WriteByte('\n')
	}
	return body.Bytes(), nil
}

func (b *Bulk) send(ctx context.Context, events []Event) ([]ItemError, error) {
	body, err := Body(events, b.index)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", b.redacted, err)
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Accept", "application/json")
	resp, err := b.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error would print the password
		}
		return nil, fmt.Errorf("telemetry: %s: %w", b.redacted, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: reading the response: %w", b.redacted, err)
	}
	if len(data) > maxResponse {
		return nil, fmt.Errorf("telemetry: %s: response over %d MiB", b.redacted, maxResponse>>20)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("telemetry: %s: HTTP %s: %s", b.redacted, resp.Status, snippet(data))
	}
	failed, err := ParseBulkResponse(data, len(events))
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s: %w", b.redacted, err)
	}
	return failed, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ParseBulkResponse reads a _bulk response to n actions and returns the
// refused items. A response that is not JSON, has no items array, or has a
// number of items other than n is an error.
func ParseBulkResponse(data []byte, n int) ([]ItemError, error) {
	var resp struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, fmt.Errorf("bulk response: %w", err)
	}
	if resp.Items == nil {
		return nil, errors.New("bulk response: no items")
	}
	if len(resp.Items) != n {
		return nil, fmt.Errorf("bulk response: %d items for %d actions", len(resp.Items), n)
	}
	var failed []ItemError
	for i, it := range resp.Items {
		if len(it) != 1 {
			return nil, fmt.Errorf("bulk response: item %d: %d operations; want 1", i, len(it))
		}
		for _, raw := range it {
			var r struct {
				Index  string          `json:"_index"`
				ID     string          `json:"_id"`
				Status int             `json:"status"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("bulk response: item %d: %w", i, err)
			}
			if r.Status >= 200 && r.Status <= 299 && (len(r.Error) == 0 || string(r.Error) == "null") {
				continue
			}
			ie := ItemError{Index: r.Index, ID: r.ID, Status: r.Status}
			var obj struct{ Type, Reason string }
			var str string
			switch {
			case json.Unmarshal(r.Error, &obj) == nil && (obj.Type != "" || obj.Reason != ""):
				ie.Type, ie.Reason = obj.Type, obj.Reason
			case json.Unmarshal(r.Error, &str) == nil:
				ie.Reason = str
			default:
				ie.Reason = "status " + fmt.Sprint(r.Status)
			}
			failed = append(failed, ie)
		}
	}
	return failed, nil
}
