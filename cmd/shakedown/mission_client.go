package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

type missionClientFlags struct {
	addr      string
	tokenFile string
}

// missionClient talks to a daemon over its HTTP API.
type missionClient struct {
	base  string
	token string
	hc    *http.Client
}

func newMissionClient(addr, token string) *missionClient {
	base := strings.TrimSuffix(addr, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		base = "http://" + base
	}
	return &missionClient{base: base, token: token, hc: &http.Client{}}
}

// clientFor builds a client from the flags, reading the token file.
func (f *missionClientFlags) client(needToken bool) (*missionClient, error) {
	tok := ""
	if needToken {
		var err error
		if tok, err = server.LoadToken(f.tokenFile); err != nil {
			return nil, fmt.Errorf("token: %w (the daemon creates it; pass the same --token-file)", err)
		}
	}
	return newMissionClient(f.addr, tok), nil
}

// missionHTTPError is an answer other than 200.
type missionHTTPError struct {
	status int
	rep    server.Reply
}

func (e *missionHTTPError) Error() string {
	return fmt.Sprintf("%s (HTTP %d, %s)", e.rep.Message, e.status, e.rep.Code)
}

func (c *missionClient) unreachable(err error) error {
	return fmt.Errorf("cannot reach the mission daemon at %s: %v (is `shakedown mission serve` running?)", c.base, err)
}

// post sends a POST and returns the reply; a non-200 answer is a
// *missionHTTPError.
func (c *missionClient) post(ctx context.Context, path string, body []byte) (server.Reply, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+path, bytes.NewReader(body))
	if err != nil {
		return server.Reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return server.Reply{}, c.unreachable(err)
	}
	defer resp.Body.Close()
	var rep server.Reply
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&rep); err != nil {
		return server.Reply{}, fmt.Errorf("%s answered HTTP %d without a JSON reply: %v", c.base, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK {
		return rep, &missionHTTPError{status: resp.StatusCode, rep: rep}
	}
	return rep, nil
}

// status fetches the status.
func (c *missionClient) status(ctx context.Context) (mission.Status, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/status", nil)
	if err != nil {
		return mission.Status{}, nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return mission.Status{}, nil, c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return mission.Status{}, nil, err
	}
	var st mission.Status
	if resp.StatusCode != http.StatusOK {
		return st, nil, fmt.Errorf("%s/v1/status: HTTP %d: %s", c.base, resp.StatusCode, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, nil, fmt.Errorf("%s/v1/status: %v", c.base, err)
	}
	return st, bytes.TrimSpace(b), nil
}

// sseEvent is one server-sent event: its name (the event: field,
// "message" when absent), its id and its data (data: lines joined by
// newlines).
type sseEvent struct {
	name, id string
	data     []byte
}

// readSSE reads server-sent events from r and calls fn with each one until
// fn returns false (then it returns nil) or r ends. It follows the
// specification's framing: fields up to a blank line, comments (":"), an
// optional space after the colon.
func readSSE(r io.Reader, fn func(sseEvent) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var ev sseEvent
	var data [][]byte
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if data != nil {
				ev.data = bytes.Join(data, []byte("\n"))
				if ev.name == "" {
					ev.name = "message"
				}
				if !fn(ev) {
					return nil
				}
			}
			ev, data = sseEvent{}, nil
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.name = string(value)
		case "id":
			ev.id = string(value)
		case "data":
			data = append(data, append([]byte(nil), value...))
		}
	}
	return sc.Err()
}

// events follows the status stream, calling fn with every event until fn
// returns false (then events returns nil), the stream ends, or ctx is
// done.
func (c *missionClient) events(ctx context.Context, fn func(sseEvent) bool) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/status/stream", nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s/v1/status/stream: HTTP %d", c.base, resp.StatusCode)
	}
	stopped := false
	err = readSSE(resp.Body, func(ev sseEvent) bool {
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

// watch follows the status stream, calling fn with every status (only the
// "status" events: records, feedback and results are skipped) until fn
// returns false (then watch returns nil), the stream ends, or ctx is done.
func (c *missionClient) watch(ctx context.Context, fn func(st mission.Status, raw []byte) bool) error {
	var bad error
	err := c.events(ctx, func(ev sseEvent) bool {
		if ev.name != "status" {
			return true
		}
		var st mission.Status
		if err := json.Unmarshal(ev.data, &st); err != nil {
			bad = fmt.Errorf("status stream: %v", err)
			return false
		}
		return fn(st, ev.data)
	})
	if bad != nil {
		return bad
	}
	return err
}

// waitFor follows the stream until pred holds and returns that status.
func (c *missionClient) waitFor(ctx context.Context, pred func(mission.Status) bool) (mission.Status, error) {
	var got mission.Status
	found := false
	err := c.watch(ctx, func(st mission.Status, _ []byte) bool {
		got = st
		found = pred(st)
		return !found
	})
	if found {
		return got, nil
	}
	return got, err
}

// missionReplyErr maps an API error to the CLI's exit codes: a refusal in
// the current state is a finding (exit 1), anything else could not run
// (exit 2).
func missionReplyErr(err error) error {
	var he *missionHTTPError
	if errors.As(err, &he) && he.status == http.StatusConflict {
		return &failure{msg: "refused: " + he.rep.Message + " (" + he.rep.Code + ")"}
	}
	return err
}

func printReply(w io.Writer, rep server.Reply, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	fmt.Fprintln(w, rep.Message)
}

// missionCommandBody turns the argument of send into a command body and
// checks it locally: an event name without fields, @FILE, - (stdin), or
// the JSON itself.
func missionCommandBody(arg string, stdin io.Reader) ([]byte, error) {
	var body []byte
	switch {
	case arg == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, server.DefaultMaxBody+1))
		if err != nil {
			return nil, err
		}
		body = b
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, err
		}
		body = b
	case slices.Contains(mission.CommandNames, arg):
		if arg == "goto" || arg == "mission" {
			return nil, fmt.Errorf("%s needs its fields: give the JSON, e.g. '{\"event\":\"goto\",\"x\":4,\"y\":0,\"z\":-2}'", arg)
		}
		body = []byte(`{"event":"` + arg + `"}`)
	case strings.Trim(arg, "abcdefghijklmnopqrstuvwxyz_-") == "":
		return nil, fmt.Errorf("unknown event %q: want one of %s, or a JSON command", arg, strings.Join(mission.CommandNames, ", "))
	default:
		body = []byte(arg)
	}
	if len(body) > server.DefaultMaxBody {
		return nil, fmt.Errorf("the command is larger than the daemon's limit of %d bytes", server.DefaultMaxBody)
	}
	if _, err := mission.ParseCommand(body); err != nil {
		return nil, err
	}
	return body, nil
}

func newMissionClientCmds(cl *missionClientFlags) []*cobra.Command {
	var asJSON bool
	send := &cobra.Command{
		Use:   "send <json | event | @file | ->",
		Short: "Send a command to the daemon (POST /v1/command)",
		Long: `Send one command of the command API. The argument is the JSON, an event
name without fields (connect, armed, airborne, pause, resume, cancel,
return_home, land, reset), @FILE, or - for standard input. The command is
checked before it is sent; an invalid one is not sent (exit 2).`,
		Example: `  shakedown mission send connect
  shakedown mission send '{"event":"goto","x":4,"y":0,"z":-2,"speed":2}'
  shakedown mission send @mission.json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := missionCommandBody(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			c, err := cl.client(true)
			if err != nil {
				return err
			}
			rep, err := c.post(ctxOf(cmd), "/v1/command", body)
			if err != nil {
				return missionReplyErr(err)
			}
			printReply(cmd.OutOrStdout(), rep, asJSON)
			return nil
		},
	}
	send.Flags().BoolVar(&asJSON, "json", false, "print the reply as JSON")
	send.AddCommand(newMissionGoalCmd(cl))
	cmds := []*cobra.Command{send, newMissionWaitCmd(cl)}
	for _, s := range []struct{ name, path, short string }{
		{"pause", "pause", "Hold position, keeping the target and the queue"},
		{"resume", "resume", "Re-send the kept target"},
		{"cancel", "cancel", "Drop the target and the rest of the queue, and hold"},
		{"return-home", "return_home", "Fly above home, settle, and land"},
		{"land", "land", "Land where the vehicle is"},
		{"dump-log", "dump_log", "Write the black box (flight_events.csv, flight_events_summary.json)"},
	} {
		var js bool
		c := &cobra.Command{
			Use:   s.name,
			Short: s.short + " (POST /v1/" + s.path + ")",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				c, err := cl.client(true)
				if err != nil {
					return err
				}
				rep, err := c.post(ctxOf(cmd), "/v1/"+s.path, nil)
				if err != nil {
					return missionReplyErr(err)
				}
				printReply(cmd.OutOrStdout(), rep, js)
				return nil
			},
		}
		c.Flags().BoolVar(&js, "json", false, "print the reply as JSON")
		cmds = append(cmds, c)
	}
	var stJSON, watch bool
	status := &cobra.Command{
		Use:   "status",
		Short: "Print the daemon's status (GET /v1/status); --watch follows every change",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cl.client(false)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if watch {
				return c.watch(ctxOf(cmd), func(st mission.Status, raw []byte) bool {
					if stJSON {
						fmt.Fprintf(out, "%s\n", raw)
					} else {
						fmt.Fprintln(out, missionStatusLine(st))
					}
					return true
				})
			}
			st, raw, err := c.status(ctxOf(cmd))
			if err != nil {
				return err
			}
			if stJSON {
				fmt.Fprintf(out, "%s\n", raw)
				return nil
			}
			printMissionStatus(out, st)
			return nil
		},
	}
	status.Flags().BoolVar(&stJSON, "json", false, "print the status JSON")
	status.Flags().BoolVarP(&watch, "watch", "w", false, "follow the status stream until interrupted")
	return append(cmds, status)
}

func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

func fmtPoint(p *mission.Point) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("(%.2f, %.2f, %.2f)", p.X, p.Y, p.Z)
}

func fmtQueue(q mission.QueueStatus) string {
	s := fmt.Sprintf("%s %d/%d done", q.State, q.Completed, q.Total)
	if q.CurrentIndex != nil {
		s += fmt.Sprintf(", current %d, %d remaining", *q.CurrentIndex, q.Remaining)
	}
	return s
}

// missionStatusLine is one line for --watch.
func missionStatusLine(st mission.Status) string {
	s := fmt.Sprintf("%8.2f s  %-10s pos %s  queue %s", st.TimeS, st.State, fmtPoint(st.Position), fmtQueue(st.MissionQueue))
	if st.PendingCommand != nil {
		s += "  pending " + *st.PendingCommand
	}
	if st.FailsafeReason != nil {
		s += "  failsafe " + *st.FailsafeReason
	}
	return s
}

func printMissionStatus(w io.Writer, st mission.Status) {
	row := func(k, v string) { fmt.Fprintf(w, "%-19s %s\n", k, v) }
	prev := ""
	if st.PreviousState != "" {
		prev = " from " + st.PreviousState
	}
	row("state", fmt.Sprintf("%s%s, %.1f s", st.State, prev, st.StateTimeS))
	row("adapter", st.AdapterMode)
	row("position", fmtPoint(st.Position)+" m NED")
	row("velocity", fmtPoint(st.Velocity)+" m/s")
	row("home", fmtPoint(st.Home))
	row("armed / landed", fmt.Sprintf("%v / %v (airborne %v)", st.Armed, st.Landed, st.Airborne))
	if st.Target != nil {
		t := fmt.Sprintf("(%.2f, %.2f, %.2f) at %.1f m/s", st.Target.X, st.Target.Y, st.Target.Z, st.Target.SpeedMS)
		if st.Target.Waypoint != nil {
			t += fmt.Sprintf(", waypoint %d", *st.Target.Waypoint)
		}
		row("target", t)
	} else {
		row("target", "none")
	}
	row("mission queue", fmtQueue(st.MissionQueue))
	pend := "none"
	if st.PendingCommand != nil {
		pend = *st.PendingCommand
	}
	row("command pending", pend)
	tk := "none yet"
	if st.TakeoffRPCResult != nil {
		tk = fmt.Sprint(*st.TakeoffRPCResult)
	}
	row("takeoff RPC result", tk)
	if st.TelemetryAgeS != nil {
		row("telemetry age", fmt.Sprintf("%.2f s", *st.TelemetryAgeS))
	}
	if st.Battery != nil {
		row("battery", fmt.Sprintf("%.0f %%", *st.Battery*100))
	}
	row("link", map[bool]string{true: "up", false: "DOWN"}[st.LinkUp])
	if st.FailsafeReason != nil {
		row("failsafe", *st.FailsafeReason+": "+*st.FailsafeDetail)
	}
	if st.LastRPCError != nil {
		row("last RPC error", *st.LastRPCError)
	}
}
