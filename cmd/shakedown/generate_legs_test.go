package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a square with four legs in the placement area, every leg is tested by
// default and named in the summary, and each has its generation.json;
// --legs narrows it.
func TestGenerateLegs(t *testing.T) {
	tmp := t.TempDir()
	plan := "../../gen/testdata/square.plan"
	code, out, errOut := sh(t, "generate", plan, "8", "--strategy", "constrained", "--out", tmp)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	dir := folderLine.FindStringSubmatch(out)[1]
	for _, leg := range []string{"leg 3 (5.0, 15.0) → (5.0, 35.0)", "leg 4 ", "leg 5 ", "leg 6 "} {
		if !strings.Contains(errOut, leg) {
			t.Errorf("summary lacks %q:\n%s", leg, errOut)
		}
	}
	for _, leg := range []int{3, 4, 5, 6} {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("leg_%d", leg), "generation.json")); err != nil {
			t.Error(err)
		}
	}
	code, out, errOut = sh(t, "generate", plan, "4", "--strategy", "constrained", "--legs", "5", "--out", tmp)
	if code != 0 || !strings.Contains(errOut, "leg 5 (-15.0, 35.0) → (-15.0, 15.0): zone 1000 m², 4 simulations") || strings.Contains(errOut, "leg 3") {
		t.Errorf("--legs 5: exit %d\n%s%s", code, out, errOut)
	}
}
