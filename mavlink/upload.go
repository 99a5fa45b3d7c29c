package mavlink

import (
	"context"
	"fmt"
	"math"

	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Mission item frames (MAV_FRAME).
const (
	frameGlobal       = 0 // MAV_FRAME_GLOBAL: altitude AMSL
	frameGlobalRelAlt = 3 // MAV_FRAME_GLOBAL_RELATIVE_ALT
	frameGlobalInt    = 5 // MAV_FRAME_GLOBAL_INT: altitude AMSL
	frameGlobalRelInt = 6 // MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
)

// missionItems converts items (NED about home) to MISSION_ITEM_INT in
// MAV_FRAME_GLOBAL_RELATIVE_ALT_INT: latitude and longitude from the
// reference, z the height above home. ArduPilot's item 0 is home, so its
// list starts with a home item.
func missionItems(items []vehicle.MissionItem, ref refPoint, home geom.Vec3, fl Flavor) ([]*common.MessageMissionItemInt, error) {
	var out []*common.MessageMissionItemInt
	add := func(cmd uint16, frame uint8, lat, lon, z float64, p1, p2, p4 float32) {
		out = append(out, &common.MessageMissionItemInt{Seq: uint16(len(out)), Frame: common.MAV_FRAME(frame), Command: common.MAV_CMD(cmd),
			Autocontinue: 1, Param1: p1, Param2: p2, Param4: p4,
			X: int32(math.Round(lat * 1e7)), Y: int32(math.Round(lon * 1e7)), Z: float32(z)})
	}
	if fl == FlavorArduPilot {
		lat, lon, amsl := ref.toGlobal(home)
		add(cmdNavWaypoint, frameGlobal, lat, lon, amsl, 0, 0, 0)
	}
	speed := 0.0
	for i, it := range items {
		if !allFinite(it.Pos) || !(it.AcceptRadiusM >= 0) || math.IsInf(it.AcceptRadiusM, 0) || !(it.SpeedMS >= 0) || math.IsInf(it.SpeedMS, 0) {
			return nil, fmt.Errorf("mavlink: mission item %d: position %v, acceptance radius %v, speed %v: want finite values", i, it.Pos, it.AcceptRadiusM, it.SpeedMS)
		}
		if it.SpeedMS > 0 && it.SpeedMS != speed {
			// MAV_CMD_DO_CHANGE_SPEED: ground speed (1), m/s, throttle unchanged (−1).
			speed = it.SpeedMS
			out = append(out, &common.MessageMissionItemInt{Seq: uint16(len(out)), Frame: common.MAV_FRAME_MISSION, Command: common.MAV_CMD_DO_CHANGE_SPEED,
				Autocontinue: 1, Param1: 1, Param2: float32(speed), Param3: -1})
		}
		p := home
		p.X, p.Y = p.X+it.Pos.X, p.Y+it.Pos.Y
		lat, lon, _ := ref.toGlobal(p)
		switch it.Kind {
		case vehicle.Takeoff:
			add(cmdNavTakeoff, frameGlobalRelInt, lat, lon, -it.Pos.Z, 0, 0, nan32())
		case vehicle.Waypoint:
			add(cmdNavWaypoint, frameGlobalRelInt, lat, lon, -it.Pos.Z, 0, float32(it.AcceptRadiusM), nan32())
		case vehicle.Land:
			add(cmdNavLand, frameGlobalRelInt, lat, lon, 0, 0, 0, nan32())
		default:
			return nil, fmt.Errorf("mavlink: mission item %d: unknown kind %d", i, it.Kind)
		}
	}
	if len(out) > math.MaxUint16 {
		return nil, fmt.Errorf("mavlink: %d mission items, more than MAVLink counts", len(out))
	}
	out[0].Current = 1
	return out, nil
}

// UploadMission replaces the vehicle's mission with the mission protocol:
// MISSION_COUNT, then one MISSION_ITEM_INT for each MISSION_REQUEST_INT (or
// legacy MISSION_REQUEST), until MISSION_ACK. A step without an answer
// repeats the last message after MissionTimeout, at most MissionRetries
// times.
func (v *Vehicle) UploadMission(ctx context.Context, items []vehicle.MissionItem) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(items) == 0 {
		return fmt.Errorf("%w: empty mission", ErrMission)
	}
	v.upMu.Lock()
	defer v.upMu.Unlock()
	v.mu.Lock()
	sys, comp, fl := v.t.sys, v.t.comp, v.t.flavor
	ref := v.t.reference()
	home := v.t.tel.Home
	v.mu.Unlock()
	if sys == 0 {
		return ErrNotReady
	}
	if !ref.ok {
		return ErrNoHome
	}
	msgs, err := missionItems(items, ref, home, fl)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		m.TargetSystem, m.TargetComponent = sys, comp
	}
	in := make(chan message.Message, 16)
	v.mu.Lock()
	v.mission = in
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.mission = nil
		v.mu.Unlock()
	}()
	var last message.Message = &common.MessageMissionCount{TargetSystem: sys, TargetComponent: comp, Count: uint16(len(msgs))}
	v.write(last)
	retries := 0
	for {
		tm := v.cfg.Clock.NewTimer(v.cfg.MissionTimeout)
		var got message.Message
		select {
		case got = <-in:
			tm.Stop()
		case <-tm.C():
			if retries++; retries > v.cfg.MissionRetries {
				return fmt.Errorf("%w: no answer to %T after %d retries", ErrMission, last, v.cfg.MissionRetries)
			}
			v.write(last)
			continue
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-v.closing:
			tm.Stop()
			return ErrClosed
		}
		seq, mt := -1, uint8(0)
		switch m := got.(type) {
		case *common.MessageMissionRequestInt:
			seq, mt = int(m.Seq), uint8(m.MissionType)
		case *common.MessageMissionRequest:
			seq, mt = int(m.Seq), uint8(m.MissionType)
		case *common.MessageMissionAck:
			if m.MissionType != 0 {
				continue
			}
			if m.Type != 0 {
				return fmt.Errorf("%w: MISSION_ACK %s", ErrMission, missionResultName(uint8(m.Type)))
			}
			v.mu.Lock()
			v.t.uploaded, v.t.lastReached, v.t.missionState = len(msgs), -1, 0
			v.mu.Unlock()
			return nil
		}
		if mt != 0 {
			continue
		}
		if seq < 0 || seq >= len(msgs) {
			return fmt.Errorf("%w: vehicle asked for item %d of %d", ErrMission, seq, len(msgs))
		}
		last, retries = msgs[seq], 0
		v.write(last)
	}
}
