package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets check that no input makes a parser panic, that every
// error is a *ParseError, and that whatever parses re-encodes and re-parses
// to the same value.

func FuzzParsePlan(f *testing.F) {
	for _, name := range CompetitionNames() {
		f.Add(mustBuiltinFile(name + ".plan"))
	}
	for _, c := range planCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParsePlan("f.plan", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *ParseError: %v", err, err)
			}
			return
		}
		b, err := EncodePlan(m)
		if err != nil {
			t.Fatalf("EncodePlan of a parsed mission: %v", err)
		}
		got, err := ParsePlan("f.plan", b)
		if err != nil {
			t.Fatalf("ParsePlan(EncodePlan(m)): %v\n%s", err, b)
		}
		if got.Name != m.Name {
			t.Errorf("name %q, want %q", got.Name, m.Name)
		}
		if d := missionDiff(got, m, 1e-6); d != "" {
			t.Fatalf("round trip: %s", d)
		}
	})
}

func FuzzParseCaseStudy(f *testing.F) {
	for _, name := range CompetitionNames() {
		f.Add(mustBuiltinFile(name + ".yaml"))
	}
	for _, in := range []string{yamlReport, yamlSaved, yamlNew} {
		f.Add([]byte(in))
	}
	for _, c := range caseStudyErrors {
		f.Add([]byte(caseStudyInput(c.in)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// No wall-clock bound here: a slow input is the fuzzer's to find
		// (go test -fuzz stops on an input that hangs), and a time limit
		// in the target fails on a loaded machine, not on a slow parser.
		cs, err := ParseCaseStudy("f.yaml", data, testFiles)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *ParseError: %v", err, err)
			}
			return
		}
		roundTripCaseStudy(t, cs)
	})
}

func FuzzParseObstacle(f *testing.F) {
	for _, c := range obstacleCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseObstacle(s)
		if err != nil {
			return
		}
		back, err := ParseObstacle(b.String())
		if err != nil {
			t.Fatalf("ParseObstacle(%q) of %+v: %v", b.String(), b, err)
		}
		if back != b {
			t.Fatalf("round trip: got %+v; want %+v", back, b)
		}
	})
}

// FuzzParseParamsCSV: every error is a *ParseError, and what parses,
// written back as "NAME, value" lines (integers without a decimal point),
// parses to the same parameters and integer flags.
func FuzzParseParamsCSV(f *testing.F) {
	f.Add(mustBuiltinFile("mission-params.csv"))
	for _, in := range []string{"\xef\xbb\xbfA, 1\r\n\r\n  \nB,2.5\r\n", "A, 1e3\nB, -0.25\nC, +7\n", "A, 1, 2\n", "A, nan\n", "A, 3000000000\n"} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		params, ints, err := parseParamsCSV("p.csv", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *ParseError: %v", err, err)
			}
			return
		}
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(params)) {
			v := strconv.FormatFloat(params[k], 'g', -1, 64)
			if ints[k] {
				v = strconv.FormatInt(int64(params[k]), 10)
			} else if !strings.ContainsAny(v, ".e") {
				v += ".0"
			}
			fmt.Fprintf(&b, "%s, %s\n", k, v)
		}
		p2, i2, err := parseParamsCSV("back.csv", []byte(b.String()))
		if err != nil {
			t.Fatalf("written back, the parameters do not parse: %v\n%s", err, b.String())
		}
		if !maps.Equal(p2, params) || len(i2) != len(ints) || !maps.Equal(i2, ints) {
			t.Fatalf("round trip: %v %v; want %v %v", p2, i2, params, ints)
		}
	})
}

// FuzzParseCommandsCSV: every error is a *ParseError, and what parses,
// written back with the competition's header, parses to the same commands.
func FuzzParseCommandsCSV(f *testing.F) {
	f.Add(mustBuiltinFile("mission-commands.csv"))
	for _, in := range []string{"mode,timestamp,r,z,y,x\n100,5000, 0.1,0.5,-1,1.0\n3,6000,0,0,0,0\n", "timestamp,mode,x,y,z,r\n1,9,0,0,0.5,0\n", "timestamp,mode\n"} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cmds, err := parseCommandsCSV("c.csv", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *ParseError: %v", err, err)
			}
			return
		}
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		var b strings.Builder
		b.WriteString("timestamp,mode,x,y,z,r\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "%d,%d,%s,%s,%s,%s\n", c.TimestampUS, c.Mode, g(c.X), g(c.Y), g(c.Z), g(c.R))
		}
		back, err := parseCommandsCSV("back.csv", []byte(b.String()))
		if err != nil {
			t.Fatalf("written back, the commands do not parse: %v\n%s", err, b.String())
		}
		if !slices.Equal(back, cmds) {
			t.Fatalf("round trip: %v; want %v", back, cmds)
		}
	})
}
