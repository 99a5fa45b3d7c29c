package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/daemon/daemontest"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"adapter", CheckAdapter("airsim", 1), "--adapter"},
		{"speed 0", CheckAdapter("demo", 0), "--speed"},
		{"speed 101", CheckAdapter("sim", 101), "--speed"},
		{"remote", CheckListen("0.0.0.0:7350", false), "--allow-remote"},
		{"no port", CheckListen("7350", false), "host:port"},
		{"name", CheckListen("example.com:7350", false), "not a loopback"},
		{"ok demo", CheckAdapter("demo", 100), ""},
		{"ok loopback", CheckListen("127.0.0.1:0", false), ""},
		{"ok localhost", CheckListen("localhost:0", false), ""},
		{"ok remote allowed", CheckListen("0.0.0.0:0", true), ""},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v; want nil", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: %v; want an error with %q", tc.name, tc.err, tc.want)
		}
	}
}

// TestStartFailsCleanly: a daemon that cannot start leaves no state log
// behind: neither when the adapter refuses its faults nor when the
// listener cannot open (after the log was).
func TestStartFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	slog := filepath.Join(dir, "state.jsonl")
	p := server.DefaultParams()
	for _, cfg := range []Config{
		{Params: p, Adapter: "state_only", Speed: 1, Listen: "127.0.0.1:0", StateLog: slog, StateLogBytes: 1 << 20,
			Faults: []adapter.Fault{{Kind: adapter.FaultMotor, At: time.Second}}},
		{Params: p, Adapter: "demo", Speed: 1, Listen: "127.0.0.1:bad", StateLog: slog, StateLogBytes: 1 << 20},
	} {
		if d, err := Start(cfg); err == nil {
			d.Stop()
			t.Errorf("Start %+v: no error", cfg.Listen)
		}
		if _, err := os.Stat(slog); !os.IsNotExist(err) {
			t.Errorf("Start failed and left %s: %v", slog, err)
		}
	}
}

// TestStartDemo starts a demo daemon at ×10 on an in-memory listener and
// flies connect to EXECUTING on the bubble's clock.
func TestStartDemo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := server.DefaultParams()
		p.RecordDir = t.TempDir()
		d, err := Start(Config{Params: p, Adapter: "demo", Speed: 10, Tick: 50 * time.Millisecond, Listener: daemontest.NewPipeListener(), Token: "tok"})
		if err != nil {
			t.Fatal(err)
		}
		if d.URL() != "http://127.0.0.1:7350" {
			t.Errorf("URL %s", d.URL())
		}
		s := d.Server()
		for _, ev := range []mission.Event{mission.Connect{}, mission.Arm{}, mission.Airborne{}} {
			for {
				if rep, err := s.Do(context.Background(), ev); err == nil && rep.Success {
					break
				}
				time.Sleep(100 * time.Millisecond) // the bubble's clock: wait for the state to move on
			}
		}
		for s.Status().State != "EXECUTING" {
			time.Sleep(100 * time.Millisecond)
		}
		if err := d.Stop(); err != nil {
			t.Fatal(err)
		}
	})
}
