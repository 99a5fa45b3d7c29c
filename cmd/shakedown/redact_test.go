package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reproduction: a password given in --nats or $SHAKEDOWN_NATS
// shows nowhere, neither in errors nor in --help.
func TestNATSPasswordRedacted(t *testing.T) {
	unreachable := freeURL(t)
	withPass := strings.Replace(unreachable, "nats://", "nats://alice:s3cretpw@", 1)
	t.Setenv("SHAKEDOWN_NATS", withPass)
	for name, args := range map[string][]string{
		"worker unreachable":  {"worker", "--nats", withPass},
		"worker from env":     {"worker"},
		"campaign bad URL":    {"worker", "--nats", "http://alice:s3cretpw@host"},
		"worker help":         {"worker", "--help"},
		"dataset help":        {"dataset", "--help"},
		"dataset unreachable": {"dataset", "canonical", "--n", "3", "--out", t.TempDir() + "/d.csv", "--executor", "nats"},
	} {
		_, out, errOut := sh(t, args...)
		if strings.Contains(out+errOut, "s3cretpw") {
			t.Errorf("%s: the password shows:\n%s%s", name, out, errOut)
		}
		if !strings.Contains(out+errOut, "alice:xxxxx@") {
			t.Errorf("%s: the URL is not named (redacted):\n%s%s", name, out, errOut)
		}
	}
}

// fly's rule errors name the file, the line and the field.
func TestFlyRuleErrorNamesLine(t *testing.T) {
	dir := t.TempDir()
	y := "drone:\n  mission_file: mission2.plan\nsimulation:\n  obstacles:\n  - position: {r: 0, x: 0, y: 20, z: 0}\n    size: {h: 20, l: 4, w: 40}\n"
	plan, err := os.ReadFile("../../scenario/competition/mission2.plan")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mission2.plan"), plan, 0o644); err != nil {
		t.Fatal(err)
	}
	test := filepath.Join(dir, "test_0.yaml")
	if err := os.WriteFile(test, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := sh(t, "fly", test)
	if want := test + ":5: simulation.obstacles[0].size.w: invalid obstacles"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, errOut, want)
	}
}
