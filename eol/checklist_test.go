package eol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
)

func TestConfirm(t *testing.T) {
	items := eol.Checklist("mower", false, false)
	cases := []struct {
		name, in string
		ok       bool
		msg      string
	}{
		{"yes", "yes\n", true, ""},
		{"YES with blanks", "  YES \r\n", true, ""},
		{"yes without newline", "yes", true, ""},
		{"no", "no\n", false, `answered "no"`},
		{"y is not yes", "y\n", false, `answered "y"`},
		{"empty line", "\n", false, `answered ""`},
		{"end of input", "", false, "no answer (EOF)"},
		{"a huge line", strings.Repeat("yes", 1<<20), false, "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			err := eol.Confirm(strings.NewReader(c.in), &out, items)
			if c.ok != (err == nil) {
				t.Fatalf("Confirm(%.20q): %v; want ok=%v", c.in, err, c.ok)
			}
			if err != nil && (!errors.Is(err, eol.ErrNotConfirmed) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "nothing moved")) {
				t.Errorf("error %q; want ErrNotConfirmed naming %q and nothing moved", err, c.msg)
			}
			for _, w := range []string{"1. About 4 m of clear, flat lawn", "STOP button", "Type yes"} {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the prompt lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestChecklistFollowsTheRun(t *testing.T) {
	has := func(items []string, s string) bool {
		for _, it := range items {
			if strings.Contains(it, s) {
				return true
			}
		}
		return false
	}
	if full := eol.Checklist("mower", false, false); !has(full, "spins the blade") || !has(full, "box at least 20 cm") || !has(full, "Gate 3") {
		t.Errorf("mower checklist %q: want the blade, gate 3 and the box", full)
	}
	if h2 := eol.Checklist("mower", true, true); has(h2, "spins the blade") || has(h2, "box at least") || !has(h2, "blade:=false") {
		t.Errorf("blade:=false lidar:=false checklist %q: want no blade spinning, no box", h2)
	}
	if q := eol.Checklist("quad", false, false); !has(q, "kill switch") || !has(q, "wall straight ahead") {
		t.Errorf("quad checklist %q", q)
	}
}
