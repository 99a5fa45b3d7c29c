package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/client"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

type missionClientFlags struct {
	addr      string
	tokenFile string
}

// client builds a client from the flags, reading the token file.
func (f *missionClientFlags) client(needToken bool) (*client.Client, error) {
	tok := ""
	if needToken {
		var err error
		if tok, err = server.LoadToken(f.tokenFile); err != nil {
			return nil, fmt.Errorf("token: %w (the daemon creates it; pass the same --token-file)", err)
		}
	}
	return client.New(f.addr, tok), nil
}

// missionReplyErr maps an API error to the CLI's exit codes: a refusal in
// the current state is a finding (exit 1), anything else could not run
// (exit 2).
func missionReplyErr(err error) error {
	if he, ok := client.Refused(err); ok {
		return &failure{msg: "refused: " + he.Reply.Message + " (" + he.Reply.Code + ")"}
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
			body, err := client.CommandBody(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			c, err := cl.client(true)
			if err != nil {
				return err
			}
			rep, err := c.Post(ctxOf(cmd), "/v1/command", body)
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
				rep, err := c.Post(ctxOf(cmd), "/v1/"+s.path, nil)
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
				return c.Watch(ctxOf(cmd), func(st mission.Status, raw []byte) bool {
					if stJSON {
						fmt.Fprintf(out, "%s\n", raw)
					} else {
						fmt.Fprintln(out, client.StatusLine(st))
					}
					return true
				})
			}
			st, raw, err := c.Status(ctxOf(cmd))
			if err != nil {
				return err
			}
			if stJSON {
				fmt.Fprintf(out, "%s\n", raw)
				return nil
			}
			client.WriteStatus(out, st)
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
