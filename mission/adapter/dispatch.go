package adapter

import (
	"context"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Dispatch carries out on v the mission commands that every
// vehicle.Vehicle takes the same way: arm, take-off, goto, hold, land and
// disarm (a vehicle that already disarmed itself after landing counts as
// done). handled is false for the others (connect, cancel), which each
// adapter carries out its own way.
func Dispatch(ctx context.Context, v vehicle.Vehicle, c mission.Command) (err error, handled bool) {
	switch c.Kind {
	case mission.CmdArm:
		return v.Arm(ctx), true
	case mission.CmdTakeoff:
		return v.Takeoff(ctx, c.AltM), true
	case mission.CmdGoto:
		return v.Goto(ctx, c.Target, c.SpeedMS), true
	case mission.CmdHold:
		return v.Hold(ctx), true
	case mission.CmdLand:
		return v.Land(ctx), true
	case mission.CmdDisarm:
		if !v.Telemetry().Armed {
			return ctx.Err(), true
		}
		return v.Disarm(ctx), true
	}
	return nil, false
}
