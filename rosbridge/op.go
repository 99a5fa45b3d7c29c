package rosbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Op is one rosbridge v2 protocol message (ROSBRIDGE_PROTOCOL.md of
// rosbridge_suite, ROS 2 branch). The set is closed: the concrete types in
// this file, told apart by a type switch.
type Op interface {
	// Name is the message's "op" field.
	Name() string
	validate() error
}

// Topic operations (protocol §3.4).
type (
	// Advertise announces that the sender will publish on Topic.
	Advertise struct {
		ID        string `json:"id,omitempty"`
		Topic     string `json:"topic"`
		Type      string `json:"type"`
		Latch     bool   `json:"latch,omitempty"`
		QueueSize int    `json:"queue_size,omitempty"`
	}
	// Unadvertise withdraws an Advertise.
	Unadvertise struct {
		ID    string `json:"id,omitempty"`
		Topic string `json:"topic"`
	}
	// Publish carries one message on Topic.
	Publish struct {
		ID    string          `json:"id,omitempty"`
		Topic string          `json:"topic"`
		Msg   json.RawMessage `json:"msg"`
	}
	// Subscribe asks for Topic's messages, at most one every ThrottleRate
	// ms (0: every message), QueueLength of them kept while throttled (0:
	// throttled messages are dropped), split into fragments of
	// FragmentSize bytes (0: never split).
	Subscribe struct {
		ID           string `json:"id,omitempty"`
		Topic        string `json:"topic"`
		Type         string `json:"type,omitempty"`
		ThrottleRate int    `json:"throttle_rate,omitempty"`
		QueueLength  int    `json:"queue_length,omitempty"`
		FragmentSize int    `json:"fragment_size,omitempty"`
		Compression  string `json:"compression,omitempty"`
	}
	// Unsubscribe withdraws a Subscribe.
	Unsubscribe struct {
		ID    string `json:"id,omitempty"`
		Topic string `json:"topic"`
	}
)

// Service operations (protocol §3.4.6–3.4.9).
type (
	// CallService calls Service with Args; the answer is a ServiceResponse
	// with the same ID.
	CallService struct {
		ID           string          `json:"id,omitempty"`
		Service      string          `json:"service"`
		Type         string          `json:"type,omitempty"`
		Args         json.RawMessage `json:"args,omitempty"`
		FragmentSize int             `json:"fragment_size,omitempty"`
		Compression  string          `json:"compression,omitempty"`
		TimeoutS     float64         `json:"timeout,omitempty"`
	}
	// ServiceResponse answers a CallService: Result false means the call
	// failed and Values (if any) says why.
	ServiceResponse struct {
		ID      string          `json:"id,omitempty"`
		Service string          `json:"service"`
		Values  json.RawMessage `json:"values,omitempty"`
		Result  bool            `json:"result"`
	}
	// AdvertiseService announces that the sender answers Service.
	AdvertiseService struct {
		Service string `json:"service"`
		Type    string `json:"type"`
	}
	// UnadvertiseService withdraws an AdvertiseService.
	UnadvertiseService struct {
		Service string `json:"service"`
	}
)

// Action operations (ROS 2 only).
type (
	// SendActionGoal sends a goal to Action; feedback comes back as
	// ActionFeedback (when Feedback is set) and the end as ActionResult,
	// both with the same ID.
	SendActionGoal struct {
		ID           string          `json:"id"`
		Action       string          `json:"action"`
		ActionType   string          `json:"action_type"`
		Args         json.RawMessage `json:"args,omitempty"`
		Feedback     bool            `json:"feedback,omitempty"`
		FragmentSize int             `json:"fragment_size,omitempty"`
		Compression  string          `json:"compression,omitempty"`
	}
	// CancelActionGoal cancels the goal sent with ID.
	CancelActionGoal struct {
		ID     string `json:"id"`
		Action string `json:"action"`
	}
	// ActionFeedback is a goal's feedback.
	ActionFeedback struct {
		ID     string          `json:"id"`
		Action string          `json:"action"`
		Values json.RawMessage `json:"values"`
	}
	// ActionResult ends a goal: Status is an action_msgs/GoalStatus code
	// and Result false means the goal failed before it ran.
	ActionResult struct {
		ID     string          `json:"id"`
		Action string          `json:"action"`
		Values json.RawMessage `json:"values,omitempty"`
		Status int8            `json:"status"`
		Result bool            `json:"result"`
	}
	// AdvertiseAction announces that the sender serves Action.
	AdvertiseAction struct {
		Action string `json:"action"`
		Type   string `json:"type"`
	}
	// UnadvertiseAction withdraws an AdvertiseAction.
	UnadvertiseAction struct {
		Action string `json:"action"`
	}
)

// Status and control operations (protocol §3.1–3.3).
type (
	// Status reports an error, a warning or information about the request
	// with ID (if any).
	Status struct {
		ID    string `json:"id,omitempty"`
		Level string `json:"level"`
		Msg   string `json:"msg"`
	}
	// SetLevel sets which Status messages the sender wants: "error",
	// "warning", "info" or "none".
	SetLevel struct {
		ID    string `json:"id,omitempty"`
		Level string `json:"level"`
	}
	// Fragment is part Num (from 0) of Total of a message split into
	// Data strings.
	Fragment struct {
		ID    string `json:"id"`
		Data  string `json:"data"`
		Num   int    `json:"num"`
		Total int    `json:"total"`
	}
)

// Status levels, least to most verbose.
const (
	LevelNone    = "none"
	LevelError   = "error"
	LevelWarning = "warning"
	LevelInfo    = "info"
)

func levelRank(l string) (int, bool) {
	switch l {
	case LevelNone:
		return 0, true
	case LevelError:
		return 1, true
	case LevelWarning:
		return 2, true
	case LevelInfo:
		return 3, true
	}
	return 0, false
}

// Name returns "advertise".
func (Advertise) Name() string { return "advertise" }

// Name returns "unadvertise".
func (Unadvertise) Name() string { return "unadvertise" }

// Name returns "publish".
func (Publish) Name() string { return "publish" }

// Name returns "subscribe".
func (Subscribe) Name() string { return "subscribe" }

// Name returns "unsubscribe".
func (Unsubscribe) Name() string { return "unsubscribe" }

// Name returns "call_service".
func (CallService) Name() string { return "call_service" }

// Name returns "service_response".
func (ServiceResponse) Name() string { return "service_response" }

// Name returns "advertise_service".
func (AdvertiseService) Name() string { return "advertise_service" }

// Name returns "unadvertise_service".
func (UnadvertiseService) Name() string { return "unadvertise_service" }

// Name returns "send_action_goal".
func (SendActionGoal) Name() string { return "send_action_goal" }

// Name returns "cancel_action_goal".
func (CancelActionGoal) Name() string { return "cancel_action_goal" }

// Name returns "action_feedback".
func (ActionFeedback) Name() string { return "action_feedback" }

// Name returns "action_result".
func (ActionResult) Name() string { return "action_result" }

// Name returns "advertise_action".
func (AdvertiseAction) Name() string { return "advertise_action" }

// Name returns "unadvertise_action".
func (UnadvertiseAction) Name() string { return "unadvertise_action" }

// Name returns "status".
func (Status) Name() string { return "status" }

// Name returns "set_level".
func (SetLevel) Name() string { return "set_level" }

// Name returns "fragment".
func (Fragment) Name() string { return "fragment" }

func need(field, v string) error {
	if v == "" {
		return &FieldError{Field: field, Err: ErrMissing}
	}
	return nil
}

func needAll(fv ...string) error {
	for i := 0; i+1 < len(fv); i += 2 {
		if err := need(fv[i], fv[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func nonNegative(field string, v int) error {
	if v < 0 {
		return &FieldError{Field: field, Err: ErrRange}
	}
	return nil
}

func (o Advertise) validate() error {
	if err := needAll("topic", o.Topic, "type", o.Type); err != nil {
		return err
	}
	return nonNegative("queue_size", o.QueueSize)
}
func (o Unadvertise) validate() error { return need("topic", o.Topic) }
func (o Publish) validate() error {
	if err := need("topic", o.Topic); err != nil {
		return err
	}
	if !isObject(o.Msg) {
		return &FieldError{Field: "msg", Err: ErrType}
	}
	return nil
}
func (o Subscribe) validate() error {
	if err := need("topic", o.Topic); err != nil {
		return err
	}
	for _, f := range []struct {
		n string
		v int
	}{{"throttle_rate", o.ThrottleRate}, {"queue_length", o.QueueLength}, {"fragment_size", o.FragmentSize}} {
		if err := nonNegative(f.n, f.v); err != nil {
			return err
		}
	}
	return nil
}
func (o Unsubscribe) validate() error { return need("topic", o.Topic) }
func (o CallService) validate() error {
	if err := need("service", o.Service); err != nil {
		return err
	}
	if len(o.Args) > 0 && !isObject(o.Args) && !isArrayOrNull(o.Args) {
		return &FieldError{Field: "args", Err: ErrType}
	}
	if err := nonNegative("fragment_size", o.FragmentSize); err != nil {
		return err
	}
	return nil
}
func (o ServiceResponse) validate() error { return need("service", o.Service) }
func (o AdvertiseService) validate() error {
	return needAll("service", o.Service, "type", o.Type)
}
func (o UnadvertiseService) validate() error { return need("service", o.Service) }
func (o SendActionGoal) validate() error {
	if err := needAll("id", o.ID, "action", o.Action, "action_type", o.ActionType); err != nil {
		return err
	}
	if len(o.Args) > 0 && !isObject(o.Args) && !isArrayOrNull(o.Args) {
		return &FieldError{Field: "args", Err: ErrType}
	}
	return nonNegative("fragment_size", o.FragmentSize)
}
func (o CancelActionGoal) validate() error { return needAll("id", o.ID, "action", o.Action) }
func (o ActionFeedback) validate() error   { return needAll("id", o.ID, "action", o.Action) }
func (o ActionResult) validate() error     { return needAll("id", o.ID, "action", o.Action) }
func (o AdvertiseAction) validate() error  { return needAll("action", o.Action, "type", o.Type) }
func (o UnadvertiseAction) validate() error {
	return need("action", o.Action)
}
func (o Status) validate() error { return need("level", o.Level) }
func (o SetLevel) validate() error {
	if _, ok := levelRank(o.Level); !ok {
		return &FieldError{Field: "level", Err: ErrRange}
	}
	return nil
}
func (o Fragment) validate() error {
	if err := need("id", o.ID); err != nil {
		return err
	}
	if o.Total < 1 || o.Total > MaxFragments {
		return &FieldError{Field: "total", Err: ErrRange}
	}
	if o.Num < 0 || o.Num >= o.Total {
		return &FieldError{Field: "num", Err: ErrRange}
	}
	return nil
}

// MaxFragments is the most fragments one message may be split into.
const MaxFragments = 1 << 16

// Errors of decoding.
var (
	ErrMissing  = errors.New("rosbridge: missing field")
	ErrType     = errors.New("rosbridge: wrong type")
	ErrRange    = errors.New("rosbridge: value out of range")
	ErrUnknown  = errors.New("rosbridge: unknown op")
	ErrTooLarge = errors.New("rosbridge: message too large")
)

// FieldError is a field of a message that is missing, of the wrong type
// or out of range.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %v", e.Field, e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

// DecodeError is a protocol message that could not be decoded: Op is its
// "op" field when that much was read, ID its "id".
type DecodeError struct {
	Op  string
	ID  string
	Err error
}

func (e *DecodeError) Error() string {
	if e.Op == "" {
		return "rosbridge: decode: " + e.Err.Error()
	}
	return fmt.Sprintf("rosbridge: decode %s: %v", e.Op, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Decode parses one protocol message. Unknown fields are ignored, as
// rosbridge_server does; a missing op, an unknown op, a field of the wrong
// type or a missing required field is a *DecodeError.
func Decode(b []byte) (Op, error) {
	var env struct {
		Op *string          `json:"op"`
		ID *json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, &DecodeError{Err: typeErr(err)}
	}
	id := ""
	if env.ID != nil {
		_ = json.Unmarshal(*env.ID, &id) // best effort, for the status message
	}
	if env.Op == nil {
		return nil, &DecodeError{ID: id, Err: &FieldError{Field: "op", Err: ErrMissing}}
	}
	name := *env.Op
	var op Op
	var err error
	switch name {
	case "advertise":
		op, err = decodeAs[Advertise](b)
	case "unadvertise":
		op, err = decodeAs[Unadvertise](b)
	case "publish":
		op, err = decodeAs[Publish](b)
	case "subscribe":
		op, err = decodeAs[Subscribe](b)
	case "unsubscribe":
		op, err = decodeAs[Unsubscribe](b)
	case "call_service":
		op, err = decodeAs[CallService](b)
	case "service_response":
		op, err = decodeAs[ServiceResponse](b)
	case "advertise_service":
		op, err = decodeAs[AdvertiseService](b)
	case "unadvertise_service":
		op, err = decodeAs[UnadvertiseService](b)
	case "send_action_goal":
		op, err = decodeAs[SendActionGoal](b)
	case "cancel_action_goal":
		op, err = decodeAs[CancelActionGoal](b)
	case "action_feedback":
		op, err = decodeAs[ActionFeedback](b)
	case "action_result":
		op, err = decodeAs[ActionResult](b)
	case "advertise_action":
		op, err = decodeAs[AdvertiseAction](b)
	case "unadvertise_action":
		op, err = decodeAs[UnadvertiseAction](b)
	case "status":
		op, err = decodeAs[Status](b)
	case "set_level":
		op, err = decodeAs[SetLevel](b)
	case "fragment":
		op, err = decodeAs[Fragment](b)
	default:
		return nil, &DecodeError{Op: name, ID: id, Err: ErrUnknown}
	}
	if err != nil {
		return nil, &DecodeError{Op: name, ID: id, Err: err}
	}
	return op, nil
}

func decodeAs[T Op](b []byte) (Op, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, typeErr(err)
	}
	if err := v.validate(); err != nil {
		return nil, err
	}
	return v, nil
}

// typeErr turns encoding/json's type error into a FieldError.
func typeErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		if f == "" {
			f = "."
		}
		return &FieldError{Field: f, Err: ErrType}
	}
	return err
}

// Encode renders op as one JSON protocol message with its "op" field
// first.
func Encode(op Op) ([]byte, error) {
	body, err := json.Marshal(op)
	if err != nil {
		return nil, fmt.Errorf("rosbridge: encode %s: %w", op.Name(), err)
	}
	var buf bytes.Buffer
	buf.Grow(len(body) + len(op.Name()) + 10)
	buf.WriteString(`{"op":"`)
	buf.WriteString(op.Name())
	buf.WriteByte('"')
	if len(body) > 2 {
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

func isObject(b json.RawMessage) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

func isArrayOrNull(b json.RawMessage) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && (b[0] == '[' || bytes.HasPrefix(b, []byte("null")))
}

// resolve makes a ROS name absolute: rosbridge resolves relative names in
// the root namespace ("rosapi/topics" is "/rosapi/topics").
func resolve(name string) string {
	if strings.HasPrefix(name, "/") {
		return name
	}
	return "/" + name
}
