// Package adapter holds the vehicle adapters of the mission daemon (package
// mission/server): Demo, a vehicle that moves at constant speed without
// dynamics (the specification's demo adapter); StateOnly, the historical
// pure state-machine mode in which every command takes effect at once; and
// Sim, the embedded quadrotor of package vehicle flown in (scaled) real
// time. Each implements server.Adapter; the MAVLink adapter of a later issue
// implements it too.
//
// Time is an input: the daemon calls Poll(now) with its clock's offset, and
// the simulated vehicles advance to it. Nothing here reads a clock or starts
// a goroutine, so the adapters are deterministic and testable without
// sleeping.
package adapter

import (
	"errors"
	"fmt"

	"github.com/shakedown-robotics/shakedown/mission"
)

// Errors of refused commands.
var (
	ErrNotConnected = errors.New("adapter: not connected")
	ErrNotArmed     = errors.New("adapter: not armed")
	ErrArmed        = errors.New("adapter: already armed")
	ErrInAir        = errors.New("adapter: in the air")
	ErrOnGround     = errors.New("adapter: on the ground")
	ErrRefused      = errors.New("adapter: refused by fault injection")
	ErrLinkDown     = errors.New("adapter: link down")
)

// Faults are failures a test or a demonstration switches on and off.
type Faults struct {
	DropTelemetry bool // Poll returns no telemetry (a telemetry timeout follows)
	LinkDown      bool // Poll reports the link down, and every command fails
	RefuseArm     bool // Arm fails
	RefuseTakeoff bool // Takeoff fails (the RPC returns false)
	RefuseGoto    bool // Goto fails
}

// Faulty is implemented by adapters that take injected faults.
type Faulty interface {
	SetFaults(Faults)
}

func refused(c mission.Command, f Faults) error {
	switch {
	case f.LinkDown:
		return ErrLinkDown
	case f.RefuseArm && c.Kind == mission.CmdArm,
		f.RefuseTakeoff && c.Kind == mission.CmdTakeoff,
		f.RefuseGoto && c.Kind == mission.CmdGoto:
		return fmt.Errorf("%s: %w", c.Kind, ErrRefused)
	}
	return nil
}
