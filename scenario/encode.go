package scenario

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// EncodeCaseStudy writes cs as an Aerialist test-description YAML in the
// form every Aerialist version reads (competition.md §1.8): only the keys
// drone, simulation and test; drone.mission_file set to missionFile (the
// caller writes the plan there, e.g. with EncodePlan); the parameters and
// commands inline; each obstacle with exactly its seven fields. Keys are
// sorted and numbers formatted one fixed way, so the output is byte-stable:
// a float parameter always has a decimal point (12.0), an integer parameter
// never has one, and other numbers are written as integers when they are
// whole and in their shortest exact decimal form otherwise.
//
// EncodeCaseStudy checks the fields it writes (finite numbers, known port,
// simulator and flight modes) but not the obstacles against the
// competition's rules; see Rules.Check.
func EncodeCaseStudy(cs *CaseStudy, missionFile string) ([]byte, error) {
	if err := checkCaseStudy(cs, missionFile); err != nil {
		return nil, fmt.Errorf("scenario: encode case study: %w", err)
	}
	var b strings.Builder
	b.WriteString("drone:\n")
	b.WriteString("  mission_file: " + yamlString(missionFile) + "\n")
	if len(cs.Params) > 0 {
		b.WriteString("  params:\n")
		for _, k := range sortedKeys(cs.Params) {
			v := cs.Params[k]
			s := pyFloat(v)
			if cs.IntParams[k] {
				s = strconv.FormatInt(int64(v), 10)
			}
			b.WriteString("    " + yamlString(k) + ": " + s + "\n")
		}
	}
	if cs.Port != "" {
		b.WriteString("  port: " + yamlPort(cs.Port) + "\n")
	}
	b.WriteString("simulation:\n")
	b.WriteString("  headless: " + strconv.FormatBool(cs.Headless) + "\n")
	if len(cs.Obstacles) > 0 {
		b.WriteString("  obstacles:\n")
		for _, o := range cs.Obstacles {
			b.WriteString("  - position:\n")
			b.WriteString("      r: " + yamlNum(o.R) + "\n")
			b.WriteString("      x: " + yamlNum(o.X) + "\n")
			b.WriteString("      y: " + yamlNum(o.Y) + "\n")
			b.WriteString("      z: " + yamlNum(o.Z) + "\n")
			b.WriteString("    size:\n")
			b.WriteString("      h: " + yamlNum(o.H) + "\n")
			b.WriteString("      l: " + yamlNum(o.L) + "\n")
			b.WriteString("      w: " + yamlNum(o.W) + "\n")
		}
	}
	if cs.Simulator != "" {
		b.WriteString("  simulator: " + cs.Simulator + "\n")
	}
	b.WriteString("  speed: " + yamlNum(cs.Speed) + "\n")
	if len(cs.Commands) == 0 {
		b.WriteString("test: {}\n")
	} else {
		b.WriteString("test:\n  commands:\n")
		for _, c := range cs.Commands {
			b.WriteString("  - mode: " + strconv.Itoa(c.Mode) + "\n")
			b.WriteString("    r: " + yamlNum(c.R) + "\n")
			b.WriteString("    timestamp: " + strconv.FormatInt(c.TimestampUS, 10) + "\n")
			b.WriteString("    x: " + yamlNum(c.X) + "\n")
			b.WriteString("    y: " + yamlNum(c.Y) + "\n")
			b.WriteString("    z: " + yamlNum(c.Z) + "\n")
		}
	}
	return []byte(b.String()), nil
}

func checkCaseStudy(cs *CaseStudy, missionFile string) error {
	if cs == nil {
		return errors.New("nil case study")
	}
	if missionFile == "" || !utf8.ValidString(missionFile) || strings.ContainsAny(missionFile, "\n\r") {
		return fmt.Errorf("mission file %q: want a non-empty single-line UTF-8 path", missionFile)
	}
	for _, k := range sortedKeys(cs.Params) {
		if err := checkParam(k, cs.Params[k], cs.IntParams[k]); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(cs.IntParams) {
		if _, ok := cs.Params[k]; !ok && cs.IntParams[k] {
			return fmt.Errorf("IntParams names %s, which is not in Params", k)
		}
	}
	if cs.Port != "" {
		if err := checkPort(cs.Port); err != nil {
			return err
		}
	}
	if cs.Simulator != "" && !simulators[cs.Simulator] {
		return fmt.Errorf("simulator %q: want gazebo, jmavsim or ros", cs.Simulator)
	}
	if !finite(cs.Speed) || cs.Speed <= 0 || cs.Speed > maxSimSpeed {
		return fmt.Errorf("speed %v, want a finite factor above 0 and at most %v", cs.Speed, maxSimSpeed)
	}
	for i, o := range cs.Obstacles {
		for _, v := range [...]float64{o.L, o.W, o.H, o.X, o.Y, o.Z, o.R} {
			if !finite(v) {
				return fmt.Errorf("obstacle %d: %v is not a finite number", i+1, o)
			}
			if err := inRange(v); err != nil {
				return fmt.Errorf("obstacle %d: %w", i+1, err)
			}
		}
	}
	for i, c := range cs.Commands {
		if _, err := checkCommand(c); err != nil {
			return fmt.Errorf("command %d: %w", i+1, err)
		}
	}
	return nil
}

// yamlNum formats a finite number for YAML: whole numbers below 1e15 as
// integers ("25", "0"), anything else as pyFloat does. Both read back as the
// same float64 in Go and in Python.
func yamlNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v+0, 'f', -1, 64)
	}
	return pyFloat(v)
}

// pyFloat formats a finite number so that YAML 1.1 (PyYAML, which Aerialist
// uses) reads it as a float: the shortest exact decimal, always with a
// decimal point, and an exponent with an explicit sign for very large or
// small magnitudes ("12.0", "0.5", "1.0e+20", "2.5e-07").
func pyFloat(v float64) string {
	v += 0 // no negative zero
	a := math.Abs(v)
	if a == 0 || (a >= 1e-4 && a < 1e16) {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	if i := strings.IndexByte(s, 'e'); !strings.Contains(s[:i], ".") {
		s = s[:i] + ".0" + s[i:]
	}
	return s
}

// yamlPort writes a port number as a YAML integer and a name as text.
func yamlPort(p string) string {
	if n, err := strconv.Atoi(p); err == nil && strconv.Itoa(n) == p {
		return p
	}
	return yamlString(p)
}

// yamlString writes s as a plain YAML scalar when that reads back as the
// same text in YAML 1.1 and 1.2, and double-quoted otherwise.
func yamlString(s string) string {
	plain := s != ""
	for i, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' ||
			i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '/' || c == '-')
		if !ok {
			plain = false
			break
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		plain = false
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}
