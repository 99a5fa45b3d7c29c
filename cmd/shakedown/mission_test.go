package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/client"
	"github.com/shakedown-robotics/shakedown/mission/daemon/daemontest"
)

// smokeCLI runs "mission smoke" with args as main would (the exit code,
// stdout, stderr), its daemons on an in-memory network inside a synctest
// bubble: the daemon's clock (×--speed of the bubble's) moves only when
// every goroutine waits, so no check depends on how loaded the machine is.
func smokeCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		cmd := newMissionSmokeCmd(func() (net.Listener, *http.Client, error) {
			l := daemontest.NewPipeListener()
			return l, l.Client(), nil
		})
		cmd.SetOut(&o)
		cmd.SetErr(&e)
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		var f *failure
		switch {
		case err == nil:
			code = exitOK
		case errors.As(err, &f):
			code = exitFailure
			fmt.Fprintln(&e, "shakedown:", f.msg)
		default:
			code = exitBadRun
			fmt.Fprintln(&e, "shakedown:", err)
		}
	})
	return code, o.String(), e.String()
}

// TestMissionSmoke runs the smoke command: its own daemon, a whole flight,
// every status checked.
func TestMissionSmoke(t *testing.T) {
	code, out, errOut := smokeCLI(t, "--speed", "50")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, w := range []string{"ok   connect", "ok   pause", "ok   mission completed", "ok   cancel", "ok   return-home pre-empts",
		"ok   landed", "ok   dump_log", "smoke passed: 17 checks"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(errOut, "daemon stopped") {
		t.Errorf("stderr lacks the stop: %s", errOut)
	}
}

// lockedBuffer is a bytes.Buffer safe for the daemon's log goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveMission runs "mission serve" with args until the returned stop is
// called; it returns the daemon's address.
func serveMission(t *testing.T, args ...string) (addr string, stderr *lockedBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr = &lockedBuffer{}
	root := newRoot(pw, stderr)
	root.SetArgs(append([]string{"mission", "serve", "--listen", "127.0.0.1:0"}, args...))
	errc := make(chan error, 1)
	go func() {
		err := root.ExecuteContext(ctx)
		pw.Close()
		errc <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("serve did not start: %v; stderr %s; %v", err, stderr, <-errc)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line), stderr, func() error { cancel(); return <-errc }
}

func TestMissionServeAndClient(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	box := filepath.Join(dir, "box")
	addr, stderr, stop := serveMission(t, "--token-file", tok, "--record-dir", box, "--adapter", "state_only")
	fi, err := os.Stat(tok)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	secret, _ := os.ReadFile(tok)
	cl := []string{"mission", "--addr", addr, "--token-file", tok}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		code, out, errOut := sh(t, append(append([]string{}, cl...), args...)...)
		if code != wantCode {
			t.Fatalf("%v: exit %d; want %d\n%s%s", args, code, wantCode, out, errOut)
		}
		return out + errOut
	}
	status := func() mission.Status {
		t.Helper()
		var st mission.Status
		if err := json.Unmarshal([]byte(run(0, "status", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	run(1, "pause")                                     // refused in IDLE: a finding
	run(2, "send", `{"event":"goto","x":1,"y":0}`)      // invalid: not sent
	run(2, "send", "goto")                              // needs fields
	run(2, "send", "@"+filepath.Join(dir, "none.json")) // no such file
	run(2, "--token-file", filepath.Join(dir, "nope"), "send", "connect")
	if st := status(); st.State != "IDLE" {
		t.Fatalf("bad input changed the state to %s", st.State)
	}
	if out := run(0, "send", "connect"); !strings.Contains(out, "connect accepted") {
		t.Errorf("send connect: %s", out)
	}
	if out := run(0, "status"); !strings.Contains(out, "adapter             state_only") {
		t.Errorf("status:\n%s", out)
	}
	mf := filepath.Join(dir, "m.json")
	os.WriteFile(mf, []byte(`{"event":"armed"}`), 0o644)
	// ARMING follows the next telemetry poll; send until accepted would be
	// polling, so wait on the stream instead.
	c := client.New(addr, "")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "ARMING" }); err != nil {
		t.Fatal(err)
	}
	run(0, "send", "@"+mf)
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "TAKEOFF" && !st.CommandPending }); err != nil {
		t.Fatal(err)
	}
	run(0, "send", "airborne")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "EXECUTING" }); err != nil {
		t.Fatal(err)
	}
	// issue 21 item 2: a waypoint beyond the geofence is refused with its code.
	if out := run(2, "send", `{"event":"goto","x":5000,"y":0,"z":-2}`); !strings.Contains(out, "geofence_violation") {
		t.Errorf("goto beyond the geofence: %s", out)
	}
	// issue 21 items 7 and 8: a DNS-rebinding Host is refused; the page
	// cannot be framed.
	for _, c := range []struct {
		host string
		want int
	}{{"rebind.attacker.example", http.StatusMisdirectedRequest}, {"", http.StatusOK}} {
		req, _ := http.NewRequest("GET", addr+"/v1/status", nil)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("Host %q: got %d, X-Frame-Options %q; want %d and DENY", c.host, resp.StatusCode, resp.Header.Get("X-Frame-Options"), c.want)
		}
	}
	run(0, "land")
	if out := run(0, "dump-log"); !strings.Contains(out, "flight_events.csv") {
		t.Errorf("dump-log: %s", out)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	for _, f := range []string{"flight_events.csv", "flight_events_summary.json"} {
		if _, err := os.Stat(filepath.Join(box, f)); err != nil {
			t.Error(err)
		}
	}
	if strings.Contains(stderr.String(), strings.TrimSpace(string(secret))) {
		t.Errorf("the token was logged")
	}
	// the daemon is gone: exit 2
	run(2, "send", "connect")
}

func TestMissionBadInput(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	os.WriteFile(loose, []byte("abc\n"), 0o644)
	os.Chmod(loose, 0o644)
	params := filepath.Join(dir, "params.json")
	os.WriteFile(params, []byte(`{"max_altitude": true}`), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"use_airsim": true}`), 0o644)
	takeoff := filepath.Join(dir, "takeoff.json")
	os.WriteFile(takeoff, []byte(`{"takeoff_altitude": 40}`), 0o644)
	tok := filepath.Join(dir, "new-token")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"adapter", []string{"--adapter", "airsim"}, "--adapter"},
		{"mavlink without --connect", []string{"--adapter", "mavlink"}, "needs --connect"},
		{"remote", []string{"--listen", "0.0.0.0:0"}, "--allow-remote"},
		{"bad listen", []string{"--listen", "7350"}, "host:port"},
		{"speed", []string{"--speed", "0"}, "--speed"},
		{"speed NaN", []string{"--speed", "NaN"}, "--speed"},
		{"params bool", []string{"--params", params}, "params.json: max_altitude: must be a number"},
		{"params unknown", []string{"--params", unknown}, "use_airsim: unknown field"},
		{"params missing", []string{"--params", filepath.Join(dir, "none.json")}, "none.json"},
		{"max altitude NaN", []string{"--max-altitude", "NaN"}, "max_altitude"},
		{"max altitude Inf", []string{"--max-altitude", "Inf"}, "max_altitude"},
		{"max altitude zero", []string{"--max-altitude", "0"}, "max_altitude"},
		{"max altitude bool", []string{"--max-altitude", "true"}, "invalid argument"},
		{"home_z Inf", []string{"--home-z", "-Inf"}, "home_z"},
		// issue 21 items 3, 4 and 20: huge finite values, the geofence and
		// the ground margin are refused at parse time, by the names the
		// user wrote.
		{"home_z 1.8e305", []string{"--home-z", "1.8e305"}, "home_z: beyond ±100000 m"},
		{"max altitude 1e306", []string{"--max-altitude", "1e306"}, "max_altitude"},
		{"geofence zero", []string{"--max-hor-dist", "0"}, "max_hor_dist: out of range"},
		{"geofence 1e200", []string{"--max-hor-dist", "1e200"}, "max_hor_dist: out of range"},
		{"ground margin negative", []string{"--ground-margin", "-1"}, "ground_margin: out of range"},
		{"takeoff altitude 1e306", []string{"--takeoff-altitude", "1e306"}, "takeoff_altitude: out of range"},
		{"ground margin above max altitude", []string{"--ground-margin", "31"}, "ground_margin"},
		{"takeoff above max altitude", []string{"--params", takeoff}, "takeoff.json: takeoff_altitude: out of range (40 must be at most max_altitude 30)"},
		{"takeoff flag above max altitude", []string{"--takeoff-altitude", "40"}, "takeoff_altitude: out of range"},
		{"telemetry timeout", []string{"--telemetry-timeout", "-1"}, "--telemetry-timeout"},
		{"failsafe action", []string{"--failsafe-action", "return"}, "--failsafe-action"},
		{"record max events", []string{"--record-max-events", "0"}, "record_max_events"},
		{"sim home_z", []string{"--adapter", "sim", "--home-z", "-2"}, "home_z"},
		{"token mode", []string{"--token-file", loose}, "chmod 600"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"mission", "serve", "--listen", "127.0.0.1:0", "--token-file", tok}, tc.args...)
			if tc.name == "token mode" {
				args = append([]string{"mission", "serve", "--listen", "127.0.0.1:0"}, tc.args...)
			}
			code, out, errOut := sh(t, args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d; want 2 with %q\nstdout %s\nstderr %s", code, tc.want, out, errOut)
			}
			if _, err := os.Stat(tok); err == nil {
				t.Errorf("bad input created the token file")
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"smoke speed", []string{"mission", "smoke", "--speed", "-1"}, "--speed"},
		{"no daemon", []string{"mission", "--addr", closedAddr(t), "--token-file", loose, "status"}, "cannot reach"},
		{"bad JSON", []string{"mission", "send", `{"event":`}, "not valid JSON"},
		{"unknown event", []string{"mission", "send", "takeoff"}, `unknown event "takeoff"`},
		{"101 waypoints", []string{"mission", "send", `{"event":"mission","waypoints":[` +
			strings.TrimSuffix(strings.Repeat(`{"x":1,"y":0,"z":-2},`, 101), ",") + `]}`}, "more than 100"},
		{"extra argument", []string{"mission", "pause", "now"}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := sh(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d; want 2 with %q\nstdout %s\nstderr %s", code, tc.want, out, errOut)
			}
		})
	}
}

// closedAddr returns a loopback address nobody listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestMissionSmokeFaults runs smoke --faults: every fault kind on the sim,
// each ending in FAILSAFE with its reason.
func TestMissionSmokeFaults(t *testing.T) {
	code, out, errOut := smokeCLI(t, "--faults", "--speed", "50")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, w := range []string{"altitude_violation", "rpc_error", "takeoff_rejected", "battery_low", "link_lost",
		"telemetry_timeout", "position_lost", "attitude_failure", "smoke --faults passed: 8 faults, 30 checks"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
