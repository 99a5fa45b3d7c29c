package mavlink

import (
	"fmt"

	"github.com/shakedown-robotics/shakedown/autopilot"
)

// Autopilot families (HEARTBEAT.autopilot, MAV_AUTOPILOT).
const (
	autopilotGeneric    = 0
	autopilotArduPilot  = 3
	autopilotInvalid    = 8
	autopilotPX4        = 12
	mavTypeGCS          = 6
	mavTypeQuadrotor    = 2
	baseModeCustom      = 1
	baseModeGuided      = 8
	baseModeStabilize   = 16
	baseModeAuto        = 4
	baseModeArmed       = 128
	forceMagic          = 21196 // MAV_CMD_COMPONENT_ARM_DISARM param2: force
	mavStateStandby     = 3
	mavStateActive      = 4
	mavStateCritical    = 5
	landedOnGround      = 1
	landedInAir         = 2
	landedTakeoff       = 3
	landedLanding       = 4
	missionStateNone    = 1
	missionStateWaiting = 2
	missionStateActive  = 3
	missionStatePaused  = 4
	missionStateDone    = 5
)

// Flavor is the autopilot family on the other end of the link.
type Flavor int

// Autopilot families.
const (
	FlavorUnknown Flavor = iota
	FlavorPX4
	FlavorArduPilot
)

func (f Flavor) String() string {
	switch f {
	case FlavorPX4:
		return "px4"
	case FlavorArduPilot:
		return "ardupilot"
	}
	return "unknown"
}

func flavorOf(autopilot uint8) Flavor {
	switch autopilot {
	case autopilotPX4:
		return FlavorPX4
	case autopilotArduPilot:
		return FlavorArduPilot
	}
	return FlavorUnknown
}

// PX4 main modes and AUTO sub-modes (px4_custom_mode.h, px4.md §5.1).
const (
	px4Manual     = 1
	px4AltCtl     = 2
	px4PosCtl     = 3
	px4Auto       = 4
	px4Acro       = 5
	px4Offboard   = 6
	px4Stabilized = 7
	px4Rattitude  = 8
	px4Term       = 10

	px4AutoReady    = 1
	px4AutoTakeoff  = 2
	px4AutoLoiter   = 3
	px4AutoMission  = 4
	px4AutoRTL      = 5
	px4AutoLand     = 6
	px4AutoFollow   = 8
	px4AutoPrecLand = 9
)

// PX4Mode encodes a PX4 main and sub mode as HEARTBEAT.custom_mode:
// (main << 16) | (sub << 24).
func PX4Mode(main, sub uint8) uint32 { return uint32(main)<<16 | uint32(sub)<<24 }

// px4Split decodes a PX4 custom_mode.
func px4Split(custom uint32) (main, sub uint8) { return uint8(custom >> 16), uint8(custom >> 24) }

// Mode names are those of the embedded simulator (autopilot.Mode.String),
// so that a harness reads the same names from every vehicle: "idle",
// "takeoff", "hold", "mission", "offboard", "return", "land"; modes the
// simulator does not have keep PX4's name in lower case ("position").
var px4AutoNames = map[uint8]string{
	px4AutoReady: "idle", px4AutoTakeoff: "takeoff", px4AutoLoiter: "hold", px4AutoMission: "mission",
	px4AutoRTL: "return", px4AutoLand: "land", px4AutoFollow: "follow", px4AutoPrecLand: "precland",
}

var px4MainNames = map[uint8]string{
	px4Manual: "manual", px4AltCtl: "altitude", px4PosCtl: "position", px4Acro: "acro",
	px4Offboard: "offboard", px4Stabilized: "stabilized", px4Rattitude: "rattitude", px4Term: "termination",
}

// PX4ModeName returns the harness name of a PX4 custom_mode.
func PX4ModeName(custom uint32) string {
	main, sub := px4Split(custom)
	if main == px4Auto {
		if n, ok := px4AutoNames[sub]; ok {
			return n
		}
		return fmt.Sprintf("auto.%d", sub)
	}
	if n, ok := px4MainNames[main]; ok {
		return n
	}
	return fmt.Sprintf("px4.%d.%d", main, sub)
}

// ArduPilot Copter modes (HEARTBEAT.custom_mode is the mode number).
const (
	apStabilize = 0
	apAltHold   = 2
	apAuto      = 3
	apGuided    = 4
	apLoiter    = 5
	apRTL       = 6
	apLand      = 9
	apBrake     = 17
)

// ArduPilot GUIDED plays PX4's Offboard role (external position targets),
// so it reads as "offboard"; AUTO reads as "mission".
var apNames = map[uint32]string{
	apStabilize: "stabilized", 1: "acro", apAltHold: "altitude", apAuto: "mission", apGuided: "offboard",
	apLoiter: "hold", apRTL: "return", 7: "circle", apLand: "land", 11: "drift", 13: "sport", 16: "position",
	apBrake: "hold",
}

// ArduPilotModeName returns the harness name of an ArduPilot Copter mode.
func ArduPilotModeName(custom uint32) string {
	if n, ok := apNames[custom]; ok {
		return n
	}
	return fmt.Sprintf("ardupilot.%d", custom)
}

// modeName decodes a heartbeat's mode for the flavor.
func modeName(f Flavor, base uint8, custom uint32) string {
	switch {
	case base&baseModeCustom == 0:
		return "unknown"
	case f == FlavorArduPilot:
		return ArduPilotModeName(custom)
	}
	return PX4ModeName(custom)
}

// simPX4Mode returns the PX4 custom_mode and base_mode (without the armed
// flag) that the server reports for an embedded autopilot mode; PX4 reports
// AUTO.LOITER while it repositions, so Goto reads as hold (px4.md §5.1),
// and on the ground, where PX4 SITL without a remote control sits in Hold
// (it never reports AUTO.READY), idle reads as hold too.
func simPX4Mode(m autopilot.Mode) (custom uint32, base uint8) {
	const auto = baseModeCustom | baseModeAuto | baseModeGuided | baseModeStabilize // 29
	switch m {
	case autopilot.ModeTakeoff:
		return PX4Mode(px4Auto, px4AutoTakeoff), auto
	case autopilot.ModeHold, autopilot.ModeGoto, autopilot.ModeIdle:
		return PX4Mode(px4Auto, px4AutoLoiter), auto
	case autopilot.ModeMission:
		return PX4Mode(px4Auto, px4AutoMission), auto
	case autopilot.ModeOffboard:
		return PX4Mode(px4Offboard, 0), auto
	case autopilot.ModeReturn:
		return PX4Mode(px4Auto, px4AutoRTL), auto
	case autopilot.ModeLand:
		return PX4Mode(px4Auto, px4AutoLand), auto
	}
	return PX4Mode(px4Auto, px4AutoLoiter), auto
}
