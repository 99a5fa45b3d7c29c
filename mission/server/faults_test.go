package server_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// TestFaultsSim injects every fault kind into the embedded quadrotor in
// flight (take-off refusal: at arming) and checks that the machine ends in
// FAILSAFE with the kind's reason, the black box holds that transition,
// and a running goal is ABORTED with the same reason.
func TestFaultsSim(t *testing.T) {
	for _, kind := range adapter.FaultKinds {
		t.Run(string(kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ad, err := adapter.NewSim(vehicle.SimConfig{Seed: 4})
				if err != nil {
					t.Fatal(err)
				}
				cfg := mission.DefaultConfig()
				at := 15 * time.Second
				if kind == adapter.FaultTakeoff {
					at = 0
				}
				if err := ad.SetSchedule([]adapter.Fault{{Kind: kind, At: at}}, -cfg.MaxAltitudeM); err != nil {
					t.Fatal(err)
				}
				rec := recorder(t)
				s, stop := start(t, server.Config{Machine: cfg, Adapter: ad, Recorder: rec})
				defer stop()
				fs := func(st mission.Status) bool { return st.State == "FAILSAFE" }
				if kind == adapter.FaultTakeoff {
					do(t, s, mission.Connect{})
					waitFor(t, s, "ARMING", 15*time.Second, state("ARMING"))
					do(t, s, mission.Arm{})
				} else {
					takeOff(t, s)
					if now := s.Status().TimeS; now > at.Seconds()-2 {
						t.Fatalf("airborne only at %.1f s; the fault is at %v", now, at)
					}
					do(t, s, mission.Load{Waypoints: []mission.Waypoint{{X: 25, Z: -3, SpeedMS: 1}, {X: 25, Y: 25, Z: -3}}})
					if kind == adapter.FaultRPC {
						waitFor(t, s, "the fault time", 20*time.Second, func(st mission.Status) bool { return st.TimeS > at.Seconds()+0.1 })
						do(t, s, mission.Pause{}) // the next command fails
					}
				}
				st := waitFor(t, s, "FAILSAFE", 60*time.Second, fs)
				if st.FailsafeReason == nil || *st.FailsafeReason != kind.Reason() {
					t.Fatalf("FAILSAFE reason %v; want %s (detail %v)", st.FailsafeReason, kind.Reason(), st.FailsafeDetail)
				}
				if kind != adapter.FaultTakeoff {
					if g, ok := s.Goal(1); !ok || g.State != "ABORTED" || g.Reason != kind.Reason() {
						t.Errorf("goal 1: %+v; want ABORTED (%s)", g, kind.Reason())
					}
				}
				found := false
				for _, e := range rec.Events(nil) {
					if e.Kind == mission.KindTransition && e.State == "FAILSAFE" && blackbox.Reason(e.Detail) == kind.Reason() {
						found = true
					}
				}
				if !found {
					t.Errorf("black box: no FAILSAFE transition with reason %s", kind.Reason())
				}
				t.Logf("%s@%v: FAILSAFE %s at %.2f s: %s", kind, at, *st.FailsafeReason, st.TimeS, *st.FailsafeDetail)
			})
		})
	}
}

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want adapter.Fault
		err  bool
	}{
		{"gnss@12", adapter.Fault{Kind: adapter.FaultGNSS, At: 12 * time.Second}, false},
		{"motor@12.5", adapter.Fault{Kind: adapter.FaultMotor, At: 12500 * time.Millisecond}, false},
		{"rpc@1m30s", adapter.Fault{Kind: adapter.FaultRPC, At: 90 * time.Second}, false},
		{"takeoff@0", adapter.Fault{Kind: adapter.FaultTakeoff}, false},
		{"gnss", adapter.Fault{}, true},
		{"fire@1", adapter.Fault{}, true},
		{"gnss@-1", adapter.Fault{}, true},
		{"gnss@NaN", adapter.Fault{}, true},
		{"gnss@1e9", adapter.Fault{}, true},
		{"gnss@soon", adapter.Fault{}, true},
		{"@1", adapter.Fault{}, true},
	} {
		got, err := adapter.ParseFault(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseFault(%q): got %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// FuzzParseFault: no panic; what it accepts is a known kind at a time from
// 0 to 24 h that prints back to an input it accepts the same way.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"gnss@12", "motor@12.5", "rpc@1m30s", "x@1", "gnss@-1", "@", "battery@NaN", "link@+Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ft, err := adapter.ParseFault(s)
		if err != nil {
			return
		}
		if ft.Kind.Reason() == "" || ft.At < 0 || ft.At > 24*time.Hour {
			t.Fatalf("accepted %q as %+v", s, ft)
		}
		again, err := adapter.ParseFault(ft.String())
		if err != nil || again.Kind != ft.Kind || (again.At-ft.At).Abs() > time.Microsecond {
			t.Fatalf("%q → %v → %v, %v", s, ft, again, err)
		}
	})
}
