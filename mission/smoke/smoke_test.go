package smoke

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/daemon/daemontest"
)

// pipes is Config.Listen on an in-memory network: with it, the daemons and
// the client run in the test's synctest bubble, and the daemon's clock
// (×Speed of the bubble's fake clock) moves only when every goroutine
// waits, so the simulated vehicle always keeps up with the daemon's time
// however loaded the machine is.
func pipes() (net.Listener, *http.Client, error) {
	l := daemontest.NewPipeListener()
	return l, l.Client(), nil
}

// TestRun flies the smoke sequence on the demo adapter; every check
// passes, and the output is the same on every run: the lines and their
// numbers depend only on the daemon's time.
func TestRun(t *testing.T) {
	var outs []string
	for range 2 {
		synctest.Test(t, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cfg := Config{Speed: 50, Timeout: 2 * time.Minute, RecordDir: t.TempDir(), Listen: pipes}
			checks, err := Run(context.Background(), cfg, &out, &errOut)
			if err != nil {
				t.Fatalf("Run: %v\n%s\n%s", err, &out, &errOut)
			}
			if got := strings.Count(out.String(), "\nok   ") + 1; checks != 17 || got != 17 {
				t.Errorf("checks %d, %d ok lines; want 17:\n%s", checks, got, &out)
			}
			for _, w := range []string{"ok   connect", "ok   pause", "ok   mission completed", "ok   cancel", "ok   return-home pre-empts",
				"ok   landed", "ok   dump_log", "CONNECTING ARMING TAKEOFF EXECUTING PAUSED EXECUTING RETURNING LANDING LANDED"} {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, &out)
				}
			}
			if !strings.Contains(errOut.String(), "daemon stopped") {
				t.Errorf("stderr lacks the stop: %s", &errOut)
			}
			outs = append(outs, out.String())
		})
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// TestRunFailsafe: a FAILSAFE the flight does not expect ends it at once,
// naming the reason, instead of waiting out the timeout for a state the
// vehicle holding in FAILSAFE never reaches.
func TestRunFailsafe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		cfg := Config{Speed: 50, Timeout: 2 * time.Minute, Listen: pipes,
			faults: []adapter.Fault{{Kind: adapter.FaultBattery, At: 3 * time.Second}}}
		start := time.Now()
		_, err := Run(context.Background(), cfg, &out, &errOut)
		var f *Failure
		if !errors.As(err, &f) || !strings.Contains(f.Msg, "FAILSAFE (battery_low: ") || strings.Contains(f.Msg, "timed out") {
			t.Fatalf("Run: %v; want a failure naming FAILSAFE (battery_low: …)\n%s", err, &out)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("the failure came after %v; want it as the FAILSAFE comes, not at the %v timeout", d, cfg.Timeout)
		}
	})
}

// TestFlightParams: Run's flight gives the demo vehicle's telemetry a second
// of wall-clock time, whatever the speed, and never less than the default.
func TestFlightParams(t *testing.T) {
	for speed, want := range map[float64]time.Duration{0.5: time.Second, 1: time.Second, 10: 10 * time.Second, 50: 50 * time.Second} {
		if got := flightParams(speed).Machine.TelemetryTimeout; got != want {
			t.Errorf("speed ×%g: telemetry timeout %v; want %v", speed, got, want)
		}
	}
}

// TestFaults flies every fault kind on the sim adapter: each ends in
// FAILSAFE with its reason; the in-flight faults find the vehicle
// airborne well before FaultAt (under CPU load on the wall clock the
// simulator once lagged the daemon by 9 s: "EXECUTING at 23.6 s, fault at
// 15s").
func TestFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		cfg := Config{Speed: 50, Timeout: 5 * time.Minute, Listen: pipes}
		faults, checks, err := Faults(context.Background(), cfg, &out, &errOut)
		if err != nil {
			t.Fatalf("Faults: %v\n%s\n%s", err, &out, &errOut)
		}
		if faults != 8 || checks < 8*3 {
			t.Errorf("%d faults, %d checks; want 8 faults and at least 24 checks", faults, checks)
		}
		for _, w := range []string{"altitude_violation", "rpc_error", "takeoff_rejected", "battery_low", "link_lost",
			"telemetry_timeout", "position_lost", "attitude_failure"} {
			if !strings.Contains(out.String(), "FAILSAFE ("+w+")") {
				t.Errorf("output lacks FAILSAFE (%s):\n%s", w, &out)
			}
		}
		// The take-off, 6 s of daemon time or so, is done long before the fault.
		for _, m := range regexp.MustCompile(`EXECUTING at ([0-9.]+) s`).FindAllStringSubmatch(out.String(), -1) {
			if at, err := strconv.ParseFloat(m[1], 64); err != nil || at > 10 {
				t.Errorf("airborne at %s s; want at most 10 s, well before the fault at %v", m[1], FaultAt)
			}
		}
	})
}

// TestBadConfig: a bad configuration is refused before anything starts.
func TestBadConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"speed", Config{Speed: -1, Timeout: time.Minute}, "--speed"},
		{"speed NaN", Config{Speed: 0, Timeout: time.Minute}, "--speed"},
		{"timeout", Config{Speed: 1}, "--timeout"},
		{"state log folder", Config{Speed: 1, Timeout: time.Minute, StateLog: filepath.Join(dir, "none", "s.jsonl")}, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), tc.cfg, &bytes.Buffer{}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run: %v; want an error with %q", err, tc.want)
			}
		})
	}
	_, _, err := Faults(context.Background(), Config{Speed: 1, Timeout: time.Minute, StateLog: filepath.Join(dir, "s.jsonl")}, &bytes.Buffer{}, &bytes.Buffer{})
	var f *Failure
	if err == nil || errors.As(err, &f) || !strings.Contains(err.Error(), "keep no state log") {
		t.Errorf("Faults with a state log: %v; want refused", err)
	}
}
