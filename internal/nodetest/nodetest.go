// Package nodetest finds Node.js and a folder's pinned npm packages for
// the tests that check Shakedown against independent JavaScript peers
// (node-mavlink, roslib, @mcap/core, @foxglove/schemas).
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Need returns the node binary after checking that dir/node_modules holds
// every package in pkgs. When something is missing the test fails under
// CI (CI=true: .ci/run installs Node and runs npm ci in dir) and is
// skipped elsewhere, so that `go test ./...` works on a machine with Go
// alone.
func Need(t testing.TB, dir string, pkgs ...string) string {
	t.Helper()
	missing := t.Skipf
	if os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	bin, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH (install Node and run npm ci in %s): %v", dir, err)
		return ""
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			missing("%s not installed (cd %s && npm ci): %v", p, dir, err)
			return ""
		}
	}
	return bin
}
