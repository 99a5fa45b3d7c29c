package mission

import "fmt"

// GoalState is the state of a goal: a waypoint mission with an ID, the
// specification's Action interface (goal, feedback, result, final cancel
// status). A goal is the queue it loaded: the queue's rules hold unchanged
// underneath, and the goal only names its progress and its end.
type GoalState uint8

// Goal states. SUCCEEDED, ABORTED and CANCELED are terminal: a goal reaches
// exactly one of them, once, and its result says which and why.
const (
	GoalAccepted  GoalState = iota + 1 // validated and loaded; the first waypoint is on its way
	GoalExecuting                      // the vehicle accepted the first waypoint
	GoalSucceeded                      // every waypoint reached (the queue COMPLETED)
	GoalAborted                        // a FAILSAFE ended it (the queue ABORTED); Reason is the failsafe's
	GoalCanceled                       // cancel, cancel_goal, return_home or land ended it (the queue CANCELED)
)

var goalNames = [...]string{"", "ACCEPTED", "EXECUTING", "SUCCEEDED", "ABORTED", "CANCELED"}

// String returns the goal state's name, e.g. "SUCCEEDED".
func (g GoalState) String() string {
	if int(g) < len(goalNames) && g != 0 {
		return goalNames[g]
	}
	return fmt.Sprintf("GoalState(%d)", int(g))
}

// Terminal reports whether g is SUCCEEDED, ABORTED or CANCELED.
func (g GoalState) Terminal() bool { return g >= GoalSucceeded }

// Reasons a goal was canceled (GoalStatus.Reason); an aborted goal carries
// the failsafe reason (Reason* in state.go).
const (
	CancelByCancel     = "cancel"
	CancelByReturnHome = "return_home"
	CancelByLand       = "land"
)

// GoalStatus is a goal's feedback or result. Paused reports that the queue
// is paused (the goal keeps its state).
type GoalStatus struct {
	ID           uint64 `json:"id"`
	State        string `json:"state"`
	Reason       string `json:"reason"`
	Paused       bool   `json:"paused"`
	Total        int    `json:"total"`
	Completed    int    `json:"completed"`
	CurrentIndex *int   `json:"current_index"`
	Remaining    int    `json:"remaining"`
	// Dropped is the number of waypoints a canceled or aborted goal will
	// never fly (Total − Completed); 0 otherwise.
	Dropped int `json:"dropped"`
}

// Terminal reports whether the status is a result.
func (g GoalStatus) Terminal() bool {
	return g.State == "SUCCEEDED" || g.State == "ABORTED" || g.State == "CANCELED"
}

// goal is the machine's current goal.
type goal struct {
	id     uint64
	state  GoalState
	reason string
}

// goalStatus renders the current goal with the queue's counters.
func (m *Machine) goalStatus() GoalStatus {
	q := m.q.status()
	g := GoalStatus{ID: m.goal.id, State: m.goal.state.String(), Reason: m.goal.reason, Paused: m.q.state == QueuePaused,
		Total: q.Total, Completed: q.Completed, CurrentIndex: q.CurrentIndex, Remaining: q.Remaining}
	if m.goal.state == GoalAborted || m.goal.state == GoalCanceled {
		g.Dropped = q.Total - q.Completed
	}
	return g
}

// Goal returns the status of the current (or last) goal, ok false before
// any.
func (m *Machine) Goal() (GoalStatus, bool) {
	if m.goal.id == 0 {
		return GoalStatus{}, false
	}
	return m.goalStatus(), true
}

// goalFeedback records the current goal's progress.
func (m *Machine) goalFeedback(what string) {
	if m.goal.id == 0 || m.goal.state.Terminal() {
		return
	}
	g := m.goalStatus()
	m.out.Records = append(m.out.Records, Record{Kind: KindGoalFeedback, State: m.state, Goal: &g,
		Detail: fmt.Sprintf("goal %d %s: %s, %d/%d waypoints reached", g.ID, g.State, what, g.Completed, g.Total)})
	m.out.Changed = true
}

// goalEnd moves the current goal to its terminal state and records its
// result, once.
func (m *Machine) goalEnd(st GoalState, reason string) {
	if m.goal.id == 0 || m.goal.state.Terminal() {
		return
	}
	m.goal.state, m.goal.reason = st, reason
	g := m.goalStatus()
	d := fmt.Sprintf("goal %d %s", g.ID, g.State)
	if reason != "" {
		d += " (" + reason + ")"
	}
	d += fmt.Sprintf(": %d/%d waypoints reached, %d dropped", g.Completed, g.Total, g.Dropped)
	m.out.Records = append(m.out.Records, Record{Kind: KindGoalResult, State: m.state, Goal: &g, Detail: d})
	m.out.Changed = true
}
