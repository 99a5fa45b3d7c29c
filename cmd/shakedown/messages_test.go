package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessages: the messages a newcomer meets name the problem (issue 22,
// items 6 and 10), and nothing runs or is written first.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(csv, []byte("test,l1,w1,x1,y1,r1,l2,w2,x2,y2,r2,min_distance\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a directory as the case study", []string{"fly", dir}, dir + " is a directory; want a built-in name"},
		{"missing budget", []string{"generate", "mission2"}, "missing <budget>: usage: shakedown generate <case-study> <budget>"},
		{"missing case study", []string{"generate"}, "missing <case-study> <budget>"},
		{"missing suite, not the flag's value", []string{"score", "--mission", "mission2"}, "missing <suite-dir>: usage"},
		{"one of two forms", []string{"mission", "send", "goal"}, "missing <x,y,z[,speed]> or <json | @file | ->"},
		{"negative budget", []string{"generate", "mission2", "-5"}, "-5: a negative number is not a valid argument here"},
		{"too many arguments", []string{"report", "a", "b"}, "2 arguments (a b); want 1: usage: shakedown report <results-dir>"},
		{"a dataset as the model", []string{"generate", "mission2", "10", "--model", csv}, csv + ":1: surrogate: bad model: not a model file"},
		{"dataset into a missing folder", []string{"dataset", "mission2", "--n", "5", "--out", filepath.Join(dir, "missing", "x.csv")}, "folder " + filepath.Join(dir, "missing") + " does not exist"},
		{"dataset onto a directory", []string{"dataset", "mission2", "--n", "5", "--out", dir}, "--out " + dir + ": is a directory"},
		{"dataset under a file", []string{"dataset", "mission2", "--n", "5", "--out", filepath.Join(csv, "x.csv")}, csv + " is not a folder"},
		{"train onto a directory", []string{"surrogate", "train", csv, "--out", dir}, "is a directory"},
		{"eval: a missing model is an argument, not --model", []string{"surrogate", "eval", filepath.Join(dir, "none.json"), csv}, "shakedown: open " + filepath.Join(dir, "none.json")},
		{"record into a missing folder", []string{"fly", "mission2", "--record", filepath.Join(dir, "no", "f.mcap")}, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := sh(t, tc.args...)
			if code != exitBadRun {
				t.Errorf("exit %d; want %d", code, exitBadRun)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q; want it to contain %q", errOut, tc.want)
			}
			if out != "" || strings.Contains(errOut, "simulating") {
				t.Errorf("something ran first: stdout %q, stderr %q", out, errOut)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries; want only data.csv (nothing written, no probe left)", len(entries))
	}
}

// TestFlagNames: one name per concept; the old names still work, with a
// note, and are not listed in --help.
func TestFlagNames(t *testing.T) {
	logs, a := "testdata/score/logs", "testdata/score/gen-a"
	code, out, errOut := sh(t, "score", "--rules", "2025", "--mission", "mission2", "--logs", logs, "--jobs", "1", a)
	if code != 0 || !strings.Contains(errOut, "--jobs is now --workers") {
		t.Errorf("score --jobs: exit %d, stderr %q; want it to work with a note", code, errOut)
	}
	code2, out2, _ := sh(t, "score", "--rules", "2025", "--mission", "mission2", "--logs", logs, "--workers", "1", a)
	if code2 != 0 || out2 != out {
		t.Errorf("score --workers: exit %d, output differs from --jobs", code2)
	}
	for _, c := range []struct{ cmd, old, new string }{{"score", "--jobs", "--workers"}, {"worker", "--concurrency", "--workers"}, {"bench compare", "--output", "--out"}} {
		_, help, _ := sh(t, append(strings.Fields(c.cmd), "--help")...)
		if strings.Contains(help, c.old+" ") || !strings.Contains(help, c.new+" ") {
			t.Errorf("%s --help lists %s or lacks %s:\n%s", c.cmd, c.old, c.new, help)
		}
	}
	if code, out, _ := sh(t, "--version"); code != 0 || !strings.HasPrefix(out, "shakedown version ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
