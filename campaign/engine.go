package campaign

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/ulog"
)

// Engines: the rungs of the fidelity ladder a job can be flown on
// (DESIGN.md). A job names its engine; the executor that runs it holds the
// engines, configured where it runs (a NATS worker has its own).
const (
	EngineEmbedded  = "embedded"  // the embedded simulator (package run)
	EngineMAVLink   = "mavlink"   // a PX4 or ArduPilot autopilot over MAVLink (SITL or a vehicle)
	EngineAerialist = "aerialist" // Aerialist (PX4 SITL, Gazebo, PX4-Avoidance) through its CLI, scored from its ULog
)

// engineNames are the engines a job may name.
var engineNames = []string{EngineEmbedded, EngineMAVLink, EngineAerialist}

// ErrNoEngine marks a job whose engine the executor does not have.
var ErrNoEngine = errors.New("campaign: engine not configured")

// Engine flies a job once and judges the flight.
type Engine interface {
	// Fly returns the verdict, with the trajectory in Trace (local NED
	// about home), or an error when the job could not be flown.
	Fly(ctx context.Context, j Job) (*run.Result, error)
}

// Engines maps engine names to the engines an executor flies jobs on. A nil
// map has the embedded engine only.
type Engines map[string]Engine

// get returns the engine named name.
func (e Engines) get(name string) (Engine, error) {
	if eng, ok := e[name]; ok {
		return eng, nil
	}
	if name == EngineEmbedded && e == nil {
		return Embedded{}, nil
	}
	return nil, fmt.Errorf("%w: this executor has no %q engine (it has %s)", ErrNoEngine, name, e.names())
}

func (e Engines) names() string {
	if e == nil {
		return EngineEmbedded
	}
	var n []string
	for k := range e {
		n = append(n, k)
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}

// Embedded flies jobs on the embedded simulator, judged on its ground
// truth.
type Embedded struct{}

var _ Engine = Embedded{}

// Fly implements Engine.
func (Embedded) Fly(ctx context.Context, j Job) (*run.Result, error) {
	r, _, err := run.FlySim(ctx, j.CaseStudy(), j.Options())
	return r, err
}

// MAVLink flies jobs on the autopilot at URL (PX4 or ArduPilot SITL, or a
// vehicle): the mission is uploaded and flown with run.Fly, and judged on
// the vehicle's estimated position against the job's obstacles (which the
// autopilot does not see unless they are in its own simulator). One
// vehicle flies one job at a time; the simulator fields of the job (wind,
// autopilot, seed) are the vehicle's business.
type MAVLink struct {
	URL string // as mavlink.ParseURL reads it: udp://host:port, tcp://…
	// ReadyTimeout bounds the wait for the vehicle (heartbeat, position,
	// home); 0 = 30 s.
	ReadyTimeout time.Duration
	Logf         func(format string, args ...any) // the link's notes; nil = none

	mu sync.Mutex
}

var _ Engine = (*MAVLink)(nil)

// Fly implements Engine.
func (m *MAVLink) Fly(ctx context.Context, j Job) (*run.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	wait := m.ReadyTimeout
	if wait == 0 {
		wait = 30 * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, wait)
	v, err := mavlink.Dial(cctx, mavlink.Config{URL: m.URL, Logf: m.Logf})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("mavlink %s: %w", m.URL, err)
	}
	defer v.Close()
	return run.Fly(ctx, v, j.CaseStudy(), run.Options{TimeoutS: j.Vehicle.TimeoutS, Seed: j.Seed})
}

// Aerialist flies each job by handing its test YAML to Aerialist's CLI and
// scoring the PX4 log the run leaves, exactly as the embedded runs are
// scored (run.Judge over the log's trajectory, Aerialist's rule for the
// distances). The command is run as
//
//	<Command...> exec --test <dir>/test.yaml --agent <Agent> --path <dir>/logs --id <job id>
//
// in a fresh folder dir that holds the test YAML, its plan and the
// competition's parameter and command files; it must exit 0 and leave at
// least one .ulg file under dir (the newest is read). A run that ends
// at the time limit is still scored on its partial log (competition.md
// §3.3).
type Aerialist struct {
	// Command is the argument vector that starts Aerialist's CLI; nil =
	// {"python3", "aerialist"} (run from Aerialist's folder).
	Command []string
	Agent   string // --agent: local or docker; "" = local
	// Dir is where the per-job folders are made; "" = the system's
	// temporary folder. They are removed after the job unless Keep.
	Dir  string
	Keep bool
	// WallTimeout bounds one run in wall time; 0 = 1000 s, Aerialist's
	// DOCKER_TIMEOUT (the simulation itself stops at its 500-s
	// SIMULATION_TIMEOUT).
	WallTimeout time.Duration
	// Env is added to the command's environment (SIMULATION_TIMEOUT=…).
	Env []string
}

var _ Engine = (*Aerialist)(nil)

// ErrNoLog marks an Aerialist run that left no PX4 log.
var ErrNoLog = errors.New("campaign: aerialist left no .ulg log")

// Fly implements Engine.
func (a *Aerialist) Fly(ctx context.Context, j Job) (*run.Result, error) {
	dir, err := os.MkdirTemp(a.Dir, "aerialist-"+j.ID.Short()+"-")
	if err != nil {
		return nil, err
	}
	if !a.Keep {
		defer os.RemoveAll(dir)
	}
	cs := j.CaseStudy()
	test, err := writeAerialistTest(dir, cs)
	if err != nil {
		return nil, err
	}
	argv := a.Command
	if len(argv) == 0 {
		argv = []string{"python3", "aerialist"}
	}
	agent := a.Agent
	if agent == "" {
		agent = "local"
	}
	limit := a.WallTimeout
	if limit == 0 {
		limit = 1000 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := append(slices.Clone(argv[1:]), "exec", "--test", test, "--agent", agent, "--path", filepath.Join(dir, "logs"), "--id", string(j.ID))
	cmd := exec.CommandContext(rctx, argv[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), a.Env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("aerialist: %s: %w: %s", strings.Join(argv, " "), err, lastLines(out, 5))
	}
	log, err := newestULog(dir)
	if err != nil {
		return nil, err
	}
	data, err := scenario.ReadFile(log, ulog.MaxBytes)
	if err != nil {
		return nil, err
	}
	return JudgeULog(cs, data, j.Vehicle.TimeoutS, filepath.Base(log))
}

// JudgeULog judges a flight of cs from its PX4 log the way the embedded
// runs are judged: the trajectory Aerialist extracts (ulog.Trajectory,
// vehicle_local_position about the first sample) through run.Judge. A log
// shows no contact; the flight completed when it ended within 1 m of the
// ground before timeoutS, and timed out when it lasted timeoutS or more.
func JudgeULog(cs *scenario.CaseStudy, data []byte, timeoutS float64, name string) (*run.Result, error) {
	f, err := ulog.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	tr, err := ulog.Trajectory(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	last := tr[len(tr)-1]
	e := run.Ending{T: last.T, Note: "judged on the PX4 log " + name + " (vehicle_local_position); contacts are not in the log"}
	e.Last.Pos = last.Pos
	switch {
	case last.T >= timeoutS:
		e.TimedOut = true
	case -last.Pos.Z < 1:
		e.Last.MissionDone = true
	}
	e.Last.MissionItem = len(cs.Mission.Items) - 1
	return run.Judge(cs, tr, nil, e, timeoutS), nil
}

// writeAerialistTest writes the test YAML of cs into dir beside its plan,
// in the competition's form (port and simulator ros, the mission started
// by the command of mission-commands.csv, parameters inline), and returns
// its path.
func writeAerialistTest(dir string, cs *scenario.CaseStudy) (string, error) {
	c := *cs
	c.Port, c.Simulator, c.Speed, c.Headless = "ros", "ros", 1, true
	if len(c.Commands) == 0 {
		c.Commands = []scenario.Command{{TimestampUS: 1, Mode: 3, Z: 0.5}} // competition.md §1.5
	}
	cs = &c
	plan, err := scenario.EncodePlan(cs.Mission)
	if err != nil {
		return "", err
	}
	planName := safeFile(cs.Mission.Name) + ".plan"
	y, err := scenario.EncodeCaseStudy(cs, planName)
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{planName: plan, "test.yaml": y} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "test.yaml"), nil
}

func safeFile(s string) string {
	if s == "" {
		return "mission"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// newestULog returns the most recently modified .ulg file under dir.
func newestULog(dir string) (string, error) {
	var best string
	var bestT time.Time
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".ulg") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if best == "" || info.ModTime().After(bestT) {
			best, bestT = p, info.ModTime()
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if best == "" {
		return "", fmt.Errorf("%w (looked under %s)", ErrNoLog, dir)
	}
	return best, nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
