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
		{"yaw rate in degrees", map[string]float64{"MPC_YAWRAUTO_MAX": 45}, func(c *autopilot.Config) { c.YawRateMax = rad(45) }, nil},
		{"tilt in degrees", map[string]float64{"MPC_TILTMAX_AIR": 30}, func(c *autopilot.Config) { c.Gains.TiltMaxRad = rad(30) }, nil},
		{"yaw mode 0 faces the waypoint", map[string]float64{"MPC_YAW_MODE": 0}, func(c *autopilot.Config) { c.YawToWP = true }, nil},
		{"yaw mode 1 does not", map[string]float64{"MPC_YAW_MODE": 1}, func(c *autopilot.Config) { c.YawToWP = false }, nil},
		{"yaw mode 4 does not", map[string]float64{"MPC_YAW_MODE": 4}, func(c *autopilot.Config) { c.YawToWP = false }, nil},
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

// at returns the last sample at or before time ts.
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
		{"MPC_YAW_MODE 4 keeps the heading", 4, 0.5},
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
