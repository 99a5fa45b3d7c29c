// Package smoke checks a mission daemon end to end as an operator would:
// it starts a daemon of its own (package mission/daemon) and drives it over
// its HTTP API (package mission/client), checking every step's status: a
// whole demo flight (Run), or one sim flight per injectable fault, each
// ending in FAILSAFE with its reason (Faults).
package smoke

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/client"
	"github.com/shakedown-robotics/shakedown/mission/daemon"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// Config is a smoke run's configuration.
type Config struct {
	Speed     float64       // clock speed-up of the daemon (> 0, at most 100)
	Timeout   time.Duration // limit of the whole run (> 0)
	RecordDir string        // keep the black box here ("": a temporary directory, removed)
	StateLog  string        // Run: keep the daemon's JSONL state log in this file ("": none)

	// Listen, if set, returns the listener each daemon serves and an HTTP
	// client that reaches it (an in-memory network, in tests that run on
	// a synctest bubble's clock). Nil: a free loopback TCP port.
	Listen func() (net.Listener, *http.Client, error)

	faults []adapter.Fault // Run's, in the package's tests
}

// stallWall is how long, on the wall clock, the host may keep the demo
// vehicle's telemetry from the daemon before Run's flight calls it lost.
// The daemon's default (1 s of its time) is a tenth of a second at ×10: a
// loaded machine stalls that long, and the flight ended in FAILSAFE
// (telemetry_timeout) once in about ten runs at a load of 9 on 2 cores.
// The fault runs keep the default: they check it.
const stallWall = time.Second

// flightParams are the daemon parameters of Run's flight at speed.
func flightParams(speed float64) server.Params {
	p := server.DefaultParams()
	if t := time.Duration(speed * float64(stallWall)); t > p.Machine.TelemetryTimeout {
		p.Machine.TelemetryTimeout = t
	}
	p.DumpOnShutdown = false
	return p
}

// Check checks the configuration before anything starts.
func (c Config) Check() error {
	if err := daemon.CheckAdapter("demo", c.Speed); err != nil {
		return err
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("--timeout %v: want > 0", c.Timeout)
	}
	if c.StateLog != "" && !daemon.IsDir(filepath.Dir(c.StateLog)) {
		return fmt.Errorf("--state-log %s: the folder %s does not exist", c.StateLog, filepath.Dir(c.StateLog))
	}
	return nil
}

// start starts a daemon of cfg on cfg's network and returns it with a
// client of it holding token.
func (c Config) start(dc daemon.Config) (*daemon.Daemon, *client.Client, error) {
	hc := &http.Client{}
	dc.Listen = "127.0.0.1:0"
	if c.Listen != nil {
		ln, h, err := c.Listen()
		if err != nil {
			return nil, nil, err
		}
		dc.Listener, hc = ln, h
	}
	d, err := daemon.Start(dc)
	if err != nil {
		if dc.Listener != nil {
			dc.Listener.Close()
		}
		return nil, nil, err
	}
	cl := client.New(d.URL(), dc.Token)
	cl.HTTP = hc
	return d, cl, nil
}

// run is one smoke run against a daemon.
type run struct {
	ctx    context.Context
	c      *client.Client
	out    io.Writer
	checks int
	// noFailsafe: a FAILSAFE ends every wait at once, with its reason
	// (the flight expects none; a fault run waits for one).
	noFailsafe bool
}

// newClient returns a client of the same daemon, on the same transport,
// with another token.
func (r *run) newClient(base, token string) *client.Client {
	c := client.New(base, token)
	c.HTTP = r.c.HTTP
	return c
}

// Failure is a failed check: the step and what was seen.
type Failure struct{ Msg string }

func (e *Failure) Error() string { return e.Msg }

func (r *run) ok(step, detail string) {
	r.checks++
	fmt.Fprintf(r.out, "ok   %-30s %s\n", step, detail)
}

func (r *run) check(step string, cond bool, format string, args ...any) error {
	if !cond {
		fmt.Fprintf(r.out, "FAIL %-30s %s\n", step, fmt.Sprintf(format, args...))
		return &Failure{step + ": " + fmt.Sprintf(format, args...)}
	}
	r.ok(step, fmt.Sprintf(format, args...))
	return nil
}

// do posts a command or a service and expects it accepted.
func (r *run) do(step, path, body string) error {
	_, err := r.c.Post(r.ctx, path, []byte(body))
	if err != nil {
		var he *client.HTTPError
		if errors.As(err, &he) {
			return r.check(step, false, "refused: %v", err)
		}
		return err
	}
	return nil
}

// wait follows the status stream until pred holds.
func (r *run) wait(step string, pred func(mission.Status) bool) (mission.Status, error) {
	until := pred
	if r.noFailsafe {
		until = func(st mission.Status) bool { return pred(st) || st.State == "FAILSAFE" }
	}
	st, err := r.c.WaitFor(r.ctx, until)
	if err == nil && !pred(st) {
		reason, detail := "", ""
		if st.FailsafeReason != nil {
			reason = *st.FailsafeReason
		}
		if st.FailsafeDetail != nil {
			detail = *st.FailsafeDetail
		}
		return st, r.check(step, false, "FAILSAFE (%s: %s) from %s at %.2f s", reason, detail, st.PreviousState, st.TimeS)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return st, r.check(step, false, "timed out waiting; last state %s, queue %s", st.State, client.FormatQueue(st.MissionQueue))
		}
		return st, err
	}
	return st, nil
}

// waitTaken waits until the vehicle took a new mission's first waypoint
// (its goal is then EXECUTING). A command sent before raced the goal's
// feedback, and the black box held one event more or less from run to run.
func (r *run) waitTaken(step string) error {
	_, err := r.wait(step, func(st mission.Status) bool {
		return st.MissionQueue.State == "RUNNING" && st.Target != nil && !st.CommandPending
	})
	return err
}

func settled(state string) func(mission.Status) bool {
	return func(st mission.Status) bool { return st.State == state && !st.CommandPending }
}

const missionBody = `{"event":"mission","waypoints":[{"x":4,"y":0,"z":-2,"speed":2},{"x":8,"y":0,"z":-2,"speed":2},{"x":12,"y":0,"z":-2,"speed":2}]}`

// Run starts a demo daemon and flies the smoke sequence against it: connect,
// arm, take off, a mission of three waypoints with a pause and a resume, a
// second mission cancelled, a third one pre-empted by return-home, which is
// pre-empted by a landing, then dump_log. Each check is a line on stdout,
// the daemon's start and stop lines go to stderr. It returns the number of
// checks passed; a failed check is a *Failure. Everything it started is
// stopped before it returns.
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) (checks int, err error) {
	if err := cfg.Check(); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "shakedown-smoke-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	tok, _, err := server.LoadOrCreateToken(filepath.Join(tmp, "token"))
	if err != nil {
		return 0, err
	}
	p := flightParams(cfg.Speed)
	p.RecordDir = cfg.RecordDir
	if p.RecordDir == "" {
		p.RecordDir = filepath.Join(tmp, "blackbox")
	}
	d, c, err := cfg.start(daemon.Config{Params: p, Adapter: "demo", Speed: cfg.Speed, Seed: 1, Tick: 50 * time.Millisecond, Token: tok,
		StateLog: cfg.StateLog, SampleEvery: 500 * time.Millisecond, StateLogBytes: 10 << 20, Faults: cfg.faults})
	if err != nil {
		return 0, err
	}
	defer func() {
		if serr := d.Stop(); serr != nil && err == nil {
			err = serr
		}
		fmt.Fprintln(stderr, "smoke: daemon stopped")
	}()
	fmt.Fprintf(stderr, "smoke: daemon on %s (demo adapter, speed ×%g)\n", d.URL(), cfg.Speed)
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	r := &run{ctx: ctx, c: c, out: stdout, noFailsafe: true}
	err = r.flight(p.RecordDir)
	return r.checks, err
}

// flight is the smoke sequence.
func (r *run) flight(recordDir string) error {
	st, _, err := r.c.Status(r.ctx)
	if err != nil {
		return err
	}
	if err := r.check("status", st.State == "IDLE" && st.AdapterMode == "demo", "state %s, adapter_mode %s", st.State, st.AdapterMode); err != nil {
		return err
	}
	// an unauthenticated request is refused and changes nothing
	bad := r.newClient(r.c.Base, "wrong-token")
	_, perr := bad.Post(r.ctx, "/v1/command", []byte(`{"event":"connect"}`))
	var he *client.HTTPError
	st, _, _ = r.c.Status(r.ctx)
	if err := r.check("wrong token refused", errors.As(perr, &he) && he.Status == 401 && st.State == "IDLE", "HTTP 401, still %s", st.State); err != nil {
		return err
	}

	if err := r.do("connect", "/v1/command", `{"event":"connect"}`); err != nil {
		return err
	}
	if st, err = r.wait("connect", settled("ARMING")); err != nil {
		return err
	}
	if err := r.check("connect", st.Home != nil && *st.Home == (mission.Point{}), "ARMING, home %s", client.FormatPoint(st.Home)); err != nil {
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
	if err := r.check("airborne", st.Airborne && st.Position != nil && st.Position.Z <= -1.5, "EXECUTING at %s", client.FormatPoint(st.Position)); err != nil {
		return err
	}

	// three waypoints with a pause and a resume
	if err := r.do("mission", "/v1/command", missionBody); err != nil {
		return err
	}
	if st, err = r.wait("waypoint 0 reached", func(st mission.Status) bool { return st.MissionQueue.Completed >= 1 }); err != nil {
		return err
	}
	r.ok("waypoint 0 reached", client.FormatQueue(st.MissionQueue))
	if err := r.do("pause", "/v1/pause", ""); err != nil {
		return err
	}
	if st, err = r.wait("pause", settled("PAUSED")); err != nil {
		return err
	}
	q := st.MissionQueue
	if err := r.check("pause", q.State == "PAUSED" && q.CurrentIndex != nil && *q.CurrentIndex == 1 && st.Target != nil && st.Target.X == 8 && st.Target.SpeedMS == 2,
		"PAUSED, queue %s, target kept %v", client.FormatQueue(q), st.Target != nil); err != nil {
		return err
	}
	if _, err := r.c.Post(r.ctx, "/v1/command", []byte(`{"event":"goto","x":1,"y":1,"z":-2}`)); err != nil {
		if !errors.As(err, &he) || he.Status != 409 {
			return r.check("goto refused while paused", false, "%v", err)
		}
	} else {
		return r.check("goto refused while paused", false, "it was accepted")
	}
	r.ok("goto refused while paused", "HTTP 409 "+he.Reply.Code)
	if err := r.do("resume", "/v1/resume", ""); err != nil {
		return err
	}
	if st, err = r.wait("resume", func(st mission.Status) bool { return st.State == "EXECUTING" && st.MissionQueue.State == "RUNNING" }); err != nil {
		return err
	}
	r.ok("resume", "EXECUTING, "+client.FormatQueue(st.MissionQueue))
	if st, err = r.wait("mission completed", func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" }); err != nil {
		return err
	}
	q = st.MissionQueue
	if err := r.check("mission completed", q.Completed == 3 && q.Total == 3 && q.CurrentIndex == nil && q.Remaining == 0 && st.Target == nil && st.State == "EXECUTING",
		"%s, target cleared, hovering in %s", client.FormatQueue(q), st.State); err != nil {
		return err
	}
	g, found, err := r.c.Goal(r.ctx, 1)
	if err != nil {
		return err
	}
	if err := r.check("goal 1 succeeded", found && g.State == "SUCCEEDED" && g.Completed == 3, "%s", client.GoalLine(g)); err != nil {
		return err
	}

	// a second mission, cancelled
	if err := r.do("second mission", "/v1/command", strings.ReplaceAll(missionBody, `"x":`, `"x":-`)); err != nil {
		return err
	}
	if err := r.waitTaken("second mission"); err != nil {
		return err
	}
	if _, err := r.c.Post(r.ctx, "/v1/command", []byte(missionBody)); !errors.As(err, &he) || he.Reply.Code != mission.CodeQueueBusy {
		return r.check("mission refused while running", false, "%v", err)
	}
	r.ok("mission refused while running", "HTTP 409 "+he.Reply.Code)
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
		"%s, %s", st.State, client.FormatQueue(q)); err != nil {
		return err
	}

	// a third mission, pre-empted by return-home, pre-empted by a landing
	if err := r.do("third mission", "/v1/command", missionBody); err != nil {
		return err
	}
	if err := r.waitTaken("third mission"); err != nil {
		return err
	}
	if err := r.do("return-home", "/v1/return_home", ""); err != nil {
		return err
	}
	if st, err = r.wait("return-home", func(st mission.Status) bool { return st.State == "RETURNING" }); err != nil {
		return err
	}
	if err := r.check("return-home pre-empts", st.MissionQueue.State == "CANCELED", "RETURNING, %s", client.FormatQueue(st.MissionQueue)); err != nil {
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
	if err := r.check("landed", !st.Armed && st.Landed, "LANDED at %s, disarmed", client.FormatPoint(st.Position)); err != nil {
		return err
	}

	rep, err := r.c.Post(r.ctx, "/v1/dump_log", nil)
	if err != nil {
		return r.check("dump_log", false, "%v", err)
	}
	rows, err := readCSV(filepath.Join(recordDir, blackbox.CSVName))
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

func readCSV(path string) ([][]string, error) {
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

// FaultAt is the daemon time of the in-flight faults: the sim is
// airborne by then (connect, arm and take-off take about 6 s).
const FaultAt = 15 * time.Second

// Faults runs one sim daemon per fault kind (adapter.FaultKinds), each
// with its fault at FaultAt of daemon time (the take-off refusal at 0), and
// checks that each ends in FAILSAFE with its reason, in the status, the
// goal and the black box. It stops at the first failed check (a
// *Failure) and returns the number of faults flown and of checks passed.
func Faults(ctx context.Context, cfg Config, stdout, stderr io.Writer) (faults, checks int, err error) {
	if err := cfg.Check(); err != nil {
		return 0, 0, err
	}
	if cfg.StateLog != "" {
		return 0, 0, fmt.Errorf("--state-log with --faults: the fault runs keep no state log")
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	for _, kind := range adapter.FaultKinds {
		n, err := fault(ctx, stdout, stderr, cfg, kind)
		checks += n
		if err != nil {
			return faults, checks, err
		}
		faults++
	}
	return faults, checks, nil
}

func fault(ctx context.Context, stdout, stderr io.Writer, f Config, kind adapter.FaultKind) (checks int, err error) {
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
	if f.RecordDir != "" {
		p.RecordDir = filepath.Join(f.RecordDir, string(kind))
	}
	p.DumpOnShutdown = false
	ft := adapter.Fault{Kind: kind, At: FaultAt}
	if kind == adapter.FaultTakeoff {
		ft.At = 0
	}
	d, c, err := f.start(daemon.Config{Params: p, Adapter: "sim", Speed: f.Speed, Seed: 1, Tick: 50 * time.Millisecond, Token: tok,
		Faults: []adapter.Fault{ft}})
	if err != nil {
		return 0, err
	}
	defer func() {
		if serr := d.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	fmt.Fprintf(stderr, "smoke: fault %s: daemon on %s (sim adapter, speed ×%g)\n", ft, d.URL(), f.Speed)
	r := &run{ctx: ctx, c: c, out: io.Discard}
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
		g, _, err := r.c.Goal(ctx, 1)
		if err != nil {
			return r.checks, err
		}
		if err := r.check("  goal", g.State == "ABORTED" && g.Reason == kind.Reason(), "%s", client.GoalLine(g)); err != nil {
			return r.checks, err
		}
	}
	if _, err := r.c.Post(ctx, "/v1/dump_log", nil); err != nil {
		return r.checks, r.check("  black box", false, "%v", err)
	}
	rows, err := readCSV(filepath.Join(p.RecordDir, blackbox.CSVName))
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
