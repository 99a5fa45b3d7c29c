package mission

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Scenario scripts (testdata/*.txt) in the style of etcd raft's datadriven
// tests: blocks of a directive, a line "----", the expected output, and a
// blank line. Lines starting with # between blocks are comments.
//
// Directives:
//
//	config key=value ...      new machine (keys: max_altitude, battery_min, link_loss, failsafe_land, takeoff_alt,
//	                          mode, pos_eph, max_tilt, ground_margin, max_hor_dist)
//	setup [home_z]            connect, arm, take off and reach EXECUTING at (0, 0, home_z) silently
//	cmd <json>                parse a command and step it
//	connect | armed | airborne | pause | resume | cancel | return_home | land | reset
//	goto x y z [speed]        the goto command (through the parser)
//	mission x,y,z[,speed] ... the mission command (through the parser)
//	missionn N z              a mission of N waypoints at x = 1..N, y = 0, height z
//	ok [id] / fail [id] msg   the result of the outstanding (or the given) command
//	ack                       answer ok to commands until none is outstanding
//	tel x y z [landed] [disarmed] [v=vx,vy,vz] [batt=b]   a telemetry sample (armed unless disarmed)
//	tick [dt]                 let dt seconds pass (default 0) and tick
//	hold dt                   repeat the last telemetry sample every 0.1 s for dt seconds
//	link up|down
//	status                    the status JSON
//	state                     state, queue, target and pending command in one line
//	cancel_goal ID            cancel the goal ID
//	goal                      the current goal's status JSON on one line
//	commands on|off           also print the command records (name, code, detail)
//
// tel also takes eph=E (position accuracy, m) and tilt=DEG. Every script
// checks that each goal gets exactly one result and no feedback after it.
type script struct {
	t    *testing.T
	m    *Machine
	now  time.Duration
	last Command
	out  strings.Builder
	// dispatched counts how often each queue waypoint was dispatched
	// (resends after a pause excluded): the no-duplicate-dispatch check.
	dispatched map[int]int
	// flying, the flight task the fake vehicle runs, for the check that no
	// two tasks ever run at once.
	running CmdKind
	// results counts the results of each goal; commands prints command
	// records.
	results  map[uint64]int
	commands bool
}

func newScript(t *testing.T, cfg Config) *script {
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &script{t: t, m: m, dispatched: map[int]int{}, results: map[uint64]int{}}
}

func (s *script) printf(format string, args ...any) { fmt.Fprintf(&s.out, format, args...) }

// step feeds ev and prints what came out.
func (s *script) step(ev Event) Ready {
	rd := s.m.Step(s.now, ev)
	if IsCommand(ev) {
		if rd.Err != nil {
			s.printf("rejected (%s): %v\n", Code(rd.Err), rd.Err)
		} else {
			s.printf("accepted\n")
		}
	}
	for _, c := range rd.Commands {
		s.last = c
		s.printf("dispatch %s\n", c)
		if c.Kind == CmdGoto && c.Waypoint >= 0 && !c.Resend {
			s.dispatched[c.Waypoint]++
			if s.dispatched[c.Waypoint] > 1 {
				s.t.Errorf("waypoint %d dispatched %d times", c.Waypoint, s.dispatched[c.Waypoint])
			}
		}
		if c.Kind.Task() && s.running != CmdNone {
			s.t.Errorf("%s dispatched while the %s task still runs", c, s.running)
		}
	}
	for _, r := range rd.Records {
		if r.Kind == KindCommand {
			if s.commands {
				s.printf("record command [%s] %s code=%q: %s\n", r.State, r.Command, r.Code, r.Detail)
			}
			continue // the reply line says it
		}
		s.printf("record %s [%s] %s\n", r.Kind, r.State, r.Detail)
		if r.Goal != nil {
			if s.results[r.Goal.ID] > 0 {
				s.t.Errorf("goal %d: %s after its result", r.Goal.ID, r.Kind)
			}
			if r.Kind == KindGoalResult {
				s.results[r.Goal.ID]++
				if !r.Goal.Terminal() {
					s.t.Errorf("goal %d: result in state %s", r.Goal.ID, r.Goal.State)
				}
			} else if r.Goal.Terminal() {
				s.t.Errorf("goal %d: feedback in terminal state %s", r.Goal.ID, r.Goal.State)
			}
		}
	}
	if rd.Goal != 0 {
		s.printf("goal id %d\n", rd.Goal)
	}
	if len(rd.Commands) > 1 {
		s.t.Errorf("%d commands dispatched in one step", len(rd.Commands))
	}
	return rd
}

// result answers the command id and tracks the fake vehicle's task.
func (s *script) result(id uint64, err error) {
	if err == nil && id == s.last.ID {
		switch {
		case s.last.Kind == CmdCancel:
			s.running = CmdNone
		case s.last.Kind.Task():
			s.running = s.last.Kind
		}
	}
	s.step(Result{ID: id, Err: err})
}

func (s *script) stateLine() {
	st := s.m.Status()
	tgt := "none"
	if st.Target != nil {
		tgt = fmt.Sprintf("(%s, %s, %s) %s m/s", num(st.Target.X), num(st.Target.Y), num(st.Target.Z), num(st.Target.SpeedMS))
	}
	pend := "none"
	if st.PendingCommand != nil {
		pend = *st.PendingCommand
	}
	s.printf("state %s; %s; target %s; pending %s\n", st.State, st.MissionQueue, tgt, pend)
}

func (s *script) run(cmd string, args []string) {
	t := s.t
	cmdJSON := func(js string) {
		ev, err := ParseCommand([]byte(js))
		if err != nil {
			s.printf("parse error (%s): %v\n", Code(err), err)
			return
		}
		s.step(ev)
	}
	fnum := func(a string) float64 {
		f, err := strconv.ParseFloat(a, 64)
		if err != nil {
			t.Fatalf("bad number %q", a)
		}
		return f
	}
	switch cmd {
	case "config":
		cfg := DefaultConfig()
		for _, a := range args {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "max_altitude":
				cfg.MaxAltitudeM = fnum(v)
			case "battery_min":
				cfg.BatteryMin = fnum(v)
			case "link_loss":
				cfg.LinkLoss = time.Duration(fnum(v) * float64(time.Second))
			case "failsafe_land":
				cfg.FailsafeLand = v == "true"
			case "takeoff_alt":
				cfg.TakeoffAltM = fnum(v)
			case "mode":
				cfg.AdapterMode = v
			case "pos_eph":
				cfg.PosLossEphM = fnum(v)
			case "max_tilt":
				cfg.MaxTiltRad = fnum(v) * math.Pi / 180
			case "ground_margin":
				cfg.GroundMarginM = fnum(v)
			case "max_hor_dist":
				cfg.MaxHorDistM = fnum(v)
			default:
				t.Fatalf("config: unknown key %q", k)
			}
		}
		m, err := New(cfg)
		if err != nil {
			s.printf("error: %v\n", err)
			return
		}
		*s = script{t: t, m: m, dispatched: map[int]int{}, results: map[uint64]int{}}
	case "setup":
		hz := 0.0
		if len(args) > 0 {
			hz = fnum(args[0])
		}
		saved := s.out.Len()
		s.run("connect", nil)
		s.run("ok", nil)
		s.run("tel", []string{"0", "0", num(hz), "landed", "disarmed"})
		s.run("armed", nil)
		s.run("ok", nil)
		s.run("tel", []string{"0", "0", num(hz), "landed"})
		s.run("ok", nil)
		s.run("tel", []string{"0", "0", num(hz - s.m.cfg.TakeoffAltM)})
		s.run("airborne", nil)
		out := s.out.String()[:saved]
		s.out.Reset()
		s.out.WriteString(out)
		if s.m.State() != StateExecuting {
			t.Fatalf("setup ended in %s", s.m.State())
		}
		s.stateLine()
	case "cmd":
		cmdJSON(strings.Join(args, " "))
	case "connect", "armed", "airborne", "pause", "resume", "cancel", "return_home", "land", "reset":
		cmdJSON(`{"event":"` + cmd + `"}`)
	case "goto":
		js := fmt.Sprintf(`{"event":"goto","x":%s,"y":%s,"z":%s`, args[0], args[1], args[2])
		if len(args) > 3 {
			js += `,"speed":` + args[3]
		}
		cmdJSON(js + "}")
	case "mission":
		var wps []string
		for _, a := range args {
			f := strings.Split(a, ",")
			w := fmt.Sprintf(`{"x":%s,"y":%s,"z":%s`, f[0], f[1], f[2])
			if len(f) > 3 {
				w += `,"speed":` + f[3]
			}
			wps = append(wps, w+"}")
		}
		cmdJSON(`{"event":"mission","waypoints":[` + strings.Join(wps, ",") + `]}`)
	case "missionn":
		n, z := int(fnum(args[0])), args[1]
		wps := make([]string, n)
		for i := range wps {
			wps[i] = fmt.Sprintf(`{"x":%d,"y":0,"z":%s}`, i+1, z)
		}
		cmdJSON(`{"event":"mission","waypoints":[` + strings.Join(wps, ",") + `]}`)
	case "ok", "fail":
		id := s.last.ID
		var msg []string
		for _, a := range args {
			if n, err := strconv.ParseUint(strings.TrimPrefix(a, "#"), 10, 64); err == nil && strings.HasPrefix(a, "#") {
				id = n
			} else {
				msg = append(msg, a)
			}
		}
		var err error
		if cmd == "fail" {
			err = errors.New(strings.Join(msg, " "))
		}
		s.result(id, err)
	case "ack":
		for i := 0; i < 20 && s.m.hasPending; i++ {
			s.result(s.m.pending.ID, nil)
		}
	case "tel":
		tel := Telemetry{Pos: geom.Vec3{X: fnum(args[0]), Y: fnum(args[1]), Z: fnum(args[2])}, Armed: true, Battery: math.NaN()}
		for _, a := range args[3:] {
			switch {
			case a == "landed":
				tel.Landed = true
			case a == "disarmed":
				tel.Armed = false
			case strings.HasPrefix(a, "v="):
				f := strings.Split(a[2:], ",")
				tel.Vel = geom.Vec3{X: fnum(f[0]), Y: fnum(f[1]), Z: fnum(f[2])}
			case strings.HasPrefix(a, "batt="):
				tel.Battery = fnum(a[5:])
			case strings.HasPrefix(a, "eph="):
				tel.EphM = fnum(a[4:])
			case strings.HasPrefix(a, "tilt="):
				tel.TiltRad = fnum(a[5:]) * math.Pi / 180
			default:
				t.Fatalf("tel: unknown argument %q", a)
			}
		}
		s.step(tel)
	case "tick":
		if len(args) > 0 {
			s.now += time.Duration(math.Round(fnum(args[0]) * float64(time.Second)))
		}
		s.step(Tick{})
	case "link":
		s.step(Link{Up: args[0] == "up"})
	case "hold":
		// repeat the last telemetry sample every 0.1 s for dt seconds
		n := int(math.Round(fnum(args[0]) / 0.1))
		for i := 0; i < n; i++ {
			s.now += 100 * time.Millisecond
			s.step(s.m.tel)
		}
	case "status":
		b, err := json.MarshalIndent(s.m.Status(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		s.printf("%s\n", b)
	case "state":
		s.stateLine()
	case "cancel_goal":
		s.step(CancelGoal{ID: uint64(fnum(args[0]))})
	case "goal":
		g, ok := s.m.Goal()
		if !ok {
			s.printf("no goal\n")
			return
		}
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		s.printf("%s\n", b)
	case "commands":
		s.commands = args[0] == "on"
	default:
		t.Fatalf("unknown directive %q", cmd)
	}
}

type block struct {
	comments []string
	input    string
	output   string
}

func parseScript(t *testing.T, data string) []block {
	var blocks []block
	lines := strings.Split(data, "\n")
	var cur block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.HasPrefix(l, "#") {
			cur.comments = append(cur.comments, l)
			continue
		}
		cur.input = l
		i++
		if i >= len(lines) || lines[i] != "----" {
			t.Fatalf("line %d: %q not followed by ----", i, l)
		}
		var out []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i])
		}
		cur.output = strings.Join(out, "\n")
		blocks = append(blocks, cur)
		cur = block{}
	}
	return blocks
}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := newScript(t, DefaultConfig())
			var rewritten strings.Builder
			for _, b := range parseScript(t, string(data)) {
				fields := strings.Fields(b.input)
				s.out.Reset()
				s.run(fields[0], fields[1:])
				got := strings.TrimRight(s.out.String(), "\n")
				if !*update && got != b.output {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", f, b.input, got, b.output)
				}
				for _, c := range b.comments {
					rewritten.WriteString(c + "\n")
				}
				rewritten.WriteString(b.input + "\n----\n" + got + "\n\n")
			}
			if *update {
				if err := os.WriteFile(f, []byte(rewritten.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
