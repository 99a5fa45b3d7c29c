// Package fidelity measures how well a simulator predicts PX4: it flies
// tests whose outcome on PX4 + PX4-Avoidance is known and compares the
// predictions with the measurements (rank correlation of the clearance,
// its error, agreement on collisions and on critical tests, flight times).
//
// A reference is a CSV file with one row per test: at least the columns
// test and px4_min_distance_m, and optionally yaml (the test file,
// relative to the CSV), mission, source, px4_airborne_s, px4_class, usable
// and near_dup_group (tests that are flights of one layout), as in the
// project's px4-reference data.
package fidelity

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/scenario"
)

// Reference is one PX4-flown test with its measured outcome.
type Reference struct {
	Line     int    // line in the reference file (1-based, header = 1)
	Test     string // the test's name
	Mission  string // missionN; "" when the file does not say
	Source   string // who flew it; "" when the file does not say
	YAML     string // path of the test file
	Class    string // px4_class; "" when not given
	MinDistM float64
	// AirborneS is PX4's time in the air, NaN when unknown.
	AirborneS float64
	Usable    bool
	// Layout names the tests that are flights of one layout (the
	// near_dup_group column): PX4's repeat scatter is measured on them.
	// "" when the file does not say.
	Layout string
}

// ParseError is a bad row of a reference file.
type ParseError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *ParseError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, e.Field, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Limits on a reference file.
const (
	MaxRows      = 100_000
	MaxFileBytes = 64 << 20
)

// ParseCSV reads a reference file. name is used in errors and, through
// its directory, to resolve the yaml column; when the yaml column is
// missing, a test is looked for at tests/<mission>/<test>.yaml beside the
// file, then <mission>/<test>.yaml. Every row is checked: a missing
// column, a distance that is not a finite number ≥ 0, an unknown mission
// or a duplicate test is an error naming the line.
func ParseCSV(name string, r io.Reader) ([]Reference, error) {
	cr := csv.NewReader(io.LimitReader(r, MaxFileBytes+1))
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: name, Line: 1, Err: errors.New("empty file, want a header line")}
		}
		return nil, &ParseError{File: name, Line: 1, Err: err}
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, need := range []string{"test", "px4_min_distance_m"} {
		if _, ok := col[need]; !ok {
			return nil, &ParseError{File: name, Line: 1, Field: need, Err: fmt.Errorf("missing column (have %s)", strings.Join(head, ", "))}
		}
	}
	dir := filepath.Dir(name)
	knownMissions := scenario.CompetitionNames()
	get := func(rec []string, k string) string {
		if i, ok := col[k]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []Reference
	seen := map[string]int{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Err: err}
		}
		if len(out) >= MaxRows {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("more than %d rows", MaxRows)}
		}
		ref := Reference{Line: line, Test: get(rec, "test"), Mission: get(rec, "mission"), Source: get(rec, "source"),
			Class: get(rec, "px4_class"), AirborneS: math.NaN(), Usable: true, Layout: get(rec, "near_dup_group")}
		if ref.Test == "" {
			return nil, &ParseError{File: name, Line: line, Field: "test", Err: errors.New("empty")}
		}
		d, err := strconv.ParseFloat(get(rec, "px4_min_distance_m"), 64)
		if err != nil || math.IsNaN(d) || math.IsInf(d, 0) || d < 0 || d > 1e4 {
			return nil, &ParseError{File: name, Line: line, Field: "px4_min_distance_m",
				Err: fmt.Errorf("%q is not a distance in metres (a number in [0, 10000])", get(rec, "px4_min_distance_m"))}
		}
		ref.MinDistM = d
		if s := get(rec, "px4_airborne_s"); s != "" && s != "nan" && s != "NaN" {
			a, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsInf(a, 0) || a < 0 || a > 1e5 {
				return nil, &ParseError{File: name, Line: line, Field: "px4_airborne_s", Err: fmt.Errorf("%q is not a time in seconds", s)}
			}
			ref.AirborneS = a
		}
		if ref.Mission != "" && !slices.Contains(knownMissions, ref.Mission) {
			return nil, &ParseError{File: name, Line: line, Field: "mission", Err: fmt.Errorf("unknown mission %q (want one of %s)", ref.Mission, strings.Join(knownMissions, ", "))}
		}
		switch u := strings.ToLower(get(rec, "usable")); u {
		case "", "yes", "true", "1":
		case "no", "false", "0":
			ref.Usable = false
		default:
			return nil, &ParseError{File: name, Line: line, Field: "usable", Err: fmt.Errorf("%q is not yes or no", u)}
		}
		switch y := get(rec, "yaml"); {
		case y != "" && filepath.IsAbs(y):
			ref.YAML = y
		case y != "":
			ref.YAML = filepath.Join(dir, filepath.FromSlash(y))
		case ref.Mission != "":
			ref.YAML = filepath.Join(dir, "tests", ref.Mission, ref.Test+".yaml")
		default:
			ref.YAML = filepath.Join(dir, ref.Test+".yaml")
		}
		key := ref.Mission + "/" + ref.Test
		if prev, ok := seen[key]; ok {
			return nil, &ParseError{File: name, Line: line, Field: "test", Err: fmt.Errorf("%s repeats line %d", key, prev)}
		}
		seen[key] = line
		out = append(out, ref)
	}
	if len(out) == 0 {
		return nil, &ParseError{File: name, Line: 2, Err: errors.New("no tests")}
	}
	return out, nil
}
