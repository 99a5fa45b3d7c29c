package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Header is the first line of a trace CSV file.
const Header = "t,x,y,z,heading"

// columns names the fields of a row, in order.
var columns = [...]string{"t", "x", "y", "z", "heading"}

// Decimal places of each column in WriteCSV's output: milliseconds for t,
// 0.1 mm for positions and 0.1 mrad for heading.
const (
	tDecimals       = 3
	posDecimals     = 4
	headingDecimals = 4
)

var decimals = [...]int{tDecimals, posDecimals, posDecimals, posDecimals, headingDecimals}

// Errors a ParseError wraps (besides strconv's syntax and range errors).
var (
	ErrHeader     = errors.New("trace: header is not " + strconv.Quote(Header))
	ErrFieldCount = errors.New("trace: wrong number of fields")
	ErrNotFinite  = errors.New("trace: value is not finite")
	ErrTimeOrder  = errors.New("trace: time decreases")
	ErrBlankLine  = errors.New("trace: blank line")
)

// ParseError is the error ReadCSV returns for malformed input. Line counts
// from 1 (the header); Column is the name of the offending column, or empty
// when the whole line is at fault.
type ParseError struct {
	Line   int
	Column string
	Err    error
}

func (e *ParseError) Error() string {
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "trace: ")
	}
	if e.Column == "" {
		return fmt.Sprintf("trace: line %d: %s", e.Line, msg)
	}
	return fmt.Sprintf("trace: line %d, column %s: %s", e.Line, e.Column, msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// WriteCSV writes s to w as CSV with the header "t,x,y,z,heading", one line
// per sample, in the competition frame: x North, y East, z Up (the negated
// NED z), heading in radians as stored. Numbers have fixed formats (t with 3
// decimals, positions and heading with 4) and negative zero is written as
// zero, so the same samples always give the same bytes. Lines end in "\n".
//
// WriteCSV refuses what ReadCSV would refuse: non-finite values and
// decreasing times; it then writes nothing.
func WriteCSV(w io.Writer, s []Sample) error {
	for i := range s {
		v := row(s[i])
		for j, f := range v {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("trace: sample %d: %s is %v", i, columns[j], f)
			}
		}
		if i > 0 && s[i].T < s[i-1].T {
			return fmt.Errorf("trace: sample %d: t %v is before the previous sample's %v", i, s[i].T, s[i-1].T)
		}
	}
	buf := make([]byte, 0, 64*(len(s)+1))
	buf = append(buf, Header...)
	buf = append(buf, '\n')
	for i := range s {
		for j, f := range row(s[i]) {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = appendFixed(buf, f, decimals[j])
		}
		buf = append(buf, '\n')
	}
	_, err := w.Write(buf)
	return err
}

// row returns the fields of s in file order and frame.
func row(s Sample) [5]float64 {
	return [5]float64{s.T, s.Pos.X, s.Pos.Y, -s.Pos.Z, s.Heading}
}

// appendFixed appends f with prec decimals, writing a value that rounds to
// zero as unsigned zero.
func appendFixed(buf []byte, f float64, prec int) []byte {
	n := len(buf)
	buf = strconv.AppendFloat(buf, f, 'f', prec, 64)
	if buf[n] == '-' {
		for _, c := range buf[n+1:] {
			if c != '0' && c != '.' {
				return buf
			}
		}
		buf = append(buf[:n], buf[n+1:]...)
	}
	return buf
}

// ReadCSV reads samples written by WriteCSV. It is strict: the first line
// must be exactly the header, every other line must hold five finite
// decimal numbers separated by commas, with no blank lines, and t must not
// decrease. A final newline is optional and "\r\n" line ends are accepted.
// Errors are *ParseError values naming the line and column.
func ReadCSV(r io.Reader) ([]Sample, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var out []Sample
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if lineNo == 1 {
			if string(line) != Header {
				return nil, &ParseError{Line: 1, Err: fmt.Errorf("%w: got %q", ErrHeader, clip(line))}
			}
			continue
		}
		if len(line) == 0 {
			return nil, &ParseError{Line: lineNo, Err: ErrBlankLine}
		}
		s, err := parseRow(string(line), lineNo)
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && s.T < out[n-1].T {
			return nil, &ParseError{Line: lineNo, Column: "t",
				Err: fmt.Errorf("%w: %v after %v", ErrTimeOrder, s.T, out[n-1].T)}
		}
		out = append(out, s)
	}
	if lineNo == 0 {
		return nil, &ParseError{Line: 1, Err: ErrHeader}
	}
	return out, nil
}

// clip returns b as a string cut to at most 40 bytes, for error messages.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

func parseRow(line string, lineNo int) (Sample, error) {
	var v [5]float64
	rest := line
	for j := range v {
		if j > 0 {
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				return Sample{}, &ParseError{Line: lineNo, Column: columns[j],
					Err: fmt.Errorf("%w: %d, want %d", ErrFieldCount, j, len(v))}
			}
			rest = rest[i+1:]
		}
		field := rest
		if i := strings.IndexByte(rest, ','); i >= 0 {
			field = rest[:i]
		}
		if j == len(v)-1 && len(field) != len(rest) {
			return Sample{}, &ParseError{Line: lineNo,
				Err: fmt.Errorf("%w: %d, want %d", ErrFieldCount, strings.Count(line, ",")+1, len(v))}
		}
		f, err := parseNumber(field)
		if err != nil {
			return Sample{}, &ParseError{Line: lineNo, Column: columns[j], Err: err}
		}
		v[j] = f
	}
	return Sample{
		T:       v[0],
		Pos:     geom.Vec3{X: v[1], Y: v[2], Z: -v[3]},
		Heading: v[4],
	}, nil
}

// parseNumber parses a finite decimal number: an optional sign, digits with
// an optional fraction, and an optional exponent. It refuses what
// strconv.ParseFloat would also take but WriteCSV never writes: "NaN",
// "Inf", hexadecimal floats and underscores.
func parseNumber(s string) (float64, error) {
	if !isDecimal(s) {
		switch strings.ToLower(strings.TrimLeft(s, "+-")) {
		case "nan", "inf", "infinity":
			return 0, ErrNotFinite
		}
		return 0, fmt.Errorf("not a decimal number: %q", clip([]byte(s)))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return 0, fmt.Errorf("%w: %q overflows", ErrNotFinite, s)
		}
		return 0, err
	}
	return f, nil
}

// isDecimal reports whether s matches [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
