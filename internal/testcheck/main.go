// Command testcheck reads the output of `go test -json` on its standard
// input, prints what `go test` would print without -v (each package's
// result line, build errors and the output of failed tests), and fails
// when a test failed or was skipped. CI runs it so that a skipped test
// (a missing browser, data that is not in the repository) cannot pass
// unnoticed:
//
//	go test -json ./... | go run ./internal/testcheck
//
// -allow is a regular expression of the test names that may skip: helpers
// that run only as a child process of another test. Exit status: 0 when
// every test passed, 1 when one failed or skipped, 2 when the input could
// not be read.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

func main() {
	allow := flag.String("allow", "", "regular `expression` of test names allowed to skip")
	flag.Parse()
	re, err := regexp.Compile(*allow)
	if err != nil || *allow == "" {
		re = nil
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testcheck: -allow: %v\n", err)
		os.Exit(2)
	}
	os.Exit(check(os.Stdin, os.Stdout, re))
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output events
}

// check reads the events from r, writes the summary to w and returns the
// exit status.
func check(r io.Reader, w io.Writer, allow *regexp.Regexp) int {
	var (
		out      = map[string]*strings.Builder{} // output of a running test, by package and name
		failed   []string
		skipped  []string
		passed   int
		sawEvent bool
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// go test prints some errors (a package that does not exist) as
			// plain text.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		sawEvent = true
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Test == "":
			switch e.Action {
			case "output":
				if e.Output != "PASS\n" { // go test without -v prints only the ok line
					fmt.Fprint(w, e.Output)
				}
			case "fail": // a package that did not build, or failed outside its tests
				failed = append(failed, e.Package+" (package)")
			}
		case e.Action == "output":
			b := out[key]
			if b == nil {
				b = &strings.Builder{}
				out[key] = b
			}
			b.WriteString(e.Output)
		case e.Action == "fail":
			if b := out[key]; b != nil {
				fmt.Fprint(w, b.String())
			}
			failed = append(failed, key)
			delete(out, key)
		case e.Action == "skip":
			if allow == nil || !allow.MatchString(e.Test) {
				skipped = append(skipped, key)
				if b := out[key]; b != nil {
					fmt.Fprint(w, b.String())
				}
			}
			delete(out, key)
		case e.Action == "pass":
			passed++
			delete(out, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(w, "testcheck: reading the test output: %v\n", err)
		return 2
	}
	if !sawEvent {
		fmt.Fprintln(w, "testcheck: no test events on the input (want the output of go test -json)")
		return 2
	}
	// The closing line in the plain form test dashboards read.
	fmt.Fprintf(w, "testcheck: %d passed, %d failed", passed, len(failed))
	if len(skipped) > 0 {
		fmt.Fprintf(w, ", %d skipped", len(skipped))
	}
	fmt.Fprintln(w)
	if len(skipped) > 0 {
		fmt.Fprintf(w, "testcheck: %d tests skipped (CI runs every test; fix what they need, or name a child-process helper in -allow):\n", len(skipped))
		for _, k := range skipped {
			fmt.Fprintf(w, "\t%s\n", k)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "testcheck: %d tests failed:\n", len(failed))
		for _, k := range failed {
			fmt.Fprintf(w, "\t%s\n", k)
		}
	}
	if len(failed) > 0 || len(skipped) > 0 {
		return 1
	}
	return 0
}
