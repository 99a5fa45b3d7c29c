package mission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ParseCommand parses one operator command of the command API, a JSON
// object such as
//
//	{"event":"connect"}
//	{"event":"goto","x":4,"y":0,"z":-2,"speed":2}
//	{"event":"mission","waypoints":[{"x":4,"y":0,"z":-2,"speed":2}, …]}
//	{"event":"pause"}
//
// It is strict: unknown and duplicate fields, booleans, strings or null
// where a number belongs, numbers too large to be finite, an empty list and
// more than MaxWaypoints waypoints are refused with a *ParseError naming the
// field, and so are coordinates beyond ±MaxCoordM. A waypoint's speed is
// optional (DefaultSpeedMS) and must be > 0 and at most MaxSpeedMS.
// The altitude rule needs home and is checked by the Machine.
func ParseCommand(data []byte) (Event, error) {
	ms, err := readObject(data, "")
	if err != nil {
		return nil, err
	}
	var name string
	found := false
	for _, m := range ms {
		if m.key == "event" {
			if name, err = str(m.raw, "event"); err != nil {
				return nil, err
			}
			found = true
		}
	}
	if !found {
		return nil, &ParseError{Field: "event", Err: ErrMissing}
	}
	ev, ok := CommandByName(name)
	if !ok {
		return nil, &ParseError{Field: "event", Err: ErrUnknownEvent, Detail: strconv.Quote(name)}
	}
	switch ev.(type) {
	case Goto:
		w, err := waypoint(ms, "", "event")
		if err != nil {
			return nil, err
		}
		return Goto{Waypoint: w}, nil
	case Load:
		return load(ms)
	}
	for _, m := range ms {
		if m.key != "event" {
			return nil, &ParseError{Field: m.key, Err: ErrUnknownField, Detail: "event " + name + " takes no fields"}
		}
	}
	return ev, nil
}

// CommandByName returns the operator command named name on the command API
// ("connect", "armed", "airborne", "goto", "mission", "pause", "resume",
// "cancel", "return_home", "land", "reset"), with zero fields.
func CommandByName(name string) (Event, bool) {
	switch name {
	case "connect":
		return Connect{}, true
	case "armed":
		return Arm{}, true
	case "airborne":
		return Airborne{}, true
	case "goto":
		return Goto{}, true
	case "mission":
		return Load{}, true
	case "pause":
		return Pause{}, true
	case "resume":
		return Resume{}, true
	case "cancel":
		return Cancel{}, true
	case "return_home":
		return ReturnHome{}, true
	case "land":
		return Land{}, true
	case "reset":
		return Reset{}, true
	}
	return nil, false
}

// CommandNames lists the names CommandByName knows, in flight order.
var CommandNames = []string{"connect", "armed", "airborne", "goto", "mission", "pause", "resume",
	"cancel", "return_home", "land", "reset"}

// ParseGoal parses the body of a goal request, {"waypoints":[…]} (an
// "event":"mission" member is allowed), as strictly as ParseCommand parses
// a mission.
func ParseGoal(data []byte) (Load, error) {
	ms, err := readObject(data, "")
	if err != nil {
		return Load{}, err
	}
	for _, m := range ms {
		if m.key != "event" {
			continue
		}
		name, err := str(m.raw, "event")
		if err != nil {
			return Load{}, err
		}
		if name != "mission" {
			return Load{}, &ParseError{Field: "event", Err: ErrUnknownEvent, Detail: strconv.Quote(name) + ": a goal is a mission"}
		}
	}
	ev, err := load(ms)
	if err != nil {
		return Load{}, err
	}
	return ev.(Load), nil
}

func load(ms []member) (Event, error) {
	var raw json.RawMessage
	for _, m := range ms {
		switch m.key {
		case "event":
		case "waypoints":
			raw = m.raw
		default:
			return nil, &ParseError{Field: m.key, Err: ErrUnknownField}
		}
	}
	if raw == nil {
		return nil, &ParseError{Field: "waypoints", Err: ErrMissing}
	}
	var items []json.RawMessage
	if first(raw) != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, &ParseError{Field: "waypoints", Err: ErrNotList, Detail: "got " + kindOf(raw)}
	}
	switch {
	case len(items) == 0:
		return nil, &ParseError{Field: "waypoints", Err: ErrEmptyMission}
	case len(items) > MaxWaypoints:
		return nil, &ParseError{Field: "waypoints", Err: ErrTooManyWaypoints, Detail: fmt.Sprintf("%d waypoints", len(items))}
	}
	wps := make([]Waypoint, len(items))
	for i, it := range items {
		field := fmt.Sprintf("waypoints[%d]", i)
		wm, err := readObject(it, field)
		if err != nil {
			return nil, err
		}
		if wps[i], err = waypoint(wm, field, ""); err != nil {
			return nil, err
		}
	}
	return Load{Waypoints: wps}, nil
}

// waypoint reads x, y, z and an optional speed from ms; skip names a member
// that belongs to the enclosing command.
func waypoint(ms []member, field, skip string) (Waypoint, error) {
	pre := field
	if pre != "" {
		pre += "."
	}
	var w Waypoint
	var have [3]bool
	for _, m := range ms {
		var dst *float64
		switch m.key {
		case "x":
			dst, have[0] = &w.X, true
		case "y":
			dst, have[1] = &w.Y, true
		case "z":
			dst, have[2] = &w.Z, true
		case "speed":
			dst = &w.SpeedMS
		case skip:
			continue
		default:
			return Waypoint{}, &ParseError{Field: pre + m.key, Err: ErrUnknownField}
		}
		v, err := number(m.raw, pre+m.key)
		if err != nil {
			return Waypoint{}, err
		}
		*dst = v
		switch {
		case m.key == "speed" && !(v > 0):
			return Waypoint{}, &ParseError{Field: pre + "speed", Err: ErrSpeed, Detail: num(v)}
		case m.key == "speed" && v > MaxSpeedMS:
			return Waypoint{}, &ParseError{Field: pre + "speed", Err: ErrSpeedRange, Detail: short(v)}
		case m.key != "speed" && math.Abs(v) > MaxCoordM:
			return Waypoint{}, &ParseError{Field: pre + m.key, Err: ErrCoordRange, Detail: short(v)}
		}
	}
	for i, n := range []string{"x", "y", "z"} {
		if !have[i] {
			return Waypoint{}, &ParseError{Field: pre + n, Err: ErrMissing}
		}
	}
	if w.SpeedMS == 0 {
		w.SpeedMS = DefaultSpeedMS
	}
	return w, nil
}

type member struct {
	key string
	raw json.RawMessage
}

// readObject reads a JSON object into its members in order, refusing
// duplicate keys and trailing data.
func readObject(data []byte, field string) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(field, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &ParseError{Field: field, Err: ErrNotObject, Detail: "got " + kindOf(bytes.TrimSpace(data))}
	}
	pre := field
	if pre != "" {
		pre += "."
	}
	var ms []member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, syntaxErr(field, err)
		}
		key, ok := kt.(string)
		if !ok {
			return nil, &ParseError{Field: field, Err: ErrSyntax}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxErr(pre+key, err)
		}
		for _, m := range ms {
			if m.key == key {
				return nil, &ParseError{Field: pre + key, Err: ErrDuplicateField}
			}
		}
		ms = append(ms, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(field, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ParseError{Field: field, Err: ErrSyntax, Detail: "data after the object"}
	}
	return ms, nil
}

func syntaxErr(field string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &ParseError{Field: field, Err: ErrSyntax, Detail: "unexpected end of input"}
	}
	return &ParseError{Field: field, Err: ErrSyntax, Detail: err.Error()}
}

func first(raw []byte) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// kindOf names the JSON type of raw for messages.
func kindOf(raw []byte) string {
	switch first(raw) {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 0:
		return "nothing"
	}
	return "a number"
}

// number parses a JSON number, refusing every other type and values too
// large to be finite.
func number(raw json.RawMessage, field string) (float64, error) {
	if k := kindOf(raw); k != "a number" {
		return 0, &ParseError{Field: field, Err: ErrNotNumber, Detail: "got " + k}
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && !math.IsInf(f, 0)) {
		if math.IsInf(f, 0) {
			return 0, &ParseError{Field: field, Err: ErrNotFinite, Detail: string(raw)}
		}
		return 0, &ParseError{Field: field, Err: ErrNotNumber, Detail: string(raw)}
	}
	return f, nil
}

func str(raw json.RawMessage, field string) (string, error) {
	var s string
	if first(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		return "", &ParseError{Field: field, Err: ErrNotString, Detail: "got " + kindOf(raw)}
	}
	return s, nil
}

// FieldNumber, FieldString and FieldBool parse one JSON value strictly, for
// parsers built on this package's rules (the daemon's parameter file).
func FieldNumber(raw json.RawMessage, field string) (float64, error) { return number(raw, field) }

// FieldString parses a JSON string; see FieldNumber.
func FieldString(raw json.RawMessage, field string) (string, error) { return str(raw, field) }

// FieldBool parses a JSON boolean; see FieldNumber.
func FieldBool(raw json.RawMessage, field string) (bool, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &ParseError{Field: field, Err: ErrNotBool, Detail: "got " + kindOf(raw)}
}

// Member is one member of a JSON object, in order.
type Member struct {
	Key string
	Raw json.RawMessage
}

// ReadObject reads a JSON object strictly (no duplicate keys, no trailing
// data) into its members in order; file names the source in errors.
func ReadObject(data []byte, file string) ([]Member, error) {
	ms, err := readObject(data, "")
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = file
		}
		return nil, err
	}
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = Member{m.key, m.raw}
	}
	return out, nil
}
