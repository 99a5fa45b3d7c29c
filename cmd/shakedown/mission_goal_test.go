package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/client"
)

func TestMissionGoalCLI(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	slog := filepath.Join(dir, "state.jsonl")
	addr, _, stop := serveMission(t, "--token-file", tok, "--adapter", "state_only", "--state-log", slog, "--record-dir", dir)
	cl := []string{"mission", "--addr", addr, "--token-file", tok}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		code, out, errOut := sh(t, append(append([]string{}, cl...), args...)...)
		if code != wantCode {
			t.Fatalf("%v: exit %d; want %d\n%s%s", args, code, wantCode, out, errOut)
		}
		return out + errOut
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("%d,0,-2", i)
	}
	if out := run(2, append([]string{"send", "goal"}, many...)...); !strings.Contains(out, "more than 100 waypoints") {
		t.Errorf("101 points: %s", out)
	}
	run(2, "send", "goal", "1,0")    // not a point
	run(1, "send", "goal", "4,0,-2") // refused in IDLE: a finding
	if out := run(2, "wait", "99"); !strings.Contains(out, "no goal 99") {
		t.Errorf("wait 99: %s", out)
	}
	c := client.New(addr, "")
	run(0, "send", "connect")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "ARMING" }); err != nil {
		t.Fatal(err)
	}
	run(0, "send", "armed")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "TAKEOFF" && !st.CommandPending }); err != nil {
		t.Fatal(err)
	}
	run(0, "send", "airborne")
	if _, err := c.WaitFor(context.Background(), func(st mission.Status) bool { return st.State == "EXECUTING" }); err != nil {
		t.Fatal(err)
	}
	out := run(0, "send", "goal", "4,0,-2,2", "8,0,-2", "--wait")
	if !strings.Contains(out, "goal 1 accepted") || !strings.Contains(out, "goal 1 SUCCEEDED: 2/2 waypoints reached") {
		t.Errorf("send goal --wait:\n%s", out)
	}
	if out := run(0, "wait", "1"); !strings.Contains(out, "SUCCEEDED") {
		t.Errorf("wait 1: %s", out)
	}
	run(0, "land")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	eval := filepath.Join(t.TempDir(), "eval")
	if err := os.Mkdir(eval, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out2, errOut := sh(t, "mission", "stats", slog, "--csv", "--out", eval)
	if code != 0 || !strings.Contains(out2, "state.jsonl#1") || !strings.Contains(out2, "\ntotal,") {
		t.Errorf("stats: exit %d\n%s%s", code, out2, errOut)
	}
	for _, n := range []string{"mission_stats.json", "mission_stats.csv"} {
		if p := filepath.Join(eval, n); !strings.Contains(errOut, "wrote "+p+"\n") {
			t.Errorf("stats --out: stderr %q does not name %s", errOut, p)
		}
	}
}

func TestMissionStatsBadInput(t *testing.T) {
	dir := t.TempDir()
	good := `{"seq":1,"time_s":0,"kind":"transition","state":"CONNECTING","detail":"IDLE->CONNECTING"}` + "\n"
	corrupt := filepath.Join(dir, "corrupt.jsonl")
	os.WriteFile(corrupt, []byte(good+good+"{\"seq\":3,\"time_s\":1,\"kind\":\n"+good), 0o644)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"corrupt line", []string{"mission", "stats", corrupt, "--out", out}, "corrupt.jsonl:3: "},
		{"missing file", []string{"mission", "stats", filepath.Join(dir, "none.jsonl")}, "none.jsonl"},
		{"no file", []string{"mission", "stats"}, "missing <state-log.jsonl | flight_events.csv>"},
		{"json and csv", []string{"mission", "stats", corrupt, "--json", "--csv"}, "choose one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := sh(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d; want 2 with %q\nstdout %s\nstderr %s", code, tc.want, stdout, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input wrote %s", out)
			}
		})
	}
}

func TestMissionServeBadStateLogAndFaults(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "new-token")
	params := filepath.Join(dir, "params.json")
	os.WriteFile(params, []byte(`{"home_z": 0}`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"state log folder missing", []string{"--state-log", filepath.Join(dir, "nope", "state.jsonl")}, "does not exist"},
		{"state log rate", []string{"--state-log-rate", "-1"}, "--state-log-rate"},
		{"state log size", []string{"--state-log", filepath.Join(dir, "s.jsonl"), "--state-log-max-bytes", "10"}, "--state-log-max-bytes"},
		{"fault syntax", []string{"--fault", "gnss"}, "KIND@T"},
		{"fault kind", []string{"--fault", "fire@3"}, `unknown kind "fire"`},
		{"motor needs sim", []string{"--fault", "motor@3"}, "--adapter sim"},
		{"fault on mavlink", []string{"--adapter", "mavlink", "--connect", "udp://127.0.0.1:1", "--fault", "gnss@3"}, "not a real one"},
		{"home_z flag with mavlink", []string{"--adapter", "mavlink", "--connect", "udp://127.0.0.1:1", "--home-z", "-1"}, "home_z"},
		{"home_z param with mavlink", []string{"--adapter", "mavlink", "--connect", "udp://127.0.0.1:1", "--params", params}, "home_z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"mission", "serve", "--listen", "127.0.0.1:0", "--token-file", tok}, tc.args...)
			code, out, errOut := sh(t, args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d; want 2 with %q\nstdout %s\nstderr %s", code, tc.want, out, errOut)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 { // params.json only: no token, no state log
				t.Errorf("bad input left files: %v", ents)
			}
		})
	}
}
