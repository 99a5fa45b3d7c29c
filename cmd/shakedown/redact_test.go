package main

import (
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
