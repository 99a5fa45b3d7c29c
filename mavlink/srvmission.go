package mavlink

import (
	"context"
	"math"
	"time"

	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

const maxMissionItems = 1000

// missionTimeout is how long the vehicle waits for the next item of an
// upload before it asks again, and missionRetries how often (px4.md §5.3).
const (
	missionTimeout = 1500 * time.Millisecond
	missionRetries = 5
)

func (c *core) missionCount(to any, sys, comp uint8, m *common.MessageMissionCount) {
	if m.MissionType != 0 {
		// Fences and rally points are not modelled: take none.
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: 3 /* UNSUPPORTED */, MissionType: m.MissionType})
		return
	}
	if m.Count > maxMissionItems {
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: 4 /* NO_SPACE */})
		return
	}
	if m.Count == 0 {
		c.setMission(nil, nil, nil)
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp})
		return
	}
	c.up = &uploadState{to: to, sys: sys, comp: comp, count: int(m.Count)}
	c.requestItem()
}

// requestItem asks for the next item: MISSION_REQUEST_INT, or the legacy
// MISSION_REQUEST once the ground station answered with MISSION_ITEM (as
// PX4's mission manager falls back to the float protocol).
func (c *core) requestItem() {
	u := c.up
	u.askedAt = c.wall
	seq := uint16(len(u.items))
	if u.legacy {
		c.send(u.to, &common.MessageMissionRequest{TargetSystem: u.sys, TargetComponent: u.comp, Seq: seq})
		return
	}
	c.send(u.to, &common.MessageMissionRequestInt{TargetSystem: u.sys, TargetComponent: u.comp, Seq: seq})
}

// itemInt converts a legacy MISSION_ITEM (latitude and longitude in float
// degrees) to MISSION_ITEM_INT.
func itemInt(m *common.MessageMissionItem) *common.MessageMissionItemInt {
	deg := func(v float32) int32 {
		d := float64(v) * 1e7
		if !(math.Abs(d) < math.MaxInt32) {
			return math.MaxInt32 // refused by checkItem
		}
		return int32(math.Round(d))
	}
	return &common.MessageMissionItemInt{TargetSystem: m.TargetSystem, TargetComponent: m.TargetComponent, Seq: m.Seq,
		Frame: m.Frame, Command: m.Command, Current: m.Current, Autocontinue: m.Autocontinue,
		Param1: m.Param1, Param2: m.Param2, Param3: m.Param3, Param4: m.Param4,
		X: deg(m.X), Y: deg(m.Y), Z: m.Z, MissionType: m.MissionType}
}

// itemFloat converts a stored item to the legacy MISSION_ITEM, for a
// download asked for with MISSION_REQUEST; the INT frames become their
// float twins.
func itemFloat(m *common.MessageMissionItemInt) *common.MessageMissionItem {
	f := m.Frame
	switch uint8(f) {
	case frameGlobalInt:
		f = frameGlobal
	case frameGlobalRelInt:
		f = frameGlobalRelAlt
	}
	return &common.MessageMissionItem{TargetSystem: m.TargetSystem, TargetComponent: m.TargetComponent, Seq: m.Seq,
		Frame: f, Command: m.Command, Current: m.Current, Autocontinue: m.Autocontinue,
		Param1: m.Param1, Param2: m.Param2, Param3: m.Param3, Param4: m.Param4,
		X: float32(float64(m.X) / 1e7), Y: float32(float64(m.Y) / 1e7), Z: m.Z, MissionType: m.MissionType}
}

// missionItem takes the next item of an upload; items out of sequence are
// asked for again.
func (c *core) missionItem(to any, sys, comp uint8, m *common.MessageMissionItemInt, legacy bool) {
	u := c.up
	if u == nil || m.MissionType != 0 || sys != u.sys {
		return
	}
	u.legacy = legacy
	if int(m.Seq) != len(u.items) {
		c.requestItem()
		return
	}
	if code := c.checkItem(m); code != 0 {
		c.up = nil
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: common.MAV_MISSION_RESULT(code)})
		return
	}
	it := *m
	u.items = append(u.items, &it)
	u.retries = 0
	if len(u.items) < u.count {
		c.requestItem()
		return
	}
	c.up = nil
	items, seqs, code := c.vehicleItems(u.items)
	if code == 0 {
		if err := c.sim.UploadMission(context.Background(), items); err != nil {
			code = 5 // INVALID
		}
	}
	if code == 0 {
		c.setMission(u.items, items, seqs)
	}
	c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: common.MAV_MISSION_RESULT(code)})
}

// setMission replaces the mission: all its items, the flown ones and their
// sequence numbers. Its current item is the first.
func (c *core) setMission(all []*common.MessageMissionItemInt, items []vehicle.MissionItem, seqs []int) {
	if all == nil {
		_ = c.sim.UploadMission(context.Background(), nil)
	}
	c.mission, c.apSeq = all, seqs
	c.apItems = make([]autopilot.Item, len(items))
	for i, it := range items {
		c.apItems[i] = autopilot.Item{Kind: autopilot.ItemKind(it.Kind), Pos: it.Pos, AcceptRadiusM: it.AcceptRadiusM}
	}
	c.cur, c.started, c.finished = 0, false, false
	c.apFrom, c.apEnd = 0, len(c.apItems)
	if c.inMission {
		// PX4 stops a running mission that is replaced: hold.
		_ = c.sim.Hold(context.Background())
		c.inMission = false
	}
}

// checkItem returns 0 or the MAV_MISSION_RESULT that refuses the item.
func (c *core) checkItem(m *common.MessageMissionItemInt) uint8 {
	switch uint8(m.Frame) {
	case frameGlobal, frameGlobalRelAlt, frameGlobalRelInt, frameGlobalInt:
	default:
		return 2 // UNSUPPORTED_FRAME
	}
	cmd := uint16(m.Command)
	if cmd >= 80 {
		return 0 // DO_ and CONDITION_ items: accepted, not flown
	}
	if cmd != cmdNavTakeoff && cmd != cmdNavWaypoint && cmd != cmdNavLand {
		return 3 // UNSUPPORTED
	}
	if !validLatLon(m.X, m.Y) && cmd != cmdNavTakeoff {
		return 10 // INVALID_PARAM5_X
	}
	if !fin(float64(m.Z)) || math.Abs(float64(m.Z)) > 1e5 {
		return 12 // INVALID_PARAM7
	}
	if p2 := float64(m.Param2); cmd == cmdNavWaypoint && (!fin(p2) || p2 < 0 || p2 > 1e4) {
		return 7 // INVALID_PARAM2
	}
	return 0
}

// vehicleItems converts the flown items to the simulator's: local NED,
// X and Y in the local frame, Z minus the height above home; seqs[k] is the
// sequence number of items[k].
func (c *core) vehicleItems(ms []*common.MessageMissionItemInt) (items []vehicle.MissionItem, seqs []int, code uint8) {
	home := c.home()
	for seq, m := range ms {
		var kind vehicle.ItemKind
		switch uint16(m.Command) {
		case cmdNavTakeoff:
			kind = vehicle.Takeoff
		case cmdNavWaypoint:
			kind = vehicle.Waypoint
		case cmdNavLand:
			kind = vehicle.Land
		default:
			continue
		}
		var p geom.Vec3
		if validLatLon(m.X, m.Y) {
			ne := scenario.Project(c.origin, float64(m.X)/1e7, float64(m.Y)/1e7)
			p.X, p.Y = ne.X, ne.Y
		} else {
			p.X, p.Y = home.X, home.Y
		}
		switch uint8(m.Frame) {
		case frameGlobal, frameGlobalInt:
			p.Z = -(float64(m.Z) - c.homeAMSL())
		default:
			p.Z = -float64(m.Z)
		}
		if kind == vehicle.Land {
			p.Z = 0
		}
		if !within(maxPosM, p.X, p.Y, p.Z) {
			return nil, nil, 5
		}
		it := vehicle.MissionItem{Kind: kind, Pos: p}
		if kind == vehicle.Waypoint {
			it.AcceptRadiusM = float64(m.Param2)
		}
		items = append(items, it)
		seqs = append(seqs, seq)
	}
	if len(items) == 0 {
		return nil, nil, 5
	}
	return items, seqs, 0
}

// missionDownload answers a request for item seq: with MISSION_ITEM_INT,
// or MISSION_ITEM when asked with the legacy MISSION_REQUEST.
func (c *core) missionDownload(to any, sys, comp uint8, seq int, mt uint8, legacy bool) {
	if mt != 0 || seq < 0 || seq >= len(c.mission) {
		c.send(to, &common.MessageMissionAck{TargetSystem: sys, TargetComponent: comp, Type: 13 /* INVALID_SEQUENCE */, MissionType: common.MAV_MISSION_TYPE(mt)})
		return
	}
	it := *c.mission[seq]
	it.TargetSystem, it.TargetComponent = sys, comp
	it.Current = 0
	if seq == min(c.cur, len(c.mission)-1) {
		it.Current = 1
	}
	if legacy {
		c.send(to, itemFloat(&it))
		return
	}
	c.send(to, &it)
}

// apIndex returns the autopilot item at or after mission item seq
// (len(apItems) when none is).
func (c *core) apIndex(seq int) int {
	for k, s := range c.apSeq {
		if s >= seq {
			return k
		}
	}
	return len(c.apItems)
}

// startAt starts the mission at its item seq, flying to item last
// (inclusive; −1 = the end), arming first when disarmed on the ground as
// PX4 does for MISSION_START; a mission that finished starts over.
func (c *core) startAt(seq, last int, arm bool) uint8 {
	if len(c.apItems) == 0 {
		return ResultDenied
	}
	if seq >= len(c.mission) {
		seq = 0
	}
	k := c.apIndex(seq)
	st := c.ap.Status()
	if st.Landed {
		k = 0 // PX4 takes off again from the first item
		seq = 0
	}
	if k >= len(c.apItems) {
		return ResultDenied
	}
	end := len(c.apItems)
	if last >= 0 {
		end = c.apIndex(last + 1)
	}
	if end <= k {
		return ResultDenied
	}
	armed := false
	if !st.Armed {
		switch {
		case !arm:
			return ResultTemporarilyRejected
		case c.inAir():
			return ResultTemporarilyRejected
		}
		if err := c.sim.Arm(context.Background()); err != nil {
			return result(err)
		}
		armed = true
	}
	if err := c.ap.StartMissionAt(c.apItems[:end], k); err != nil {
		if armed {
			_ = c.ap.Disarm()
		}
		return result(err)
	}
	c.apFrom, c.apEnd = k, end
	c.cur, c.started, c.finished = c.apSeq[k], true, false
	c.lastAPItem = k
	return c.modeChange(nil, modeMission)
}

// missionStart is MAV_CMD_MISSION_START: p1 the first item (−1 = the
// current one), p2 the last (0 or −1 = the end; PX4 ignores it).
func (c *core) missionStart(p1, p2 float64) uint8 {
	n := len(c.mission)
	if n == 0 || !fin(p1, p2) || p1 < -1 || p1 >= float64(n) || p2 >= float64(n) {
		return ResultDenied
	}
	first := int(p1)
	if first < 0 {
		first = c.cur
	}
	last := int(p2)
	if last <= 0 || last < first {
		last = -1
	}
	return c.startAt(first, last, true)
}

// resumeMission is Mission mode (DO_SET_MODE, SET_MODE, DO_PAUSE_CONTINUE):
// the mission goes on from its current item.
func (c *core) resumeMission() uint8 {
	if len(c.apItems) == 0 {
		return ResultDenied
	}
	return c.startAt(c.cur, -1, false)
}

// setCurrent makes seq the current item (MISSION_SET_CURRENT,
// DO_SET_MISSION_CURRENT): a running mission flies to it at once, one that
// is not running starts there when resumed.
func (c *core) setCurrent(seq int) uint8 {
	if seq < 0 || seq >= len(c.mission) {
		return ResultDenied
	}
	if c.inMission {
		return c.startAt(seq, -1, false)
	}
	c.cur, c.finished = seq, false
	return ResultAccepted
}

// setMissionCurrent is MAV_CMD_DO_SET_MISSION_CURRENT: p1 the item (−1 =
// unchanged), p2 = 1 resets the mission to its start.
func (c *core) setMissionCurrent(p1, p2 float64) uint8 {
	if !fin(p1) || p1 < -1 || p1 >= float64(len(c.mission)) || len(c.mission) == 0 {
		return ResultDenied
	}
	seq := int(p1)
	if seq < 0 {
		seq = min(c.cur, len(c.mission)-1)
	}
	if p2 == 1 {
		c.started = false
	}
	return c.setCurrent(seq)
}

// trackMission follows the running mission after a step: the current item
// (the autopilot's, as a MAVLink seq), its end, and which PX4 mode the
// autopilot's take-off and landing phases report.
func (c *core) trackMission() {
	st := c.ap.Status()
	switch st.Mode {
	case autopilot.ModeTakeoff, autopilot.ModeMission:
	case autopilot.ModeLand:
		// Still the mission while it touches down on its land item.
		if c.inMission && (st.MissionItem >= len(c.apItems) || c.apItems[st.MissionItem].Kind != autopilot.ItemLand) {
			c.inMission = false
		}
	default:
		if c.inMission && (st.MissionDone || st.MissionItem >= c.apEnd) {
			c.finished, c.cur = true, len(c.mission)
		}
		c.inMission = false
	}
	if st.Mode != autopilot.ModeReturn && st.Mode != autopilot.ModeLand {
		c.inRTL = false
	}
	if st.Mode == autopilot.ModeReturn {
		c.inRTL = true // a failsafe's return too
	}
	if !c.inMission {
		return
	}
	k := st.MissionItem
	if k >= c.apEnd || st.MissionDone {
		c.finished, c.cur = true, len(c.mission)
		if c.apEnd < len(c.apItems) {
			c.finished, c.cur = false, c.apSeq[c.apEnd]
		}
		return
	}
	c.cur = c.apSeq[k]
}

// missionLanding reports whether the mission is descending on its land
// item: over the land point (within its acceptance radius).
func (c *core) missionLanding() bool {
	st := c.ap.Status()
	k := st.MissionItem
	if !c.inMission || k >= len(c.apItems) || c.apItems[k].Kind != autopilot.ItemLand {
		return false
	}
	r := c.ap.Config().AccRadM
	return c.sim.Telemetry().Pos.XY().Dist(c.apItems[k].Pos.XY()) < r
}
