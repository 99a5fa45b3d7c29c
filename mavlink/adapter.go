package mavlink

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
)

// MissionAdapter is the mission daemon's vehicle adapter over MAVLink (it
// implements server.Adapter of package mission/server): the machine's
// commands become the Vehicle's, and Poll hands it each new
// LOCAL_POSITION_NED with the armed and landed state, and the link state
// (see Vehicle.Link).
type MissionAdapter struct {
	v       *Vehicle
	mu      sync.Mutex
	lastSeq uint64
}

// NewMissionAdapter wraps v; closing the adapter closes v.
func NewMissionAdapter(v *Vehicle) *MissionAdapter { return &MissionAdapter{v: v} }

// Vehicle returns the wrapped vehicle.
func (a *MissionAdapter) Vehicle() *Vehicle { return a.v }

// Mode returns "mavlink".
func (a *MissionAdapter) Mode() string { return "mavlink" }

// Execute carries out one command and returns once the autopilot accepted
// it (COMMAND_ACK ACCEPTED) or refused it. Connect waits for the vehicle's
// heartbeat, position and home; Cancel stops the Goto stream's carrot
// (the vehicle holds the point it reached until the next command); Disarm
// of a vehicle that already disarmed itself after landing succeeds.
func (a *MissionAdapter) Execute(ctx context.Context, c mission.Command) error {
	v := a.v
	if err, ok := adapter.Dispatch(ctx, v, c); ok {
		return err
	}
	switch c.Kind {
	case mission.CmdConnect:
		return v.WaitReady(ctx)
	case mission.CmdCancel:
		v.CancelGoto()
		return ctx.Err()
	}
	return fmt.Errorf("mavlink: unknown mission command %s", c.Kind)
}

// Poll returns the telemetry when a new local position came since the
// last Poll, and whether the link is up. now is ignored: a real link runs
// on its own time.
func (a *MissionAdapter) Poll(now time.Duration) (mission.Telemetry, bool, bool) {
	v := a.v
	up := v.Link().Up
	v.mu.Lock()
	seq, tel := v.t.posSeq, v.t.tel
	v.mu.Unlock()
	a.mu.Lock()
	fresh := seq != a.lastSeq
	a.lastSeq = seq
	a.mu.Unlock()
	if !fresh {
		return mission.Telemetry{}, false, up
	}
	return mission.Telemetry{T: tel.T, Pos: tel.Pos, Vel: tel.Vel, Armed: tel.Armed, Landed: tel.Landed, Battery: tel.Battery.Remaining}, true, up
}

// Close closes the vehicle's link.
func (a *MissionAdapter) Close() error { return a.v.Close() }
