//go:build long

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEOLConnect: the quadrotor end-of-line test over MAVLink against
// `shakedown sitl --speed 10` on loopback UDP passes, every row: the
// streams keep their rates in vehicle time, so the sensor-rate rows pass
// too, on a loaded machine as well (the rates count the samples the link
// delivered, not the ones the runner looked at, and the server sends
// every frame it owes after a hold-up). It runs on the wall clock over a
// real socket for some seconds: it is built only with -tags long (go test
// -tags long -run EOLConnect ./cmd/shakedown). The same run in fake time
// over an in-memory link, at ×1 and ×10, is mavlink's TestEOLOverLink.
func TestEOLConnect(t *testing.T) {
	url, _ := startSITL(t, 10)
	dir := t.TempDir()
	code, stdout, stderr := sh(t, "eol", "--vehicle", "quad", "--lidar=false", "--connect", url, "--serial", "QD-0001", "--run-id", "mav", "--out", dir, "--data", filepath.Join(dir, "data"), "--yes")
	if code != 0 {
		t.Fatalf("exit %d; want 0 (PASS)\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "mav-eol.json"))
	if err != nil || !bytes.Contains(b, []byte(`"source": "mavlink `+url+`"`)) {
		t.Fatalf("report %s (%v); want the link as the source", b, err)
	}
	var rec struct {
		EOL struct {
			Checks []struct {
				ID     string `json:"id"`
				Result string `json:"result"`
			} `json:"checks"`
		} `json:"end_of_line"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	motors, rates := 0, 0
	for _, c := range rec.EOL.Checks {
		if strings.HasPrefix(c.ID, "motors.") && c.Result == "PASS" {
			motors++
		}
		if strings.HasSuffix(c.ID, "_rate") && c.Result == "PASS" {
			rates++
		}
		if c.Result == "FAIL" {
			t.Errorf("%s failed over MAVLink at ×10", c.ID)
		}
	}
	if motors == 0 || rates < 4 {
		t.Errorf("motor checks passed %d, sensor rates passed %d: %s", motors, rates, b)
	}
}
