package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

type missionSmokeFlags struct {
	speed     float64
	timeout   time.Duration
	recordDir string
	stateLog  string
	faults    bool
}

func newMissionSmokeCmd() *cobra.Command {
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
			return missionSmoke(ctxOf(cmd), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
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

// smokeRun is one smoke run against a daemon.
type smokeRun struct {
	ctx    context.Context
	c      *missionClient
	out    io.Writer
	checks int
}

// smokeFail is a failed check.
type smokeFail struct{ msg string }

func (e *smokeFail) Error() string { return e.msg }

func (r *smokeRun) ok(step, detail string) {
	r.checks++
	fmt.Fprintf(r.out, "ok   %-30s %s\n", step, detail)
}

func (r *smokeRun) check(step string, cond bool, format string, args ...any) error {
	if !cond {
		fmt.Fprintf(r.out, "FAIL %-30s %s\n", step, fmt.Sprintf(format, args...))
		return &smokeFail{step + ": " + fmt.Sprintf(format, args...)}
	}
	r.ok(step, fmt.Sprintf(format, args...))
	return nil
}

// do posts a command or a service and expects it accepted.
func (r *smokeRun) do(step, path, body string) error {
	_, err := r.c.post(r.ctx, path, []byte(body))
	if err != nil {
		var he *missionHTTPError
		if errors.As(err, &he) {
			return r.check(step, false, "refused: %v", err)
		}
		return err
	}
	return nil
}

// wait follows the status stream until pred holds.
func (r *smokeRun) wait(step string, pred func(mission.Status) bool) (mission.Status, error) {
	st, err := r.c.waitFor(r.ctx, pred)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return st, r.check(step, false, "timed out waiting; last state %s, queue %s", st.State, fmtQueue(st.MissionQueue))
		}
		return st, err
	}
	return st, nil
}

func settled(state string) func(mission.Status) bool {
	return func(st mission.Status) bool { return st.State == state && !st.CommandPending }
}

const smokeMission = `{"event":"mission","waypoints":[{"x":4,"y":0,"z":-2,"speed":2},{"x":8,"y":0,"z":-2,"speed":2},{"x":12,"y":0,"z":-2,"speed":2}]}`

func missionSmoke(ctx context.Context, stdout, stderr io.Writer, f missionSmokeFlags) (err error) {
	if err := missionCheckAdapter("demo", f.speed); err != nil {
		return err
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--timeout %v: want > 0", f.timeout)
	}
	if f.stateLog != "" && !missionIsDir(filepath.Dir(f.stateLog)) {
		return fmt.Errorf("--state-log %s: the folder %s does not exist", f.stateLog, filepath.Dir(f.stateLog))
	}
	if f.faults {
		if f.stateLog != "" {
			return fmt.Errorf("--state-log with --faults: the fault runs keep no state log")
		}
		return missionSmokeFaults(ctx, stdout, stderr, f)
	}
	tmp, err := os.MkdirTemp("", "shakedown-smoke-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tokFile := filepath.Join(tmp, "token")
	tok, _, err := server.LoadOrCreateToken(tokFile)
	if err != nil {
		return err
	}
	p := server.DefaultParams()
	p.RecordDir = f.recordDir
	if p.RecordDir == "" {
		p.RecordDir = filepath.Join(tmp, "blackbox")
	}
	p.DumpOnShutdown = false
	d, err := startMissionDaemonOpts(p, "demo", f.speed, 1, 50*time.Millisecond, "127.0.0.1:0", tok, func(string, ...any) {},
		missionDaemonOpts{stateLog: f.stateLog, sampleEvery: 500 * time.Millisecond, stateLogBytes: 10 << 20})
	if err != nil {
		return err
	}
	defer func() {
		if serr := d.stop(); serr != nil && err == nil {
			err = serr
		}
		fmt.Fprintln(stderr, "smoke: daemon stopped")
	}()
	fmt.Fprintf(stderr, "smoke: daemon on %s (demo adapter, speed ×%g)\n", d.URL(), f.speed)
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	r := &smokeRun{ctx: ctx, c: newMissionClient(d.URL(), tok), out: stdout}
	if err := r.flight(p.RecordDir); err != nil {
		var sf *smokeFail
		if errors.As(err, &sf) {
			return &failure{msg: "smoke failed: " + sf.msg}
		}
		return err
	}
	fmt.Fprintf(stdout, "smoke passed: %d checks\n", r.checks)
	return nil
}

// flight is the smoke sequence.
func (r *smokeRun) flight(recordDir string) error {
	st, _, err := r.c.status(r.ctx)
	if err != nil {
		return err
	}
	if err := r.check("status", st.State == "IDLE" && st.AdapterMode == "demo", "state %s, adapter_mode %s", st.State, st.AdapterMode); err != nil {
		return err
	}
	// an unauthenticated request is refused and changes nothing
	bad := newMissionClient(r.c.base, "wrong-token")
	_, perr := bad.post(r.ctx, "/v1/command", []byte(`{"event":"connect"}`))
	var he *missionHTTPError
	st, _, _ = r.c.status(r.ctx)
	if err := r.check("wrong token refused", errors.As(perr, &he) && he.status == 401 && st.State == "IDLE", "HTTP 401, still %s", st.State); err != nil {
		return err
	}

	if err := r.do("connect", "/v1/command", `{"event":"connect"}`); err != nil {
		return err
	}
	if st, err = r.wait("connect", settled("ARMING")); err != nil {
		return err
	}
	if err := r.check("connect", st.Home != nil && *st.Home == (mission.Point{}), "ARMING, home %s", fmtPoint(st.Home)); err != nil {
		return err
	}
	if err := r.do("armed", "/v1/command", `{"event":"armed"}`); err != nil {
		return err
	}
	if st, err = r.wait("armed", settled("TAKEOFF")); err != nil {
		return err
	}
	if err := r.check("armed", st.TakeoffRPCResult != nil && *st.TakeoffRPCResult, "TAKEOFF, takeoff_rpc_result true"); err != nil {
		return err
	}
	if err := r.do("airborne", "/v1/command", `{"event":"airborne"}`); err != nil {
		return err
	}
	if st, err = r.wait("airborne", settled("EXECUTING")); err != nil {
		return err
	}
	if err := r.check("airborne", st.Airborne && st.Position != nil && st.Position.Z <= -1.5, "EXECUTING at %s", fmtPoint(st.Position)); err != nil {
		return err
	}

	// three waypoints with a pause and a resume
	if err := r.do("mission", "/v1/command", smokeMission); err != nil {
		return err
	}
	if st, err = r.wait("waypoint 0 reached", func(st mission.Status) bool { return st.MissionQueue.Completed >= 1 }); err != nil {
		return err
	}
	r.ok("waypoint 0 reached", fmtQueue(st.MissionQueue))
	if err := r.do("pause", "/v1/pause", ""); err != nil {
		return err
	}
	if st, err = r.wait("pause", settled("PAUSED")); err != nil {
		return err
	}
	q := st.MissionQueue
	if err := r.check("pause", q.State == "PAUSED" && q.CurrentIndex != nil && *q.CurrentIndex == 1 && st.Target != nil && st.Target.X == 8 && st.Target.SpeedMS == 2,
		"PAUSED, queue %s, target kept %v", fmtQueue(q), st.Target != nil); err != nil {
		return err
	}
	if _, err := r.c.post(r.ctx, "/v1/command", []byte(`{"event":"goto","x":1,"y":1,"z":-2}`)); err != nil {
		if !errors.As(err, &he) || he.status != 409 {
			return r.check("goto refused while paused", false, "%v", err)
		}
	} else {
		return r.check("goto refused while paused", false, "it was accepted")
	}
	r.ok("goto refused while paused", "HTTP 409 "+he.rep.Code)
	if err := r.do("resume", "/v1/resume", ""); err != nil {
		return err
	}
	if st, err = r.wait("resume", func(st mission.Status) bool { return st.State == "EXECUTING" && st.MissionQueue.State == "RUNNING" }); err != nil {
		return err
	}
	r.ok("resume", "EXECUTING, "+fmtQueue(st.MissionQueue))
	if st, err = r.wait("mission completed", func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" }); err != nil {
		return err
	}
	q = st.MissionQueue
	if err := r.check("mission completed", q.Completed == 3 && q.Total == 3 && q.CurrentIndex == nil && q.Remaining == 0 && st.Target == nil && st.State == "EXECUTING",
		"%s, target cleared, hovering in %s", fmtQueue(q), st.State); err != nil {
		return err
	}
	g, found, err := r.c.goal(r.ctx, 1)
	if err != nil {
		return err
	}
	if err := r.check("goal 1 succeeded", found && g.State == "SUCCEEDED" && g.Completed == 3, "%s", goalLine(g)); err != nil {
		return err
	}

	// a second mission, cancelled
	if err := r.do("second mission", "/v1/command", strings.ReplaceAll(smokeMission, `"x":`, `"x":-`)); err != nil {
		return err
	}
	if _, err := r.c.post(r.ctx, "/v1/command", []byte(smokeMission)); !errors.As(err, &he) || he.rep.Code != mission.CodeQueueBusy {
		return r.check("mission refused while running", false, "%v", err)
	}
	r.ok("mission refused while running", "HTTP 409 "+he.rep.Code)
	if err := r.do("cancel", "/v1/cancel", ""); err != nil {
		return err
	}
	if st, err = r.wait("cancel", func(st mission.Status) bool {
		return st.MissionQueue.State == "CANCELED" && !st.CommandPending
	}); err != nil {
		return err
	}
	q = st.MissionQueue
	if err := r.check("cancel", st.State == "EXECUTING" && q.CurrentIndex == nil && q.Remaining == 0 && q.Total == 3 && st.Target == nil,
		"%s, %s", st.State, fmtQueue(q)); err != nil {
		return err
	}

	// a third mission, pre-empted by return-home, pre-empted by a landing
	if err := r.do("third mission", "/v1/command", smokeMission); err != nil {
		return err
	}
	if err := r.do("return-home", "/v1/return_home", ""); err != nil {
		return err
	}
	if st, err = r.wait("return-home", func(st mission.Status) bool { return st.State == "RETURNING" }); err != nil {
		return err
	}
	if err := r.check("return-home pre-empts", st.MissionQueue.State == "CANCELED", "RETURNING, %s", fmtQueue(st.MissionQueue)); err != nil {
		return err
	}
	if err := r.do("land", "/v1/land", ""); err != nil {
		return err
	}
	if st, err = r.wait("land", func(st mission.Status) bool { return st.State == "LANDING" }); err != nil {
		return err
	}
	r.ok("land pre-empts the return", "LANDING from "+st.PreviousState)
	if st, err = r.wait("landed", settled("LANDED")); err != nil {
		return err
	}
	if err := r.check("landed", !st.Armed && st.Landed, "LANDED at %s, disarmed", fmtPoint(st.Position)); err != nil {
		return err
	}

	rep, err := r.c.post(r.ctx, "/v1/dump_log", nil)
	if err != nil {
		return r.check("dump_log", false, "%v", err)
	}
	rows, err := readSmokeCSV(filepath.Join(recordDir, blackbox.CSVName))
	if err != nil {
		return r.check("dump_log", false, "%v", err)
	}
	var states []string
	for _, row := range rows[1:] {
		if len(row) == 5 && row[2] == mission.KindTransition {
			states = append(states, row[3])
		}
	}
	want := "CONNECTING ARMING TAKEOFF EXECUTING PAUSED EXECUTING RETURNING LANDING LANDED"
	return r.check("dump_log", strings.Join(states, " ") == want && len(rep.Files) == 2, "%d events; transitions %s", len(rows)-1, strings.Join(states, " "))
}

func readSmokeCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "seq,time_s,kind,state,detail" {
		return nil, fmt.Errorf("%s: bad header", path)
	}
	return rows, nil
}

// smokeFaultAt is the daemon time of the in-flight faults: the sim is
// airborne by then (connect, arm and take-off take about 6 s).
const smokeFaultAt = 15 * time.Second

// missionSmokeFaults runs one sim daemon per fault kind.
func missionSmokeFaults(ctx context.Context, stdout, stderr io.Writer, f missionSmokeFlags) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	checks := 0
	for _, kind := range adapter.FaultKinds {
		r, err := smokeFault(ctx, stdout, stderr, f, kind)
		checks += r
		if err != nil {
			var sf *smokeFail
			if errors.As(err, &sf) {
				return &failure{msg: "smoke --faults failed: " + sf.msg}
			}
			return err
		}
	}
	fmt.Fprintf(stdout, "smoke --faults passed: %d faults, %d checks\n", len(adapter.FaultKinds), checks)
	return nil
}

func smokeFault(ctx context.Context, stdout, stderr io.Writer, f missionSmokeFlags, kind adapter.FaultKind) (checks int, err error) {
	tmp, err := os.MkdirTemp("", "shakedown-smoke-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	tok, _, err := server.LoadOrCreateToken(filepath.Join(tmp, "token"))
	if err != nil {
		return 0, err
	}
	p := server.DefaultParams()
	p.RecordDir = filepath.Join(tmp, "blackbox")
	if f.recordDir != "" {
		p.RecordDir = filepath.Join(f.recordDir, string(kind))
	}
	p.DumpOnShutdown = false
	ft := adapter.Fault{Kind: kind, At: smokeFaultAt}
	if kind == adapter.FaultTakeoff {
		ft.At = 0
	}
	d, err := startMissionDaemonOpts(p, "sim", f.speed, 1, 50*time.Millisecond, "127.0.0.1:0", tok, func(string, ...any) {},
		missionDaemonOpts{faults: []adapter.Fault{ft}})
	if err != nil {
		return 0, err
	}
	defer func() {
		if serr := d.stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	fmt.Fprintf(stderr, "smoke: fault %s: daemon on %s (sim adapter, speed ×%g)\n", ft, d.URL(), f.speed)
	r := &smokeRun{ctx: ctx, c: newMissionClient(d.URL(), tok), out: io.Discard}
	defer func() { checks = r.checks }()
	step := func(name, path, body string, pred func(mission.Status) bool) (mission.Status, error) {
		if err := r.do(name, path, body); err != nil {
			return mission.Status{}, err
		}
		return r.wait(name, pred)
	}
	failsafe := func(st mission.Status) bool { return st.State == "FAILSAFE" }
	if _, err := step("connect", "/v1/command", `{"event":"connect"}`, settled("ARMING")); err != nil {
		return 0, err
	}
	var st mission.Status
	if kind == adapter.FaultTakeoff {
		if st, err = step("armed", "/v1/command", `{"event":"armed"}`, failsafe); err != nil {
			return 0, err
		}
	} else {
		if _, err := step("armed", "/v1/command", `{"event":"armed"}`, settled("TAKEOFF")); err != nil {
			return 0, err
		}
		if st, err = step("airborne", "/v1/command", `{"event":"airborne"}`, settled("EXECUTING")); err != nil {
			return 0, err
		}
		r.out = stdout
		if err := r.check("fault "+string(kind)+": airborne first", st.TimeS < ft.At.Seconds()-1, "EXECUTING at %.1f s, fault at %v", st.TimeS, ft.At); err != nil {
			return 0, err
		}
		r.out = io.Discard
		goal := `{"waypoints":[{"x":30,"y":0,"z":-3,"speed":1},{"x":30,"y":30,"z":-3}]}`
		if err := r.do("goal", "/v1/goals", goal); err != nil {
			return 0, err
		}
		if kind == adapter.FaultRPC { // the fault fails the next command: send one after it
			if _, err := r.wait("fault time", func(st mission.Status) bool { return st.TimeS > ft.At.Seconds()+0.2 }); err != nil {
				return 0, err
			}
			if err := r.do("pause", "/v1/pause", ""); err != nil {
				return 0, err
			}
		}
		if st, err = r.wait("failsafe", failsafe); err != nil {
			return 0, err
		}
	}
	r.out = stdout
	reason, detail := "none", ""
	if st.FailsafeReason != nil {
		reason, detail = *st.FailsafeReason, *st.FailsafeDetail
	}
	name := fmt.Sprintf("fault %s", ft)
	if err := r.check(name, reason == kind.Reason(), "%s (%s) at %.2f s: %s", st.State, reason, st.TimeS, detail); err != nil {
		return r.checks, err
	}
	if kind != adapter.FaultTakeoff {
		g, _, err := r.c.goal(ctx, 1)
		if err != nil {
			return r.checks, err
		}
		if err := r.check("  goal", g.State == "ABORTED" && g.Reason == kind.Reason(), "%s", goalLine(g)); err != nil {
			return r.checks, err
		}
	}
	if _, err := r.c.post(ctx, "/v1/dump_log", nil); err != nil {
		return r.checks, r.check("  black box", false, "%v", err)
	}
	rows, err := readSmokeCSV(filepath.Join(p.RecordDir, blackbox.CSVName))
	if err != nil {
		return r.checks, r.check("  black box", false, "%v", err)
	}
	found := ""
	for _, row := range rows[1:] {
		if row[2] == mission.KindTransition && row[3] == "FAILSAFE" && blackbox.Reason(row[4]) == kind.Reason() {
			found = row[0]
		}
	}
	return r.checks, r.check("  black box", found != "", "FAILSAFE reason=%s recorded (seq %s)", kind.Reason(), found)
}
