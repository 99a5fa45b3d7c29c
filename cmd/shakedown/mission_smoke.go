package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission/smoke"
)

type missionSmokeFlags struct {
	speed     float64
	timeout   time.Duration
	recordDir string
	stateLog  string
	faults    bool
}

// newMissionSmokeCmd is "mission smoke"; listen, if not nil, is the
// network of the daemons it starts (smoke.Config.Listen: an in-memory one
// in tests), nil a free loopback port.
func newMissionSmokeCmd(listen func() (net.Listener, *http.Client, error)) *cobra.Command {
	var f missionSmokeFlags
	cmd := &cobra.Command{
		Use:   "smoke",
		Short: "Start a demo daemon on a free loopback port and check a whole flight against it",
		Long: `Start a daemon of its own (demo adapter, a free loopback port, a fresh token)
and drive it over HTTP as an operator would: connect, arm, take off, a
mission of three waypoints with a pause and a resume, a second mission
cancelled, a third one pre-empted by return-home, which is pre-empted by a
landing, then dump_log. Every step's status is checked. Everything it
started is stopped before it exits.

The demo vehicle moves at constant speed; --speed runs the daemon's clock
faster than real time (10 by default: the flight takes about 25 s of daemon
time). Exit status: 0 every check passed, 1 a check failed, 2 could not run.

--faults instead flies the embedded quadrotor (--adapter sim) once per fault
kind of "mission serve --fault" (altitude, rpc, takeoff, battery, link,
telemetry, gnss, motor), each in a daemon of its own with the fault at 15 s
of daemon time (the take-off refusal at 0), and checks that each ends in
FAILSAFE with its reason, in the status and in the black box.`,
		Example: "  shakedown mission smoke\n  shakedown mission smoke --speed 1 --record-dir smoke-box --state-log smoke.jsonl\n  shakedown mission smoke --faults",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return missionSmoke(ctxOf(cmd), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, listen)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&f.speed, "speed", 10, "clock speed-up of the daemon it starts")
	fl.DurationVar(&f.timeout, "timeout", 2*time.Minute, "wall-clock limit of the whole run")
	fl.StringVar(&f.recordDir, "record-dir", "", "keep the black box in `dir` (default: a temporary directory, removed)")
	fl.StringVar(&f.stateLog, "state-log", "", "keep the daemon's JSONL state log in `FILE`")
	fl.BoolVar(&f.faults, "faults", false, "inject every fault kind into the sim adapter, one daemon each, and check each failsafe")
	return cmd
}

// missionSmoke runs the smoke flight, or with --faults the fault flights,
// and maps a failed check to exit status 1.
func missionSmoke(ctx context.Context, stdout, stderr io.Writer, f missionSmokeFlags, listen func() (net.Listener, *http.Client, error)) error {
	cfg := smoke.Config{Speed: f.speed, Timeout: f.timeout, RecordDir: f.recordDir, StateLog: f.stateLog, Listen: listen}
	var sf *smoke.Failure
	if f.faults {
		faults, checks, err := smoke.Faults(ctx, cfg, stdout, stderr)
		if errors.As(err, &sf) {
			return &failure{msg: "smoke --faults failed: " + sf.Msg}
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "smoke --faults passed: %d faults, %d checks\n", faults, checks)
		return nil
	}
	checks, err := smoke.Run(ctx, cfg, stdout, stderr)
	if errors.As(err, &sf) {
		return &failure{msg: "smoke failed: " + sf.Msg}
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "smoke passed: %d checks\n", checks)
	return nil
}
