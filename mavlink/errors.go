package mavlink

import (
	"errors"
	"fmt"

	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Errors of the adapter.
var (
	ErrNoAck       = errors.New("mavlink: no COMMAND_ACK")
	ErrLinkLost    = errors.New("mavlink: link lost (nothing heard from the vehicle)")
	ErrNotReady    = errors.New("mavlink: vehicle not ready (no heartbeat or no position yet)")
	ErrClosed      = errors.New("mavlink: closed")
	ErrNoHome      = errors.New("mavlink: home position unknown")
	ErrMission     = errors.New("mavlink: mission upload failed")
	ErrBadURL      = errors.New("mavlink: bad connection URL")
	ErrBadSetpoint = errors.New("mavlink: setpoint has no finite position or velocity")
)

// MAV_RESULT values (px4.md §5.2).
const (
	ResultAccepted            = 0
	ResultTemporarilyRejected = 1
	ResultDenied              = 2
	ResultUnsupported         = 3
	ResultFailed              = 4
	ResultInProgress          = 5
	ResultCancelled           = 6
	ResultUnsupportedFrame    = 9 // MAV_RESULT_UNSUPPORTED_MAV_FRAME
)

var resultNames = [...]string{"ACCEPTED", "TEMPORARILY_REJECTED", "DENIED", "UNSUPPORTED", "FAILED",
	"IN_PROGRESS", "CANCELLED", "COMMAND_LONG_ONLY", "COMMAND_INT_ONLY", "UNSUPPORTED_MAV_FRAME", "NOT_IN_CONTROL"}

// ResultName returns the MAV_RESULT name of r, e.g. "DENIED".
func ResultName(r uint8) string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("MAV_RESULT(%d)", r)
}

// Sentinels a CommandError matches with errors.Is, by result.
var (
	ErrTemporarilyRejected = errors.New("mavlink: command temporarily rejected")
	ErrDenied              = errors.New("mavlink: command denied")
	ErrFailed              = errors.New("mavlink: command failed")
)

// CommandError is a COMMAND_ACK whose result is not ACCEPTED.
type CommandError struct {
	Command uint16 // MAV_CMD
	Result  uint8  // MAV_RESULT
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("mavlink: %s: %s", commandName(e.Command), ResultName(e.Result))
}

// Is matches the sentinel of the result: ErrTemporarilyRejected,
// ErrDenied, ErrFailed, or vehicle.ErrUnsupported.
func (e *CommandError) Is(target error) bool {
	switch e.Result {
	case ResultTemporarilyRejected:
		return target == ErrTemporarilyRejected
	case ResultDenied:
		return target == ErrDenied
	case ResultUnsupported:
		return target == vehicle.ErrUnsupported
	case ResultFailed:
		return target == ErrFailed
	}
	return false
}

// MAV_CMD ids used here (px4.md §5.2).
const (
	cmdNavWaypoint      = 16
	cmdNavReturn        = 20
	cmdNavLand          = 21
	cmdNavTakeoff       = 22
	cmdDoSetMode        = 176
	cmdDoChangeSpeed    = 178
	cmdDoFlightTerm     = 185
	cmdDoReposition     = 192
	cmdDoPauseContinue  = 193
	cmdDoMotorTest      = 209
	cmdDoSetMissionCur  = 224
	cmdMissionStart     = 300
	cmdArmDisarm        = 400
	cmdGetMsgInterval   = 510
	cmdSetMsgInterval   = 511
	cmdRequestMessage   = 512
	cmdRequestProtoVers = 519
	cmdRequestAPVersion = 520
)

var commandNames = map[uint16]string{
	cmdNavWaypoint: "NAV_WAYPOINT", cmdNavReturn: "NAV_RETURN_TO_LAUNCH", cmdNavLand: "NAV_LAND",
	cmdNavTakeoff: "NAV_TAKEOFF", cmdDoSetMode: "DO_SET_MODE", cmdDoChangeSpeed: "DO_CHANGE_SPEED",
	cmdDoFlightTerm: "DO_FLIGHTTERMINATION", cmdDoReposition: "DO_REPOSITION", cmdDoPauseContinue: "DO_PAUSE_CONTINUE",
	cmdDoMotorTest: "DO_MOTOR_TEST", cmdMissionStart: "MISSION_START", cmdArmDisarm: "COMPONENT_ARM_DISARM",
	cmdSetMsgInterval: "SET_MESSAGE_INTERVAL", cmdGetMsgInterval: "GET_MESSAGE_INTERVAL", cmdDoSetMissionCur: "DO_SET_MISSION_CURRENT",
	cmdRequestProtoVers: "REQUEST_PROTOCOL_VERSION", cmdRequestMessage: "REQUEST_MESSAGE", cmdRequestAPVersion: "REQUEST_AUTOPILOT_CAPABILITIES",
}

func commandName(c uint16) string {
	if n, ok := commandNames[c]; ok {
		return "MAV_CMD_" + n
	}
	return fmt.Sprintf("MAV_CMD(%d)", c)
}

// MAV_MISSION_RESULT names (px4.md §5.3).
var missionResultNames = [...]string{"ACCEPTED", "ERROR", "UNSUPPORTED_FRAME", "UNSUPPORTED", "NO_SPACE",
	"INVALID", "INVALID_PARAM1", "INVALID_PARAM2", "INVALID_PARAM3", "INVALID_PARAM4", "INVALID_PARAM5_X",
	"INVALID_PARAM6_Y", "INVALID_PARAM7", "INVALID_SEQUENCE", "DENIED", "OPERATION_CANCELLED"}

func missionResultName(r uint8) string {
	if int(r) < len(missionResultNames) {
		return missionResultNames[r]
	}
	return fmt.Sprintf("MAV_MISSION_RESULT(%d)", r)
}
