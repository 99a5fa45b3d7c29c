// Package mission is the single-vehicle mission safety manager: a state
// machine with a waypoint queue and failsafes, driven by an operator or a
// ground station (spec: seeds/mission-safety-manager.zh.txt).
//
// A Machine is a value, in the manner of etcd's raft: Step(now, event) takes
// one input (an operator command such as Connect or Load, a Telemetry
// sample, a command Result from the vehicle adapter, a Link change or a
// Tick) and returns a Ready: whether a command was accepted, the vehicle
// Commands to execute in order, and the Records a flight recorder keeps. It
// reads no clock and starts no goroutine; the daemon (package
// mission/server) owns the clock, the adapter and the sockets.
//
// States:
//
//	IDLE → CONNECTING → ARMING → TAKEOFF → EXECUTING
//	EXECUTING ↔ PAUSED
//	EXECUTING / PAUSED → RETURNING → LANDING → LANDED
//	any abnormal condition → FAILSAFE
//
// Rules kept from the specification:
//
//   - Home is recorded at connect, from fresh telemetry of a landed vehicle
//     that is standing still.
//   - Pause keeps the target and the commanded speed; resume re-sends the
//     same target.
//   - Return flies above home, corrects its position at low speed at the
//     end, and lands only after the position error and the speed have stayed
//     within their thresholds for a hold time.
//   - LANDED is entered only after the disarm command succeeded and fresh
//     telemetry (received after that) shows the vehicle landed and disarmed.
//   - At most one command is outstanding at a time, and a flight task
//     (take-off, goto, hold, land) is cancelled, and its cancellation
//     confirmed, before the next flight task is dispatched: a waypoint and a
//     land command never run at once.
//   - The take-off command's result is kept (takeoff_rpc_result) and the
//     take-off is confirmed by telemetry. A rejected take-off, which the
//     original left unhandled, goes to FAILSAFE with reason
//     takeoff_rejected.
//   - "Fresh" telemetry is a sample received after the command it confirms
//     was accepted; a waypoint counts as reached when fresh telemetry puts
//     the vehicle within ArrivalRadiusM (1 m) of it.
//
// The waypoint queue (Load) takes 1 to MaxWaypoints NED waypoints, validated
// all at once against home_z − max_altitude ≤ z < home_z before it replaces
// the current queue; see QueueState and QueueStatus for its states and counters.
//
// Failsafes, each with a reason code recorded in the black box:
// telemetry_timeout, altitude_violation, rpc_error, takeoff_rejected,
// connect_timeout, takeoff_timeout, return_timeout, landing_timeout,
// vehicle_disarmed (in the air), and, beyond the specification and
// configurable, battery_low and link_lost.
//
// Beyond the specification, Reset goes back to IDLE from LANDED, or from
// FAILSAFE once fresh telemetry shows the vehicle landed and disarmed.
//
// A service call that succeeds means the request was accepted, not that the
// action is done: the Status says when it is.
package mission
