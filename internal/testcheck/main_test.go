package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const (
		pass       = `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}` + "\n" + `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n"
		pkgOK      = `{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}` + "\n" + `{"Action":"pass","Package":"p"}` + "\n"
		skipHelper = `{"Action":"output","Package":"p","Test":"TestHelper","Output":"    x_test.go:1: child only\n"}` + "\n" + `{"Action":"skip","Package":"p","Test":"TestHelper"}` + "\n"
		skipOther  = `{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    x_test.go:9: no chromium\n"}` + "\n" + `{"Action":"skip","Package":"p","Test":"TestB/sub"}` + "\n"
		fail       = `{"Action":"output","Package":"p","Test":"TestC","Output":"    x_test.go:5: got 1; want 2\n"}` + "\n" + `{"Action":"fail","Package":"p","Test":"TestC"}` + "\n"
		noTests    = `{"Action":"output","Package":"q","Output":"?   \tq\t[no test files]\n"}` + "\n" + `{"Action":"skip","Package":"q"}` + "\n"
		build      = `{"ImportPath":"r","Action":"build-output","Output":"r/x.go:1:1: syntax error\n"}` + "\n" + `{"Action":"fail","Package":"r","FailedBuild":"r"}` + "\n"
	)
	allow := regexp.MustCompile(`^TestHelper$`)
	for _, c := range []struct {
		name     string
		in       string
		allow    *regexp.Regexp
		want     int
		contains []string
		absent   []string
	}{
		{"all pass", pass + noTests + pkgOK, allow, 0, []string{"ok  \tp", "?   \tq", "\ntestcheck: 1 passed, 0 failed\n"}, []string{"=== RUN"}},
		{"allowed helper skips", pass + skipHelper + pkgOK, allow, 0, nil, []string{"child only", "skipped"}},
		{"helper without -allow", skipHelper + pkgOK, nil, 1, []string{"1 tests skipped", "p TestHelper", "child only"}, nil},
		{"other skip", skipHelper + skipOther + pkgOK, allow, 1, []string{"1 tests skipped", "p TestB/sub", "no chromium"}, []string{"p TestHelper"}},
		{"failure", pass + fail + pkgOK, allow, 1, []string{"got 1; want 2", "1 tests failed", "p TestC"}, nil},
		{"build error", build, allow, 1, []string{"syntax error", "r (package)"}, nil},
		{"not json", "no Go files in /x\n", allow, 2, []string{"no Go files", "no test events"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			if got := check(strings.NewReader(c.in), &out, c.allow); got != c.want {
				t.Errorf("exit %d; want %d; output:\n%s", got, c.want, out.String())
			}
			for _, s := range c.contains {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range c.absent {
				if strings.Contains(out.String(), s) {
					t.Errorf("output has %q:\n%s", s, out.String())
				}
			}
		})
	}
}
