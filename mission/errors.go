package mission

import (
	"errors"
	"strings"
)

// Errors of refused commands. A refused command changes no state.
var (
	ErrWrongState      = errors.New("mission: not allowed in this state")
	ErrQueueBusy       = errors.New("mission: queue busy")
	ErrTargetActive    = errors.New("mission: a target is active")
	ErrNotReady        = errors.New("mission: vehicle not ready")
	ErrNothingToCancel = errors.New("mission: nothing to cancel")
	ErrNoGoal          = errors.New("mission: no such goal")
	ErrGoalDone        = errors.New("mission: goal already ended")
)

// Errors of invalid input: commands, waypoints and parameters.
var (
	ErrSyntax           = errors.New("mission: not valid JSON")
	ErrNotObject        = errors.New("mission: must be a JSON object")
	ErrUnknownEvent     = errors.New("mission: unknown event")
	ErrUnknownField     = errors.New("mission: unknown field")
	ErrDuplicateField   = errors.New("mission: duplicate field")
	ErrMissing          = errors.New("mission: missing")
	ErrNotNumber        = errors.New("mission: must be a number")
	ErrNotFinite        = errors.New("mission: must be a finite number")
	ErrNotString        = errors.New("mission: must be a string")
	ErrNotBool          = errors.New("mission: must be true or false")
	ErrNotList          = errors.New("mission: must be a list")
	ErrSpeed            = errors.New("mission: must be a finite number > 0")
	ErrSpeedRange       = errors.New("mission: above 50 m/s (MaxSpeedMS)")
	ErrCoordRange       = errors.New("mission: beyond ±100000 m (MaxCoordM)")
	ErrGeofence         = errors.New("mission: outside the geofence (max_hor_dist from home)")
	ErrEmptyMission     = errors.New("mission: must hold at least one waypoint")
	ErrTooManyWaypoints = errors.New("mission: holds more than 100 waypoints")
	ErrAltitude         = errors.New("mission: violates home_z - max_altitude <= z <= home_z - ground_margin")
	ErrMaxAltitude      = errors.New("mission: must be a finite number > 0")
	ErrRange            = errors.New("mission: out of range")
)

// ParseError is an invalid command, waypoint or parameter. It follows
// encoding/csv.ParseError and scenario.ParseError.
type ParseError struct {
	File   string // the file or source parsed ("" for a command body)
	Field  string // the offending field, e.g. "waypoints[3].z"; "" for the whole input
	Err    error  // what is wrong: one of the Err* values above, possibly wrapped
	Detail string // the offending value or the bound it broke, for the message
}

// Error returns "file: field: message (detail)", leaving out what is not
// known.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("mission: ")
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	if e.Err != nil {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "mission: "))
	} else {
		b.WriteString("invalid")
	}
	if e.Detail != "" {
		b.WriteString(" (" + e.Detail + ")")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Stable error codes of the API (mission/server maps them to HTTP status
// codes).
const (
	CodeBadJSON         = "bad_json"
	CodeInvalid         = "invalid_command"
	CodeWrongState      = "wrong_state"
	CodeQueueBusy       = "queue_busy"
	CodeTargetActive    = "target_active"
	CodeNotReady        = "not_ready"
	CodeNothingToCancel = "nothing_to_cancel"
	CodeGoalNotFound    = "goal_not_found"
	CodeGoalDone        = "goal_done"
	CodeGeofence        = "geofence_violation" // a waypoint beyond max_hor_dist from home
)

// Code returns the stable code of an error from Step or ParseCommand: ""
// for nil, CodeBadJSON for input that is not a JSON object, CodeGeofence for
// a waypoint outside the geofence, CodeInvalid for other invalid input, and
// the matching Code* value for a refusal.
func Code(err error) string {
	var pe *ParseError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrSyntax), errors.Is(err, ErrNotObject):
		return CodeBadJSON
	case errors.Is(err, ErrGeofence):
		return CodeGeofence
	case errors.As(err, &pe):
		return CodeInvalid
	case errors.Is(err, ErrWrongState):
		return CodeWrongState
	case errors.Is(err, ErrQueueBusy):
		return CodeQueueBusy
	case errors.Is(err, ErrTargetActive):
		return CodeTargetActive
	case errors.Is(err, ErrNothingToCancel):
		return CodeNothingToCancel
	case errors.Is(err, ErrNotReady):
		return CodeNotReady
	case errors.Is(err, ErrNoGoal):
		return CodeGoalNotFound
	case errors.Is(err, ErrGoalDone):
		return CodeGoalDone
	}
	return CodeInvalid
}
