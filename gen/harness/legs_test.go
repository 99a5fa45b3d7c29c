package harness

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// --legs values as a user types them: the known answers, and the refusals
// naming the flag, the value and what is wanted.
func TestParseLegs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want LegChoice
		str  string
	}{
		{"", LegChoice{}, "auto"},
		{"auto", LegChoice{}, "auto"},
		{"all", LegChoice{All: true}, "all"},
		{"3", LegChoice{List: []int{3}}, "3"},
		{"5, 2", LegChoice{List: []int{2, 5}}, "2,5"},
	} {
		got, err := ParseLegs(c.in)
		if err != nil || got.All != c.want.All || !slices.Equal(got.List, c.want.List) || got.String() != c.str {
			t.Errorf("ParseLegs(%q) = %+v (%q), %v; want %+v (%q)", c.in, got, got.String(), err, c.want, c.str)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"0", "leg numbers 1 to"},
		{"-1", "leg numbers 1 to"},
		{"2,x", "leg numbers 1 to"},
		{"1,,2", "leg numbers 1 to"},
		{"99999999999999999999", "leg numbers 1 to"},
		{"2,3,2", "each leg once (2 twice)"},
		{"ALL", "leg numbers 1 to"},
	} {
		_, err := ParseLegs(c.in)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "legs") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseLegs(%q): %v; want a ConfigError naming --legs and %q", c.in, err, c.msg)
		}
	}
}

// Whatever is typed, ParseLegs either refuses it with a ConfigError or
// gives a choice whose String reads back to the same choice.
func FuzzParseLegs(f *testing.F) {
	for _, s := range []string{"", "auto", "all", "1", "2,5", "5, 2", "0", "1,1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseLegs(s)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("ParseLegs(%q): %T %v; want a ConfigError", s, err, err)
			}
			return
		}
		back, err := ParseLegs(c.String())
		if err != nil || back.All != c.All || !slices.Equal(back.List, c.List) {
			t.Fatalf("ParseLegs(%q) = %+v; its String %q reads back as %+v, %v", s, c, c.String(), back, err)
		}
		if !slices.IsSorted(c.List) {
			t.Fatalf("ParseLegs(%q) = %v: not sorted", s, c.List)
		}
	})
}
