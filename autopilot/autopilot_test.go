package autopilot_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// dt is the simulator's 200 Hz step.
const dt = quad.DefaultStepS

func rad(d float64) float64 { return d * math.Pi / 180 }

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*autopilot.Config)
		wantErr string // "" = valid
	}{
		{"defaults", func(*autopilot.Config) {}, ""},
		{"zero cruise speed", func(c *autopilot.Config) { c.CruiseMS = 0 }, "MPC_XY_CRUISE"},
		{"NaN acceptance radius", func(c *autopilot.Config) { c.AccRadM = math.NaN() }, "NAV_ACC_RAD"},
		{"infinite take-off altitude", func(c *autopilot.Config) { c.TakeoffAltM = math.Inf(1) }, "MIS_TAKEOFF_ALT"},
		{"negative disarm delay", func(c *autopilot.Config) { c.DisarmLandS = -1 }, "COM_DISARM_LAND"},
		{"zero spool-up allowed", func(c *autopilot.Config) { c.SpoolUpS = 0 }, ""},
		{"idle thrust at hover", func(c *autopilot.Config) { c.IdleThrust = 0.5 }, "idle thrust"},
		{"bad gains", func(c *autopilot.Config) { c.Gains.ThrMin = 0.7 }, "thrust limits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := autopilot.DefaultConfig()
			tt.mod(&c)
			err := c.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate: got %v; want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Validate: got nil; want an error naming %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Validate: got %q; want it to name %q", err, tt.wantErr)
			}
			if _, err2 := autopilot.New(c); (err2 == nil) != (err == nil) {
				t.Errorf("New: got %v; want the same verdict as Validate (%v)", err2, err)
			}
		})
	}
}

func TestApplyParams(t *testing.T) {
	tests := []struct {
		name        string
		params      map[string]float64
		want        func(*autopilot.Config) // the expected changes to DefaultConfig
		wantIgnored []string
	}{
		{"none", nil, func(*autopilot.Config) {}, nil},
		{"acceptance radius", map[string]float64{"NAV_ACC_RAD": 0.5}, func(c *autopilot.Config) { c.AccRadM = 0.5 }, nil},
		{"yaw error in degrees", map[string]float64{"MIS_YAW_ERR": 20}, func(c *autopilot.Config) { c.YawErrRad = rad(20) }, nil},
		{"yaw rate in degrees", map[string]float64{"MPC_YAWRAUTO_MAX": 60}, func(c *autopilot.Config) { c.YawRateMax = rad(60) }, nil},
		{"tilt in degrees", map[string]float64{"MPC_TILTMAX_AIR": 30}, func(c *autopilot.Config) { c.Gains.TiltMaxRad = rad(30) }, nil},
		{"yaw mode 0 faces the waypoint", map[string]float64{"MPC_YAW_MODE": 0}, func(c *autopilot.Config) { c.YawToWP = true }, nil},
		// 5 is "yaw fixed" (PX4 ≥ v1.15).
		{"yaw mode 5 keeps the heading", map[string]float64{"MPC_YAW_MODE": 5}, func(c *autopilot.Config) { c.YawToWP = false }, nil},
		{"competition set", map[string]float64{
			"NAV_ACC_RAD": 1, "NAV_MC_ALT_RAD": 0.5, "MIS_TAKEOFF_ALT": 1, "NAV_DLL_ACT": 0, "NAV_RCL_ACT": 3,
			"COM_OBS_AVOID": 1, "MPC_XY_CRUISE": 3, "MPC_THR_HOVER": 0.45,
		}, func(c *autopilot.Config) {
			c.AccRadM, c.AltRadM, c.TakeoffAltM, c.CruiseMS, c.Gains.ThrHover = 1, 0.5, 1, 3, 0.45
		}, []string{"COM_OBS_AVOID", "NAV_DLL_ACT", "NAV_RCL_ACT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := autopilot.DefaultConfig()
			ignored, err := autopilot.ApplyParams(&got, tt.params)
			if err != nil {
				t.Fatalf("ApplyParams: %v", err)
			}
			want := autopilot.DefaultConfig()
			tt.want(&want)
			if got != want {
				t.Errorf("config:\ngot  %+v\nwant %+v", got, want)
			}
			if !slices.Equal(ignored, tt.wantIgnored) {
				t.Errorf("ignored: got %q; want %q", ignored, tt.wantIgnored)
			}
		})
	}
}

// DefaultConfig carries PX4 v1.12's own defaults where the competition's
// airframe (1015_iris_obs_avoid: COM_OBS_AVOID 1, MPC_XY_CRUISE 5 over
// 10016_iris) and Aerialist's mission parameters leave them alone.
// MPC_YAWRAUTO_MAX is 45 °/s in mc_pos_control_params.c of v1.12 (later
// releases keep it); the avoider's heading turns no faster
// (FlightTaskAuto::_limitYawRate).
func TestDefaultConfigPX4v112(t *testing.T) {
	c := autopilot.DefaultConfig()
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"MPC_XY_CRUISE", c.CruiseMS, 5},
		{"MPC_ACC_HOR", c.AccHorMS2, 3},
		{"MPC_JERK_AUTO", c.JerkAutoMS3, 4},
		{"MPC_YAWRAUTO_MAX", c.YawRateMax, rad(45)},
	} {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s: got %v; want %v", tt.name, tt.got, tt.want)
		}
	}
}

// MPC_YAW_MODE 4 is "towards waypoint (yaw first)" in PX4
// (mc_pos_control_params.c): it faces the waypoint, turning before the leg,
// which is what YawToWP does.
func TestApplyParamsYawMode4(t *testing.T) {
	c := autopilot.DefaultConfig()
	if _, err := autopilot.ApplyParams(&c, map[string]float64{"MPC_YAW_MODE": 4}); err != nil {
		t.Fatal(err)
	}
	if !c.YawToWP {
		t.Errorf("MPC_YAW_MODE 4 (towards waypoint, yaw first): YawToWP false; want true")
	}
}

// A refused parameter set names the culprit and changes nothing, not even
// the valid parameters that came with it.
func TestApplyParamsErrors(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]float64
		want   string // in the error
	}{
		{"unknown", map[string]float64{"MPC_XY_CRUISE": 8, "FOO_BAR": 1}, "FOO_BAR"},
		{"NaN", map[string]float64{"MPC_XY_CRUISE": 8, "NAV_ACC_RAD": math.NaN()}, "NAV_ACC_RAD"},
		{"infinite", map[string]float64{"MPC_XY_CRUISE": math.Inf(-1)}, "MPC_XY_CRUISE"},
		{"NaN on a no-op", map[string]float64{"NAV_DLL_ACT": math.NaN()}, "NAV_DLL_ACT"},
		{"negative speed", map[string]float64{"MPC_XY_CRUISE": -1}, "MPC_XY_CRUISE"},
		{"zero radius", map[string]float64{"NAV_ACC_RAD": 0}, "NAV_ACC_RAD"},
		{"tilt 90°", map[string]float64{"MPC_TILTMAX_AIR": 90}, "tilt"},
		{"hover below minimum", map[string]float64{"MPC_THR_HOVER": 0.1}, "thrust"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := autopilot.DefaultConfig()
			ignored, err := autopilot.ApplyParams(&c, tt.params)
			if err == nil {
				t.Fatalf("ApplyParams(%v): got nil error; want one naming %s", tt.params, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error: got %q; want it to name %s", err, tt.want)
			}
			if c != autopilot.DefaultConfig() {
				t.Errorf("config changed by a refused parameter set:\ngot  %+v\nwant %+v", c, autopilot.DefaultConfig())
			}
			if ignored != nil {
				t.Errorf("ignored: got %q; want nil on error", ignored)
			}
		})
	}
}

func newAutopilot(t testing.TB, cfg autopilot.Config) *autopilot.Autopilot {
	t.Helper()
	a, err := autopilot.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// ground is a vehicle at rest on the ground at the origin.
var ground = control.State{Att: geom.QuatIdentity}

var mission = []autopilot.Item{
	{Kind: autopilot.ItemTakeoff, Pos: geom.Vec3{Z: -10}},
	{Kind: autopilot.ItemWaypoint, Pos: geom.Vec3{X: 20, Z: -10}},
	{Kind: autopilot.ItemWaypoint, Pos: geom.Vec3{X: 20, Y: 20, Z: -10}},
	{Kind: autopilot.ItemLand, Pos: geom.Vec3{Y: 20}},
}

// Commands that need armed motors are refused while disarmed, and change
// nothing.
func TestCommandsWhileDisarmed(t *testing.T) {
	tests := []struct {
		name string
		cmd  func(a *autopilot.Autopilot) error
		want error
	}{
		{"takeoff", func(a *autopilot.Autopilot) error { return a.Takeoff(10) }, autopilot.ErrNotArmed},
		{"goto", func(a *autopilot.Autopilot) error { return a.Goto(geom.Vec3{X: 5, Z: -5}, 0) }, autopilot.ErrNotArmed},
		{"land", func(a *autopilot.Autopilot) error { return a.Land() }, autopilot.ErrNotArmed},
		{"return", func(a *autopilot.Autopilot) error { return a.Return() }, autopilot.ErrNotArmed},
		{"hold", func(a *autopilot.Autopilot) error { return a.Hold() }, autopilot.ErrNotArmed},
		{"disarm", func(a *autopilot.Autopilot) error { return a.Disarm() }, autopilot.ErrNotArmed},
		{"mission", func(a *autopilot.Autopilot) error { return a.StartMission(mission) }, autopilot.ErrNotArmed},
		{"offboard", func(a *autopilot.Autopilot) error { return a.EnterOffboard() }, autopilot.ErrNotArmed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAutopilot(t, autopilot.DefaultConfig())
			a.Update(ground, 0, dt)
			before := a.Status()
			if err := tt.cmd(a); !errors.Is(err, tt.want) {
				t.Errorf("got error %v; want %v", err, tt.want)
			}
			if got := a.Status(); got != before {
				t.Errorf("status: got %+v; want unchanged %+v", got, before)
			}
			if ev := a.Events(); len(ev) != 0 {
				t.Errorf("events: got %v; want none", ev)
			}
			if u := a.Update(ground, dt, dt); u != [4]float64{} {
				t.Errorf("motors: got %v; want stopped", u)
			}
		})
	}
}

func TestArmTwice(t *testing.T) {
	a := newAutopilot(t, autopilot.DefaultConfig())
	if err := a.Arm(); err != nil {
		t.Fatalf("first Arm: %v", err)
	}
	if err := a.Arm(); !errors.Is(err, autopilot.ErrArmed) {
		t.Errorf("second Arm: got %v; want ErrArmed", err)
	}
	if ev := a.Events(); len(ev) != 1 || ev[0].Text != "armed" {
		t.Errorf("events: got %v; want one \"armed\"", ev)
	}
}

// Missions and take-offs with targets the vehicle cannot fly are refused.
func TestBadTargetsOnGround(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	wp := func(p geom.Vec3) autopilot.Item { return autopilot.Item{Kind: autopilot.ItemWaypoint, Pos: p} }
	tests := []struct {
		name    string
		cmd     func(a *autopilot.Autopilot) error
		wantIs  error  // errors.Is target, or nil
		wantMsg string // in the error text
	}{
		{"empty mission", func(a *autopilot.Autopilot) error { return a.StartMission(nil) }, autopilot.ErrEmptyMission, ""},
		{"NaN waypoint", func(a *autopilot.Autopilot) error {
			return a.StartMission([]autopilot.Item{wp(geom.Vec3{X: nan, Z: -5})})
		}, autopilot.ErrBadTarget, "item 0"},
		{"infinite second waypoint", func(a *autopilot.Autopilot) error {
			return a.StartMission([]autopilot.Item{wp(geom.Vec3{Z: -5}), wp(geom.Vec3{Y: inf, Z: -5})})
		}, autopilot.ErrBadTarget, "item 1"},
		{"waypoint below ground", func(a *autopilot.Autopilot) error {
			return a.StartMission([]autopilot.Item{wp(geom.Vec3{X: 5, Z: 2})})
		}, autopilot.ErrBadTarget, "item 0"},
		{"unknown item kind", func(a *autopilot.Autopilot) error {
			return a.StartMission([]autopilot.Item{{Kind: 7, Pos: geom.Vec3{Z: -5}}})
		}, nil, "unknown kind"},
		{"negative acceptance radius", func(a *autopilot.Autopilot) error {
			return a.StartMission([]autopilot.Item{{Kind: autopilot.ItemWaypoint, Pos: geom.Vec3{Z: -5}, AcceptRadiusM: -1}})
		}, nil, "acceptance radius"},
		{"take-off to NaN", func(a *autopilot.Autopilot) error { return a.Takeoff(nan) }, nil, "take-off altitude"},
		{"take-off downward", func(a *autopilot.Autopilot) error { return a.Takeoff(-5) }, nil, "take-off altitude"},
		{"take-off to infinity", func(a *autopilot.Autopilot) error { return a.Takeoff(inf) }, nil, "take-off altitude"},
		{"offboard without setpoints", func(a *autopilot.Autopilot) error { return a.EnterOffboard() }, autopilot.ErrNoSetpoint, ""},
		{"offboard setpoint of NaNs", func(a *autopilot.Autopilot) error {
			n3 := geom.Vec3{X: nan, Y: nan, Z: nan}
			return a.SetOffboard(autopilot.Offboard{Pos: n3, Vel: n3, Yaw: nan})
		}, nil, "neither position nor velocity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAutopilot(t, autopilot.DefaultConfig())
			a.Update(ground, 0, dt)
			if err := a.Arm(); err != nil {
				t.Fatal(err)
			}
			a.Events()
			before := a.Status()
			err := tt.cmd(a)
			if err == nil {
				t.Fatalf("got nil error; want one")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got %v; want errors.Is %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %q; want it to mention %q", err, tt.wantMsg)
			}
			if got := a.Status(); got != before {
				t.Errorf("status: got %+v; want unchanged %+v", got, before)
			}
		})
	}
}

// An offboard setpoint older than COM_OF_LOSS_T does not allow the switch.
func TestEnterOffboardStaleSetpoint(t *testing.T) {
	a := newAutopilot(t, autopilot.DefaultConfig())
	a.Update(ground, 0, dt)
	if err := a.Arm(); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	if err := a.SetOffboard(autopilot.Offboard{Pos: geom.Vec3{X: nan, Y: nan, Z: -2}, Vel: geom.Vec3{X: nan, Y: nan, Z: nan}, Yaw: nan}); err != nil {
		t.Fatalf("SetOffboard with only an altitude: %v", err)
	}
	a.Update(ground, 0.9, dt)
	if err := a.EnterOffboard(); err != nil {
		t.Errorf("EnterOffboard 0.9 s after the setpoint: got %v; want nil", err)
	}
	a.Update(ground, 1.1, dt)
	if err := a.EnterOffboard(); !errors.Is(err, autopilot.ErrNoSetpoint) {
		t.Errorf("EnterOffboard 1.1 s after the setpoint: got %v; want ErrNoSetpoint", err)
	}
}

// Armed on the ground the motors idle; a take-off waits COM_SPOOLUP_TIME
// (1 s); without one the vehicle disarms after COM_DISARM_PRFLT (10 s).
func TestSpoolUpAndPreflightDisarm(t *testing.T) {
	for _, tt := range []struct {
		name       string
		takeoff    bool
		wantIdleTo float64 // s after arming that the motors stay at idle
	}{
		{"no take-off", false, 10},
		{"take-off", true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := autopilot.DefaultConfig()
			a := newAutopilot(t, cfg)
			a.Update(ground, 0, dt)
			if err := a.Arm(); err != nil {
				t.Fatal(err)
			}
			if tt.takeoff {
				if err := a.Takeoff(5); err != nil {
					t.Fatal(err)
				}
			}
			idle := [4]float64{cfg.IdleThrust, cfg.IdleThrust, cfg.IdleThrust, cfg.IdleThrust}
			firstActive := math.NaN()
			for n := 0; n <= 2400; n++ { // 12 s; the vehicle is held on the ground
				ts := float64(n) * dt
				u := a.Update(ground, ts, dt)
				if u != idle && math.IsNaN(firstActive) {
					firstActive = ts
				}
				if ts < tt.wantIdleTo-1e-9 && u != idle {
					t.Fatalf("t = %.3f s: motors %v; want idle %v", ts, u, idle)
				}
			}
			ev := a.Events()
			if !tt.takeoff {
				if a.Status().Armed {
					t.Fatalf("still armed after 12 s without take-off")
				}
				last := ev[len(ev)-1]
				if last.Text != "auto-disarmed: no take-off" || last.T < 10 || last.T > 10+2*dt {
					t.Errorf("last event: got %+v; want auto-disarm just after 10 s", last)
				}
				return
			}
			if math.Abs(firstActive-1) > dt+1e-9 {
				t.Errorf("motors left idle at t = %v s; want COM_SPOOLUP_TIME 1 s", firstActive)
			}
			if !a.Status().Armed {
				t.Errorf("disarmed during a take-off")
			}
		})
	}
}

// flight flies the embedded simulator (a SIH quadrotor flown by the
// autopilot on an estimate carrying the simulated GNSS error) and logs the
// ground truth with the autopilot's status after every step.
type flight struct {
	s   *vehicle.Sim
	ap  *autopilot.Autopilot
	log []sample
}

type sample struct {
	t      float64
	truth  quad.State
	status autopilot.Status
}

func newFlight(t testing.TB, cfg vehicle.SimConfig) *flight {
	t.Helper()
	s, err := vehicle.NewSim(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &flight{s: s, ap: s.Autopilot()}
}

func (f *flight) step() {
	f.s.Step()
	f.log = append(f.log, sample{t: f.s.Time(), truth: f.s.Quad().Truth(), status: f.ap.Status()})
}

// runUntil steps until done holds or maxS seconds pass; it reports whether
// done held.
func (f *flight) runUntil(maxS float64, done func(autopilot.Status) bool) bool {
	for n := int(math.Round(maxS / dt)); n > 0; n-- {
		f.step()
		if done(f.ap.Status()) {
			return true
		}
	}
	return false
}

// event returns the first event whose text starts with prefix.
func (f *flight) event(prefix string) (autopilot.Event, bool) {
	for _, e := range f.s.Events() {
		if strings.HasPrefix(e.Text, prefix) {
			return e, true
		}
	}
	return autopilot.Event{}, false
}

// at returns the sample logged at time ts, the state the autopilot saw in
// its update at ts (an event's time), or else the first one after ts.
func (f *flight) at(ts float64) sample {
	i, _ := slices.BinarySearchFunc(f.log, ts, func(s sample, ts float64) int {
		switch {
		case s.t < ts-1e-9:
			return -1
		case s.t > ts+1e-9:
			return 1
		}
		return 0
	})
	return f.log[min(i, len(f.log)-1)]
}

func TestMission(t *testing.T) {
	for _, tt := range []struct {
		name     string
		yawMode  float64
		startYaw float64
	}{
		// Facing away from the first leg, so that every leg needs a turn.
		{"MPC_YAW_MODE 0 faces each leg", 0, 2.5},
		{"MPC_YAW_MODE 5 keeps the heading", 5, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := autopilot.DefaultConfig()
			if _, err := autopilot.ApplyParams(&cfg, map[string]float64{"NAV_ACC_RAD": 1, "MPC_YAW_MODE": tt.yawMode}); err != nil {
				t.Fatal(err)
			}
			f := newFlight(t, vehicle.SimConfig{Seed: 1, Autopilot: cfg, Quad: quad.Config{StartYawRad: tt.startYaw}})
			if err := f.ap.Arm(); err != nil {
				t.Fatal(err)
			}
			if err := f.ap.StartMission(mission); err != nil {
				t.Fatal(err)
			}
			if !f.runUntil(150, func(s autopilot.Status) bool { return s.MissionDone }) {
				t.Fatalf("mission not done after 150 s: status %+v, events %v", f.ap.Status(), f.s.Events())
			}
			f.runUntil(1, func(autopilot.Status) bool { return false })
			st := f.ap.Status()
			if st.Armed || !st.Landed || st.MissionItem != len(mission) || st.Mode != autopilot.ModeIdle {
				t.Errorf("final status: got %+v; want disarmed, landed, item %d, idle", st, len(mission))
			}
			if c, crashed := f.s.Crash(); crashed {
				t.Fatalf("crashed: %+v", c)
			}

			// Events, in order.
			wantEvents := []string{"armed", "takeoff to 10.0 m", "mission started, 4 items", "takeoff complete",
				"waypoint 1 reached", "waypoint 2 reached", "landing at mission item 3", "landing detected",
				"auto-disarmed after landing", "mission complete"}
			var texts []string
			for _, e := range f.s.Events() {
				texts = append(texts, e.Text)
			}
			if len(texts) != len(wantEvents) {
				t.Errorf("events: got %q; want %q", texts, wantEvents)
			} else {
				for i := range texts {
					if !strings.HasPrefix(texts[i], wantEvents[i]) {
						t.Errorf("event %d: got %q; want %q…", i, texts[i], wantEvents[i])
					}
				}
			}

			// Each waypoint is reached within NAV_ACC_RAD (and NAV_MC_ALT_RAD).
			for i, it := range mission[1:3] {
				best := math.Inf(1)
				for _, s := range f.log {
					if math.Abs(s.truth.Pos.Z-it.Pos.Z) < cfg.AltRadM {
						best = math.Min(best, s.truth.Pos.XY().Dist(it.Pos.XY()))
					}
				}
				if best >= cfg.AccRadM {
					t.Errorf("waypoint %d: closest approach %.2f m; want < NAV_ACC_RAD %v", i+1, best, cfg.AccRadM)
				}
				t.Logf("waypoint %d: closest approach %.3f m", i+1, best)
			}
			final := f.s.Quad().Truth().Pos
			if d := final.XY().Dist(mission[3].Pos.XY()); d > 0.3 {
				t.Errorf("landed %.2f m from the land item; want < 0.3", d)
			}

			// Peak speed and altitude stay near the limits.
			var peakV, peakAlt float64
			for _, s := range f.log {
				peakV = math.Max(peakV, s.truth.Vel.XY().Norm())
				peakAlt = math.Max(peakAlt, -s.truth.Pos.Z)
			}
			t.Logf("peak horizontal speed %.2f m/s, peak altitude %.2f m", peakV, peakAlt)
			if peakV > cfg.CruiseMS {
				t.Errorf("peak horizontal speed: got %.2f m/s; want ≤ MPC_XY_CRUISE %v", peakV, cfg.CruiseMS)
			}
			// The take-off's overshoot, as in vehicle's TestTakeoffStepResponse.
			if peakAlt > 10.5 {
				t.Errorf("peak altitude: got %.2f m; want < 10.5", peakAlt)
			}

			// Heading on each leg.
			legs := []struct {
				start    string
				from, to geom.Vec2
			}{
				{"takeoff complete", geom.Vec2{}, mission[1].Pos.XY()},
				{"waypoint 1 reached", mission[1].Pos.XY(), mission[2].Pos.XY()},
				{"waypoint 2 reached", mission[2].Pos.XY(), mission[3].Pos.XY()},
			}
			for _, leg := range legs {
				e, ok := f.event(leg.start)
				if !ok {
					t.Errorf("no %q event", leg.start)
					continue
				}
				dir := leg.to.Sub(leg.from).Unit()
				bearing := math.Atan2(dir.Y, dir.X)
				var moving *sample
				for i := range f.log {
					s := &f.log[i]
					if s.t > e.T && s.truth.Vel.XY().Dot(dir) > 0.5 {
						moving = s
						break
					}
				}
				if moving == nil {
					t.Errorf("leg after %q: never moved along it", leg.start)
					continue
				}
				hdg := moving.truth.Att.Yaw()
				t.Logf("leg after %q at %.2f s: moving at %.2f s, heading error %.1f° (%.1f° at the start)", leg.start, e.T,
					moving.t, geom.WrapPi(hdg-bearing)*180/math.Pi, geom.WrapPi(f.at(e.T).truth.Att.Yaw()-bearing)*180/math.Pi)
				if tt.yawMode == 0 {
					if start := math.Abs(geom.WrapPi(f.at(e.T).truth.Att.Yaw() - bearing)); start <= cfg.YawErrRad {
						t.Errorf("leg after %q: heading error %.1f° at the start already within MIS_YAW_ERR; the test needs a turn", leg.start, start*180/math.Pi)
					}
					if d := math.Abs(geom.WrapPi(hdg - bearing)); d >= cfg.YawErrRad {
						t.Errorf("leg after %q: heading error %.1f° when it started moving; want < MIS_YAW_ERR %.0f°", leg.start, d*180/math.Pi, cfg.YawErrRad*180/math.Pi)
					}
				}
			}
			if tt.yawMode != 0 {
				var worst float64
				for _, s := range f.log {
					worst = math.Max(worst, math.Abs(geom.WrapPi(s.truth.Att.Yaw()-tt.startYaw)))
				}
				t.Logf("largest heading deviation %.2f°", worst*180/math.Pi)
				if worst > rad(3) {
					t.Errorf("heading deviated %.2f° from the start heading; want < 3°", worst*180/math.Pi)
				}
			}

			// The land detector fires only on the ground, at least
			// LNDMC_TRIG_TIME after touchdown, and the motors stop
			// COM_DISARM_LAND later.
			landed, _ := f.event("landing detected")
			disarmed, _ := f.event("auto-disarmed after landing")
			airborne := false
			touchdown := math.NaN()
			for _, s := range f.log {
				alt := -s.truth.Pos.Z
				if alt > 1 {
					airborne = true
				}
				if airborne && s.truth.Grounded && math.IsNaN(touchdown) {
					touchdown = s.t
				}
				if airborne && s.status.Landed && alt >= 0.05 {
					t.Fatalf("t = %.3f s: landed declared at a true altitude of %.3f m", s.t, alt)
				}
			}
			if alt := -f.at(landed.T).truth.Pos.Z; alt >= 0.05 {
				t.Errorf("landing detected at a true altitude of %.3f m; want < 0.05", alt)
			}
			if d := landed.T - touchdown; d < cfg.LandTrigS || d > 5 {
				t.Errorf("landing detected %.3f s after touchdown; want between LNDMC_TRIG_TIME %v and 5 s", d, cfg.LandTrigS)
			}
			if d := disarmed.T - landed.T; d < cfg.DisarmLandS || d > cfg.DisarmLandS+2*dt {
				t.Errorf("disarmed %.3f s after landing was detected; want COM_DISARM_LAND %v", d, cfg.DisarmLandS)
			}
			t.Logf("touchdown %.2f s, landing detected %.2f s, disarmed %.2f s", touchdown, landed.T, disarmed.T)
		})
	}
}

// inAir returns an autopilot that has armed, spooled up and started a
// take-off; it counts as airborne once its controller runs.
func inAir(t *testing.T) *autopilot.Autopilot {
	t.Helper()
	a := newAutopilot(t, autopilot.DefaultConfig())
	a.Update(ground, 0, dt)
	if err := a.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := a.Takeoff(5); err != nil {
		t.Fatal(err)
	}
	for n := 0; n <= 220; n++ { // past COM_SPOOLUP_TIME
		a.Update(ground, float64(n)*dt, dt)
	}
	if st := a.Status(); st.Landed || st.Mode != autopilot.ModeTakeoff {
		t.Fatalf("status after spool-up: got %+v; want airborne in take-off", st)
	}
	a.Events()
	return a
}

func TestCommandsInAir(t *testing.T) {
	nan := math.NaN()
	ok := geom.Vec3{X: 10, Z: -5}
	tests := []struct {
		name    string
		cmd     func(a *autopilot.Autopilot) error
		wantIs  error
		wantMsg string
	}{
		{"arm", func(a *autopilot.Autopilot) error { return a.Arm() }, autopilot.ErrArmed, ""},
		{"disarm", func(a *autopilot.Autopilot) error { return a.Disarm() }, autopilot.ErrInAir, ""},
		{"goto NaN", func(a *autopilot.Autopilot) error { return a.Goto(geom.Vec3{X: nan, Z: -5}, 0) }, autopilot.ErrBadTarget, ""},
		{"goto below ground", func(a *autopilot.Autopilot) error { return a.Goto(geom.Vec3{X: 10, Z: 1}, 0) }, autopilot.ErrBadTarget, ""},
		{"goto negative speed", func(a *autopilot.Autopilot) error { return a.Goto(ok, -1) }, nil, "speed"},
		{"goto NaN speed", func(a *autopilot.Autopilot) error { return a.Goto(ok, nan) }, nil, "speed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := inAir(t)
			before := a.Status()
			err := tt.cmd(a)
			if err == nil {
				t.Fatalf("got nil error; want one")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got %v; want errors.Is %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %q; want it to mention %q", err, tt.wantMsg)
			}
			if got := a.Status(); got != before {
				t.Errorf("status: got %+v; want unchanged %+v", got, before)
			}
		})
	}
	t.Run("kill", func(t *testing.T) {
		a := inAir(t)
		a.Kill()
		if st := a.Status(); st.Armed {
			t.Errorf("armed after Kill")
		}
		if u := a.Update(ground, 2, dt); u != [4]float64{} {
			t.Errorf("motors after Kill: got %v; want stopped", u)
		}
		if ev := a.Events(); len(ev) != 1 || ev[0].Text != "killed: motors stopped" {
			t.Errorf("events: got %v; want one kill event", ev)
		}
	})
	t.Run("goto accepted", func(t *testing.T) {
		a := inAir(t)
		if err := a.Goto(ok, 3); err != nil {
			t.Fatalf("Goto: %v", err)
		}
		if m := a.Status().Mode; m != autopilot.ModeGoto {
			t.Errorf("mode: got %v; want goto", m)
		}
	})
}

// Armed but still on the ground, commands that need flight are refused.
func TestCommandsArmedOnGround(t *testing.T) {
	for _, tt := range []struct {
		name string
		cmd  func(a *autopilot.Autopilot) error
	}{
		{"goto", func(a *autopilot.Autopilot) error { return a.Goto(geom.Vec3{X: 5, Z: -5}, 0) }},
		{"return", func(a *autopilot.Autopilot) error { return a.Return() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAutopilot(t, autopilot.DefaultConfig())
			a.Update(ground, 0, dt)
			if err := a.Arm(); err != nil {
				t.Fatal(err)
			}
			before := a.Status()
			// The error is ErrNotArmed although the vehicle is armed; see the
			// report. Only the refusal is pinned here.
			if err := tt.cmd(a); err == nil {
				t.Errorf("got nil error; want a refusal on the ground")
			}
			if got := a.Status(); got != before {
				t.Errorf("status: got %+v; want unchanged %+v", got, before)
			}
		})
	}
}

// Hold while cruising should brake with the reference's MPC_ACC_HOR, not
// with whatever the cascade can do: the vehicle's horizontal acceleration
// (drag included) should stay within MPC_ACC_HOR_MAX (5 m/s²).
func TestHoldWhileCruising(t *testing.T) {
	f := newFlight(t, vehicle.SimConfig{Seed: 1})
	if err := f.ap.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := f.ap.Takeoff(10); err != nil {
		t.Fatal(err)
	}
	if !f.runUntil(20, func(s autopilot.Status) bool { return s.Mode == autopilot.ModeHold }) {
		t.Fatal("take-off did not end in hold")
	}
	if err := f.ap.Goto(geom.Vec3{X: 100, Z: -10}, 0); err != nil {
		t.Fatal(err)
	}
	f.runUntil(10, func(autopilot.Status) bool { return false })
	if v := f.s.Quad().Truth().Vel.XY().Norm(); v < 4 {
		t.Fatalf("speed before Hold: got %.2f m/s; want about MPC_XY_CRUISE 5", v)
	}
	n0 := len(f.log)
	if err := f.ap.Hold(); err != nil {
		t.Fatal(err)
	}
	// The velocity integrator holds the drag compensation of the cruise
	// (KDV·v/m ≈ 5 m/s²); unwinding it leaves a slow creep back of about
	// 1.8 m, so the vehicle is at rest only after about 10 s.
	f.runUntil(12, func(autopilot.Status) bool { return false })
	var peak float64
	for _, s := range f.log[n0:] {
		peak = math.Max(peak, s.truth.Acc.XY().Norm())
	}
	if v := f.s.Quad().Truth().Vel.Norm(); v > 0.1 {
		t.Errorf("speed 12 s after Hold: got %.2f m/s; want < 0.1", v)
	}
	if peak > 5 {
		t.Errorf("peak braking after Hold: got %.2f m/s²; want ≤ MPC_ACC_HOR_MAX 5", peak)
	}
}

// Landing from 10 m on a NoNoise simulator, where the estimate is the truth:
// the descent slows from MPC_Z_V_AUTO_DN to MPC_LAND_SPEED and reaches the
// ground at a steady 0.7 m/s.
func TestLandWithoutNoise(t *testing.T) {
	f := newFlight(t, vehicle.SimConfig{Quad: quad.Config{NoNoise: true}})
	if err := f.ap.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := f.ap.Takeoff(10); err != nil {
		t.Fatal(err)
	}
	if !f.runUntil(20, func(s autopilot.Status) bool { return s.Mode == autopilot.ModeHold }) {
		t.Fatal("take-off did not end in hold")
	}
	if err := f.ap.Land(); err != nil {
		t.Fatal(err)
	}
	if f.runUntil(40, func(s autopilot.Status) bool { return !s.Armed }) {
		e, _ := f.event("landing detected")
		if alt := -f.at(e.T).truth.Pos.Z; alt >= 0.05 {
			t.Errorf("landing detected at a true altitude of %.3f m; want < 0.05", alt)
		}
		return
	}
	tr := f.s.Quad().Truth()
	if tr.Pos.Z == 0 && !tr.Grounded && tr.Vel.Z > 0 {
		t.Errorf("on the ground but not grounded: z = 0 with v_z = %.3f m/s; the ground must stop a vehicle moving down", tr.Vel.Z)
	}
	t.Fatalf("not disarmed 40 s after Land: status %+v, truth %+v", f.ap.Status(), tr)
}

// Land mode descends at MPC_Z_V_AUTO_DN (1.5 m/s) above MPC_LAND_ALT1
// (10 m), at MPC_LAND_SPEED (0.7 m/s) below MPC_LAND_ALT2 (5 m), and
// linearly blended between.
func TestLandDescentProfile(t *testing.T) {
	f := newFlight(t, vehicle.SimConfig{Seed: 2})
	if err := f.ap.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := f.ap.Takeoff(20); err != nil {
		t.Fatal(err)
	}
	if !f.runUntil(30, func(s autopilot.Status) bool { return s.Mode == autopilot.ModeHold }) {
		t.Fatal("take-off did not end in hold")
	}
	f.runUntil(2, func(autopilot.Status) bool { return false })
	n0 := len(f.log)
	if err := f.ap.Land(); err != nil {
		t.Fatal(err)
	}
	if !f.runUntil(60, func(s autopilot.Status) bool { return !s.Armed }) {
		t.Fatalf("not disarmed 60 s after Land: %+v", f.ap.Status())
	}
	// speedAt returns the true sink rate when the vehicle first passes altM.
	speedAt := func(altM float64) float64 {
		for _, s := range f.log[n0:] {
			if -s.truth.Pos.Z <= altM {
				return s.truth.Vel.Z
			}
		}
		return math.NaN()
	}
	for _, tt := range []struct {
		altM, want float64
	}{
		{15, 1.5},
		{10.5, 1.5},
		{7.5, 0.7 + 0.5*(1.5-0.7)},
		{5.5, 0.7 + 0.1*(1.5-0.7)},
		{3, 0.7},
		{0.5, 0.7},
	} {
		// ± 0.1 m/s: the velocity loop lags the altitude-scheduled setpoint
		// (0.16 m/s per m at 1.1 m/s) by a few hundredths.
		got := speedAt(tt.altM)
		t.Logf("sink rate at %.1f m: %.3f m/s (want %.3f)", tt.altM, got, tt.want)
		if math.Abs(got-tt.want) > 0.1 {
			t.Errorf("sink rate at %.1f m: got %.3f m/s; want %.3f ± 0.1", tt.altM, got, tt.want)
		}
	}
	if d := f.s.Quad().Truth().Pos.XY().Norm(); d > 0.3 {
		t.Errorf("landed %.2f m from where Land was commanded; want < 0.3", d)
	}
}
