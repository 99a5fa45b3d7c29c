package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/client"
)

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
			body, err := client.GoalBody(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			c, err := cl.client(true)
			if err != nil {
				return err
			}
			ctx := ctxOf(cmd)
			gr, err := c.PostGoal(ctx, body)
			if err != nil {
				return missionReplyErr(err)
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

// missionWait follows the stream until goal id has its result. The stream
// is opened first and the goal fetched once it answers, so a result that
// comes in between is not missed.
func missionWait(ctx context.Context, c *client.Client, id uint64, timeout time.Duration, asJSON bool, out io.Writer) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	final, err := c.WaitGoal(ctx, id, func(g mission.GoalStatus) {
		if asJSON {
			b, _ := json.Marshal(g)
			fmt.Fprintf(out, "%s\n", b)
			return
		}
		fmt.Fprintln(out, client.GoalLine(g))
	})
	switch {
	case final != nil && final.State == mission.GoalSucceeded.String():
		return nil
	case final != nil:
		return &failure{msg: client.GoalLine(*final)}
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("goal %d: no result within %v", id, timeout)
	}
	return err
}
