package eol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
)

// The thresholds tables are pinned: a changed limit shows up in review as a
// diff of testdata/thresholds.golden.
func TestThresholdsGolden(t *testing.T) {
	var b strings.Builder
	for _, v := range []string{"mower", "quad"} {
		th := eol.Thresholds(v)
		seen := map[string]bool{}
		for _, x := range th {
			if seen[x.Key] {
				t.Errorf("%s: key %s twice", v, x.Key)
			}
			seen[x.Key] = true
			if x.Source == "" || x.Meaning == "" {
				t.Errorf("%s: %s has no source or meaning", v, x.Key)
			}
		}
		b.WriteString("## " + v + "\n\n" + eol.ThresholdsMarkdown(th) + "\n")
	}
	golden(t, "thresholds.golden", []byte(b.String()))
	if eol.Thresholds("boat") != nil {
		t.Errorf("a table for an unknown vehicle")
	}
}

func TestValidateNames(t *testing.T) {
	cases := []struct {
		name   string
		serial string
		runID  string
		ok     bool
	}{
		{"ok", "MB-0001", "eol-3", true},
		{"dots and underscores", "MB_0001.a", "2026-01-02T03.04.05Z", true},
		{"empty serial", "", "r", false},
		{"empty run id", "S", "", false},
		{"slash in serial", "MB/0001", "r", false},
		{"path in run id", "S", "../x", false},
		{"hidden run id", "S", ".x", false},
		{"space", "MB 0001", "r", false},
		{"too long", strings.Repeat("a", 65), "r", false},
		{"non-ASCII", "MB-000é", "r", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := errors.Join(eol.ValidateSerial(c.serial), eol.ValidateRunID(c.runID))
			if (err == nil) != c.ok {
				t.Errorf("got %v; want ok = %v", err, c.ok)
			}
			if err != nil && !errors.Is(err, eol.ErrBadOptions) {
				t.Errorf("error %v does not wrap ErrBadOptions", err)
			}
		})
	}
}

// FuzzValidateRunID: a run id that passes is safe as a file name's prefix.
func FuzzValidateRunID(f *testing.F) {
	for _, s := range []string{"eol-3", "", ".", "..", "a/b", `a\b`, "MB-0001", "x\x00y", strings.Repeat("z", 70)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if eol.ValidateRunID(s) != nil {
			return
		}
		if s == "" || len(s) > 64 || strings.ContainsAny(s, "/\\\x00 :") || strings.HasPrefix(s, ".") {
			t.Errorf("accepted %q", s)
		}
		if eol.ValidateSerial(s) != nil {
			t.Errorf("a valid run id %q is not a valid serial", s)
		}
	})
}
