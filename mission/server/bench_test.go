package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// probe is a state-only vehicle that reports each goto it executes.
type probe struct {
	*adapter.Kinematic
	gotos chan geom.Vec3
}

func (p *probe) Execute(ctx context.Context, c mission.Command) error {
	err := p.Kinematic.Execute(ctx, c)
	if c.Kind == mission.CmdGoto {
		p.gotos <- c.Target
	}
	return err
}

// BenchmarkCommandToDispatch measures, in process and on the wall clock,
// the time from submitting a goto to the daemon (Server.Do, as the HTTP
// handler does) until the adapter executes it. The machine first cancels
// the running goto and waits for that, so each sample covers two commands
// through the worker. It reports the 50th and 99th percentiles, with the
// black box on and the JSONL state log off and on (every command record
// and dispatch written to a file, samples at 2 Hz); the target is a p99 ≤
// 100 µs.
func BenchmarkCommandToDispatch(b *testing.B) {
	for _, withLog := range []bool{false, true} {
		b.Run(fmt.Sprintf("statelog=%v", withLog), func(b *testing.B) { benchDispatch(b, withLog) })
	}
}

func benchDispatch(b *testing.B, withLog bool) {
	p := &probe{Kinematic: adapter.NewStateOnly(adapter.KinematicConfig{}), gotos: make(chan geom.Vec3, 1)}
	rec, err := blackbox.New(blackbox.DefaultMaxEvents)
	if err != nil {
		b.Fatal(err)
	}
	cfg := server.Config{Machine: mission.DefaultConfig(), Adapter: p, Recorder: rec}
	if withLog {
		if cfg.StateLog, err = server.OpenStateLog(server.StateLogConfig{Path: filepath.Join(b.TempDir(), "state.jsonl")}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := server.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go s.Run(ctx)
	defer func() { cancel(); <-s.Done() }()
	ch, unsub := s.Subscribe()
	defer unsub()
	for _, ev := range []mission.Event{mission.Connect{}, mission.Arm{}, mission.Airborne{}} {
		if _, err := s.Do(ctx, ev); err != nil {
			b.Fatal(err)
		}
		for st := s.Status(); st.CommandPending || st.State == "CONNECTING" || (st.State == "TAKEOFF" && ev == mission.Event(mission.Airborne{})); st = s.Status() {
			<-ch
		}
	}
	if st := s.Status(); st.State != "EXECUTING" {
		b.Fatalf("state %s", st.State)
	}
	var lat []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		target := mission.Waypoint{X: float64(i%2) * 5, Y: 1, Z: -3}
		t0 := time.Now()
		rep, err := s.Do(ctx, mission.Goto{Waypoint: target})
		if err != nil || !rep.Success {
			b.Fatalf("goto: %+v %v", rep, err)
		}
		got := <-p.gotos
		lat = append(lat, time.Since(t0))
		if got != target.Pos() {
			b.Fatalf("dispatched %v; want %v", got, target.Pos())
		}
	}
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Nanoseconds()) / 1e6 }
	b.ReportMetric(q(0.5)*1000, "p50-µs")
	b.ReportMetric(q(0.99)*1000, "p99-µs")
	b.ReportMetric(q(1)*1000, "max-µs")
}
