package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// eolVerdicts runs shakedown eol and returns each check's result by id.
func eolVerdicts(t *testing.T, f eolFlags) map[string]string {
	t.Helper()
	f.out = t.TempDir()
	f.data = filepath.Join(f.out, "data")
	f.serial, f.blade, f.lidar, f.seed, f.yes = "MB-0001", true, true, 1, true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := runEOL(ctx, eolIO{stdout: &discard{}, stderr: &discard{}}, f, true, false)
	if _, ok := err.(*failure); err != nil && !ok {
		t.Fatalf("eol %+v: %v", f, err)
	}
	b, rerr := os.ReadFile(filepath.Join(f.out, f.runID+"-eol.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	var doc struct {
		EOL struct {
			Source string `json:"source"`
			Checks []struct {
				ID     string `json:"id"`
				Result string `json:"result"`
			} `json:"checks"`
		} `json:"end_of_line"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	rep := doc.EOL
	out := map[string]string{"source": rep.Source}
	for _, c := range rep.Checks {
		out[c.ID] = c.Result
	}
	return out
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }

// TestEOLMowerOverRosbridge: the mower's end-of-line test run over
// rosbridge against sitl --vehicle mower --rosbridge gives the in-process
// verdicts row for row, for the good mower and for the seed's eol-2 mower
// (blade torque unlimited), whose fault fails exactly its rows.
func TestEOLMowerOverRosbridge(t *testing.T) {
	for _, variant := range []string{"", "eol-2"} {
		t.Run("variant="+variant, func(t *testing.T) {
			url := startSITLRosbridge(t, sitlFlags{vehicle: "mower", speed: 5, seed: 1, variant: variant})
			local := eolVerdicts(t, eolFlags{vehicle: "mower", runID: "local", variant: variant})
			remote := eolVerdicts(t, eolFlags{vehicle: "mower", runID: "remote", connect: url})
			if remote["source"] != "rosbridge "+url {
				t.Errorf("source %q; want rosbridge %s", remote["source"], url)
			}
			delete(local, "source")
			delete(remote, "source")
			if len(local) < 20 {
				t.Fatalf("only %d checks in process", len(local))
			}
			fails := 0
			for id, want := range local {
				if want == "FAIL" {
					fails++
				}
				if got := remote[id]; got != want {
					t.Errorf("%s: %s over rosbridge; want %s as in process", id, got, want)
				}
			}
			if variant != "" && fails == 0 {
				t.Errorf("the %s mower failed nothing in process", variant)
			}
			t.Logf("%d checks, %d FAIL, the same over rosbridge", len(local), fails)
		})
	}
}
