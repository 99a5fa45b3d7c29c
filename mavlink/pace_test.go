package mavlink

import (
	"context"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// TestServerSendsEveryFrameAfterAStall: a server whose loop was held up
// (a loaded machine) catches up on the vehicle time it owes, here a second
// of telemetry at once at ×10 (COM_OF_LOSS_T 4 s lets it step that far);
// every HIGHRES_IMU of it reaches the vehicle, none lost in the link's
// 64-message write queue.
func TestServerSendsEveryFrameAfterAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ap := autopilot.DefaultConfig()
		ap.OffboardLoss = 4
		r := newRigAt(t, vehicle.SimConfig{Seed: 1, Autopilot: ap}, Config{}, 10)
		ctx := context.Background()
		if _, err := r.v.Wait(ctx, time.Second, nil); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			t1 := r.v.Telemetry().IMU
			if !r.srv.Do(ctx, func(*vehicle.Sim) { time.Sleep(150 * time.Millisecond) }) {
				t.Fatal("server stopped")
			}
			if _, err := r.v.Wait(ctx, 2*time.Second, nil); err != nil {
				t.Fatal(err)
			}
			t2 := r.v.Telemetry().IMU
			want := uint64(math.Round((t2.T - t1.T) * 50)) // HIGHRES_IMU at 50 Hz
			if got := t2.Seq - t1.Seq; got != want {
				t.Errorf("stall %d: %d HIGHRES_IMU arrived from %.2f s to %.2f s; want %d", i+1, got, t1.T, t2.T, want)
			}
		}
	})
}

// TestStallKeepsOffboard: a server loop held up mid-Goto (a loaded
// machine) must not step the vehicle past COM_OF_LOSS_T with no chance to
// read the setpoints that came meanwhile: the vehicle stays in Offboard
// and flies on, rather than declaring the offboard link lost, holding, and
// landing (which a mission daemon reads as vehicle_disarmed).
func TestStallKeepsOffboard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigAt(t, vehicle.SimConfig{Seed: 2}, Config{}, 10)
		v, ctx := r.v, context.Background()
		flyOut(t, v, 3, 40, 1)
		// Held up for 0.8 to 4 s of vehicle time. After a stall the loop's
		// next tick and the setpoints that came meanwhile are both ready,
		// and the loop takes either first: several stalls, so that a step
		// past the deadline shows whichever it takes.
		for _, stall := range []time.Duration{80, 150, 200, 250, 300, 400} {
			r.srv.Do(ctx, func(*vehicle.Sim) { time.Sleep(stall * time.Millisecond) })
			if _, err := v.Wait(ctx, 2*time.Second, nil); err != nil {
				t.Fatal(err)
			}
		}
		var events []autopilot.Event
		var st autopilot.Status
		r.srv.Do(ctx, func(s *vehicle.Sim) { st, events = s.Autopilot().Status(), append(events, s.Events()...) })
		for _, e := range events {
			if strings.HasPrefix(e.Text, "offboard setpoints lost") {
				t.Errorf("%.2f s: %s", e.T, e.Text)
			}
		}
		if st.Mode != autopilot.ModeOffboard || !st.Armed {
			t.Errorf("after the stalls: mode %v, armed %v; want offboard, armed", st.Mode, st.Armed)
		}
	})
}

// TestServerKeepsItsSpeed: the vehicle time runs at --speed × the wall
// time, at ×1000 too, where every tick steps more than the catch-up limit
// a held-up loop gets at ×10.
func TestServerKeepsItsSpeed(t *testing.T) {
	for _, speed := range []float64{1, 10, 1000} {
		synctest.Test(t, func(t *testing.T) {
			srv, _, _, _ := newServerAt(t, vehicle.SimConfig{Seed: 1}, speed)
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); <-srv.done }()
			go srv.Run(ctx)
			const wallS = 0.2
			time.Sleep(wallS * 1000 * time.Millisecond)
			var simS float64
			srv.Do(ctx, func(s *vehicle.Sim) { simS = s.Time() })
			if want := wallS * speed; math.Abs(simS-want) > 0.02*want+0.01 {
				t.Errorf("×%g: %.3f s of vehicle time in %g s; want %.3f s", speed, simS, wallS, want)
			}
		})
	}
}

// TestStarvedLoopStaysCurrent: a server loop held up over and over (a
// machine too loaded to run it at its pace) sends current telemetry: what
// it owes the link never grows, so the vehicle's latest sample stays
// within a catch-up of the simulation, rather than further and further
// behind it (and its heartbeat seconds late).
func TestStarvedLoopStaysCurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigAt(t, vehicle.SimConfig{Seed: 1}, Config{}, 10)
		ctx := context.Background()
		if _, err := r.v.Wait(ctx, time.Second, nil); err != nil {
			t.Fatal(err)
		}
		for range 150 {
			r.srv.Do(ctx, func(*vehicle.Sim) { time.Sleep(30 * time.Millisecond) })
		}
		time.Sleep(time.Millisecond)
		var simT float64
		r.srv.Do(ctx, func(s *vehicle.Sim) { simT = s.Time() })
		if lag := simT - r.v.Telemetry().IMU.T; lag > 0.5 {
			t.Errorf("the vehicle's latest IMU sample is %.2f s behind the simulation; want at most 0.5 s", lag)
		}
	})
}
