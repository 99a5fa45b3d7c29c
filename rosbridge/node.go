package rosbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Goal status codes of action_msgs/GoalStatus.
const (
	GoalUnknown   int8 = 0
	GoalAccepted  int8 = 1
	GoalExecuting int8 = 2
	GoalCanceling int8 = 3
	GoalSucceeded int8 = 4
	GoalCanceled  int8 = 5
	GoalAborted   int8 = 6
)

// Errors of the graph.
var (
	ErrNoService = errors.New("rosbridge: no such service")
	ErrNoAction  = errors.New("rosbridge: no such action")
	ErrTaken     = errors.New("rosbridge: name already advertised by another node")
	ErrClosed    = errors.New("rosbridge: connection closed")
	ErrTypeClash = errors.New("rosbridge: topic advertised with another type")
)

// ServiceError is a service call that the service answered with result
// false; Values is what it said.
type ServiceError struct {
	Service string
	Values  json.RawMessage
}

func (e *ServiceError) Error() string {
	return fmt.Sprintf("rosbridge: service %s failed: %s", e.Service, e.Values)
}

// ServiceFunc answers one service call. An error becomes result false with
// the error's text as the values.
type ServiceFunc func(ctx context.Context, args json.RawMessage) (values any, err error)

// ActionFunc runs one goal until it ends, sending feedback through g; ctx is
// cancelled when the client cancels the goal (the function then returns
// GoalCanceled). It returns the result's values and its status code
// (GoalSucceeded, GoalCanceled or GoalAborted).
type ActionFunc func(ctx context.Context, g *GoalRequest) (values any, status int8)

// GoalRequest is a goal an ActionFunc runs.
type GoalRequest struct {
	ID       string
	Args     json.RawMessage
	feedback func(values any) error
}

// Feedback sends feedback to the goal's client.
func (g *GoalRequest) Feedback(values any) error { return g.feedback(values) }

// Result is a goal's end as the client sees it.
type Result struct {
	Status int8
	OK     bool // the result field: false when the goal failed before running
	Values json.RawMessage
}

// SubscribeOptions are a subscription's throttling: at most one message
// every ThrottleMS (0: all), QueueLength kept while throttled (0: dropped),
// FragmentSize to split large messages (0: never).
type SubscribeOptions struct {
	ThrottleMS   int
	QueueLength  int
	FragmentSize int
}

// Node is one participant of a ROS graph reached over rosbridge: a Client
// connected to a rosbridge server, or a Server's own local node. Names are
// ROS names; relative ones are resolved in the root namespace.
type Node interface {
	// Advertise announces a topic of type typ to publish on.
	Advertise(ctx context.Context, topic, typ string) error
	// Publish sends msg (marshalled as JSON) on an advertised topic.
	Publish(ctx context.Context, topic string, msg any) error
	// Subscribe calls fn with every message on topic; the returned
	// function ends the subscription. fn runs on the node's own goroutine
	// and must not block.
	Subscribe(ctx context.Context, topic, typ string, o SubscribeOptions, fn func(json.RawMessage)) (func(), error)
	// CallService calls a service and unmarshals its values into reply
	// (if not nil).
	CallService(ctx context.Context, service, typ string, args, reply any) error
	// AdvertiseService answers service with fn.
	AdvertiseService(ctx context.Context, service, typ string, fn ServiceFunc) error
	// SendGoal sends a goal; feedback (if not nil) gets each feedback.
	SendGoal(ctx context.Context, action, typ string, args any, feedback func(json.RawMessage)) (*Goal, error)
	// AdvertiseAction serves action with fn, one goroutine per goal.
	AdvertiseAction(ctx context.Context, action, typ string, fn ActionFunc) error
}

// Goal is a goal sent by SendGoal.
type Goal struct {
	ID     string
	done   chan struct{}
	res    Result
	cancel func() error
}

func newGoal(id string, cancel func() error) *Goal {
	return &Goal{ID: id, done: make(chan struct{}), cancel: cancel}
}

// Done is closed when the result arrived.
func (g *Goal) Done() <-chan struct{} { return g.done }

// Cancel asks the action server to cancel the goal.
func (g *Goal) Cancel() error { return g.cancel() }

// Wait returns the result once it arrived, or ctx's error.
func (g *Goal) Wait(ctx context.Context) (Result, error) {
	select {
	case <-g.done:
		return g.res, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

func (g *Goal) finish(r Result) {
	select {
	case <-g.done:
	default:
		g.res = r
		close(g.done)
	}
}

func marshalValues(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return v, nil
	}
	return json.Marshal(v)
}
