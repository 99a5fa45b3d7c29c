// Package client talks to a mission daemon (package mission/server) over
// its HTTP API: commands, goals, the status and the status stream
// (server-sent events), and the text the CLI prints of them.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// maxReply bounds a reply body the client reads (1 MiB).
const maxReply = 1 << 20

// Client talks to one daemon.
type Client struct {
	Base  string       // http://host:port, no trailing slash
	Token string       // bearer token of POST requests ("" for reads only)
	HTTP  *http.Client // the transport
}

// New returns a client of the daemon at addr (host:port or
// http://host:port) with token.
func New(addr, token string) *Client {
	base := strings.TrimSuffix(addr, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		base = "http://" + base
	}
	return &Client{Base: base, Token: token, HTTP: &http.Client{}}
}

// HTTPError is an answer other than 200, with the daemon's reply.
type HTTPError struct {
	Status int
	Reply  server.Reply
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s (HTTP %d, %s)", e.Reply.Message, e.Status, e.Reply.Code)
}

// Refused reports whether err is a refusal in the daemon's current state
// (HTTP 409), as opposed to bad input or no daemon.
func Refused(err error) (*HTTPError, bool) {
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusConflict {
		return he, true
	}
	return nil, false
}

func (c *Client) unreachable(err error) error {
	return fmt.Errorf("cannot reach the mission daemon at %s: %v (is `shakedown mission serve` running?)", c.Base, err)
}

// do sends an authenticated POST of body to path and decodes the JSON reply
// into v; it returns the HTTP status.
func (c *Client) do(ctx context.Context, path string, body []byte, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", c.Base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, c.unreachable(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxReply)).Decode(v); err != nil {
		return resp.StatusCode, fmt.Errorf("%s answered HTTP %d without a JSON reply: %v", c.Base, resp.StatusCode, err)
	}
	return resp.StatusCode, nil
}

// Post sends a POST and returns the reply; a non-200 answer is an
// *HTTPError.
func (c *Client) Post(ctx context.Context, path string, body []byte) (server.Reply, error) {
	var rep server.Reply
	code, err := c.do(ctx, path, body, &rep)
	if err != nil {
		return server.Reply{}, err
	}
	if code != http.StatusOK {
		return rep, &HTTPError{Status: code, Reply: rep}
	}
	return rep, nil
}

// PostGoal sends a goal (POST /v1/goals); a non-200 answer is an
// *HTTPError.
func (c *Client) PostGoal(ctx context.Context, body []byte) (server.GoalReply, error) {
	var gr server.GoalReply
	code, err := c.do(ctx, "/v1/goals", body, &gr)
	if err != nil {
		return gr, err
	}
	if code != http.StatusOK {
		return gr, &HTTPError{Status: code, Reply: gr.Reply}
	}
	return gr, nil
}

// get fetches path; it returns the status code and the body (at most
// maxReply bytes).
func (c *Client) get(ctx context.Context, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.Base+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	return resp.StatusCode, b, err
}

// Status fetches the status and its JSON.
func (c *Client) Status(ctx context.Context) (mission.Status, []byte, error) {
	var st mission.Status
	code, b, err := c.get(ctx, "/v1/status")
	if err != nil {
		return st, nil, err
	}
	if code != http.StatusOK {
		return st, nil, fmt.Errorf("%s/v1/status: HTTP %d: %s", c.Base, code, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, nil, fmt.Errorf("%s/v1/status: %v", c.Base, err)
	}
	return st, bytes.TrimSpace(b), nil
}

// Goal fetches one goal; found is false for a 404.
func (c *Client) Goal(ctx context.Context, id uint64) (g mission.GoalStatus, found bool, err error) {
	code, b, err := c.get(ctx, fmt.Sprintf("/v1/goals/%d", id))
	if err != nil {
		return g, false, err
	}
	switch code {
	case http.StatusNotFound:
		return g, false, nil
	case http.StatusOK:
	default:
		return g, false, fmt.Errorf("%s/v1/goals/%d: HTTP %d", c.Base, id, code)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return g, false, err
	}
	return g, true, nil
}

// Event is one server-sent event: its name (the event: field, "message"
// when absent), its id and its data (data: lines joined by newlines).
type Event struct {
	Name, ID string
	Data     []byte
}

// ReadSSE reads server-sent events from r and calls fn with each one until
// fn returns false (then it returns nil) or r ends. It follows the
// specification's framing: fields up to a blank line, comments (":"), an
// optional space after the colon.
func ReadSSE(r io.Reader, fn func(Event) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxReply)
	var ev Event
	var data [][]byte
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if data != nil {
				ev.Data = bytes.Join(data, []byte("\n"))
				if ev.Name == "" {
					ev.Name = "message"
				}
				if !fn(ev) {
					return nil
				}
			}
			ev, data = Event{}, nil
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name = string(value)
		case "id":
			ev.ID = string(value)
		case "data":
			data = append(data, append([]byte(nil), value...))
		}
	}
	return sc.Err()
}

// Events follows the status stream, calling fn with every event until fn
// returns false (then Events returns nil), the stream ends, or ctx is
// done.
func (c *Client) Events(ctx context.Context, fn func(Event) bool) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.Base+"/v1/status/stream", nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s/v1/status/stream: HTTP %d", c.Base, resp.StatusCode)
	}
	stopped := false
	err = ReadSSE(resp.Body, func(ev Event) bool {
		stopped = !fn(ev)
		return !stopped
	})
	switch {
	case stopped:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return err
	}
	return errors.New("the daemon closed the status stream")
}

// Watch follows the status stream, calling fn with every status (only the
// "status" events: records, feedback and results are skipped) until fn
// returns false (then Watch returns nil), the stream ends, or ctx is done.
func (c *Client) Watch(ctx context.Context, fn func(st mission.Status, raw []byte) bool) error {
	var bad error
	err := c.Events(ctx, func(ev Event) bool {
		if ev.Name != "status" {
			return true
		}
		var st mission.Status
		if err := json.Unmarshal(ev.Data, &st); err != nil {
			bad = fmt.Errorf("status stream: %v", err)
			return false
		}
		return fn(st, ev.Data)
	})
	if bad != nil {
		return bad
	}
	return err
}

// WaitFor follows the stream until pred holds and returns that status (or
// the last one seen, with the error).
func (c *Client) WaitFor(ctx context.Context, pred func(mission.Status) bool) (mission.Status, error) {
	var got mission.Status
	found := false
	err := c.Watch(ctx, func(st mission.Status, _ []byte) bool {
		got = st
		found = pred(st)
		return !found
	})
	if found {
		return got, nil
	}
	return got, err
}

// WaitGoal follows the stream until goal id has its result, calling fn
// with the goal's status once fetched and with each of its feedbacks and
// its result. The stream is opened first and the goal fetched once it
// answers, so a result that comes in between is not missed. It returns the
// final status, or nil with ctx's error when ctx ends first.
func (c *Client) WaitGoal(ctx context.Context, id uint64, fn func(mission.GoalStatus)) (*mission.GoalStatus, error) {
	var final *mission.GoalStatus
	var ferr error
	fetched := false
	err := c.Events(ctx, func(ev Event) bool {
		if !fetched {
			fetched = true
			g, found, err := c.Goal(ctx, id)
			switch {
			case err != nil:
				ferr = err
				return false
			case !found:
				ferr = fmt.Errorf("no goal %d on the daemon at %s", id, c.Base)
				return false
			}
			fn(g)
			if g.Terminal() {
				final = &g
				return false
			}
		}
		if ev.Name != "feedback" && ev.Name != "result" {
			return true
		}
		var g server.GoalEvent
		if err := json.Unmarshal(ev.Data, &g); err != nil {
			ferr = fmt.Errorf("status stream: %s event: %v", ev.Name, err)
			return false
		}
		if g.ID != id {
			return true
		}
		fn(g.GoalStatus)
		if ev.Name == "result" {
			final = &g.GoalStatus
			return false
		}
		return true
	})
	switch {
	case ferr != nil:
		return nil, ferr
	case final != nil:
		return final, nil
	}
	return nil, err
}
