package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// missionGoalBody builds the body of POST /v1/goals from the arguments of
// send goal: one JSON object, @FILE or - (standard input), or points
// "x,y,z[,speed]". It is checked locally (at most 100 points, numbers,
// speed > 0).
func missionGoalBody(args []string, stdin io.Reader) ([]byte, error) {
	var body []byte
	switch a := args[0]; {
	case len(args) == 1 && a == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, server.DefaultMaxBody+1))
		if err != nil {
			return nil, err
		}
		body = b
	case len(args) == 1 && strings.HasPrefix(a, "@"):
		b, err := os.ReadFile(a[1:])
		if err != nil {
			return nil, err
		}
		body = b
	case len(args) == 1 && strings.HasPrefix(strings.TrimSpace(a), "{"):
		body = []byte(a)
	default:
		wps := make([]string, len(args))
		for i, p := range args {
			f := strings.Split(p, ",")
			if len(f) != 3 && len(f) != 4 {
				return nil, fmt.Errorf("point %d %q: want x,y,z or x,y,z,speed (NED metres, m/s)", i+1, p)
			}
			for j, v := range f {
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					return nil, fmt.Errorf("point %d %q: %q is not a number", i+1, p, v)
				}
				f[j] = strings.TrimSpace(v)
			}
			w := fmt.Sprintf(`{"x":%s,"y":%s,"z":%s`, f[0], f[1], f[2])
			if len(f) == 4 {
				w += `,"speed":` + f[3]
			}
			wps[i] = w + "}"
		}
		body = []byte(`{"waypoints":[` + strings.Join(wps, ",") + `]}`)
	}
	if len(body) > server.DefaultMaxBody {
		return nil, fmt.Errorf("the goal is larger than the daemon's limit of %d bytes", server.DefaultMaxBody)
	}
	if _, err := mission.ParseGoal(body); err != nil {
		return nil, err
	}
	return body, nil
}

func newMissionGoalCmd(cl *missionClientFlags) *cobra.Command {
	var asJSON, wait bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "goal <x,y,z[,speed]>... | <json | @file | ->",
		Short: "Send a goal: a waypoint mission with an ID (POST /v1/goals)",
		Long: `Send a goal: a mission of 1 to 100 NED waypoints (z down, metres; speed
m/s, default 3) that gets an ID, feedback while it runs and exactly one
result: SUCCEEDED, CANCELED (cancel, return_home, land) or ABORTED (the
failsafe's reason). The points are the arguments, or one JSON object
{"waypoints":[…]}, @FILE or - (standard input). It prints the goal's ID;
--wait then waits for its result like "mission wait".`,
		Example: `  shakedown mission send goal 4,0,-2,2 8,0,-2,2 12,0,-2,2
  shakedown mission send goal @route.json --wait`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := missionGoalBody(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			c, err := cl.client(true)
			if err != nil {
				return err
			}
			ctx := ctxOf(cmd)
			req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/v1/goals", strings.NewReader(string(body)))
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", "Bearer "+c.token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.hc.Do(req)
			if err != nil {
				return c.unreachable(err)
			}
			defer resp.Body.Close()
			var gr server.GoalReply
			if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&gr); err != nil {
				return fmt.Errorf("%s answered HTTP %d without a JSON reply: %v", c.base, resp.StatusCode, err)
			}
			if resp.StatusCode != http.StatusOK {
				return missionReplyErr(&missionHTTPError{status: resp.StatusCode, rep: gr.Reply})
			}
			out := cmd.OutOrStdout()
			if asJSON {
				b, _ := json.Marshal(gr)
				fmt.Fprintf(out, "%s\n", b)
			} else {
				fmt.Fprintf(out, "goal %d accepted\n", gr.ID)
			}
			if !wait {
				return nil
			}
			return missionWait(ctx, c, gr.ID, timeout, asJSON, out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reply (and with --wait the result) as JSON")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the goal's result")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "with --wait: give up after this wall time (0: no limit)")
	return cmd
}

func newMissionWaitCmd(cl *missionClientFlags) *cobra.Command {
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait <goal-id>",
		Short: "Wait for a goal's result, printing its feedback (GET /v1/goals/{id} and the status stream)",
		Long: `Wait for the result of a goal, printing each feedback (state, waypoints
reached) as it comes on the status stream. Exit status: 0 SUCCEEDED, 1
CANCELED or ABORTED, 2 no such goal, no daemon, or --timeout passed.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil || id == 0 {
				return fmt.Errorf("goal ID %q: want 1, 2, …", args[0])
			}
			c, err := cl.client(false)
			if err != nil {
				return err
			}
			return missionWait(ctxOf(cmd), c, id, timeout, asJSON, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the feedback and the result as JSON lines")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this wall time (0: no limit)")
	return cmd
}

// goal fetches one goal; found is false for a 404.
func (c *missionClient) goal(ctx context.Context, id uint64) (g mission.GoalStatus, found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/v1/goals/%d", c.base, id), nil)
	if err != nil {
		return g, false, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return g, false, c.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return g, false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return g, false, fmt.Errorf("%s/v1/goals/%d: HTTP %d", c.base, id, resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&g); err != nil {
		return g, false, err
	}
	return g, true, nil
}

func goalLine(g mission.GoalStatus) string {
	s := fmt.Sprintf("goal %d %s", g.ID, g.State)
	if g.Reason != "" {
		s += " (" + g.Reason + ")"
	}
	if g.Paused {
		s += " paused"
	}
	s += fmt.Sprintf(": %d/%d waypoints reached", g.Completed, g.Total)
	if g.Dropped > 0 {
		s += fmt.Sprintf(", %d dropped", g.Dropped)
	}
	return s
}

// missionWait follows the stream until goal id has its result. The stream
// is opened first and the goal fetched once it answers, so a result that
// comes in between is not missed.
func missionWait(ctx context.Context, c *missionClient, id uint64, timeout time.Duration, asJSON bool, out io.Writer) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	print := func(g mission.GoalStatus) {
		if asJSON {
			b, _ := json.Marshal(g)
			fmt.Fprintf(out, "%s\n", b)
			return
		}
		fmt.Fprintln(out, goalLine(g))
	}
	var final *mission.GoalStatus
	var ferr error
	fetched := false
	err := c.events(ctx, func(ev sseEvent) bool {
		if !fetched {
			fetched = true
			g, found, err := c.goal(ctx, id)
			switch {
			case err != nil:
				ferr = err
				return false
			case !found:
				ferr = fmt.Errorf("no goal %d on the daemon at %s", id, c.base)
				return false
			}
			print(g)
			if g.Terminal() {
				final = &g
				return false
			}
		}
		if ev.name != "feedback" && ev.name != "result" {
			return true
		}
		var g server.GoalEvent
		if err := json.Unmarshal(ev.data, &g); err != nil {
			ferr = fmt.Errorf("status stream: %s event: %v", ev.name, err)
			return false
		}
		if g.ID != id {
			return true
		}
		print(g.GoalStatus)
		if ev.name == "result" {
			final = &g.GoalStatus
			return false
		}
		return true
	})
	switch {
	case ferr != nil:
		return ferr
	case final != nil && final.State == mission.GoalSucceeded.String():
		return nil
	case final != nil:
		return &failure{msg: goalLine(*final)}
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("goal %d: no result within %v", id, timeout)
	}
	return err
}
