// Package server is the mission daemon: it owns a mission.Machine, the
// vehicle Adapter, the flight recorder and the clock, and serves the HTTP
// API (see Handler). The machine holds every rule; the server only moves
// inputs in and outputs out, like etcd raft's node around its RawNode.
//
// One goroutine (Run) owns the machine: it takes operator commands from the
// API, command results from the worker goroutine that executes commands on
// the adapter one at a time, and a tick of the clock on which it polls the
// adapter's telemetry and lets the machine check its timeouts.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/statelog"
)

// Adapter connects the daemon to a vehicle. Implementations: package
// mission/adapter (demo, state_only, sim) and, later, MAVLink.
type Adapter interface {
	// Mode names the adapter in the status: "demo", "sim", "state_only",
	// "mavlink".
	Mode() string
	// Execute carries out one command and returns once the vehicle has
	// accepted (nil) or refused it. For mission.CmdCancel it returns only
	// after the running flight task has ended. It is called from one
	// goroutine, one command at a time, concurrently with Poll.
	Execute(ctx context.Context, c mission.Command) error
	// Poll returns the telemetry received since the last Poll (ok false if
	// none) and whether the data link is up. now is the daemon's clock
	// (time since start): simulated vehicles advance to it; a real link
	// ignores it.
	Poll(now time.Duration) (tel mission.Telemetry, ok bool, linkUp bool)
	// Close releases the adapter.
	Close() error
}

// Errors of the server.
var (
	ErrStopped           = errors.New("server: stopped")
	ErrRecordingDisabled = errors.New("server: event recording is disabled (record_events=false)")
)

// Config configures a Server. Zero values mean the defaults named.
type Config struct {
	Machine mission.Config // the machine's parameters; AdapterMode is set from the adapter
	Adapter Adapter        // required
	Clock   Clock          // nil = RealClock
	// Tick is the period, in clock time, of telemetry polls and timeout
	// checks; 0 = 50 ms (20 Hz). It must be below the telemetry timeout.
	Tick time.Duration
	// CommandTimeout bounds one Execute, in wall time; 0 = 5 s.
	CommandTimeout time.Duration
	// Recorder keeps the flight events; nil = record_events=false, which
	// changes nothing but the dump_log service (refused).
	Recorder *blackbox.Recorder
	// RecordDir is where dump_log writes; "" = the current directory.
	RecordDir string
	// DumpOnShutdown dumps the recorder when Run ends if it holds events.
	DumpOnShutdown bool
	// Logf receives one line per transition, command and dump; nil = none.
	// The bearer token is never logged.
	Logf func(format string, args ...any)
	// StateLog, when not nil, receives every record, every dispatched
	// command and a status sample every SampleEvery; Run closes it.
	StateLog *StateLog
	// SampleEvery is the period of the state log's status samples, in
	// clock time; 0 = 500 ms (2 Hz), < 0 = no samples.
	SampleEvery time.Duration
}

// Refusal budget of the state log: refused commands beyond a burst of
// refusalBurst, refilled at refusalRate per second of daemon time, are
// counted instead of written (a refusals_dropped line says how many), so
// a flood cannot rotate the transitions out of the log. The black box
// bounds them with a ring of their own (blackbox.RefusalCap).
const (
	refusalBurst = 100
	refusalRate  = 10
)

// maxGoals is how many goals the daemon remembers for GET /v1/goals/{id}.
const maxGoals = 256

// Reply is the answer to a command or service call: success means the
// request was accepted, not that the action is done (watch the status).
type Reply struct {
	Success bool     `json:"success"`
	Message string   `json:"message"`
	Code    string   `json:"code,omitempty"`
	Files   []string `json:"files,omitempty"`
	// GoalID is the ID of the goal an accepted mission made.
	GoalID uint64 `json:"goal_id,omitempty"`
}

// snapshot is a published status and its version.
type snapshot struct {
	status    mission.Status
	waypoints []mission.Waypoint
	json      []byte // the status JSON
	key       []byte // the JSON without its time fields, to detect changes
	version   uint64
}

type request struct {
	ev      mission.Event   // nil = dump_log, unless refusal is set
	refusal *mission.Record // a command refused before the machine saw it
	reply   chan Reply
}

// Server is the mission daemon. Create it with New and start Run.
type Server struct {
	cfg   Config
	m     *mission.Machine
	ad    Adapter
	clock Clock
	rec   *blackbox.Recorder
	logf  func(string, ...any)

	reqs    chan request
	done    chan struct{}
	started atomic.Bool
	start   time.Time
	linkUp  bool

	snap  atomic.Pointer[snapshot]
	subMu sync.Mutex
	subs  map[chan struct{}]struct{}

	feedMu sync.Mutex
	feed   []FeedRecord // the latest machine records, for live displays
	feedN  uint64       // records ever added

	slog        *StateLog
	slogSeq     uint64
	lastSample  time.Duration
	sampled     bool
	tokens      float64 // refusal budget of the state log
	tokensAt    time.Duration
	slogDropped uint64 // refusals left out of the state log since the last report

	goalMu  sync.Mutex
	goals   map[uint64]mission.GoalStatus
	goalIDs []uint64 // oldest first
}

// FeedRecord is one of the machine's records (a transition, a milestone, a
// command and its outcome) as live displays receive it.
type FeedRecord struct {
	N      uint64  `json:"n"` // 1, 2, … in order; never repeats
	TimeS  float64 `json:"time_s"`
	Kind   string  `json:"kind"`
	State  string  `json:"state"`
	Detail string  `json:"detail"`
	// Goal is the goal's status in a goal_feedback or goal_result record.
	Goal *mission.GoalStatus `json:"goal,omitempty"`
}

// feedCap is how many records the live feed keeps.
const feedCap = 200

// Feed returns the records after n (at most feedCap) and the number of the
// newest record.
func (s *Server) Feed(after uint64) ([]FeedRecord, uint64) {
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	var out []FeedRecord
	for _, r := range s.feed {
		if r.N > after {
			out = append(out, r)
		}
	}
	return out, s.feedN
}

// Waypoints returns the waypoints of the current or last queue. It must be
// called from outside the loop; it reads the snapshot taken at the last
// change.
func (s *Server) Waypoints() []mission.Waypoint { return s.snap.Load().waypoints }

// New returns a server; the machine is in IDLE.
func New(cfg Config) (*Server, error) {
	if cfg.Adapter == nil {
		return nil, errors.New("server: no adapter")
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Tick == 0 {
		cfg.Tick = 50 * time.Millisecond
	}
	if cfg.CommandTimeout == 0 {
		cfg.CommandTimeout = 5 * time.Second
	}
	if cfg.SampleEvery == 0 {
		cfg.SampleEvery = 500 * time.Millisecond
	}
	cfg.Machine.AdapterMode = cfg.Adapter.Mode()
	if cfg.Tick < 0 || cfg.Tick >= cfg.Machine.TelemetryTimeout {
		return nil, fmt.Errorf("server: tick %v must be > 0 and below the telemetry timeout %v", cfg.Tick, cfg.Machine.TelemetryTimeout)
	}
	m, err := mission.New(cfg.Machine)
	if err != nil {
		return nil, err
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	s := &Server{cfg: cfg, m: m, ad: cfg.Adapter, clock: cfg.Clock, rec: cfg.Recorder, logf: logf,
		reqs: make(chan request), done: make(chan struct{}), linkUp: true, subs: map[chan struct{}]struct{}{},
		slog: cfg.StateLog, tokens: refusalBurst, goals: map[uint64]mission.GoalStatus{}}
	s.publish()
	return s, nil
}

// Status returns the latest published status.
func (s *Server) Status() mission.Status { return s.snap.Load().status }

// StatusJSON returns the latest status as JSON and its version, which grows
// with every change.
func (s *Server) StatusJSON() ([]byte, uint64) {
	sn := s.snap.Load()
	return sn.json, sn.version
}

// Subscribe returns a channel that receives a value after every status
// change (changes coalesce while the reader is busy) and a function to
// unsubscribe.
func (s *Server) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.subMu.Lock()
	s.subs[ch] = struct{}{}
	s.subMu.Unlock()
	return ch, func() {
		s.subMu.Lock()
		delete(s.subs, ch)
		s.subMu.Unlock()
	}
}

// Done is closed when Run has returned.
func (s *Server) Done() <-chan struct{} { return s.done }

// Do submits an operator command and waits for the machine's answer.
func (s *Server) Do(ctx context.Context, ev mission.Event) (Reply, error) {
	return s.call(ctx, request{ev: ev, reply: make(chan Reply, 1)})
}

// Refuse records an operator command that was refused before it reached
// the machine (bad JSON, an invalid command, a wrong token, a body too
// large): in the black box and the state log like the machine's own
// refusals, within their flood bounds. name is the command or endpoint,
// code the refusal code.
func (s *Server) Refuse(ctx context.Context, name, code, msg string) error {
	r := &mission.Record{Kind: mission.KindCommand, Command: name, Code: code,
		Detail: name + ": rejected (" + code + "): " + msg}
	_, err := s.call(ctx, request{refusal: r, reply: make(chan Reply, 1)})
	return err
}

// Goal returns the status of goal id, as of its last feedback or result;
// ok false for a goal the daemon never made (or forgot: it keeps the last
// 256).
func (s *Server) Goal(id uint64) (mission.GoalStatus, bool) {
	s.goalMu.Lock()
	defer s.goalMu.Unlock()
	g, ok := s.goals[id]
	return g, ok
}

// Goals returns the goals the daemon remembers, oldest first.
func (s *Server) Goals() []mission.GoalStatus {
	s.goalMu.Lock()
	defer s.goalMu.Unlock()
	out := make([]mission.GoalStatus, 0, len(s.goalIDs))
	for _, id := range s.goalIDs {
		out = append(out, s.goals[id])
	}
	return out
}

func (s *Server) setGoal(g mission.GoalStatus) {
	s.goalMu.Lock()
	defer s.goalMu.Unlock()
	if _, ok := s.goals[g.ID]; !ok {
		s.goalIDs = append(s.goalIDs, g.ID)
		if len(s.goalIDs) > maxGoals {
			delete(s.goals, s.goalIDs[0])
			s.goalIDs = s.goalIDs[1:]
		}
	}
	s.goals[g.ID] = g
}

// DumpLog writes the recorder's exports into the record directory.
func (s *Server) DumpLog(ctx context.Context) (Reply, error) {
	return s.call(ctx, request{reply: make(chan Reply, 1)})
}

func (s *Server) call(ctx context.Context, r request) (Reply, error) {
	select {
	case s.reqs <- r:
	case <-s.done:
		return Reply{}, ErrStopped
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
	select {
	case rep := <-r.reply:
		return rep, nil
	case <-s.done:
		return Reply{}, ErrStopped
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

func (s *Server) now() time.Duration { return s.clock.Now().Sub(s.start) }

// Run runs the daemon until ctx is done, then stops the worker, dumps the
// recorder if DumpOnShutdown, and closes the adapter.
func (s *Server) Run(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("server: Run called twice")
	}
	defer close(s.done)
	s.start = s.clock.Now()
	tk := s.clock.NewTicker(s.cfg.Tick)
	defer tk.Stop()

	cmds := make(chan mission.Command, 1)
	results := make(chan mission.Result, 1)
	wctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go s.worker(wctx, cmds, results, &wg)

	s.poll(cmds)
	for {
		select {
		case <-ctx.Done():
			close(cmds)
			stop()
			wg.Wait()
			var err error
			if s.cfg.DumpOnShutdown && s.rec != nil && s.rec.Len() > 0 {
				if _, derr := s.dump(); derr != nil {
					err = derr
				}
			}
			if cerr := s.ad.Close(); err == nil {
				err = cerr
			}
			if s.slog != nil {
				if cerr := s.slog.Close(); err == nil {
					err = cerr
				}
			}
			return err
		case r := <-s.reqs:
			r.reply <- s.handle(r, cmds)
		case res := <-results:
			s.step(res, cmds)
		case <-tk.C():
			s.poll(cmds)
		}
	}
}

// worker executes commands one at a time and reports their results.
func (s *Server) worker(ctx context.Context, cmds <-chan mission.Command, results chan<- mission.Result, wg *sync.WaitGroup) {
	defer wg.Done()
	for c := range cmds {
		cctx, cancel := context.WithTimeout(ctx, s.cfg.CommandTimeout)
		err := s.ad.Execute(cctx, c)
		cancel()
		select {
		case results <- mission.Result{ID: c.ID, Err: err}:
		case <-ctx.Done():
			return
		}
	}
}

// poll feeds the adapter's telemetry and link state, then a tick.
func (s *Server) poll(cmds chan<- mission.Command) {
	now := s.now()
	tel, ok, up := s.ad.Poll(now)
	if up != s.linkUp {
		s.linkUp = up
		s.step(mission.Link{Up: up}, cmds)
	}
	if ok {
		s.step(tel, cmds)
	}
	s.step(mission.Tick{}, cmds)
	s.publish() // the time fields move on even when nothing else does
	if s.slog != nil {
		s.sample(now)
	}
}

// sample writes a status sample to the state log when one is due, and the
// count of refusals the budget left out.
func (s *Server) sample(now time.Duration) {
	if s.slogDropped > 0 {
		s.writeLog(statelog.Entry{TimeS: now.Seconds(), Kind: statelog.KindRefusalsDropped, State: s.m.State().String(), Count: s.slogDropped}, false)
		s.slogDropped = 0
	}
	if s.cfg.SampleEvery < 0 || (s.sampled && now-s.lastSample < s.cfg.SampleEvery) {
		return
	}
	s.sampled, s.lastSample = true, now
	st := s.m.Status()
	s.writeLog(statelog.Entry{TimeS: now.Seconds(), Kind: statelog.KindSample, State: st.State, Status: &st}, false)
}

// writeLog writes one state log entry; a failing log is reported once and
// then left alone (the flight goes on).
func (s *Server) writeLog(e statelog.Entry, sync bool) {
	if s.slog == nil || s.slog.err != nil {
		return
	}
	s.slogSeq++
	e.Seq = s.slogSeq
	if err := s.slog.Write(e, sync); err != nil {
		s.logf("state log %s: %v; no more entries are written", s.slog.Path(), err)
	}
}

// allowRefusal spends one refusal of the state log's budget.
func (s *Server) allowRefusal(now time.Duration) bool {
	s.tokens = math.Min(refusalBurst, s.tokens+(now-s.tokensAt).Seconds()*refusalRate)
	s.tokensAt = now
	if s.tokens < 1 {
		return false
	}
	s.tokens--
	return true
}

// step feeds one input to the machine and routes its outputs.
func (s *Server) step(ev mission.Event, cmds chan<- mission.Command) mission.Ready {
	now := s.now()
	rd := s.m.Step(now, ev)
	for _, c := range rd.Commands {
		cmds <- c // never blocks: the machine keeps one command outstanding
		s.logf("dispatch %s", c)
		if s.slog != nil {
			s.writeLog(statelog.Entry{TimeS: now.Seconds(), Kind: statelog.KindDispatch, State: s.m.State().String(),
				Command: c.Kind.String(), Detail: c.String()}, false)
		}
	}
	s.keep(now, rd.Records)
	if len(rd.Records) > 0 && !rd.Changed {
		s.wake()
	}
	if rd.Changed {
		s.publish()
	}
	return rd
}

// keep routes records to the live feed, the goals, the black box and the
// state log. Refused commands go to the black box's refusal ring and
// within the state log's refusal budget.
func (s *Server) keep(now time.Duration, recs []mission.Record) {
	if len(recs) == 0 {
		return
	}
	s.feedMu.Lock()
	for _, r := range recs {
		s.feedN++
		s.feed = append(s.feed, FeedRecord{N: s.feedN, TimeS: math.Round(now.Seconds()*1000) / 1000, Kind: r.Kind,
			State: r.State.String(), Detail: r.Detail, Goal: r.Goal})
	}
	if len(s.feed) > feedCap {
		s.feed = append(s.feed[:0], s.feed[len(s.feed)-feedCap:]...)
	}
	s.feedMu.Unlock()
	for _, r := range recs {
		refused := r.Kind == mission.KindCommand && r.Code != ""
		if r.Goal != nil {
			s.setGoal(*r.Goal)
		}
		if s.rec != nil {
			if refused {
				s.rec.RecordRefusal(now.Seconds(), r.Kind, r.State.String(), r.Detail)
			} else {
				s.rec.Record(now.Seconds(), r.Kind, r.State.String(), r.Detail)
			}
		}
		if r.Kind != mission.KindCommand {
			s.logf("%s %s", r.Kind, r.Detail)
		}
		if s.slog == nil {
			continue
		}
		if refused && !s.allowRefusal(now) {
			s.slogDropped++
			continue
		}
		s.writeLog(statelog.Entry{TimeS: now.Seconds(), Kind: r.Kind, State: r.State.String(), Detail: r.Detail,
			Command: r.Command, Code: r.Code, Goal: r.Goal}, r.Kind == mission.KindTransition)
	}
}

func (s *Server) handle(r request, cmds chan<- mission.Command) Reply {
	if r.refusal != nil {
		rec := *r.refusal
		rec.State = s.m.State()
		s.logf("%s", rec.Detail)
		s.keep(s.now(), []mission.Record{rec})
		return Reply{Success: false, Code: rec.Code}
	}
	if r.ev == nil {
		return s.dumpLog()
	}
	rd := s.step(r.ev, cmds)
	if rd.Err != nil {
		s.logf("%s rejected: %v", r.ev.Name(), rd.Err)
		return Reply{Success: false, Code: mission.Code(rd.Err), Message: rd.Err.Error()}
	}
	s.logf("%s accepted", r.ev.Name())
	rep := Reply{Success: true, Message: r.ev.Name() + " accepted; watch the status for its completion", GoalID: rd.Goal}
	if rd.Goal != 0 {
		rep.Message = fmt.Sprintf("%s accepted as goal %d; watch the status or wait for its result", r.ev.Name(), rd.Goal)
	}
	return rep
}

func (s *Server) dumpLog() Reply {
	if s.rec == nil {
		return Reply{Success: false, Code: "recording_disabled", Message: ErrRecordingDisabled.Error()}
	}
	now := s.now()
	s.keep(now, []mission.Record{{Kind: mission.KindCommand, State: s.m.State(), Command: "dump_log", Detail: "dump_log: accepted"}})
	files, err := s.dump()
	if err != nil {
		return Reply{Success: false, Code: "dump_failed", Message: err.Error()}
	}
	return Reply{Success: true, Message: "wrote " + files[0] + " and " + files[1], Files: files}
}

// dump writes both exports atomically.
func (s *Server) dump() ([]string, error) {
	nowS := s.now().Seconds()
	var csvBuf, sumBuf bytes.Buffer
	if err := s.rec.WriteCSV(&csvBuf); err != nil {
		return nil, err
	}
	if err := s.rec.WriteSummary(&sumBuf, nowS); err != nil {
		return nil, err
	}
	files := []string{filepath.Join(s.cfg.RecordDir, blackbox.CSVName), filepath.Join(s.cfg.RecordDir, blackbox.SummaryName)}
	for i, data := range [][]byte{csvBuf.Bytes(), sumBuf.Bytes()} {
		if err := WriteAtomic(files[i], data); err != nil {
			return nil, fmt.Errorf("server: dump_log: %w", err)
		}
	}
	s.logf("dump_log wrote %d events to %s and %s", s.rec.Len(), files[0], files[1])
	return files, nil
}

// publish stores the latest status; if it changed apart from its time
// fields, it gets a new version and the subscribers are woken.
func (s *Server) publish() {
	st := s.m.Status()
	key := st
	key.TimeS, key.StateTimeS, key.TelemetryAgeS = 0, 0, nil
	kb, _ := json.Marshal(key)
	js, _ := json.Marshal(st)
	old := s.snap.Load()
	changed := old == nil || !bytes.Equal(old.key, kb)
	var v uint64 = 1
	if old != nil {
		v = old.version
		if changed {
			v++
		}
	}
	s.snap.Store(&snapshot{status: st, waypoints: s.m.Waypoints(), json: js, key: kb, version: v})
	if !changed {
		return
	}
	s.wake()
}

// wake tells every subscriber that something changed.
func (s *Server) wake() {
	s.subMu.Lock()
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	s.subMu.Unlock()
}
