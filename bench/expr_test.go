package bench

import (
	"errors"
	"testing"
)

var exprCases = []struct {
	expr  string
	names string // the test id matched against
	want  bool
	err   bool
}{
	{"", "anything", true, false},
	{"Circle", "test_takeoff[shakedown-rob#1-trajCircle-iter0]", true, false},
	{"circle", "test_takeoff[shakedown-rob#1-trajCircle-iter0]", true, false},
	{"not Circle", "test_takeoff[shakedown-rob#1-trajCircle-iter0]", false, false},
	{"Circle and not test_landing", "test_landing[shakedown-rob#1-trajCircle-iter0]", false, false},
	{"Line or Circle", "test_landing[shakedown-rob#1-trajLine-iter0]", true, false},
	{"(Line or Circle) and rob#3", "test_landing[shakedown-rob#1-trajLine-iter0]", false, false},
	{"not not Line", "trajLine", true, false},
	{"rob#1-trajCircle-iter0]", "test_takeoff[shakedown-rob#1-trajCircle-iter0]", true, false},
	{"(Line", "", false, true},
	{"Line)", "", false, true},
	{"and Line", "", false, true},
	{"Line or", "", false, true},
	{"not", "", false, true},
	{"()", "", false, true},
}

func TestExpr(t *testing.T) {
	for _, c := range exprCases {
		t.Run(c.expr, func(t *testing.T) {
			e, err := ParseExpr(c.expr)
			if c.err {
				var ee *ExprError
				if !errors.As(err, &ee) {
					t.Fatalf("got %v; want an *ExprError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.MatchKeyword(c.names); got != c.want {
				t.Errorf("match %q: got %v; want %v", c.names, got, c.want)
			}
		})
	}
	e, _ := ParseExpr("autonomy or takeoff_hover_land")
	if !e.MatchMarks(MarkTakeoffHoverLand) || e.MatchMarks("takeoff") {
		t.Errorf("marks match whole names only")
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, c := range exprCases {
		f.Add(c.expr)
	}
	f.Add(string(make([]byte, 300)))
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpr(s)
		if err != nil {
			return
		}
		e.MatchKeyword("test_takeoff[shakedown-rob#1-trajCircle-iter0]")
		if e.String() != s {
			t.Fatalf("String: got %q; want %q", e.String(), s)
		}
	})
}
