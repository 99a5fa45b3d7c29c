// Package mavlink flies real autopilots and serves the embedded simulator
// over MAVLink 2 (github.com/bluenviron/gomavlib/v3, common dialect; the
// ardupilotmega dialect for ArduPilot).
//
// Three pieces, each owning its goroutines and taking an injected Clock:
//
//   - Vehicle is the adapter: a vehicle.Vehicle (and vehicle.MotorTester)
//     over a MAVLink link to PX4 or ArduPilot. It tracks the autopilot's
//     heartbeat and flight mode (PX4 custom modes, ArduPilot Copter modes),
//     sends every command as COMMAND_LONG and waits for its COMMAND_ACK,
//     uploads missions with the mission protocol (MISSION_COUNT,
//     MISSION_REQUEST_INT, MISSION_ITEM_INT, MISSION_ACK, with retries),
//     flies Goto by streaming SET_POSITION_TARGET_LOCAL_NED in Offboard
//     (GUIDED on ArduPilot), and decodes the telemetry into
//     vehicle.Telemetry, rejecting frames with non-finite or absurd values.
//     Link loss (nothing heard for Config.LinkTimeout) is reported by Link
//     and ends Wait with ErrLinkLost.
//   - Server is the embedded simulator (vehicle.Sim) posing as a PX4 SITL
//     vehicle: heartbeat with base_mode and PX4 custom_mode, the commands
//     above answered with PX4's COMMAND_ACK results, the mission protocol,
//     offboard setpoints with COM_OF_LOSS_T and a failsafe (hold, then land
//     after COM_FAIL_ACT_T), telemetry at SITL rates, and enough of the
//     parameter and mission download protocols for QGroundControl.
//   - MissionAdapter is the mission daemon's adapter (server.Adapter of
//     package mission/server) over a Vehicle.
//
// Frames: telemetry and setpoints are local NED (x North, y East, z Down),
// as PX4's LOCAL_POSITION_NED; mission items travel as
// MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, converted with scenario.Project and
// scenario.Unproject about the vehicle's home.
//
// Facts (message fields, PX4 mode encoding, MAV_RESULT codes, ports,
// failsafe parameters) are from shared/reference/px4.md §3 and §5.
package mavlink
