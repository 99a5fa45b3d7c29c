package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
)

// DefaultROSNamespace is the node name of the specification's ROS 2 mission
// manager; its topics, services and action live under it.
const DefaultROSNamespace = "/uav_mission_safety_manager"

// The ROS interface of the daemon (ServeROS), under the namespace:
//
//	status          std_msgs/msg/String   the status JSON (GET /v1/status), on every change and every StatusEvery
//	queue           std_msgs/msg/String   {"mission_queue": …, "waypoints": [NED …]}, on every change of either
//	command         std_msgs/msg/String   subscribed: a command JSON, as POST /v1/command
//	pause, resume, cancel, return_home, land, dump_log   std_srvs/srv/Trigger
//	execute_mission uav_mission_interfaces/action/ExecuteMission, the waypoint mission as a goal
const (
	ROSStringType  = "std_msgs/msg/String"
	ROSTriggerType = "std_srvs/srv/Trigger"
	ROSActionType  = "uav_mission_interfaces/action/ExecuteMission"
	ROSActionName  = "execute_mission"
)

// ROSServices are the Trigger services ServeROS advertises, in order.
var ROSServices = []string{"pause", "resume", "cancel", "return_home", "land", "dump_log"}

// ROSConfig configures ServeROS. Zero values mean the defaults named.
type ROSConfig struct {
	Namespace string // "" = DefaultROSNamespace
	// StatusEvery republishes an unchanged status this often, in the
	// daemon's clock time, so that a node that subscribes late hears it
	// (rosbridge keeps no latched messages); 0 = 1 s.
	StatusEvery time.Duration
	// CancelWait bounds, in wall time, how long a canceled goal waits for
	// the machine's result before it reports CANCELED anyway; 0 = 10 s.
	CancelWait time.Duration
	// Ready, when not nil, is called once everything is advertised.
	Ready func()
}

// MissionFeedback is the execute_mission action's feedback: where the goal
// is (index -1 when no waypoint is current).
type MissionFeedback struct {
	GoalID    uint64 `json:"goal_id"`
	State     string `json:"state"`
	Paused    bool   `json:"paused"`
	Index     int    `json:"index"`
	Remaining int    `json:"remaining"`
	Completed int    `json:"completed"`
	Total     int    `json:"total"`
}

// MissionResult is the action's result: the goal's end and the queue's final
// state. A goal the machine refused has Accepted false, Code and Message.
type MissionResult struct {
	Accepted bool                `json:"accepted"`
	Code     string              `json:"code,omitempty"`
	Message  string              `json:"message"`
	GoalID   uint64              `json:"goal_id"`
	State    string              `json:"state"`
	Reason   string              `json:"reason"`
	Dropped  int                 `json:"dropped"`
	Queue    mission.QueueStatus `json:"queue"`
}

// ROSQueue is the queue topic's JSON.
type ROSQueue struct {
	MissionQueue mission.QueueStatus `json:"mission_queue"`
	Waypoints    []mission.Waypoint  `json:"waypoints"`
}

// ServeROS puts the daemon on a ROS 2 graph through node n (a
// rosbridge.Client dialed to the robot's rosbridge_server): it publishes
// the status and the queue, takes commands on the command topic, answers
// the Trigger services and runs waypoint missions as goals of the
// execute_mission action. It returns when ctx is done or the daemon
// stops. The graph is not authenticated (as nothing on a ROS graph is
// without SROS2): whoever reaches the rosbridge server commands the
// daemon.
func (s *Server) ServeROS(ctx context.Context, n rosbridge.Node, cfg ROSConfig) error {
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultROSNamespace
	}
	if cfg.StatusEvery == 0 {
		cfg.StatusEvery = time.Second
	}
	if cfg.CancelWait == 0 {
		cfg.CancelWait = 10 * time.Second
	}
	if cfg.StatusEvery < 0 || cfg.CancelWait < 0 {
		return errors.New("server: ROS status period and cancel wait must be ≥ 0")
	}
	ns := "/" + strings.Trim(cfg.Namespace, "/")
	name := func(s string) string { return ns + "/" + s }
	for _, t := range []string{"status", "queue"} {
		if err := n.Advertise(ctx, name(t), ROSStringType); err != nil {
			return fmt.Errorf("server: ROS advertise %s: %w", name(t), err)
		}
	}
	for _, sv := range ROSServices {
		if err := n.AdvertiseService(ctx, name(sv), ROSTriggerType, s.rosTrigger(sv)); err != nil {
			return fmt.Errorf("server: ROS advertise %s: %w", name(sv), err)
		}
	}
	if _, err := n.Subscribe(ctx, name("command"), ROSStringType, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
		go s.rosCommand(ctx, m) // the callback must not block
	}); err != nil {
		return fmt.Errorf("server: ROS subscribe %s: %w", name("command"), err)
	}
	if err := n.AdvertiseAction(ctx, name(ROSActionName), ROSActionType, func(gctx context.Context, g *rosbridge.GoalRequest) (any, int8) {
		return s.rosGoal(ctx, gctx, g, cfg.CancelWait)
	}); err != nil {
		return fmt.Errorf("server: ROS advertise %s: %w", name(ROSActionName), err)
	}

	ch, unsub := s.Subscribe()
	defer unsub()
	if cfg.Ready != nil {
		cfg.Ready()
	}
	tk := s.clock.NewTicker(cfg.StatusEvery)
	defer tk.Stop()
	var lastV uint64
	var lastQ []byte
	send := func(force bool) {
		js, v := s.StatusJSON()
		if v != lastV || force {
			lastV = v
			if err := n.Publish(ctx, name("status"), ros.String{Data: string(js)}); err != nil && ctx.Err() == nil {
				s.logf("ros: publish status: %v", err)
			}
		}
		q, _ := json.Marshal(ROSQueue{MissionQueue: s.Status().MissionQueue, Waypoints: nonNil(s.Waypoints())})
		if string(q) != string(lastQ) || force {
			lastQ = q
			if err := n.Publish(ctx, name("queue"), ros.String{Data: string(q)}); err != nil && ctx.Err() == nil {
				s.logf("ros: publish queue: %v", err)
			}
		}
	}
	send(true)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.Done():
			return nil
		case <-ch:
			send(false)
		case <-tk.C():
			send(true)
		}
	}
}

func nonNil(w []mission.Waypoint) []mission.Waypoint {
	if w == nil {
		return []mission.Waypoint{}
	}
	return w
}

// rosTrigger answers one Trigger service: success means accepted, as the
// HTTP API's 200; a refusal is success false with the code in the message.
func (s *Server) rosTrigger(name string) rosbridge.ServiceFunc {
	return func(ctx context.Context, args json.RawMessage) (any, error) {
		if t := strings.TrimSpace(string(args)); t != "" && t != "{}" && t != "null" {
			_ = s.Refuse(ctx, name, mission.CodeInvalid, "a Trigger request is empty")
			return ros.TriggerResponse{Success: false, Message: mission.CodeInvalid + ": " + name + " takes no parameters (std_srvs/Trigger)"}, nil
		}
		var rep Reply
		var err error
		if name == "dump_log" {
			rep, err = s.DumpLog(ctx)
		} else {
			ev, _ := mission.CommandByName(name)
			rep, err = s.Do(ctx, ev)
		}
		if err != nil {
			return nil, err
		}
		return triggerOf(rep), nil
	}
}

func triggerOf(rep Reply) ros.TriggerResponse {
	msg := rep.Message
	if !rep.Success && rep.Code != "" {
		if msg == "" {
			msg = rep.Code
		} else {
			msg = rep.Code + ": " + msg
		}
	}
	return ros.TriggerResponse{Success: rep.Success, Message: msg}
}

// rosCommand runs a command from the command topic; a bad one is refused
// and recorded like an HTTP one (a topic has no answer: watch the status).
func (s *Server) rosCommand(ctx context.Context, m json.RawMessage) {
	var msg ros.String
	if err := json.Unmarshal(m, &msg); err != nil {
		_ = s.Refuse(ctx, "command", mission.CodeInvalid, "not a std_msgs/String: "+clipText(err.Error(), 200))
		return
	}
	ev, err := mission.ParseCommand([]byte(msg.Data))
	if err != nil {
		_ = s.Refuse(ctx, commandName([]byte(msg.Data)), mission.Code(err), err.Error())
		return
	}
	if _, err := s.Do(ctx, ev); err != nil && ctx.Err() == nil {
		s.logf("ros: command: %v", err)
	}
}

// rosGoal runs one execute_mission goal: it loads the mission, sends the
// machine's goal feedback until the goal's result, and cancels the goal
// when the client cancels it. ctx is the ROS interface's, gctx the goal's.
func (s *Server) rosGoal(ctx, gctx context.Context, g *rosbridge.GoalRequest, cancelWait time.Duration) (any, int8) {
	ev, err := mission.ParseGoal(g.Args)
	if err != nil {
		_ = s.Refuse(ctx, "goal", mission.Code(err), err.Error())
		return MissionResult{Code: mission.Code(err), Message: err.Error(), Queue: s.Status().MissionQueue}, rosbridge.GoalAborted
	}
	ch, unsub := s.Subscribe()
	defer unsub()
	_, seen := s.Feed(^uint64(0))
	rep, err := s.Do(ctx, ev)
	if err != nil {
		return MissionResult{Code: CodeStopped, Message: err.Error()}, rosbridge.GoalAborted
	}
	if !rep.Success {
		return MissionResult{Code: rep.Code, Message: rep.Message, Queue: s.Status().MissionQueue}, rosbridge.GoalAborted
	}
	id := rep.GoalID
	canceled := false
	var wait <-chan time.Time
	for {
		recs, n := s.Feed(seen)
		seen = n
		for _, r := range recs {
			if r.Goal == nil || r.Goal.ID != id {
				continue
			}
			if r.Kind == mission.KindGoalResult {
				return goalResult(*r.Goal, r.Detail)
			}
			_ = g.Feedback(feedbackOf(*r.Goal))
		}
		// The feed keeps the last records only; the goal table keeps the end.
		if gs, ok := s.Goal(id); ok && gs.Terminal() {
			return goalResult(gs, "")
		}
		select {
		case <-ch:
		case <-gctx.Done():
			if !canceled {
				canceled = true
				if _, err := s.Do(ctx, mission.CancelGoal{ID: id}); err != nil {
					return MissionResult{Accepted: true, Code: CodeStopped, Message: err.Error(), GoalID: id}, rosbridge.GoalCanceled
				}
				t := time.NewTimer(cancelWait) // wall time: the client waits in wall time
				defer t.Stop()
				wait = t.C
			}
		case <-wait:
			gs, _ := s.Goal(id)
			r, _ := goalResult(gs, "cancel requested; no result from the machine within "+cancelWait.String())
			return r, rosbridge.GoalCanceled
		case <-s.Done():
			gs, _ := s.Goal(id)
			r, _ := goalResult(gs, ErrStopped.Error())
			return r, rosbridge.GoalAborted
		case <-ctx.Done():
			gs, _ := s.Goal(id)
			r, _ := goalResult(gs, "the ROS interface stopped")
			return r, rosbridge.GoalAborted
		}
	}
}

func feedbackOf(gs mission.GoalStatus) MissionFeedback {
	f := MissionFeedback{GoalID: gs.ID, State: gs.State, Paused: gs.Paused, Index: -1, Remaining: gs.Remaining, Completed: gs.Completed, Total: gs.Total}
	if gs.CurrentIndex != nil {
		f.Index = *gs.CurrentIndex
	}
	return f
}

// goalResult is a terminal goal status as the action's result and status
// code. The queue is the one the goal loaded, in its final state.
func goalResult(gs mission.GoalStatus, msg string) (MissionResult, int8) {
	if msg == "" {
		msg = fmt.Sprintf("goal %d %s: %d/%d waypoints reached, %d dropped", gs.ID, gs.State, gs.Completed, gs.Total, gs.Dropped)
	}
	r := MissionResult{Accepted: true, Message: msg, GoalID: gs.ID, State: gs.State, Reason: gs.Reason, Dropped: gs.Dropped,
		Queue: mission.QueueStatus{Total: gs.Total, Completed: gs.Completed, Remaining: gs.Remaining, CurrentIndex: gs.CurrentIndex}}
	switch gs.State {
	case "SUCCEEDED":
		r.Queue.State = "COMPLETED"
		return r, rosbridge.GoalSucceeded
	case "CANCELED":
		r.Queue.State = "CANCELED"
		return r, rosbridge.GoalCanceled
	case "ABORTED":
		r.Queue.State = "ABORTED"
		return r, rosbridge.GoalAborted
	}
	r.Queue.State = "RUNNING"
	return r, rosbridge.GoalAborted
}
