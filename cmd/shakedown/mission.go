package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// missionDefaultAddr is where the daemon listens and the client connects by
// default: loopback only.
const missionDefaultAddr = "127.0.0.1:7350"

// missionTokenPath returns the default token file,
// $XDG_CONFIG_HOME/shakedown/mission.token (~/.config on Linux).
func missionTokenPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "mission.token"
	}
	return filepath.Join(dir, "shakedown", "mission.token")
}

func newMissionCmd(stdout, stderr io.Writer) *cobra.Command {
	cl := &missionClientFlags{}
	cmd := &cobra.Command{
		Use:   "mission",
		Short: "Mission safety manager: the daemon, its client and a smoke run",
		Long: `The mission safety manager flies one vehicle under a safety state machine
(IDLE → CONNECTING → ARMING → TAKEOFF → EXECUTING ↔ PAUSED → RETURNING →
LANDING → LANDED, and FAILSAFE on any abnormal condition) with a queue of up
to 100 NED waypoints and a flight-event black box.

"serve" runs the daemon with its HTTP API; send (and send goal), wait,
pause, resume, cancel, return-home, land, dump-log and status are its
client; smoke starts a daemon of its own and checks a whole flight against
it (--faults: every injectable failsafe); stats computes mission statistics
from state logs and black-box exports.

A successful command means the daemon accepted it, not that the action is
done: watch the status. Client exit status: 0 accepted, 1 refused in the
current state (e.g. pause while landing), 2 bad input, wrong token, or no
daemon.`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&cl.addr, "addr", missionDefaultAddr, "daemon `address` (host:port or http://host:port)")
	pf.StringVar(&cl.tokenFile, "token-file", missionTokenPath(), "bearer token `file`")
	cmd.AddCommand(newMissionServeCmd(), newMissionSmokeCmd(nil), newMissionStatsCmd())
	for _, c := range newMissionClientCmds(cl) {
		cmd.AddCommand(c)
	}
	return cmd
}
