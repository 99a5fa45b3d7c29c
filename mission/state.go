package mission

import "fmt"

// State is the mission state.
type State uint8

// Mission states, in the order of a normal flight; StateFailsafe is entered
// from any abnormal condition.
const (
	StateIdle State = iota
	StateConnecting
	StateArming
	StateTakeoff
	StateExecuting
	StatePaused
	StateReturning
	StateLanding
	StateLanded
	StateFailsafe
)

var stateNames = [...]string{"IDLE", "CONNECTING", "ARMING", "TAKEOFF", "EXECUTING", "PAUSED",
	"RETURNING", "LANDING", "LANDED", "FAILSAFE"}

// String returns the state's name as the status shows it, e.g. "EXECUTING".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// active reports whether the vehicle is connected and under the machine's
// control, so that telemetry and link timeouts apply.
func (s State) active() bool {
	return s >= StateConnecting && s <= StateLanding
}

// flying reports whether the vehicle may be off the ground in s, so that the
// altitude band and the battery are watched.
func (s State) flying() bool {
	return s >= StateTakeoff && s <= StateLanding
}

// QueueState is the state of the waypoint queue.
type QueueState uint8

// Queue states. COMPLETED, CANCELED and ABORTED are terminal: the current
// index is null, nothing remains, and no waypoint of that queue is
// dispatched again.
const (
	QueueIdle QueueState = iota
	QueueRunning
	QueuePaused
	QueueCompleted
	QueueCanceled
	QueueAborted
)

var queueNames = [...]string{"IDLE", "RUNNING", "PAUSED", "COMPLETED", "CANCELED", "ABORTED"}

// String returns the queue state's name, e.g. "RUNNING".
func (q QueueState) String() string {
	if int(q) < len(queueNames) {
		return queueNames[q]
	}
	return fmt.Sprintf("QueueState(%d)", int(q))
}

// Live reports whether the queue is running or paused.
func (q QueueState) Live() bool { return q == QueueRunning || q == QueuePaused }

// Failsafe reasons, as recorded in the status and the black box.
const (
	ReasonTelemetryTimeout = "telemetry_timeout"
	ReasonAltitude         = "altitude_violation"
	ReasonRPC              = "rpc_error"
	ReasonTakeoffRejected  = "takeoff_rejected"
	ReasonConnectTimeout   = "connect_timeout"
	ReasonTakeoffTimeout   = "takeoff_timeout"
	ReasonReturnTimeout    = "return_timeout"
	ReasonLandingTimeout   = "landing_timeout"
	ReasonBatteryLow       = "battery_low"
	ReasonLinkLost         = "link_lost"
	ReasonVehicleDisarmed  = "vehicle_disarmed"
	ReasonPositionLost     = "position_lost"
	ReasonAttitude         = "attitude_failure"
	ReasonGeofence         = "geofence_breach" // telemetry beyond max_hor_dist (PX4's GF_ACTION default: hold)
)
