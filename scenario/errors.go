package scenario

import (
	"errors"
	"strconv"
	"strings"
)

// ParseError is an error in a file Shakedown reads: a case-study YAML, a
// QGroundControl plan, or one of Aerialist's CSV files. It follows
// encoding/csv.ParseError.
type ParseError struct {
	File  string // the file name given to the parser
	Line  int    // 1-based line of the error, 0 if not known
	Field string // the offending key, e.g. "simulation.obstacles[1].size.w" or "mission.items[2].params[4]"; "" if none
	Err   error  // what is wrong
}

// Error returns "file:line: field: message", leaving out the parts that are
// not known.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	if e.Err == nil {
		b.WriteString("error")
	} else if b.Len() > 0 {
		// The file, line and field say where: the package prefix of the
		// cause ("scenario: invalid obstacles") would only repeat it.
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "scenario: "))
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrUnknownCaseStudy is returned by Builtin and Load for a name that is
// neither a built-in case study nor a file of a known kind.
var ErrUnknownCaseStudy = errors.New("scenario: unknown case study")

// msgError replaces the text of an error from a library (encoding/json,
// goccy/go-yaml) with a shorter one, keeping the original for errors.As.
type msgError struct {
	msg string
	err error
}

func (e *msgError) Error() string { return e.msg }
func (e *msgError) Unwrap() error { return e.err }
