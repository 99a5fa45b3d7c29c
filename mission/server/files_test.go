package server_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

func TestLoadOrCreateToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "mission.token")
	tok, created, err := server.LoadOrCreateToken(path)
	if err != nil || !created || len(tok) != 64 {
		t.Fatalf("create: got %q %v %v", tok, created, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: got %04o; want 0600", fi.Mode().Perm())
	}
	again, created, err := server.LoadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Fatalf("reuse: got %q %v %v", again, created, err)
	}
	tok2, _, _ := server.LoadOrCreateToken(filepath.Join(dir, "other"))
	if tok2 == tok {
		t.Errorf("two tokens are equal")
	}
}

func TestLoadTokenRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		mode          os.FileMode
	}{
		{"readable by others", "abc\n", 0o644},
		{"readable by the group", "abc\n", 0o640},
		{"empty", "\n", 0o600},
		{"two words", "abc def\n", 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(p, []byte(tc.content), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			if _, _, err := server.LoadOrCreateToken(p); !errors.Is(err, server.ErrTokenFile) {
				t.Errorf("got %v; want ErrTokenFile", err)
			}
		})
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "f.csv")
	for _, content := range []string{"one", "two"} {
		if err := server.WriteAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if string(b) != content {
			t.Errorf("got %q; want %q", b, content)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// paramCases feed the table test and the fuzz seeds.
var paramCases = []struct {
	name  string
	in    string
	field string // "" = valid
	err   error
}{
	{"empty object", `{}`, "", nil},
	{"all", `{"max_altitude":50,"home_z":-3,"takeoff_altitude":5,"telemetry_timeout":0.5,"battery_min":0.2,
		"link_loss_timeout":0,"failsafe_action":"land","record_events":false,"record_max_events":1000,
		"record_dir":"out","dump_on_shutdown":false}`, "", nil},
	{"integer max_altitude", `{"max_altitude":40}`, "", nil},
	{"max_altitude bool", `{"max_altitude":true}`, "max_altitude", mission.ErrNotNumber},
	{"max_altitude string", `{"max_altitude":"30"}`, "max_altitude", mission.ErrNotNumber},
	{"max_altitude NaN string", `{"max_altitude":"NaN"}`, "max_altitude", mission.ErrNotNumber},
	{"max_altitude Inf", `{"max_altitude":1e999}`, "max_altitude", mission.ErrNotFinite},
	{"max_altitude zero", `{"max_altitude":0}`, "max_altitude", mission.ErrMaxAltitude},
	{"max_altitude negative", `{"max_altitude":-5}`, "max_altitude", mission.ErrMaxAltitude},
	{"home_z bool", `{"home_z":false}`, "home_z", mission.ErrNotNumber},
	{"home_z string", `{"home_z":"0"}`, "home_z", mission.ErrNotNumber},
	{"home_z -Inf", `{"home_z":-1e999}`, "home_z", mission.ErrNotFinite},
	{"home_z null", `{"home_z":null}`, "home_z", mission.ErrNotNumber},
	{"record_events number", `{"record_events":1}`, "record_events", mission.ErrNotBool},
	{"record_max_events zero", `{"record_max_events":0}`, "record_max_events", mission.ErrRange},
	{"record_max_events fraction", `{"record_max_events":2.5}`, "record_max_events", mission.ErrRange},
	{"record_dir number", `{"record_dir":3}`, "record_dir", mission.ErrNotString},
	{"battery_min one", `{"battery_min":1}`, "battery_min", mission.ErrRange},
	{"failsafe_action", `{"failsafe_action":"return"}`, "failsafe_action", mission.ErrRange},
	{"telemetry_timeout zero", `{"telemetry_timeout":0}`, "telemetry_timeout", mission.ErrRange},
	{"unknown key", `{"use_airsim":true}`, "use_airsim", mission.ErrUnknownField},
	{"duplicate key", `{"home_z":0,"home_z":1}`, "home_z", mission.ErrDuplicateField},
	{"takeoff above max_altitude", `{"max_altitude":3,"takeoff_altitude":5}`, "takeoff_altitude", mission.ErrRange},
	{"takeoff above max_altitude, either order", `{"takeoff_altitude":40}`, "takeoff_altitude", mission.ErrRange},
	{"takeoff below its tolerance", `{"takeoff_altitude":0.4}`, "takeoff_altitude", mission.ErrRange},
	{"ground_margin at max_altitude", `{"max_altitude":3,"ground_margin":3}`, "ground_margin", mission.ErrRange},
	{"max_altitude below the return altitude", `{"max_altitude":1.5,"takeoff_altitude":1}`, "max_altitude", mission.ErrRange},
	{"ground_margin", `{"ground_margin":0}`, "", nil},
	{"ground_margin negative", `{"ground_margin":-1}`, "ground_margin", mission.ErrRange},
	{"max_hor_dist", `{"max_hor_dist":250}`, "", nil},
	{"max_hor_dist zero", `{"max_hor_dist":0}`, "max_hor_dist", mission.ErrRange},
	{"max_hor_dist 1e200", `{"max_hor_dist":1e200}`, "max_hor_dist", mission.ErrRange},
	{"home_z 1.8e305", `{"home_z":1.8e305}`, "home_z", mission.ErrCoordRange},
	{"max_altitude 1e306", `{"max_altitude":1e306}`, "max_altitude", mission.ErrRange},
	{"takeoff_altitude 1e306", `{"takeoff_altitude":1e306}`, "takeoff_altitude", mission.ErrRange},
	{"not an object", `[1]`, "", mission.ErrNotObject},
	{"not JSON", `max_altitude: 30`, "", mission.ErrSyntax},
}

func TestParseParams(t *testing.T) {
	for _, tc := range paramCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := server.ParseParams([]byte(tc.in), "params.json")
			if tc.err == nil {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			var pe *mission.ParseError
			if !errors.As(err, &pe) || pe.Field != tc.field || pe.File != "params.json" {
				t.Fatalf("got %v (%T); want a ParseError in params.json at %q", err, err, tc.field)
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v; want %v", err, tc.err)
			}
			// Issue 21 item 20: the message names the parameter as the file
			// does, never a Go field (TakeoffAltM).
			if msg := err.Error(); strings.Contains(msg, "AltM") || strings.Contains(msg, "config ") {
				t.Errorf("message %q names a Go field", msg)
			}
			if p != (server.Params{}) {
				t.Errorf("params returned with an error: %+v", p)
			}
		})
	}
	p, err := server.ParseParams([]byte(paramCases[1].in), "p")
	if err != nil {
		t.Fatal(err)
	}
	want := server.DefaultParams()
	want.Machine.MaxAltitudeM, want.HomeZ, want.HomeZSet, want.Machine.TakeoffAltM = 50, -3, true, 5
	want.Machine.TelemetryTimeout, want.Machine.BatteryMin, want.Machine.LinkLoss = 500*time.Millisecond, 0.2, 0
	want.Machine.FailsafeLand, want.RecordEvents, want.RecordMaxEvents, want.RecordDir, want.DumpOnShutdown = true, false, 1000, "out", false
	if p != want {
		t.Errorf("got %+v\nwant %+v", p, want)
	}
}

func FuzzParseParams(f *testing.F) {
	for _, tc := range paramCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := server.ParseParams(data, "f")
		if err != nil {
			var pe *mission.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *mission.ParseError", err, err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted invalid params: %v", err)
		}
		if math.IsNaN(p.HomeZ) || p.RecordMaxEvents < 1 {
			t.Fatalf("accepted %+v", p)
		}
	})
}
