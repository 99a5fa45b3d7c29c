package mavlink

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/frame"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// The tests of this file drive the server's core directly: it is pure
// (no goroutine, no clock), so a test is a script of messages in and
// vehicle time advanced, and reads what the core sends. Each test names the
// item of issue 17 it checks.

const gcsSys, gcsComp = 255, 190

// coreRig is a core on a fresh simulator and what it sent.
type coreRig struct {
	t    *testing.T
	c    *core
	wall time.Time
	tick float64 // vehicle time per advance (the server's 5-ms tick × speed)
	sent []out
}

func newCoreRig(t *testing.T, seed uint64, speed float64) *coreRig {
	t.Helper()
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	r := &coreRig{t: t, c: newCore(sim, 1, 1, scenario.SITLHome, 5), wall: time.Unix(1e9, 0), tick: 0.005 * speed}
	r.c.advance(0, r.wall)
	r.collect()
	return r
}

func (r *coreRig) collect() { r.sent = append(r.sent, r.c.take()...) }

// mark returns the index of the next message sent.
func (r *coreRig) mark() int { r.collect(); return len(r.sent) }

// run advances s of vehicle time, tick by tick.
func (r *coreRig) run(s float64) {
	end := r.c.now() + s
	for r.c.now() < end-1e-9 {
		r.wall = r.wall.Add(5 * time.Millisecond)
		r.c.advance(math.Min(r.c.now()+r.tick, end), r.wall)
	}
	r.collect()
}

// until advances until pred holds, for at most maxS of vehicle time.
func (r *coreRig) until(what string, maxS float64, pred func() bool) {
	r.t.Helper()
	end := r.c.now() + maxS
	for !pred() {
		if r.c.now() > end {
			st := r.c.ap.Status()
			r.t.Fatalf("%s: not within %g s (mode %v item %d armed %v landed %v)", what, maxS, st.Mode, st.MissionItem, st.Armed, st.Landed)
		}
		r.run(r.tick)
	}
}

// in hands the core one message from the ground station.
func (r *coreRig) in(m message.Message) int {
	i := r.mark()
	r.c.handle("gcs", gcsSys, gcsComp, m)
	r.collect()
	return i
}

// cmd sends a COMMAND_LONG to (sys, comp) and returns the COMMAND_ACK's
// result, or −1 when there was none.
func (r *coreRig) cmdTo(sys, comp uint8, cmd uint16, p ...float32) int {
	var q [7]float32
	copy(q[:], p)
	i := r.in(&common.MessageCommandLong{TargetSystem: sys, TargetComponent: comp, Command: common.MAV_CMD(cmd),
		Param1: q[0], Param2: q[1], Param3: q[2], Param4: q[3], Param5: q[4], Param6: q[5], Param7: q[6]})
	return r.ack(i, cmd)
}

func (r *coreRig) cmd(cmd uint16, p ...float32) int { return r.cmdTo(1, 1, cmd, p...) }

func (r *coreRig) ack(from int, cmd uint16) int {
	for _, o := range r.sent[from:] {
		if a, ok := o.msg.(*common.MessageCommandAck); ok && uint16(a.Command) == cmd {
			return int(a.Result)
		}
	}
	return -1
}

// must sends a command that must be accepted.
func (r *coreRig) must(cmd uint16, p ...float32) {
	r.t.Helper()
	if res := r.cmd(cmd, p...); res != ResultAccepted {
		r.t.Fatalf("%s %v: result %d; want ACCEPTED", commandName(cmd), p, res)
	}
}

// last returns the latest message of type T sent since from.
func last[T message.Message](r *coreRig, from int) (T, bool) {
	var zero T
	for i := len(r.sent) - 1; i >= from; i-- {
		if m, ok := r.sent[i].msg.(T); ok {
			return m, true
		}
	}
	return zero, false
}

func all[T message.Message](r *coreRig, from int) []T {
	var ms []T
	for _, o := range r.sent[from:] {
		if m, ok := o.msg.(T); ok {
			ms = append(ms, m)
		}
	}
	return ms
}

// upload uploads items (NED about home) with the mission protocol.
func (r *coreRig) upload(items ...vehicle.MissionItem) {
	r.t.Helper()
	ref := refPoint{ll: scenario.SITLHome, ok: true}
	ms, err := missionItems(items, ref, r.c.home(), FlavorPX4)
	if err != nil {
		r.t.Fatal(err)
	}
	i := r.in(&common.MessageMissionCount{TargetSystem: 1, TargetComponent: 1, Count: uint16(len(ms))})
	for _, m := range ms {
		m.TargetSystem, m.TargetComponent = 1, 1
		r.in(m)
	}
	if a, ok := last[*common.MessageMissionAck](r, i); !ok || a.Type != 0 {
		r.t.Fatalf("upload: ack %+v (%v)", a, ok)
	}
}

func (r *coreRig) mode() string {
	custom, base, _ := r.c.modeState()
	return modeName(FlavorPX4, base, custom)
}

func (r *coreRig) alt() float64 { return r.c.home().Z - r.c.sim.Telemetry().Pos.Z }

func (r *coreRig) pos() geom.Vec3 { return r.c.sim.Telemetry().Pos }

// square is a take-off, four waypoints 20 m apart (acceptance radius 2 m)
// and a land.
var square = []vehicle.MissionItem{
	{Kind: vehicle.Takeoff, Pos: geomVec(0, 0, -5)},
	{Kind: vehicle.Waypoint, Pos: geomVec(20, 0, -5), AcceptRadiusM: 2},
	{Kind: vehicle.Waypoint, Pos: geomVec(20, 20, -5), AcceptRadiusM: 2},
	{Kind: vehicle.Waypoint, Pos: geomVec(0, 20, -5), AcceptRadiusM: 2},
	{Kind: vehicle.Waypoint, Pos: geomVec(0, 40, -5), AcceptRadiusM: 2},
	{Kind: vehicle.Land, Pos: geomVec(0, 40, 0)},
}

func reached(r *coreRig, from int) []int {
	var s []int
	for _, m := range all[*common.MessageMissionItemReached](r, from) {
		s = append(s, int(m.Seq))
	}
	return s
}

func (r *coreRig) item() int { return r.c.ap.Status().MissionItem }

// Issue 17 item 1: Mission mode after Hold (DO_SET_MODE), MISSION_START
// with a first item, DO_SET_MISSION_CURRENT and MISSION_SET_CURRENT resume
// at the current item instead of flying the mission again from its take-off.
func TestResumeAtCurrentItem(t *testing.T) {
	r := newCoreRig(t, 11, 1)
	r.upload(square...)
	r.must(cmdArmDisarm, 1)
	r.must(cmdMissionStart, 0, 0)
	r.until("item 2", 60, func() bool { return r.item() == 2 })
	r.must(cmdDoSetMode, 1, px4Auto, px4AutoLoiter)
	r.run(3)
	held := r.pos()
	if mc, _ := last[*common.MessageMissionCurrent](r, 0); mc.Seq != 2 || mc.MissionState != missionStatePaused {
		t.Errorf("in Hold: MISSION_CURRENT seq %d state %d; want 2 PAUSED", mc.Seq, mc.MissionState)
	}
	from := r.mark()
	r.must(cmdDoSetMode, 1, px4Auto, px4AutoMission)
	if r.mode() != "mission" || r.item() != 2 {
		t.Fatalf("after Mission mode: %s at item %d; want mission at 2", r.mode(), r.item())
	}
	r.until("item 3", 60, func() bool { return r.item() == 3 })
	if got := reached(r, from); len(got) != 1 || got[0] != 2 {
		t.Errorf("items reached after the resume: %v; want [2]", got)
	}
	if d := r.pos().XY().Dist(geom.Vec2{X: 20, Y: 20}); d > 2.5 {
		t.Errorf("resumed toward item 2 (20, 20) from %v: reached item 3 %.1f m from it", held, d)
	}

	// DO_SET_MISSION_CURRENT in flight jumps to the item.
	r.must(cmdDoSetMissionCur, 1)
	if r.item() != 1 || r.mode() != "mission" {
		t.Errorf("DO_SET_MISSION_CURRENT 1: item %d mode %s", r.item(), r.mode())
	}
	if res := r.cmd(cmdDoSetMissionCur, 9); res != ResultDenied {
		t.Errorf("DO_SET_MISSION_CURRENT 9 of 6: %d; want DENIED", res)
	}
	// MISSION_SET_CURRENT while paused moves where the mission resumes.
	r.must(cmdDoSetMode, 1, px4Auto, px4AutoLoiter)
	i := r.in(&common.MessageMissionSetCurrent{TargetSystem: 1, TargetComponent: 1, Seq: 4})
	if mc, ok := last[*common.MessageMissionCurrent](r, i); !ok || mc.Seq != 4 {
		t.Errorf("MISSION_SET_CURRENT 4: answered %+v", mc)
	}
	// MISSION_START with −1 resumes at the current item, with 3 at item 3.
	r.must(cmdMissionStart, -1, 0)
	if r.item() != 4 {
		t.Errorf("MISSION_START -1: item %d; want the current 4", r.item())
	}
	r.must(cmdMissionStart, 3, 0)
	if r.item() != 3 {
		t.Errorf("MISSION_START 3: item %d; want 3", r.item())
	}
	if res := r.cmd(cmdMissionStart, 7, 0); res != ResultDenied {
		t.Errorf("MISSION_START 7 of 6: %d; want DENIED", res)
	}
}

// Issue 17 item 2: DO_PAUSE_CONTINUE pauses and continues the mission.
func TestPauseContinue(t *testing.T) {
	r := newCoreRig(t, 12, 1)
	r.upload(square...)
	r.must(cmdArmDisarm, 1)
	r.must(cmdMissionStart, 0, 0)
	r.until("item 2", 60, func() bool { return r.item() == 2 })
	r.must(cmdDoPauseContinue, 0)
	if r.mode() != "hold" {
		t.Errorf("pause: mode %s; want hold", r.mode())
	}
	r.run(2)
	r.must(cmdDoPauseContinue, 1)
	if r.mode() != "mission" || r.item() != 2 {
		t.Errorf("continue: mode %s item %d; want mission at 2", r.mode(), r.item())
	}
	if res := r.cmd(cmdDoPauseContinue, 2); res != ResultDenied {
		t.Errorf("DO_PAUSE_CONTINUE 2: %d; want DENIED", res)
	}
}

// Issue 17 item 3: MISSION_CURRENT.mission_state is COMPLETE after the
// last item of a mission without LAND, ACTIVE through the touchdown of one
// with LAND and COMPLETE once it disarmed.
func TestMissionState(t *testing.T) {
	t.Run("no land", func(t *testing.T) {
		r := newCoreRig(t, 13, 1)
		r.upload(square[:3]...)
		if _, st := r.c.missionSeqState(); st != missionStateWaiting {
			t.Errorf("uploaded: state %d; want NOT_STARTED", st)
		}
		r.must(cmdArmDisarm, 1)
		r.must(cmdMissionStart, 0, 0)
		r.until("past the last item", 90, func() bool { return r.item() == 3 })
		r.run(1)
		mc, _ := last[*common.MessageMissionCurrent](r, 0)
		if mc.MissionState != missionStateDone || mc.Seq != 2 || mc.Total != 3 {
			t.Errorf("after the last item: %+v; want seq 2 of 3 COMPLETE", mc)
		}
		if got := reached(r, 0); len(got) != 3 || got[2] != 2 {
			t.Errorf("items reached: %v; want [0 1 2]", got)
		}
	})
	t.Run("land", func(t *testing.T) {
		r := newCoreRig(t, 14, 1)
		r.upload(square[0], square[1], vehicle.MissionItem{Kind: vehicle.Land, Pos: geomVec(20, 0, 0)})
		r.must(cmdArmDisarm, 1)
		r.must(cmdMissionStart, 0, 0)
		r.until("touchdown", 120, func() bool { return r.c.ap.Status().Landed })
		if _, st := r.c.missionSeqState(); st != missionStateActive {
			t.Errorf("touching down: state %d; want ACTIVE", st)
		}
		if r.mode() != "mission" {
			t.Errorf("touching down: mode %s; want mission", r.mode())
		}
		from := r.mark()
		r.until("disarm", 30, func() bool { return !r.c.ap.Status().Armed })
		r.run(0.1)
		if mc, _ := last[*common.MessageMissionCurrent](r, 0); mc.MissionState != missionStateDone {
			t.Errorf("landed and disarmed: %+v; want COMPLETE", mc)
		}
		// The mission's end goes out before the heartbeat that says
		// disarmed: a ground station that stops at the disarm (fly
		// --connect) has read that the mission finished.
		complete, disarmed := -1, -1
		for i, o := range r.sent[from:] {
			switch m := o.msg.(type) {
			case *common.MessageMissionCurrent:
				if m.MissionState == missionStateDone && complete < 0 {
					complete = i
				}
			case *common.MessageHeartbeat:
				if m.BaseMode&baseModeArmed == 0 && disarmed < 0 {
					disarmed = i
				}
			}
		}
		if complete < 0 || disarmed < 0 || complete > disarmed {
			t.Errorf("MISSION_CURRENT COMPLETE sent as message %d, the disarmed HEARTBEAT as %d; want COMPLETE first", complete, disarmed)
		}
	})
}

// Issue 17 item 4: MISSION_START while disarmed arms and starts, as PX4's
// commander does.
func TestMissionStartArms(t *testing.T) {
	r := newCoreRig(t, 15, 1)
	if res := r.cmd(cmdMissionStart, 0, 0); res != ResultDenied {
		t.Errorf("MISSION_START without a mission: %d; want DENIED", res)
	}
	r.upload(square...)
	r.must(cmdMissionStart, 0, 0)
	if st := r.c.ap.Status(); !st.Armed || r.mode() != "mission" {
		t.Errorf("after MISSION_START: armed %v mode %s", st.Armed, r.mode())
	}
	r.until("climbing", 10, func() bool { return r.alt() > 1 })
}

// Issue 17 item 5: the legacy mission messages: an upload answered with
// MISSION_ITEM goes on with MISSION_REQUEST and is taken; a download asked
// for with MISSION_REQUEST is answered with MISSION_ITEM.
func TestLegacyMissionProtocol(t *testing.T) {
	r := newCoreRig(t, 16, 1)
	lat, lon := scenario.Unproject(scenario.SITLHome, geom.Vec2{X: 10, Y: 5})
	items := []*common.MessageMissionItem{
		{Seq: 0, Frame: frameGlobalRelAlt, Command: cmdNavTakeoff, Z: 6, X: float32(scenario.SITLHome.LatDeg), Y: float32(scenario.SITLHome.LonDeg)},
		{Seq: 1, Frame: frameGlobalRelAlt, Command: cmdNavWaypoint, Z: 6, X: float32(lat), Y: float32(lon)},
		{Seq: 2, Frame: frameGlobalRelAlt, Command: cmdNavLand, X: float32(lat), Y: float32(lon)},
	}
	from := r.in(&common.MessageMissionCount{TargetSystem: 1, TargetComponent: 1, Count: 3})
	for _, it := range items {
		it.TargetSystem, it.TargetComponent = 1, 1
		r.in(it)
	}
	if reqs := all[*common.MessageMissionRequest](r, from); len(reqs) != 2 || reqs[0].Seq != 1 || reqs[1].Seq != 2 {
		t.Errorf("after a MISSION_ITEM the vehicle asks with MISSION_REQUEST: got %d (%+v)", len(reqs), reqs)
	}
	if a, ok := last[*common.MessageMissionAck](r, from); !ok || a.Type != 0 {
		t.Fatalf("legacy upload: ack %+v %v; want ACCEPTED", a, ok)
	}
	if len(r.c.apItems) != 3 || r.c.apItems[1].Pos.XY().Dist(geom.Vec2{X: 10, Y: 5}) > 0.5 || r.c.apItems[1].Pos.Z != -6 {
		t.Errorf("vehicle items: %+v", r.c.apItems)
	}
	from = r.in(&common.MessageMissionRequest{TargetSystem: 1, TargetComponent: 1, Seq: 1})
	got, ok := last[*common.MessageMissionItem](r, from)
	if !ok || got.Seq != 1 || uint8(got.Frame) != frameGlobalRelAlt || math.Abs(float64(got.X)-lat) > 1e-5 || got.Z != 6 {
		t.Errorf("download with MISSION_REQUEST: %+v %v; want MISSION_ITEM seq 1", got, ok)
	}
	if _, isInt := last[*common.MessageMissionItemInt](r, from); isInt {
		t.Error("download with MISSION_REQUEST answered with MISSION_ITEM_INT")
	}
}

// Issue 17 item 6: commands to system 0 are not executed (nor
// acknowledged), except the two request commands PX4 takes on broadcast;
// a mission upload to system 0 is not taken either.
func TestBroadcastTarget(t *testing.T) {
	r := newCoreRig(t, 17, 1)
	if res := r.cmdTo(0, 0, cmdArmDisarm, 1); res != -1 || r.c.ap.Status().Armed {
		t.Errorf("ARM to 0/0: ack %d, armed %v; want no ack, disarmed", res, r.c.ap.Status().Armed)
	}
	if res := r.cmdTo(2, 1, cmdArmDisarm, 1); res != -1 || r.c.ap.Status().Armed {
		t.Errorf("ARM to system 2: ack %d; want none", res)
	}
	if res := r.cmdTo(1, 5, cmdArmDisarm, 1); res != -1 {
		t.Errorf("ARM to component 5: ack %d; want none", res)
	}
	from := r.mark()
	if res := r.cmdTo(0, 0, cmdRequestAPVersion, 1); res != ResultAccepted {
		t.Errorf("REQUEST_AUTOPILOT_CAPABILITIES to 0/0: %d; want ACCEPTED", res)
	}
	if _, ok := last[*common.MessageAutopilotVersion](r, from); !ok {
		t.Error("no AUTOPILOT_VERSION")
	}
	if res := r.cmdTo(0, 0, cmdRequestProtoVers, 1); res != ResultAccepted {
		t.Errorf("REQUEST_PROTOCOL_VERSION to 0/0: %d; want ACCEPTED", res)
	}
	from = r.in(&common.MessageMissionCount{TargetSystem: 0, Count: 1})
	if len(r.sent[from:]) != 0 {
		t.Errorf("MISSION_COUNT to system 0 answered: %+v", r.sent[from].msg)
	}
	if res := r.cmdTo(1, 0, cmdArmDisarm, 1); res != ResultAccepted {
		t.Errorf("ARM to 1/0 (all components): %d; want ACCEPTED", res)
	}
}

// Issue 17 item 7: COMMAND_INT's frame: a take-off and a reposition with
// the altitude above home (GLOBAL_RELATIVE_ALT_INT) fly to that height; an
// unsupported frame is UNSUPPORTED_MAV_FRAME.
func TestCommandIntFrame(t *testing.T) {
	r := newCoreRig(t, 18, 1)
	r.must(cmdArmDisarm, 1)
	cmdInt := func(cmd uint16, frame uint8, p1 float32, x, y int32, z float32) int {
		i := r.in(&common.MessageCommandInt{TargetSystem: 1, TargetComponent: 1, Command: common.MAV_CMD(cmd), Frame: common.MAV_FRAME(frame),
			Param1: p1, Param4: nan32v, X: x, Y: y, Z: z})
		return r.ack(i, cmd)
	}
	if res := cmdInt(cmdNavTakeoff, 1 /* LOCAL_NED */, 0, 0, 0, 6); res != ResultUnsupportedFrame {
		t.Errorf("take-off in LOCAL_NED: %d; want UNSUPPORTED_MAV_FRAME", res)
	}
	if res := cmdInt(cmdNavTakeoff, frameGlobalRelInt, 0, math.MaxInt32, math.MaxInt32, 6); res != ResultAccepted {
		t.Fatalf("take-off to 6 m above home: %d; want ACCEPTED", res)
	}
	r.until("at 6 m", 30, func() bool { return r.mode() == "hold" })
	if a := r.alt(); math.Abs(a-6) > 0.3 {
		t.Errorf("take-off to 6 m above home: at %.2f m", a)
	}
	lat, lon := scenario.Unproject(scenario.SITLHome, geom.Vec2{X: 8, Y: -4})
	if res := cmdInt(cmdDoReposition, frameGlobalRelInt, -1, int32(math.Round(lat*1e7)), int32(math.Round(lon*1e7)), 9); res != ResultAccepted {
		t.Fatalf("reposition: %d", res)
	}
	r.until("repositioned", 30, func() bool { return r.pos().Sub(geomVec(8, -4, r.c.home().Z-9)).Norm() < 0.3 })
	// COMMAND_LONG's altitude stays AMSL, as PX4 takes it.
	if res := r.cmd(cmdDoReposition, -1, 0, 0, nan32v, nan32v, nan32v, float32(r.c.homeAMSL()+4)); res != ResultAccepted {
		t.Fatalf("reposition AMSL: %d", res)
	}
	r.until("down to 4 m", 30, func() bool { return math.Abs(r.alt()-4) < 0.3 && r.pos().XY().Dist(geom.Vec2{X: 8, Y: -4}) < 0.3 })
}

// Issue 17 item 8: the modes and landed states PX4 reports: Hold on the
// ground, a mission's take-off item and its land item in AUTO.MISSION with
// landed_state TAKEOFF and LANDING, RTL's descent in AUTO.RTL with
// LANDING.
func TestModeReporting(t *testing.T) {
	r := newCoreRig(t, 19, 1)
	if r.mode() != "hold" || r.c.landedState() != landedOnGround {
		t.Errorf("on the ground: %s, landed state %d; want hold, ON_GROUND", r.mode(), r.c.landedState())
	}
	r.upload(square[0], square[1], vehicle.MissionItem{Kind: vehicle.Land, Pos: geomVec(20, 0, 0)})
	r.must(cmdMissionStart, 0, 0)
	r.until("lift-off", 10, func() bool { return r.alt() > 1 })
	if r.mode() != "mission" || r.c.landedState() != landedTakeoff {
		t.Errorf("mission take-off item: %s, landed state %d; want mission, TAKEOFF", r.mode(), r.c.landedState())
	}
	hb, _ := last[*common.MessageHeartbeat](r, 0)
	if hb.CustomMode != PX4Mode(px4Auto, px4AutoMission) || hb.BaseMode != 157 {
		t.Errorf("heartbeat: custom %#x base %d; want AUTO.MISSION, 157", hb.CustomMode, hb.BaseMode)
	}
	r.until("item 1", 30, func() bool { return r.item() == 1 })
	if r.c.landedState() != landedInAir {
		t.Errorf("waypoint leg: landed state %d; want IN_AIR", r.c.landedState())
	}
	r.until("descending on the land item", 60, func() bool { return r.item() == 2 && r.c.missionLanding() && r.alt() < 3 })
	if r.mode() != "mission" || r.c.landedState() != landedLanding {
		t.Errorf("mission land item: %s, landed state %d; want mission, LANDING", r.mode(), r.c.landedState())
	}
	r.until("disarmed", 60, func() bool { return !r.c.ap.Status().Armed })

	r = newCoreRig(t, 20, 1)
	r.must(cmdArmDisarm, 1)
	r.must(cmdNavTakeoff, 0, 0, 0, nan32v, nan32v, nan32v, float32(r.c.homeAMSL()+5))
	r.until("hold at 5 m", 30, func() bool { return r.mode() == "hold" && r.alt() > 4.5 })
	r.must(cmdDoReposition, -1, 0, 0, nan32v, nan32v, nan32v, nan32v)
	r.must(cmdNavReturn)
	r.until("RTL lands", 60, func() bool { return r.c.ap.Status().Mode == autopilot.ModeLand })
	if r.mode() != "return" || r.c.landedState() != landedLanding {
		t.Errorf("RTL descent: %s, landed state %d; want return, LANDING", r.mode(), r.c.landedState())
	}
	r.must(cmdNavLand)
	if r.mode() != "land" {
		t.Errorf("Land commanded during RTL: %s; want land", r.mode())
	}
}

// Issue 17 item 9: REQUEST_PROTOCOL_VERSION (QGroundControl's first
// request) and GET_MESSAGE_INTERVAL are answered.
func TestProtocolRequests(t *testing.T) {
	r := newCoreRig(t, 21, 1)
	from := r.mark()
	if res := r.cmd(cmdRequestProtoVers, 1); res != ResultAccepted {
		t.Errorf("REQUEST_PROTOCOL_VERSION: %d", res)
	}
	if pv, ok := last[*common.MessageProtocolVersion](r, from); !ok || pv.Version != 200 || pv.MinVersion != 100 || pv.MaxVersion != 200 {
		t.Errorf("PROTOCOL_VERSION: %+v %v", pv, ok)
	}
	for _, tc := range []struct {
		id   float32
		want int32
	}{{idLocalPos, 20000}, {idHeartbeat, 1000000}, {idHome, 2000000}, {idObstacleDist, 0}} {
		from = r.mark()
		if res := r.cmd(cmdGetMsgInterval, tc.id); res != ResultAccepted {
			t.Errorf("GET_MESSAGE_INTERVAL %v: %d", tc.id, res)
		}
		if mi, ok := last[*common.MessageMessageInterval](r, from); !ok || mi.IntervalUs != tc.want || mi.MessageId != uint16(tc.id) {
			t.Errorf("MESSAGE_INTERVAL of %v: %+v; want %d µs", tc.id, mi, tc.want)
		}
	}
	r.must(cmdSetMsgInterval, idLocalPos, -1)
	from = r.mark()
	r.must(cmdGetMsgInterval, idLocalPos)
	if mi, _ := last[*common.MessageMessageInterval](r, from); mi.IntervalUs != -1 {
		t.Errorf("a stream turned off: %d µs; want -1", mi.IntervalUs)
	}
}

// Issue 17 item 11: the streams keep their rates in vehicle time at any
// speed: over 10 s of vehicle time, LOCAL_POSITION_NED 50 Hz, HIGHRES_IMU
// 50 Hz, GPS_RAW_INT 5 Hz and HEARTBEAT 1 Hz, whether the server steps
// 5 ms (×1), 50 ms (×10) or 0.5 s (×100) per tick.
func TestStreamRatesAtSpeed(t *testing.T) {
	for _, speed := range []float64{1, 10, 100} {
		r := newCoreRig(t, 22, speed)
		from := r.mark()
		t0 := r.c.now()
		r.run(10)
		counts := map[uint32]int{}
		var lastMs uint32
		monotonic := true
		for _, o := range r.sent[from:] {
			counts[o.msg.GetID()]++
			if lp, ok := o.msg.(*common.MessageLocalPositionNed); ok {
				monotonic = monotonic && lp.TimeBootMs > lastMs
				lastMs = lp.TimeBootMs
			}
		}
		if d := r.c.now() - t0; math.Abs(d-10) > 1e-6 {
			t.Fatalf("×%g: ran %v s", speed, d)
		}
		for _, w := range []struct {
			id   uint32
			want int
		}{{idLocalPos, 500}, {idHighresIMU, 500}, {idAttitude, 500}, {idGPSRaw, 50}, {idHeartbeat, 10}} {
			if got := counts[w.id]; got < w.want-1 || got > w.want+1 {
				t.Errorf("×%g: message %d sent %d times in 10 s of vehicle time; want %d", speed, w.id, got, w.want)
			}
		}
		if !monotonic {
			t.Errorf("×%g: LOCAL_POSITION_NED times go back", speed)
		}
	}
}

// Issue 17 item 12: BATTERY_STATUS says the energy consumed is unknown
// (−1) and names the battery's function and type.
func TestBatteryStatus(t *testing.T) {
	r := newCoreRig(t, 23, 1)
	b, ok := r.c.streamMsg(idBattery).(*common.MessageBatteryStatus)
	if !ok || b.EnergyConsumed != -1 || b.BatteryFunction != common.MAV_BATTERY_FUNCTION_ALL || b.Type != common.MAV_BATTERY_TYPE_LIPO {
		t.Errorf("BATTERY_STATUS: %+v", b)
	}
}

// Issue 17 item 10: a link starts in MAVLink 1, so that a MAVLink-1 ground
// station parses what it is sent, and switches to MAVLink 2 for good once
// the peer speaks it; PROTOCOL_VERSION always goes as MAVLink 2.
func TestMAVLink1Peer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 24})
		if err != nil {
			t.Fatal(err)
		}
		a, b, _ := memPipe()
		srv, err := NewServer(ServerConfig{Sim: sim, Endpoints: a.endpoints()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer func() { cancel(); <-srv.done }()
		go srv.Run(ctx)
		n := &gomavlib.Node{Endpoints: b.endpoints(), Dialect: common.Dialect, OutVersion: gomavlib.V1, OutSystemID: gcsSys, OutComponentID: gcsComp, HeartbeatDisable: true}
		if err := n.Initialize(); err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		// versions counts the frames of each version from the vehicle,
		// until PROTOCOL_VERSION (kind 300) arrives or stop.
		frames := func(n *gomavlib.Node, send func(), upto time.Duration) (v1, v2 int, proto bool) {
			done := time.After(upto)
			send()
			for {
				select {
				case ev := <-n.Events():
					if f, ok := ev.(*gomavlib.EventFrame); ok {
						switch f.Frame.(type) {
						case *frame.V1Frame:
							v1++
						case *frame.V2Frame:
							v2++
							if _, ok := f.Message().(*common.MessageProtocolVersion); ok {
								proto = true
							}
						}
					}
				case <-done:
					return
				}
			}
		}
		v1, v2, _ := frames(n, func() {
			_ = n.WriteMessageAll(&common.MessageHeartbeat{Type: mavTypeGCS, Autopilot: autopilotInvalid, MavlinkVersion: 3})
		}, time.Second)
		if v1 < 50 || v2 != 0 {
			t.Errorf("a MAVLink-1 peer got %d MAVLink-1 and %d MAVLink-2 frames in 1 s; want only MAVLink 1", v1, v2)
		}
		_, v2, proto := frames(n, func() {
			_ = n.WriteMessageAll(&common.MessageCommandLong{TargetSystem: 1, TargetComponent: 1, Command: cmdRequestProtoVers, Param1: 1})
		}, 100*time.Millisecond)
		if !proto || v2 != 1 {
			t.Errorf("REQUEST_PROTOCOL_VERSION over MAVLink 1: PROTOCOL_VERSION %v, %d MAVLink-2 frames; want it alone as MAVLink 2", proto, v2)
		}
		// The same peer now speaks MAVLink 2.
		frames(n, func() {
			if _, err := b.Write(encode(t, gcsSys, gcsComp, &common.MessageHeartbeat{Type: mavTypeGCS, Autopilot: autopilotInvalid, MavlinkVersion: 3})); err != nil {
				t.Fatal(err)
			}
		}, 100*time.Millisecond)
		v1, v2, _ = frames(n, func() {}, time.Second)
		if v1 != 0 || v2 < 50 {
			t.Errorf("after the peer spoke MAVLink 2: %d MAVLink-1 and %d MAVLink-2 frames; want only MAVLink 2", v1, v2)
		}
	})
}
