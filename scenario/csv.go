package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// csvLines splits data into lines, dropping a UTF-8 byte-order mark and
// carriage returns. Line numbers are the slice index plus one.
func csvLines(data []byte) []string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// parseParamsCSV reads Aerialist's params_file: lines "NAME, value" with no
// header (Command.extract_params_from_csv reads it with pandas). As there, a
// value that parses as an integer is an integer parameter (Aerialist sets it
// with set_param_int) and any other number a float parameter; ints reports
// which. Blank lines are skipped; a repeated name is an error.
func parseParamsCSV(name string, data []byte) (params map[string]float64, ints map[string]bool, err error) {
	perr := func(line int, field, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
	}
	seen := map[string]int{}
	for i, l := range csvLines(data) {
		n := i + 1
		if strings.TrimSpace(l) == "" {
			continue
		}
		f := strings.Split(l, ",")
		if len(f) != 2 {
			return nil, nil, perr(n, "", "%d fields, want 2 (NAME, value)", len(f))
		}
		pname, text := strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
		if err := checkParamName(pname); err != nil {
			return nil, nil, perr(n, "", "%v", err)
		}
		if prev, ok := seen[pname]; ok {
			return nil, nil, perr(n, pname, "repeats line %d", prev)
		}
		seen[pname] = n
		v, isInt, err := parseParamValue(text)
		if err != nil {
			return nil, nil, perr(n, pname, "%v", err)
		}
		if params == nil {
			params, ints = map[string]float64{}, map[string]bool{}
		}
		if len(params) == MaxParams {
			return nil, nil, perr(n, pname, "more than %d parameters", MaxParams)
		}
		params[pname] = v
		if isInt {
			ints[pname] = true
		}
	}
	if len(ints) == 0 {
		ints = nil
	}
	return params, ints, nil
}

// parseParamValue reads a parameter value the way Aerialist does: int(text),
// else float(text).
func parseParamValue(text string) (v float64, isInt bool, err error) {
	i, err := strconv.ParseInt(text, 10, 32)
	if err == nil {
		return float64(i), true, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, false, fmt.Errorf("integer %s outside the int32 range of PX4 parameters", text)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, false, fmt.Errorf("value %q is not a number", text)
	}
	if !finite(f) {
		return 0, false, fmt.Errorf("value %s is not a finite number", text)
	}
	return f, false, nil
}

// maxParamName is the longest PX4 parameter name (param_info_s, 16 chars).
const maxParamName = 16

// checkParamName accepts PX4 parameter names: an upper-case letter, then
// upper-case letters, digits and underscores, at most 16 in all.
func checkParamName(s string) error {
	if s == "" {
		return errors.New("empty parameter name")
	}
	if len(s) > maxParamName {
		return fmt.Errorf("parameter name %q is longer than %d characters", s, maxParamName)
	}
	for i, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c == '_' && i > 0 || c >= '0' && c <= '9' && i > 0) {
			return fmt.Errorf("parameter name %q: want upper-case letters, digits and underscores, starting with a letter", s)
		}
	}
	return nil
}

// checkParam checks a parameter of a CaseStudy: a valid name, a finite
// value, and an integer in the int32 range for an integer parameter.
func checkParam(name string, v float64, isInt bool) error {
	if err := checkParamName(name); err != nil {
		return err
	}
	if !finite(v) {
		return fmt.Errorf("parameter %s = %v is not a finite number", name, v)
	}
	if isInt && (v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxInt32) {
		return fmt.Errorf("integer parameter %s = %v is not an int32", name, v)
	}
	return nil
}

// Aerialist FlightMode values (command.py), the modes a Command may carry.
var flightModes = map[int]string{
	0: "Manual", 1: "Altitude", 2: "Position", 3: "Mission", 4: "Hold", 5: "Return",
	6: "Acro", 7: "Offboard", 8: "Stabilized", 10: "Takeoff", 11: "Land",
	12: "FollowMe", 20: "Arm", 21: "Disarm", 100: "Setpoint",
}

// maxExactInt is the largest integer a float64 holds exactly, 2^53.
const maxExactInt = 1 << 53

// checkCommand reports what is wrong with c, naming the field.
func checkCommand(c Command) (field string, err error) {
	switch {
	case c.TimestampUS < 0 || c.TimestampUS > maxExactInt:
		return "timestamp", fmt.Errorf("timestamp %d µs, want 0 to 2^53", c.TimestampUS)
	case flightModes[c.Mode] == "":
		return "mode", fmt.Errorf("mode %d is not an Aerialist flight mode", c.Mode)
	case !finite(c.X):
		return "x", fmt.Errorf("x = %v is not a finite number", c.X)
	case !finite(c.Y):
		return "y", fmt.Errorf("y = %v is not a finite number", c.Y)
	case !finite(c.Z):
		return "z", fmt.Errorf("z = %v is not a finite number", c.Z)
	case !finite(c.R):
		return "r", fmt.Errorf("r = %v is not a finite number", c.R)
	}
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"x", c.X}, {"y", c.Y}, {"z", c.Z}, {"r", c.R}} {
		if err := inRange(f.v); err != nil {
			return f.name, fmt.Errorf("%s = %w", f.name, err)
		}
	}
	return "", nil
}

// commandColumns are the columns of Aerialist's commands CSV
// (Command.save_csv).
var commandColumns = []string{"timestamp", "mode", "x", "y", "z", "r"}

// parseCommandsCSV reads Aerialist's commands_file: a header naming the
// columns timestamp, mode, x, y, z and r (in any order, as pandas reads them
// by name), then one command per line. Blank lines are skipped.
func parseCommandsCSV(name string, data []byte) ([]Command, error) {
	perr := func(line int, field, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
	}
	var col map[string]int // column name → index
	var cmds []Command
	for i, l := range csvLines(data) {
		n := i + 1
		if strings.TrimSpace(l) == "" {
			continue
		}
		f := strings.Split(l, ",")
		if col == nil {
			col = map[string]int{}
			for j, h := range f {
				h = strings.TrimSpace(h)
				if _, ok := col[h]; ok {
					return nil, perr(n, h, "repeated column")
				}
				col[h] = j
			}
			for _, c := range commandColumns {
				if _, ok := col[c]; !ok {
					return nil, perr(n, c, "missing column (want a header timestamp,mode,x,y,z,r)")
				}
			}
			if len(col) != len(commandColumns) {
				return nil, perr(n, "", "header %q has extra columns (want timestamp,mode,x,y,z,r)", l)
			}
			continue
		}
		if len(f) != len(commandColumns) {
			return nil, perr(n, "", "%d fields, want %d", len(f), len(commandColumns))
		}
		var v [6]float64
		for k, c := range commandColumns {
			t := strings.TrimSpace(f[col[c]])
			x, err := strconv.ParseFloat(t, 64)
			if err != nil {
				return nil, perr(n, c, "%q is not a number", t)
			}
			if !finite(x) {
				return nil, perr(n, c, "%s is not a finite number", t)
			}
			if k < 2 && (x != math.Trunc(x) || math.Abs(x) > maxExactInt) {
				return nil, perr(n, c, "%s is not an integer", t)
			}
			v[k] = x
		}
		c := Command{TimestampUS: int64(v[0]), Mode: int(v[1]), X: v[2], Y: v[3], Z: v[4], R: v[5]}
		if field, err := checkCommand(c); err != nil {
			return nil, perr(n, field, "%v", err)
		}
		if len(cmds) == MaxCommands {
			return nil, perr(n, "", "more than %d commands", MaxCommands)
		}
		cmds = append(cmds, c)
	}
	if col == nil {
		return nil, perr(0, "", "empty file (want a header timestamp,mode,x,y,z,r)")
	}
	return cmds, nil
}
