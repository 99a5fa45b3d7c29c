package mission

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
)

// commandSeeds are command bodies, valid and not, shared by the parser's
// table test and the fuzz targets.
var commandSeeds = []string{
	`{"event":"connect"}`,
	`{"event":"armed"}`,
	`{"event":"airborne"}`,
	`{"event":"goto","x":4,"y":0,"z":-2,"speed":2}`,
	`{"event":"goto","x":4,"y":0,"z":-2}`,
	`{"event":"mission","waypoints":[{"x":4,"y":0,"z":-2,"speed":2},{"x":8,"y":0,"z":-2,"speed":2},{"x":12,"y":0,"z":-2,"speed":2}]}`,
	`{"event":"mission","waypoints":[{"x":1,"y":0,"z":-31}]}`,
	`{"event":"pause"}`, `{"event":"resume"}`, `{"event":"cancel"}`,
	`{"event":"return_home"}`, `{"event":"land"}`, `{"event":"reset"}`,
	`{"event":"mission","waypoints":[]}`,
	`{"event":"mission","waypoints":[{"x":true,"y":0,"z":-2}]}`,
	`{"event":"goto","x":1,"y":0,"z":1e400}`,
	`{"event":"goto","x":1,"y":0,"z":-2,"speed":0}`,
	`{"event":"pause","x":1}`,
	`{"event":"fly"}`,
	`{"event":"pause","event":"resume"}`,
	`[]`, `null`, `{`, ``, `{"event":"pause"} x`,
	`{"event":"mission","waypoints":[{"x":2,"y":1,"z":-3}]}`,
}

// FuzzParseCommand: the parser never panics, an error is always a
// *ParseError with the invalid_command code, and what it accepts is a
// command with finite waypoints.
func FuzzParseCommand(f *testing.F) {
	for _, s := range commandSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseCommand(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || (Code(err) != CodeInvalid && Code(err) != CodeBadJSON) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if ev != nil {
				t.Fatalf("event %v returned with an error", ev)
			}
			return
		}
		if !IsCommand(ev) {
			t.Fatalf("%T is not an operator command", ev)
		}
		check := func(w Waypoint) {
			if !w.Pos().IsFinite() || !(w.SpeedMS > 0) || math.IsInf(w.SpeedMS, 0) {
				t.Fatalf("accepted a bad waypoint %+v", w)
			}
			// Issue 21 item 3: every accepted number is in range, so its
			// status JSON encodes.
			if math.Abs(w.X) > MaxCoordM || math.Abs(w.Y) > MaxCoordM || math.Abs(w.Z) > MaxCoordM || w.SpeedMS > MaxSpeedMS {
				t.Fatalf("accepted an out-of-range waypoint %+v", w)
			}
			if _, err := json.Marshal(Target{X: round3(w.X), Y: round3(w.Y), Z: round3(w.Z), SpeedMS: round3(w.SpeedMS)}); err != nil {
				t.Fatalf("waypoint %+v: %v", w, err)
			}
		}
		switch e := ev.(type) {
		case Goto:
			check(e.Waypoint)
		case Load:
			if len(e.Waypoints) == 0 || len(e.Waypoints) > MaxWaypoints {
				t.Fatalf("accepted %d waypoints", len(e.Waypoints))
			}
			for _, w := range e.Waypoints {
				check(w)
			}
		}
	})
}

// snapshot is the machine's state without its output buffers and clock, for
// comparing before and after a refused command.
func snapshot(m *Machine) Machine {
	c := *m
	c.out, c.now = Ready{}, 0
	return c
}

// driver turns fuzz bytes into a sequence of inputs: commands (from the
// seeds), results, telemetry near the current target, ticks and link
// changes. It checks the machine's invariants after every step.
type driver struct {
	t          *testing.T
	m          *Machine
	now        time.Duration
	pos        geom.Vec3
	landed     bool
	armed      bool
	dispatched map[int]int
	results    map[uint64]int // results seen per goal
}

func (d *driver) step(ev Event) {
	t := d.t
	before := snapshot(d.m)
	queueBefore := d.m.q.state
	rd := d.m.Step(d.now, ev)
	if IsCommand(ev) && rd.Err != nil {
		// compared as text: NaN (an unknown battery) is not DeepEqual to itself
		if after := snapshot(d.m); fmt.Sprintf("%+v", before) != fmt.Sprintf("%+v", after) {
			t.Fatalf("refused %s (%v) changed the state:\nbefore %+v\nafter  %+v", ev.Name(), rd.Err, before, after)
		}
		if len(rd.Commands) != 0 {
			t.Fatalf("refused %s dispatched %v", ev.Name(), rd.Commands)
		}
	}
	if _, ok := ev.(Load); ok && rd.Err == nil {
		d.dispatched = map[int]int{}
		if rd.Goal == 0 || rd.Goal != d.m.goal.id {
			t.Fatalf("accepted mission made goal %d; current goal %d", rd.Goal, d.m.goal.id)
		}
	} else if rd.Goal != 0 {
		t.Fatalf("%s made goal %d", ev.Name(), rd.Goal)
	}
	if d.results == nil {
		d.results = map[uint64]int{}
	}
	for _, r := range rd.Records {
		if r.Goal == nil {
			continue
		}
		if d.results[r.Goal.ID] > 0 {
			t.Fatalf("goal %d: %s after its result", r.Goal.ID, r.Kind)
		}
		if r.Kind == KindGoalResult {
			d.results[r.Goal.ID]++
		}
	}
	if g := d.m.goal; g.id != 0 && !d.m.q.state.Live() && d.results[g.id] != 1 {
		t.Fatalf("goal %d: queue %s with %d results", g.id, d.m.q.state, d.results[g.id])
	}
	if g := d.m.goal; g.id != 0 && d.m.q.state.Live() && g.state.Terminal() {
		t.Fatalf("goal %d %s with the queue %s", g.id, g.state, d.m.q.state)
	}
	if len(rd.Commands) > 1 {
		t.Fatalf("%d commands in one step", len(rd.Commands))
	}
	for _, c := range rd.Commands {
		if c.Kind == CmdGoto && c.Waypoint >= 0 {
			if !d.m.q.state.Live() && !(queueBefore.Live() && c.Resend) {
				t.Fatalf("waypoint %d dispatched with the queue %s", c.Waypoint, d.m.q.state)
			}
			if !c.Resend {
				d.dispatched[c.Waypoint]++
				if d.dispatched[c.Waypoint] > 1 {
					t.Fatalf("waypoint %d dispatched twice", c.Waypoint)
				}
			}
		}
	}
	if st := d.m.Status(); st.MissionQueue.State != "RUNNING" && st.MissionQueue.State != "PAUSED" &&
		(st.MissionQueue.CurrentIndex != nil || st.MissionQueue.Remaining != 0) {
		t.Fatalf("queue %s with index %v and remaining %d", st.MissionQueue.State, st.MissionQueue.CurrentIndex, st.MissionQueue.Remaining)
	}
}

// FuzzMachine drives the machine with arbitrary input sequences: no panic, a
// refused command changes no state, at most one command per step, no
// waypoint dispatched twice or after its queue ended, and terminal queues
// show a null index and nothing remaining.
func FuzzMachine(f *testing.F) {
	f.Add([]byte{0, 26, 32, 1, 26, 26, 32, 2, 5, 26, 26, 32, 26, 26, 32, 26, 26, 32, 7, 8, 26})
	f.Add([]byte("the quick brown fox jumps over the lazy dog 0123456789"))
	f.Add([]byte{0, 20, 31, 1, 20, 32, 20, 33, 2, 5, 20, 20, 33, 34, 34, 34, 40, 41, 9, 10, 11})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := DefaultConfig()
		cfg.BatteryMin = 0.1
		cfg.LinkLoss = 2 * time.Second
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d := &driver{t: t, m: m, landed: true, dispatched: map[int]int{}}
		for _, b := range data {
			fuzzStep(d, b)
		}
	})
}

// fuzzStep decodes one fuzz byte into an input and steps it.
func fuzzStep(d *driver, b byte) {
	m := d.m
	switch {
	case int(b) < len(commandSeeds):
		ev, err := ParseCommand([]byte(commandSeeds[b]))
		if err != nil {
			return
		}
		d.step(ev)
	case b < 32:
		// answer the outstanding command like a vehicle would
		if !m.hasPending {
			d.step(Result{ID: uint64(b)})
			return
		}
		c := m.pending
		var err error
		if b == 31 {
			err = errors.New("refused")
		}
		if err == nil {
			switch c.Kind {
			case CmdArm:
				d.armed = true
			case CmdTakeoff:
				d.landed = false
				d.pos.Z = m.home.Z - m.cfg.TakeoffAltM
			case CmdGoto:
				d.pos = c.Target
			case CmdLand:
				d.landed, d.pos.Z = true, m.home.Z
			case CmdDisarm:
				d.armed = false
			}
		}
		d.step(Result{ID: c.ID, Err: err})
	case b < 40:
		d.step(Telemetry{Pos: d.pos, Armed: d.armed, Landed: d.landed, Battery: 1 - float64(b-32)/8})
	case b < 48:
		d.now += time.Duration(b-39) * 100 * time.Millisecond
		d.step(Tick{})
	case b < 50:
		d.step(Link{Up: b == 48})
	case b < 52:
		d.step(CancelGoal{ID: m.goal.id + uint64(b-50)}) // the current goal, or one that does not exist
	default:
		d.step(Telemetry{Pos: d.pos.Add(geom.Vec3{X: float64(b%7) - 3, Z: float64(b%5) - 2}), Armed: d.armed,
			Landed: d.landed, Battery: math.NaN()})
	}
}
