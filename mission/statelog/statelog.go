// Package statelog is the mission daemon's JSONL state log and the mission
// statistics computed from it (or from a black-box flight_events.csv): the
// specification's optional JSONL state records and its JSON/CSV mission
// evaluation (seeds/mission-safety-manager.zh.txt, "任务日志与离线统计").
//
// A state log holds one JSON object per line (Entry): every machine record
// (transitions, milestones, commands accepted or refused with their code,
// goal feedback and results), every command dispatched to the vehicle, a
// status sample at a fixed rate, and a count of the refusals a flood made
// the daemon leave out. Lines are written whole, so the file can be read
// while it is written; a last line without its newline is one being
// written.
//
// The package is pure: it encodes into and decodes from byte slices and
// readers; the daemon (mission/server) owns the file, its rotation and its
// fsyncs.
package statelog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/shakedown-robotics/shakedown/mission"
)

// Entry kinds besides the machine's record kinds (mission.Kind*).
const (
	KindDispatch        = "dispatch"         // a command sent to the vehicle; Command is its kind
	KindSample          = "sample"           // a status sample; Status holds it
	KindRefusalsDropped = "refusals_dropped" // Count refusals were left out since the last such line
)

// Entry is one line of the state log.
type Entry struct {
	Seq    uint64  `json:"seq"`
	TimeS  float64 `json:"time_s"`
	Kind   string  `json:"kind"`
	State  string  `json:"state"`
	Detail string  `json:"detail,omitempty"`
	// Command is the operator command's name (kind command) or the vehicle
	// command's kind (kind dispatch).
	Command string `json:"command,omitempty"`
	// Code is the refusal code of a refused command, "" when accepted.
	Code   string              `json:"code,omitempty"`
	Goal   *mission.GoalStatus `json:"goal,omitempty"`
	Status *mission.Status     `json:"status,omitempty"`
	Count  uint64              `json:"count,omitempty"`
}

// Append appends e as one JSON line (with its newline) to dst. Times are
// written in microseconds' resolution.
func Append(dst []byte, e Entry) ([]byte, error) {
	e.TimeS = math.Round(e.TimeS*1e6) / 1e6
	b, err := json.Marshal(e)
	if err != nil {
		return dst, err
	}
	dst = append(dst, b...)
	return append(dst, '\n'), nil
}

// ErrLine is the error of a state log or black-box line that cannot be
// read.
var ErrLine = errors.New("statelog: bad line")

// ParseError is a line that cannot be read: the file, its 1-based line
// number, the field when one is known, and why.
type ParseError struct {
	File  string
	Line  int
	Field string
	Err   error
}

// Error returns "file:line: field: message".
func (e *ParseError) Error() string {
	s := e.File + ":" + strconv.Itoa(e.Line) + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Is reports every ParseError as ErrLine.
func (e *ParseError) Is(target error) bool { return target == ErrLine }

func lineErr(file string, line int, field string, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}
