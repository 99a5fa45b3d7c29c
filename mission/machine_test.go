package mission

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/geom"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		ok     bool
	}{
		{"default", func(*Config) {}, true},
		{"demo mode", func(c *Config) { c.AdapterMode = "demo" }, true},
		{"mavlink mode", func(c *Config) { c.AdapterMode = "mavlink" }, true},
		{"unknown mode", func(c *Config) { c.AdapterMode = "airsim" }, false},
		{"max altitude zero", func(c *Config) { c.MaxAltitudeM = 0 }, false},
		{"max altitude negative", func(c *Config) { c.MaxAltitudeM = -1 }, false},
		{"max altitude NaN", func(c *Config) { c.MaxAltitudeM = math.NaN() }, false},
		{"max altitude +Inf", func(c *Config) { c.MaxAltitudeM = math.Inf(1) }, false},
		{"take-off above max altitude", func(c *Config) { c.MaxAltitudeM = 1.5 }, false},
		{"take-off tolerance too large", func(c *Config) { c.AirborneTolM = 2 }, false},
		{"telemetry timeout zero", func(c *Config) { c.TelemetryTimeout = 0 }, false},
		{"battery check off", func(c *Config) { c.BatteryMin = 0 }, true},
		{"battery at 1", func(c *Config) { c.BatteryMin = 1 }, false},
		{"battery negative", func(c *Config) { c.BatteryMin = -0.1 }, false},
		{"link loss off", func(c *Config) { c.LinkLoss = 0 }, true},
		{"link loss negative", func(c *Config) { c.LinkLoss = -time.Second }, false},
		{"land hold zero", func(c *Config) { c.LandHold = 0 }, true},
		{"arrival radius NaN", func(c *Config) { c.ArrivalRadiusM = math.NaN() }, false},
		{"max altitude 10 km", func(c *Config) { c.MaxAltitudeM = 10e3 }, true},
		{"max altitude 1.8e305", func(c *Config) { c.MaxAltitudeM = 1.8e305 }, false},
		{"ground margin off", func(c *Config) { c.GroundMarginM = 0 }, true},
		{"ground margin negative", func(c *Config) { c.GroundMarginM = -0.1 }, false},
		{"ground margin at max altitude", func(c *Config) { c.GroundMarginM = 30 }, false},
		{"geofence off refused", func(c *Config) { c.MaxHorDistM = 0 }, false},
		{"geofence 100 km", func(c *Config) { c.MaxHorDistM = 100e3 }, true},
		{"geofence 1e200", func(c *Config) { c.MaxHorDistM = 1e200 }, false},
		{"return speed 1e306", func(c *Config) { c.ReturnSpeedMS = 1e306 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.modify(&c)
			err := c.Validate()
			if got := err == nil; got != tt.ok {
				t.Errorf("Validate: got %v; want ok = %v", err, tt.ok)
			}
			if _, err := New(c); (err == nil) != tt.ok {
				t.Errorf("New: got %v; want ok = %v", err, tt.ok)
			}
		})
	}
}

func TestValidateMission(t *testing.T) {
	wp := func(z float64) Waypoint { return Waypoint{X: 1, Y: 2, Z: z} }
	many := func(n int) []Waypoint {
		w := make([]Waypoint, n)
		for i := range w {
			w[i] = wp(-2)
		}
		return w
	}
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name          string
		wps           []Waypoint
		homeZ, maxAlt float64
		field         string // "" = valid
		want          error
	}{
		{"one point", []Waypoint{wp(-2)}, 0, 30, "", nil},
		{"ceiling inclusive", []Waypoint{wp(-30)}, 0, 30, "", nil},
		{"above the ceiling", []Waypoint{wp(-30.000001)}, 0, 30, "waypoints[0].z", ErrAltitude},
		{"at home refused", []Waypoint{wp(0)}, 0, 30, "waypoints[0].z", ErrAltitude},
		{"just above home", []Waypoint{wp(-1e-9)}, 0, 30, "", nil},
		{"below home", []Waypoint{wp(2)}, 0, 30, "waypoints[0].z", ErrAltitude},
		{"home_z -5 ceiling", []Waypoint{wp(-35)}, -5, 30, "", nil},
		{"home_z -5 above ceiling", []Waypoint{wp(-35.001)}, -5, 30, "waypoints[0].z", ErrAltitude},
		{"home_z -5 at home", []Waypoint{wp(-5)}, -5, 30, "waypoints[0].z", ErrAltitude},
		{"home_z -5 below home", []Waypoint{wp(-4)}, -5, 30, "waypoints[0].z", ErrAltitude},
		{"home_z 3 just above", []Waypoint{wp(2.999)}, 3, 30, "", nil},
		{"home_z 3 ceiling", []Waypoint{wp(-27)}, 3, 30, "", nil},
		{"home_z 3 above ceiling", []Waypoint{wp(-27.001)}, 3, 30, "waypoints[0].z", ErrAltitude},
		{"bad point last", []Waypoint{wp(-2), wp(-2), wp(5)}, 0, 30, "waypoints[2].z", ErrAltitude},
		{"empty", nil, 0, 30, "waypoints", ErrEmptyMission},
		{"100 points", many(100), 0, 30, "", nil},
		{"101 points", many(101), 0, 30, "waypoints", ErrTooManyWaypoints},
		{"home_z NaN first", many(101), nan, 30, "home_z", ErrNotFinite},
		{"home_z +Inf", []Waypoint{wp(-2)}, inf, 30, "home_z", ErrNotFinite},
		{"home_z -Inf", []Waypoint{wp(-2)}, -inf, 30, "home_z", ErrNotFinite},
		{"max_altitude zero", []Waypoint{wp(-2)}, 0, 0, "max_altitude", ErrMaxAltitude},
		{"max_altitude negative", []Waypoint{wp(-2)}, 0, -10, "max_altitude", ErrMaxAltitude},
		{"max_altitude NaN", []Waypoint{wp(-2)}, 0, nan, "max_altitude", ErrMaxAltitude},
		{"max_altitude Inf", []Waypoint{wp(-2)}, 0, inf, "max_altitude", ErrMaxAltitude},
		{"x NaN", []Waypoint{{X: nan, Z: -2}}, 0, 30, "waypoints[0].x", ErrNotFinite},
		{"y Inf", []Waypoint{{Y: inf, Z: -2}}, 0, 30, "waypoints[0].y", ErrNotFinite},
		{"z -Inf", []Waypoint{{Z: -inf}}, 0, 30, "waypoints[0].z", ErrNotFinite},
		{"speed negative", []Waypoint{{Z: -2, SpeedMS: -1}}, 0, 30, "waypoints[0].speed", ErrSpeed},
		{"speed NaN", []Waypoint{{Z: -2, SpeedMS: nan}}, 0, 30, "waypoints[0].speed", ErrSpeed},
		{"speed zero means default", []Waypoint{{Z: -2}}, 0, 30, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateMission(tt.wps, tt.homeZ, tt.maxAlt)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.want) || pe.Field != tt.field {
				t.Fatalf("got %v; want %v at %s", err, tt.want, tt.field)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  Event
		err   error
		field string
	}{
		{"connect", `{"event":"connect"}`, Connect{}, nil, ""},
		{"armed", `{"event":"armed"}`, Arm{}, nil, ""},
		{"airborne", `{"event":"airborne"}`, Airborne{}, nil, ""},
		{"return home", ` {"event" : "return_home"} `, ReturnHome{}, nil, ""},
		{"goto default speed", `{"event":"goto","x":4,"y":0,"z":-2}`, Goto{Waypoint{4, 0, -2, 3}}, nil, ""},
		{"goto speed", `{"z":-2,"speed":2.5,"event":"goto","x":4,"y":-1}`, Goto{Waypoint{4, -1, -2, 2.5}}, nil, ""},
		{"goto integer-valued floats", `{"event":"goto","x":4.0,"y":0e0,"z":-2E0}`, Goto{Waypoint{4, 0, -2, 3}}, nil, ""},
		{"mission", `{"event":"mission","waypoints":[{"x":1,"y":2,"z":-3},{"x":4,"y":5,"z":-6,"speed":1}]}`,
			Load{[]Waypoint{{1, 2, -3, 3}, {4, 5, -6, 1}}}, nil, ""},
		{"tiny number", `{"event":"goto","x":1e-400,"y":0,"z":-2}`, Goto{Waypoint{0, 0, -2, 3}}, nil, ""},
		{"not JSON", `connect`, nil, ErrSyntax, ""},
		{"empty body", ``, nil, ErrSyntax, ""},
		{"truncated", `{"event":"goto","x":`, nil, ErrSyntax, "x"},
		{"trailing", `{"event":"pause"}]`, nil, ErrSyntax, ""},
		{"array", `[{"event":"pause"}]`, nil, ErrNotObject, ""},
		{"null", `null`, nil, ErrNotObject, ""},
		{"no event", `{}`, nil, ErrMissing, "event"},
		{"event number", `{"event":1}`, nil, ErrNotString, "event"},
		{"unknown event", `{"event":"takeoff"}`, nil, ErrUnknownEvent, "event"},
		{"event case matters", `{"event":"Pause"}`, nil, ErrUnknownEvent, "event"},
		{"duplicate event", `{"event":"pause","event":"land"}`, nil, ErrDuplicateField, "event"},
		{"field on pause", `{"event":"pause","force":true}`, nil, ErrUnknownField, "force"},
		{"goto bool", `{"event":"goto","x":true,"y":0,"z":-2}`, nil, ErrNotNumber, "x"},
		{"goto string", `{"event":"goto","x":"1","y":0,"z":-2}`, nil, ErrNotNumber, "x"},
		{"goto null", `{"event":"goto","x":null,"y":0,"z":-2}`, nil, ErrNotNumber, "x"},
		{"goto object", `{"event":"goto","x":{},"y":0,"z":-2}`, nil, ErrNotNumber, "x"},
		{"goto overflow", `{"event":"goto","x":1,"y":-1e309,"z":-2}`, nil, ErrNotFinite, "y"},
		{"goto missing y", `{"event":"goto","x":1,"z":-2}`, nil, ErrMissing, "y"},
		{"goto unknown", `{"event":"goto","x":1,"y":0,"z":-2,"yaw":1}`, nil, ErrUnknownField, "yaw"},
		{"goto speed zero", `{"event":"goto","x":1,"y":0,"z":-2,"speed":0}`, nil, ErrSpeed, "speed"},
		{"goto speed negative", `{"event":"goto","x":1,"y":0,"z":-2,"speed":-3}`, nil, ErrSpeed, "speed"},
		{"mission no list", `{"event":"mission"}`, nil, ErrMissing, "waypoints"},
		{"mission null", `{"event":"mission","waypoints":null}`, nil, ErrNotList, "waypoints"},
		{"mission empty", `{"event":"mission","waypoints":[]}`, nil, ErrEmptyMission, "waypoints"},
		{"mission bool", `{"event":"mission","waypoints":[{"x":1,"y":false,"z":-2}]}`, nil, ErrNotNumber, "waypoints[0].y"},
		{"mission second bad", `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2},{"x":1,"y":0}]}`, nil, ErrMissing, "waypoints[1].z"},
		{"mission number item", `{"event":"mission","waypoints":[3]}`, nil, ErrNotObject, "waypoints[0]"},
		{"mission duplicate", `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2,"z":-3}]}`, nil, ErrDuplicateField, "waypoints[0].z"},
		{"mission extra field", `{"event":"mission","waypoints":[{"x":1,"y":0,"z":-2}],"loop":true}`, nil, ErrUnknownField, "loop"},
		{"mission 101", `{"event":"mission","waypoints":[` + strings.Repeat(`{"x":1,"y":0,"z":-2},`, 100) + `{"x":1,"y":0,"z":-2}]}`,
			nil, ErrTooManyWaypoints, "waypoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := ParseCommand([]byte(tt.in))
			if tt.err == nil {
				if err != nil {
					t.Fatalf("got %v; want %v", err, tt.want)
				}
				if diff := cmp.Diff(tt.want, ev); diff != "" {
					t.Fatalf("event (-want +got):\n%s", diff)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.err) || pe.Field != tt.field {
				t.Fatalf("got %v; want %v at %q", err, tt.err, tt.field)
			}
			want := CodeInvalid
			if tt.err == ErrSyntax || tt.err == ErrNotObject {
				want = CodeBadJSON
			}
			if Code(err) != want {
				t.Errorf("code: got %q; want %q", Code(err), want)
			}
		})
	}
}

func TestCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"syntax", &ParseError{Err: ErrSyntax}, CodeBadJSON},
		{"not an object", &ParseError{Err: ErrNotObject}, CodeBadJSON},
		{"parse", &ParseError{Field: "x", Err: ErrNotNumber}, CodeInvalid},
		{"wrong state", ErrWrongState, CodeWrongState},
		{"wrapped wrong state", errors.Join(errors.New("x"), ErrWrongState), CodeWrongState},
		{"queue busy", ErrQueueBusy, CodeQueueBusy},
		{"target", ErrTargetActive, CodeTargetActive},
		{"not ready", ErrNotReady, CodeNotReady},
		{"nothing", ErrNothingToCancel, CodeNothingToCancel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Code(tt.err); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestStrings(t *testing.T) {
	if got := State(42).String(); got != "State(42)" {
		t.Errorf("got %q", got)
	}
	if got := QueueState(9).String(); got != "QueueState(9)" {
		t.Errorf("got %q", got)
	}
	if got := CmdKind(99).String(); got != "CmdKind(99)" {
		t.Errorf("got %q", got)
	}
	for _, n := range CommandNames {
		ev, ok := CommandByName(n)
		if !ok || ev.Name() != n {
			t.Errorf("CommandByName(%q) = %v, %v", n, ev, ok)
		}
	}
}

// fly drives a machine through the nominal flight with an ideal vehicle
// that answers every command and reports its new state at once.
type fly struct {
	t   testing.TB
	m   *Machine
	now time.Duration
	veh Telemetry
	all []Record
}

func newFly(t testing.TB, cfg Config) *fly {
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fly{t: t, m: m, veh: Telemetry{Landed: true, Battery: 1}}
}

// do feeds ev, then answers every command and reports telemetry until
// nothing is outstanding.
func (f *fly) do(ev Event) error {
	rd := f.m.Step(f.now, ev)
	err := rd.Err
	f.all = append(f.all, rd.Records...)
	for i := 0; i < 50; i++ {
		if !f.m.hasPending {
			break
		}
		c := f.m.pending
		switch c.Kind {
		case CmdArm:
			f.veh.Armed = true
		case CmdTakeoff:
			f.veh.Landed = false
			f.veh.Pos.Z = f.m.home.Z - c.AltM
		case CmdGoto:
			f.veh.Pos = c.Target
		case CmdLand:
			f.veh.Landed, f.veh.Pos.Z = true, f.m.home.Z
		case CmdDisarm:
			f.veh.Armed = false
		}
		rd = f.m.Step(f.now, Result{ID: c.ID})
		f.all = append(f.all, rd.Records...)
		rd = f.m.Step(f.now, f.veh)
		f.all = append(f.all, rd.Records...)
	}
	return err
}

// wait lets d pass in 50-ms ticks with telemetry.
func (f *fly) wait(d time.Duration) {
	for end := f.now + d; f.now < end; {
		f.now += 50 * time.Millisecond
		f.all = append(f.all, f.m.Step(f.now, f.veh).Records...)
		if f.m.hasPending {
			f.do(Tick{})
		}
	}
}

func (f *fly) must(ev Event) {
	f.t.Helper()
	if err := f.do(ev); err != nil {
		f.t.Fatalf("%s: %v", ev.Name(), err)
	}
}

// TestStatusJSONHugeValues is issue 21 item 3: huge finite numbers must
// not blank the status. Before round3 was bounded, x ≥ 1.8e305 rounded to
// +Inf and json.Marshal failed, so GET /v1/status and the stream went
// empty while the vehicle flew.
func TestStatusJSONHugeValues(t *testing.T) {
	for _, v := range []float64{1.8e305, -1.7976931348623157e308, 1e15, 9.2e12} {
		f := newFly(t, DefaultConfig())
		f.must(Connect{})
		f.must(Tick{})
		f.m.Step(f.now, Telemetry{Pos: geom.Vec3{X: v, Y: -v, Z: v}, Vel: geom.Vec3{X: v}, Battery: v})
		st := f.m.Status()
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatalf("telemetry at %g: status JSON: %v", v, err)
		}
		if st.Position == nil || st.Position.X != v {
			t.Errorf("telemetry at %g: got position %+v; want x = %g kept as is", v, st.Position, v)
		}
		if !strings.Contains(string(b), `"state":`) {
			t.Errorf("status JSON %s has no state", b)
		}
	}
	for _, c := range []struct{ in, want float64 }{{1.23456, 1.235}, {-0.0004, 0}, {1e12, 1e12}, {1.8e305, 1.8e305}} {
		if got := round3(c.in); got != c.want {
			t.Errorf("round3(%g) = %g; want %g", c.in, got, c.want)
		}
	}
}

// TestFenceBounds is issue 21 items 2 to 4 at the Fence level: the
// geofence about home (not the origin), the ground margin and the range
// bounds, each naming its field.
func TestFenceBounds(t *testing.T) {
	f := Fence{Home: geom.Vec3{X: 500, Y: -500, Z: -1}, MaxAltitudeM: 30, GroundMarginM: 0.5, MaxHorDistM: 1000}
	tests := []struct {
		name  string
		w     Waypoint
		field string // "" = valid
		want  error
	}{
		{"near home", Waypoint{X: 500, Y: -500, Z: -3}, "", nil},
		{"fence edge about home", Waypoint{X: 1500, Y: -500, Z: -3}, "", nil},
		{"beyond the fence", Waypoint{X: 1500.01, Y: -500, Z: -3}, "x", ErrGeofence},
		{"the origin is not home", Waypoint{X: -500.1, Y: -500, Z: -3}, "x", ErrGeofence},
		{"x 1e200", Waypoint{X: 1e200, Z: -3}, "x", ErrCoordRange},
		{"y -1e154", Waypoint{Y: -1e154, Z: -3}, "y", ErrCoordRange},
		{"z 1.8e305", Waypoint{Z: 1.8e305}, "z", ErrCoordRange},
		{"speed 1.8e305", Waypoint{X: 500, Y: -500, Z: -3, SpeedMS: 1.8e305}, "speed", ErrSpeedRange},
		{"speed 50", Waypoint{X: 500, Y: -500, Z: -3, SpeedMS: 50}, "", nil},
		{"margin edge", Waypoint{X: 500, Y: -500, Z: -1.5}, "", nil},
		{"inside the margin", Waypoint{X: 500, Y: -500, Z: -1.49}, "z", ErrAltitude},
		{"at home", Waypoint{X: 500, Y: -500, Z: -1}, "z", ErrAltitude},
		{"below home", Waypoint{X: 500, Y: -500, Z: 0}, "z", ErrAltitude},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.Check(tt.w, "")
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.want) || pe.Field != tt.field {
				t.Fatalf("got %v; want %v at %s", err, tt.want, tt.field)
			}
		})
	}
	if got := Code(f.Check(Waypoint{X: 5000, Z: -3}, "")); got != CodeGeofence {
		t.Errorf("Code of a geofence refusal: got %q; want %q", got, CodeGeofence)
	}
	// ValidateBand bounds home_z and max_altitude (--home-z 1.8e305 blanked the status).
	for _, c := range []struct{ homeZ, maxAlt float64 }{{1.8e305, 30}, {-100001, 30}, {0, 1.8e305}, {0, 10001}} {
		if err := ValidateBand(c.homeZ, c.maxAlt); err == nil {
			t.Errorf("ValidateBand(%g, %g): got nil; want an error", c.homeZ, c.maxAlt)
		}
	}
}

func TestNominalFlight(t *testing.T) {
	f := newFly(t, DefaultConfig())
	f.must(Connect{})
	f.must(Tick{})
	f.must(Arm{})
	f.must(Airborne{})
	if got := f.m.State(); got != StateExecuting {
		t.Fatalf("state after take-off: got %s; want EXECUTING", got)
	}
	f.must(Load{[]Waypoint{{4, 0, -2, 2}, {8, 0, -2, 2}, {12, 0, -2, 2}}})
	if got := f.m.Queue(); got.State != "COMPLETED" || got.Completed != 3 || got.Total != 3 || got.CurrentIndex != nil {
		t.Fatalf("queue: got %+v; want COMPLETED 3/3", got)
	}
	f.must(ReturnHome{})
	f.wait(3 * time.Second)
	if got := f.m.State(); got != StateLanded {
		t.Fatalf("state after return: got %s; want LANDED", got)
	}
	var trans []string
	for _, r := range f.all {
		if r.Kind == KindTransition {
			trans = append(trans, r.State.String())
		}
	}
	want := "CONNECTING ARMING TAKEOFF EXECUTING RETURNING LANDING LANDED"
	if got := strings.Join(trans, " "); got != want {
		t.Errorf("transitions: got %s; want %s", got, want)
	}
}

// TestTelemetryTimeout checks that FAILSAFE follows the last telemetry
// sample within one timeout period (plus the tick that notices it) of
// simulated time, for several timeouts and tick periods, and that the
// reason is recorded.
func TestTelemetryTimeout(t *testing.T) {
	for _, tc := range []struct {
		name          string
		timeout, tick time.Duration
	}{
		{"1 s at 20 Hz", time.Second, 50 * time.Millisecond},
		{"1 s at 3 Hz", time.Second, 333 * time.Millisecond},
		{"0.2 s at 100 Hz", 200 * time.Millisecond, 10 * time.Millisecond},
		{"5 s at 7 Hz", 5 * time.Second, 143 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.TelemetryTimeout = tc.timeout
			f := newFly(t, cfg)
			f.must(Connect{})
			f.must(Tick{})
			f.must(Arm{})
			f.must(Airborne{})
			f.must(Goto{Waypoint{10, 0, -5, 2}})
			last := f.now
			var at time.Duration
			var rec Record
			for f.now < last+10*tc.timeout && at == 0 {
				f.now += tc.tick
				for _, r := range f.m.Step(f.now, Tick{}).Records {
					if r.State == StateFailsafe {
						at, rec = f.now, r
					}
				}
			}
			if at == 0 {
				t.Fatalf("no FAILSAFE within %v", 10*tc.timeout)
			}
			if at-last <= tc.timeout || at-last > tc.timeout+tc.tick {
				t.Errorf("FAILSAFE %v after the last sample; want in (%v, %v]", at-last, tc.timeout, tc.timeout+tc.tick)
			}
			if !strings.Contains(rec.Detail, "reason="+ReasonTelemetryTimeout) {
				t.Errorf("record %q lacks the reason", rec.Detail)
			}
			st := f.m.Status()
			if st.FailsafeReason == nil || *st.FailsafeReason != ReasonTelemetryTimeout {
				t.Errorf("status reason: got %v", st.FailsafeReason)
			}
		})
	}
}

// TestTerminalQueueStatus checks the counter semantics of the three
// terminal states in the status JSON.
func TestTerminalQueueStatus(t *testing.T) {
	wps := []Waypoint{{1, 0, -2, 0}, {2, 0, -2, 0}, {3, 0, -2, 0}}
	for _, tc := range []struct {
		name string
		end  func(f *fly)
		want string
	}{
		{"completed", func(f *fly) {}, `{"state":"COMPLETED","total":3,"completed":3,"current_index":null,"remaining":0}`},
		{"canceled", func(f *fly) { f.must(Cancel{}) }, `{"state":"CANCELED","total":3,"completed":1,"current_index":null,"remaining":0}`},
		{"aborted", func(f *fly) { f.m.Step(f.now+2*time.Second, Tick{}) }, `{"state":"ABORTED","total":3,"completed":1,"current_index":null,"remaining":0}`},
		{"returned", func(f *fly) { f.must(ReturnHome{}) }, `{"state":"CANCELED","total":3,"completed":1,"current_index":null,"remaining":0}`},
		{"landed", func(f *fly) { f.must(Land{}) }, `{"state":"CANCELED","total":3,"completed":1,"current_index":null,"remaining":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFly(t, DefaultConfig())
			f.must(Connect{})
			f.must(Tick{})
			f.must(Arm{})
			f.must(Airborne{})
			if tc.name != "completed" {
				// stop the ideal vehicle after the first waypoint
				rd := f.m.Step(f.now, Load{wps})
				if rd.Err != nil {
					t.Fatal(rd.Err)
				}
				f.m.Step(f.now, Result{ID: f.m.pending.ID}) // cancel of the take-off
				f.m.Step(f.now, Result{ID: f.m.pending.ID}) // goto wp 0
				f.m.Step(f.now, Telemetry{Pos: geom.Vec3{X: 1, Z: -2}, Armed: true, Battery: 1})
				f.veh.Pos = geom.Vec3{X: 1, Z: -2}
			} else {
				f.must(Load{wps})
			}
			tc.end(f)
			b, err := json.Marshal(f.m.Status().MissionQueue)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got %s; want %s", b, tc.want)
			}
		})
	}
}

// TestRandomSequences drives many seeded random input sequences through the
// invariant checks of the fuzz driver and makes sure they reach every
// terminal queue state and LANDED, so that the checks were exercised.
func TestRandomSequences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	seen := map[string]bool{}
	// a bias toward the flight: answers, telemetry and missions are frequent
	alphabet := []byte{0, 1, 2, 3, 5, 25, 25, 7, 8, 9, 10, 11, 12, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 31, 32, 32, 32, 32, 33, 40, 41, 45, 47, 48, 49, 50, 51}
	for run := 0; run < 400; run++ {
		cfg := DefaultConfig()
		cfg.LinkLoss = 2 * time.Second
		m, _ := New(cfg)
		d := &driver{t: t, m: m, landed: true, dispatched: map[int]int{}}
		data := make([]byte, 200)
		for i := range data {
			data[i] = alphabet[rng.IntN(len(alphabet))]
		}
		// replay through the same decoder as FuzzMachine
		for _, b := range data {
			fuzzStep(d, b)
			seen[m.state.String()] = true
			seen["queue "+m.q.state.String()] = true
		}
	}
	t.Logf("reached %v", seen)
	for _, want := range []string{"LANDED", "FAILSAFE", "PAUSED", "RETURNING", "queue COMPLETED", "queue CANCELED", "queue ABORTED"} {
		if !seen[want] {
			t.Errorf("random sequences never reached %s", want)
		}
	}
}

// BenchmarkStep measures the pure machine from a goto command to the goto
// dispatched: the command (which dispatches the cancel of the running goto),
// the cancel's result (which dispatches the goto), and the goto's result.
func BenchmarkStep(b *testing.B) {
	f := newFly(b, DefaultConfig())
	for _, ev := range []Event{Connect{}, Tick{}, Arm{}, Airborne{}, Goto{Waypoint{1, 1, -3, 0}}} {
		if err := f.do(ev); err != nil {
			b.Fatal(err)
		}
	}
	m, now := f.m, f.now
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rd := m.Step(now, Goto{Waypoint{float64(i % 7), 1, -3, 2}})
		if rd.Err != nil || len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdCancel {
			b.Fatalf("goto: %+v", rd)
		}
		rd = m.Step(now, Result{ID: rd.Commands[0].ID})
		if len(rd.Commands) != 1 || rd.Commands[0].Kind != CmdGoto {
			b.Fatalf("after cancel: %+v", rd)
		}
		m.Step(now, Result{ID: rd.Commands[0].ID})
	}
}
