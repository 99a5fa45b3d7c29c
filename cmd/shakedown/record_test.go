package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// isMCAP fails t unless path is an MCAP file.
func isMCAP(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89MCAP0\r\n")) {
		t.Errorf("%s is not an MCAP file (%v)", path, err)
	}
}

// TestRunRecord: run --record[=DIR] (issue 22, item 8): the logs go into
// DIR, or <out>/flightlogs for a bare --record; each file written is named
// once on stdout ("wrote FILE"), on stderr with --json.
func TestRunRecord(t *testing.T) {
	dir := t.TempDir()
	test := testYAML(t, dir, "test_0.yaml", "")
	logs := filepath.Join(dir, "logs", "m2") // made with its parent
	code, stdout, stderr := sh(t, "run", test, "--runs", "2", "--record="+logs)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, n := range []string{"test_0-run1.mcap", "test_0-run2.mcap"} {
		p := filepath.Join(logs, n)
		isMCAP(t, p)
		if !strings.Contains(stdout, "wrote "+p+"\n") {
			t.Errorf("stdout does not name %s:\n%s", p, stdout)
		}
	}

	out := filepath.Join(dir, "out")
	code, stdout, stderr = sh(t, "run", test, "--out", out, "--record", "--json")
	if code != 0 {
		t.Fatalf("bare --record: exit %d: %s", code, stderr)
	}
	p := filepath.Join(out, "flightlogs", "test_0-run1.mcap")
	isMCAP(t, p)
	if !strings.Contains(stderr, "wrote "+p+"\n") || !strings.Contains(stderr, "wrote "+out+": results.json, 1 plot") || strings.Contains(stdout, "wrote") {
		t.Errorf("--json: the wrote lines belong on stderr:\nstdout %s\nstderr %s", stdout, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*.mcap")); len(m) != 0 {
		t.Errorf("logs beside the plots: %v", m)
	}
}

// TestRecordOldSpelling: --record=true and --record=false, the old boolean
// switch's spellings, still work with a note.
func TestRecordOldSpelling(t *testing.T) {
	dir := t.TempDir()
	test := testYAML(t, dir, "test_0.yaml", "")
	out := filepath.Join(dir, "on")
	code, _, stderr := sh(t, "run", test, "--out", out, "--record=true")
	if code != 0 || !strings.Contains(stderr, "--record=true is now --record") {
		t.Fatalf("--record=true: exit %d, stderr %q", code, stderr)
	}
	isMCAP(t, filepath.Join(out, "flightlogs", "test_0-run1.mcap"))
	off := filepath.Join(dir, "off")
	code, _, stderr = sh(t, "run", test, "--out", off, "--record=false")
	if code != 0 || !strings.Contains(stderr, "--record=false is now") {
		t.Fatalf("--record=false: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(off, "flightlogs")); err == nil {
		t.Error("--record=false wrote logs")
	}
}

// TestRecordRefused: a --record that cannot be honoured is refused (exit 2)
// before anything flies, and the message says what to write instead.
func TestRecordRefused(t *testing.T) {
	dir := t.TempDir()
	test := testYAML(t, dir, "test_0.yaml", "")
	file := writeFile(t, dir, "afile", "x")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bare without --out", []string{"run", test, "--record"}, "give --out DIR, or the folder as --record=DIR"},
		{"folder after a space", []string{"run", test, "--record", filepath.Join(dir, "logs")}, "a folder for --record is written --record=" + filepath.Join(dir, "logs")},
		{"bench: folder after a space", []string{"bench", "--record", "logs"}, "a folder for --record is written --record=logs"},
		{"bench: a stray argument", []string{"bench", "logs"}, `unexpected argument "logs": shakedown bench takes none`},
		{"a file as the folder", []string{"run", test, "--record=" + file}, "is a file; want a folder"},
		{"under a file", []string{"run", test, "--record=" + filepath.Join(file, "x")}, file + " is not a folder"},
		{"bench: a file as the folder", []string{"bench", "--record=" + file}, "is a file; want a folder"},
		{"fly: a folder as the file", []string{"fly", "mission2", "--record", dir}, "is a directory; want a file name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := sh(t, tc.args...)
			if code != exitBadRun || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, exitBadRun, tc.want)
			}
			if out != "" {
				t.Errorf("something ran: %q", out)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 { // case_studies, test_0.yaml, afile
		t.Errorf("%d entries in the folder; want nothing written", len(entries))
	}
}

// TestRecordHelp: every --record says the same in --help: FILE on the
// commands that fly one flight, [=DIR] on those that fly many.
func TestRecordHelp(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"fly", "--record FILE "},
		{"mission serve", "--record FILE "},
		{"run", "--record[=DIR] "},
		{"bench", "--record[=DIR] "},
	} {
		_, help, _ := sh(t, append(strings.Fields(c.cmd), "--help")...)
		var line string
		for l := range strings.SplitSeq(help, "\n") {
			if strings.Contains(l, "--record") && strings.Contains(l, "MCAP") {
				line = l
			}
		}
		words := "write the flight as an MCAP log for Foxglove into FILE"
		if strings.Contains(c.want, "DIR") {
			words = "write each flight as an MCAP log for Foxglove into DIR (one file per flight); a bare --record: "
		}
		if !strings.Contains(line, c.want) || !strings.Contains(line, words) {
			t.Errorf("%s --help: %q; want %q and %q", c.cmd, line, c.want, words)
		}
	}
}
