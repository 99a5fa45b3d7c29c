package mavlink

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

var _ server.Adapter = (*MissionAdapter)(nil)

// daemon runs a mission server on ad until stop; stop returns the
// recorded events.
func daemon(t *testing.T, cfg mission.Config, ad server.Adapter) (*server.Server, func() []blackbox.Event) {
	t.Helper()
	rec, err := blackbox.New(blackbox.DefaultMaxEvents)
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Config{Machine: cfg, Adapter: ad, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	var once sync.Once
	var evs []blackbox.Event
	return s, func() []blackbox.Event {
		once.Do(func() {
			cancel()
			<-errc
			evs = rec.Events(nil)
		})
		return evs
	}
}

func waitStatus(t *testing.T, s *server.Server, what string, limit time.Duration, pred func(mission.Status) bool) mission.Status {
	t.Helper()
	ch, unsub := s.Subscribe()
	defer unsub()
	deadline := time.After(limit)
	for {
		st := s.Status()
		if pred(st) {
			return st
		}
		select {
		case <-ch:
		case <-deadline:
			b, _ := json.Marshal(st)
			t.Fatalf("%s: not reached within %v; status %s", what, limit, b)
		}
	}
}

func do(t *testing.T, s *server.Server, ev mission.Event) {
	t.Helper()
	rep, err := s.Do(context.Background(), ev)
	if err != nil || !rep.Success {
		t.Fatalf("%s: %+v, %v", ev.Name(), rep, err)
	}
}

func inState(want string) func(mission.Status) bool {
	return func(st mission.Status) bool { return st.State == want && !st.CommandPending }
}

// flyScript connects, arms, takes off, flies three waypoints with a pause
// and a resume after the first, and lands.
func flyScript(t *testing.T, s *server.Server) {
	t.Helper()
	do(t, s, mission.Connect{})
	waitStatus(t, s, "ARMING", 15*time.Second, inState("ARMING"))
	do(t, s, mission.Arm{})
	waitStatus(t, s, "TAKEOFF", 10*time.Second, inState("TAKEOFF"))
	do(t, s, mission.Airborne{})
	waitStatus(t, s, "EXECUTING", 30*time.Second, inState("EXECUTING"))
	do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 6, Z: -3}, {X: 6, Y: 6, Z: -4, SpeedMS: 2}, {X: 0, Y: 6, Z: -3}}})
	waitStatus(t, s, "waypoint 1", 60*time.Second, func(st mission.Status) bool { return st.MissionQueue.Completed == 1 })
	do(t, s, mission.Pause{})
	waitStatus(t, s, "PAUSED", 10*time.Second, inState("PAUSED"))
	time.Sleep(2 * time.Second)
	do(t, s, mission.Resume{})
	waitStatus(t, s, "COMPLETED", 90*time.Second, func(st mission.Status) bool { return st.MissionQueue.State == "COMPLETED" })
	do(t, s, mission.Land{})
	waitStatus(t, s, "LANDED", 90*time.Second, inState("LANDED"))
}

func transitions(evs []blackbox.Event) string {
	var s []string
	for _, e := range evs {
		if e.Kind == mission.KindTransition {
			s = append(s, e.State)
		}
	}
	return strings.Join(s, " ")
}

// memVehicle starts a Server on a new simulator and dials it over an
// in-memory link; cut switches the link off (both ways).
func memVehicle(t *testing.T, seed uint64) (*Server, *Vehicle, context.CancelFunc, func(bool)) {
	t.Helper()
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	a, b, cut := memPipe()
	srv, err := NewServer(ServerConfig{Sim: sim, Endpoints: a.endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Run(ctx)
	v, err := New(Config{Endpoints: b.endpoints()})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return srv, v, func() { cancel(); <-srv.done }, func(on bool) { cut.Store(on) }
}

// TestMissionSameAsSim flies the same mission-manager script on the
// in-process simulator (adapter.Sim) and through MAVLink on the simulator
// served by Server, in fake time: the state sequences are the same.
func TestMissionSameAsSim(t *testing.T) {
	const want = "CONNECTING ARMING TAKEOFF EXECUTING PAUSED EXECUTING LANDING LANDED"
	var inProc, overLink string
	synctest.Test(t, func(t *testing.T) {
		ad, err := adapter.NewSim(vehicle.SimConfig{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		s, stop := daemon(t, mission.DefaultConfig(), ad)
		defer stop()
		flyScript(t, s)
		inProc = transitions(stop())
	})
	synctest.Test(t, func(t *testing.T) {
		srv, v, stopSrv, _ := memVehicle(t, 4)
		defer stopSrv()
		s, stop := daemon(t, mission.DefaultConfig(), NewMissionAdapter(v))
		defer stop()
		flyScript(t, s)
		overLink = transitions(stop())
		var landed vehicle.Telemetry
		srv.Do(context.Background(), func(sim *vehicle.Sim) { landed = sim.Telemetry() })
		if d := landed.Pos.XY().Dist(sim0(0, 6)); d > 1.5 {
			t.Errorf("landed at %v, %.2f m from the last waypoint", landed.Pos, d)
		}
	})
	if inProc != want || overLink != want {
		t.Errorf("transitions:\n in-process %s\n MAVLink    %s\n want       %s", inProc, overLink, want)
	}
}

func sim0(x, y float64) geom.Vec2 { return geom.Vec2{X: x, Y: y} }

// TestLinkLossFailsafe: the served vehicle stops mid-flight (as when the
// sitl process ends): the mission manager goes to FAILSAFE within its
// telemetry timeout (plus one tick) and records the reason; the adapter
// reports the link down after LinkTimeout.
func TestLinkLossFailsafe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, v, stopSrv, _ := memVehicle(t, 5)
		defer stopSrv()
		cfg := mission.DefaultConfig()
		s, stop := daemon(t, cfg, NewMissionAdapter(v))
		defer stop()
		do(t, s, mission.Connect{})
		waitStatus(t, s, "ARMING", 15*time.Second, inState("ARMING"))
		do(t, s, mission.Arm{})
		waitStatus(t, s, "TAKEOFF", 10*time.Second, inState("TAKEOFF"))
		do(t, s, mission.Airborne{})
		waitStatus(t, s, "EXECUTING", 30*time.Second, inState("EXECUTING"))
		do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 20, Z: -3}}})
		waitStatus(t, s, "flying", 20*time.Second, func(st mission.Status) bool { return st.Position != nil && st.Position.X > 3 })
		stopSrv()
		gone := time.Now()
		st := waitStatus(t, s, "FAILSAFE", 10*time.Second, func(st mission.Status) bool { return st.State == "FAILSAFE" })
		took := time.Since(gone)
		if limit := cfg.TelemetryTimeout + 50*time.Millisecond + 20*time.Millisecond; took > limit {
			t.Errorf("FAILSAFE %v after the vehicle stopped; want within %v (timeout + tick + one telemetry period)", took, limit)
		}
		if st.FailsafeReason == nil || *st.FailsafeReason != mission.ReasonTelemetryTimeout {
			t.Errorf("reason: got %v; want %s", st.FailsafeReason, mission.ReasonTelemetryTimeout)
		}
		time.Sleep(3 * time.Second)
		if l := v.Link(); l.Up {
			t.Errorf("link up %v after the vehicle stopped", l.HeartbeatAge)
		}
		waitStatus(t, s, "link_up false", time.Second, func(st mission.Status) bool { return !st.LinkUp })
		found := false
		for _, e := range stop() {
			if e.Kind == mission.KindTransition && e.State == "FAILSAFE" && blackbox.Reason(e.Detail) == mission.ReasonTelemetryTimeout {
				found = true
			}
		}
		if !found {
			t.Error("no FAILSAFE transition with reason telemetry_timeout in the black box")
		}
	})
}
