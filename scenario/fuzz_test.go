package scenario

import (
	"errors"
	"testing"
	"time"
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
		start := time.Now()
		cs, err := ParseCaseStudy("f.yaml", data, testFiles)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("ParseCaseStudy took %v", d)
		}
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
