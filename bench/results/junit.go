package results

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/bench"
)

// JUnit types, the subset pytest --junitxml writes plus testcase
// properties (simulated duration).
type (
	// Suites is the results.xml root.
	Suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Time     string   `xml:"time,attr"`
		Suites   []Suite  `xml:"testsuite"`
	}
	// Suite is one module.
	Suite struct {
		Name      string     `xml:"name,attr"`
		Tests     int        `xml:"tests,attr"`
		Failures  int        `xml:"failures,attr"`
		Errors    int        `xml:"errors,attr"`
		Skipped   int        `xml:"skipped,attr"`
		Time      string     `xml:"time,attr"`
		Timestamp string     `xml:"timestamp,attr,omitempty"`
		Cases     []TestCase `xml:"testcase"`
	}
	// TestCase is one phase.
	TestCase struct {
		ClassName  string     `xml:"classname,attr"`
		Name       string     `xml:"name,attr"`
		Time       string     `xml:"time,attr"`
		Properties []Property `xml:"properties>property,omitempty"`
		Failure    *Outcome   `xml:"failure,omitempty"`
		Skipped    *Outcome   `xml:"skipped,omitempty"`
	}
	// Property is a name/value pair.
	Property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	// Outcome is a failure or a skip with its message.
	Outcome struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

// SimTimeProperty is the testcase property holding the simulated duration.
const SimTimeProperty = "sim_time_s"

func secs(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// EncodeJUnit returns results.xml for cases: one testsuite per module, in
// order of first appearance, one testcase per phase; times are wall-clock
// seconds, the simulated duration is the sim_time_s property.
func EncodeJUnit(cases []bench.Case, timestamp string) ([]byte, error) {
	root := Suites{Name: "shakedown bench"}
	index := map[string]int{}
	var total float64
	suiteTime := map[string]float64{}
	for _, c := range cases {
		i, ok := index[c.Module]
		if !ok {
			i = len(root.Suites)
			index[c.Module] = i
			root.Suites = append(root.Suites, Suite{Name: c.Module, Timestamp: timestamp})
		}
		s := &root.Suites[i]
		tc := TestCase{ClassName: c.Module + "." + c.Class, Name: c.Name(), Time: secs(c.WallS)}
		if c.Status != bench.Skipped {
			tc.Properties = []Property{{Name: SimTimeProperty, Value: secs(c.SimS)}}
		}
		switch c.Status {
		case bench.Failed:
			tc.Failure = &Outcome{Message: c.Message, Text: c.Message}
			s.Failures++
			root.Failures++
		case bench.Skipped:
			tc.Skipped = &Outcome{Message: c.Message}
			s.Skipped++
			root.Skipped++
		}
		s.Tests++
		root.Tests++
		suiteTime[c.Module] += c.WallS
		total += c.WallS
		s.Cases = append(s.Cases, tc)
	}
	for i := range root.Suites {
		root.Suites[i].Time = secs(suiteTime[root.Suites[i].Name])
	}
	root.Time = secs(total)
	b, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// DecodeJUnit parses results.xml back into cases. A testcase's name must be
// test[param]; its classname module.Class.
func DecodeJUnit(data []byte) ([]bench.Case, error) {
	var root Suites
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, &ParseError{File: JUnitFile, Err: err}
	}
	var out []bench.Case
	for _, s := range root.Suites {
		for _, tc := range s.Cases {
			c, err := decodeCase(tc)
			if err != nil {
				return nil, &ParseError{File: JUnitFile, Field: tc.ClassName + "." + tc.Name, Err: err}
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func decodeCase(tc TestCase) (bench.Case, error) {
	var c bench.Case
	mod, class, ok := strings.Cut(tc.ClassName, ".")
	if !ok || mod == "" || class == "" {
		return c, errors.New("classname is not module.Class")
	}
	test, rest, ok := strings.Cut(tc.Name, "[")
	if !ok || !strings.HasSuffix(rest, "]") || test == "" {
		return c, errors.New("name is not test[param]")
	}
	c.Module, c.Class, c.Test, c.Param = mod, class, test, strings.TrimSuffix(rest, "]")
	if tc.Time != "" {
		v, err := strconv.ParseFloat(tc.Time, 64)
		if err != nil {
			return c, fmt.Errorf("time %q: %w", tc.Time, err)
		}
		c.WallS = v
	}
	for _, p := range tc.Properties {
		if p.Name == SimTimeProperty {
			v, err := strconv.ParseFloat(p.Value, 64)
			if err != nil {
				return c, fmt.Errorf("%s %q: %w", SimTimeProperty, p.Value, err)
			}
			c.SimS = v
		}
	}
	c.Status = bench.Passed
	switch {
	case tc.Failure != nil:
		c.Status, c.Message = bench.Failed, tc.Failure.Message
	case tc.Skipped != nil:
		c.Status, c.Message = bench.Skipped, tc.Skipped.Message
	}
	return c, nil
}
