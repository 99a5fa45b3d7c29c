package autopilot_test

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// carrot is a stand-in companion planner: on a position leg it sends a
// setpoint ahead of the vehicle in a direction of its own choosing (dir,
// a function of the vehicle's position), as PX4-Avoidance's smoothed goto
// point does: it starts at the vehicle and moves out to reach metres ahead
// at out m/s.
type carrot struct {
	dir    func(pos geom.Vec3) geom.Vec3 // unit, horizontal
	reach  float64
	out    float64
	start  float64
	active bool
}

func (c *carrot) Avoid(r autopilot.AvoidRequest) autopilot.AvoidSetpoint {
	nan := math.NaN()
	if r.Phase == autopilot.AvoidTakeoff {
		// Straight up to the take-off altitude, as the planner's
		// ALTITUDE_CHANGE state leads a climb.
		c.active = false
		return autopilot.AvoidSetpoint{Pos: r.Goal, Vel: geom.Vec3{X: nan, Y: nan, Z: nan}, Yaw: nan, YawRate: nan, Valid: true}
	}
	if r.Phase != autopilot.AvoidPosition {
		c.active = false
		return autopilot.AvoidSetpoint{}
	}
	if !c.active {
		c.active, c.start = true, r.T
	}
	d := c.dir(r.Est.Pos)
	ahead := math.Min(c.reach, c.out*(r.T-c.start))
	p := r.Est.Pos.Add(d.Scale(ahead))
	p.Z = r.Goal.Z
	return autopilot.AvoidSetpoint{Pos: p, Vel: geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()},
		Yaw: math.Atan2(d.Y, d.X), YawRate: math.NaN(), Valid: true}
}

// legTarget is the waypoint of the leg flyLeg flies: 60 m North at 10 m.
var legTarget = geom.Vec3{X: 60, Z: -10}

// A leg flown with a companion whose setpoint leads away from the
// mission's target is a turn for PX4 (FlightTaskAutoLineSmoothVel): the
// speed stays locked at what it was when the vehicle started to move, a
// crawl, for as long as the detour lasts; toward the target the same
// setpoint lets the vehicle cruise. Scenario: take-off to 10 m, a waypoint
// 60 m North; the companion leads 30° East of it (a detour), or straight at
// it, or 30° off for the first 3 m and then straight at it.
func TestAvoidedLegTurnLocksSpeed(t *testing.T) {
	toward := func(p geom.Vec3) geom.Vec3 {
		d := legTarget.Sub(p)
		d.Z = 0
		return d.Scale(1 / d.Norm())
	}
	off := geom.Vec3{X: math.Cos(rad(30)), Y: math.Sin(rad(30))}
	for _, tt := range []struct {
		name           string
		dir            func(geom.Vec3) geom.Vec3
		minPeak, maxAt float64 // m/s: peak speed over the leg at least; speed at 40 s at most
	}{
		{"toward the target", toward, 1.5, math.Inf(1)},
		{"30° off the target", func(geom.Vec3) geom.Vec3 { return off }, 0, 0.6},
		{"off, then toward it", func(p geom.Vec3) geom.Vec3 {
			if p.X < 3 {
				return off
			}
			return toward(p)
		}, 1.5, math.Inf(1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			peak, at40, _ := flyLeg(t, tt.dir, 0)
			t.Logf("peak %.2f m/s, at 40 s %.2f m/s", peak, at40)
			if peak < tt.minPeak {
				t.Errorf("peak speed on the leg: got %.2f m/s; want ≥ %.1f", peak, tt.minPeak)
			}
			if at40 > tt.maxAt {
				t.Errorf("speed 40 s into the leg: got %.2f m/s; want ≤ %.1f (locked in the turn)", at40, tt.maxAt)
			}
		})
	}
}

// flyLeg flies take-off to 10 m and one waypoint leg 60 m North (with
// acceptance radius radius, 0 for NAV_ACC_RAD) with a carrot companion
// leading in direction dir, and returns the leg's peak speed and the speed
// and sideways offset 40 s into the leg.
func flyLeg(t *testing.T, dir func(geom.Vec3) geom.Vec3, radius float64) (peak, at40, side float64) {
	t.Helper()
	f := newFlight(t, vehicle.SimConfig{Seed: 1})
	f.ap.SetAvoider(&carrot{dir: dir, reach: 3, out: 1})
	if err := f.ap.Arm(); err != nil {
		t.Fatal(err)
	}
	err := f.ap.StartMission([]autopilot.Item{
		{Kind: autopilot.ItemTakeoff, Pos: geom.Vec3{Z: -10}},
		{Kind: autopilot.ItemWaypoint, Pos: legTarget, AcceptRadiusM: radius},
		{Kind: autopilot.ItemLand, Pos: geom.Vec3{X: 60}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !f.runUntil(30, func(s autopilot.Status) bool { return s.MissionItem == 1 }) {
		t.Fatal("take-off not complete after 30 s")
	}
	t0 := f.s.Time()
	f.runUntil(200, func(st autopilot.Status) bool {
		tr := f.s.Quad().Truth()
		v := tr.Vel.XY().Norm()
		peak = math.Max(peak, v)
		if f.s.Time()-t0 <= 40 {
			at40, side = v, tr.Pos.Y
		}
		return st.MissionItem != 1
	})
	return peak, at40, side
}

// PX4 checks the turn against its flight task's internal target, not the
// mission's: more than the acceptance radius off the previous → current
// line, that is the closest point on the line (FlightTaskAuto's offtrack
// state). A companion that leaves the line and then flies straight at the
// waypoint from beside it keeps the speed locked for the whole leg; one
// that comes back onto the line first is free to cruise. Scenario as in
// TestAvoidedLegTurnLocksSpeed with the competition's 0.5-m radius: 30°
// off for the first 3 m (1.7 m beside the line), then either straight at
// the waypoint or back onto the line 3 m ahead and on along it.
func TestAvoidedLegOffTheLineLocksSpeed(t *testing.T) {
	off := geom.Vec3{X: math.Cos(rad(30)), Y: math.Sin(rad(30))}
	unit := func(d geom.Vec3) geom.Vec3 { d.Z = 0; return d.Scale(1 / d.Norm()) }
	for _, tt := range []struct {
		name           string
		then           func(geom.Vec3) geom.Vec3
		minPeak, maxAt float64 // m/s: peak speed over the leg at least; speed at 40 s at most
	}{
		{"off, then straight at the waypoint", func(p geom.Vec3) geom.Vec3 { return unit(legTarget.Sub(p)) }, 0, 0.6},
		{"off, then back onto the line", func(p geom.Vec3) geom.Vec3 { return unit(geom.Vec3{X: 3, Y: -p.Y}) }, 1.5, math.Inf(1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			peak, at40, side := flyLeg(t, func(p geom.Vec3) geom.Vec3 {
				if p.X < 3 {
					return off
				}
				return tt.then(p)
			}, 0.5)
			t.Logf("peak %.2f m/s; at 40 s %.2f m/s, %.2f m beside the line", peak, at40, side)
			if peak < tt.minPeak {
				t.Errorf("peak speed on the leg: got %.2f m/s; want ≥ %.1f", peak, tt.minPeak)
			}
			if at40 > tt.maxAt {
				t.Errorf("speed 40 s into the leg: got %.2f m/s; want ≤ %.1f (locked: off the line)", at40, tt.maxAt)
			}
		})
	}
}

// PX4 flies to a land point as a waypoint (the mission's move-to-land
// item), so with a companion the acceptance radius widened past the
// target (ObstacleAvoidance::checkAvoidanceProgress) starts the descent
// too: a companion that leads the vehicle past the land point 0.8 m to
// its side, never within NAV_ACC_RAD, still gets it down there instead of
// leaving it circling the point until the battery or the time limit ends.
func TestAvoidedLandApproachAcceptsPastTarget(t *testing.T) {
	land := geom.Vec2{X: 20}
	f := newFlight(t, vehicle.SimConfig{Seed: 1})
	// Steer onto the line y = 1 m and along it, past the land point.
	f.ap.SetAvoider(&carrot{dir: func(p geom.Vec3) geom.Vec3 {
		d := geom.Vec3{X: 5, Y: 1 - p.Y}
		return d.Scale(1 / d.Norm())
	}, reach: 2, out: 1})
	if err := f.ap.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := f.ap.StartMission([]autopilot.Item{
		{Kind: autopilot.ItemTakeoff, Pos: geom.Vec3{Z: -10}},
		{Kind: autopilot.ItemLand, Pos: geom.Vec3{X: land.X, Y: land.Y, Z: -10}, AcceptRadiusM: 0.5}, // the competition's NAV_ACC_RAD
	}); err != nil {
		t.Fatal(err)
	}
	type sample struct {
		t float64
		p geom.Vec2
	}
	var track []sample
	landed := f.runUntil(150, func(s autopilot.Status) bool {
		track = append(track, sample{f.s.Time(), f.s.Quad().Truth().Pos.XY()})
		return s.MissionItem == 1 && s.Landed
	})
	p := f.s.Quad().Truth().Pos
	if !landed {
		t.Fatalf("not landed 150 s after take-off; at (%.1f, %.1f, %.1f)", p.X, p.Y, p.Z)
	}
	e, ok := f.event("landing at mission item")
	if !ok {
		t.Fatal("no landing event")
	}
	minD := math.Inf(1)
	for _, s := range track {
		if s.t < e.T {
			minD = math.Min(minD, s.p.Dist(land))
		}
	}
	t.Logf("descent begun at %.1f s, %.2f m from the land point at the closest before it; landed at (%.1f, %.1f)", e.T, minD, p.X, p.Y)
	if minD < 0.5 {
		t.Fatalf("the companion took the vehicle within %.2f m of the land point; the scenario needs it outside NAV_ACC_RAD", minD)
	}
	if d := p.XY().Dist(land); d > 3 {
		t.Errorf("landed %.1f m from the land point; want within 3 m", d)
	}
}

// With a companion, PX4 v1.12 flies a mission's take-off through the same
// flight task as a leg, toward the planner's setpoint: below MPC_LAND_ALT1
// the climb ramps up at MPC_TKO_SPEED / MPC_TKO_RAMP_T (0.5 m/s²), holds
// MPC_TKO_SPEED (1.5 m/s), and slows down as the setpoint at the take-off
// altitude comes within its stopping distance, so it arrives without
// overshooting (the competition's flights reach 9.4 m about 8.6 s after
// lift-off and stay under 10 m). The navigator accepts the item at
// NAV_MC_ALT_RAD below the altitude.
func TestAvoidedTakeoffRampsAndSlows(t *testing.T) {
	f := newFlight(t, vehicle.SimConfig{Seed: 1})
	f.ap.SetAvoider(&carrot{dir: func(geom.Vec3) geom.Vec3 { return geom.Vec3{X: 1} }, reach: 3, out: 1})
	if err := f.ap.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := f.ap.StartMission([]autopilot.Item{
		{Kind: autopilot.ItemTakeoff, Pos: geom.Vec3{Z: -10}},
		{Kind: autopilot.ItemWaypoint, Pos: legTarget},
		{Kind: autopilot.ItemLand, Pos: geom.Vec3{X: 60}},
	}); err != nil {
		t.Fatal(err)
	}
	liftoff, accepted := math.NaN(), math.NaN()
	var vAt1, vPeak, vAccept, zPeak float64
	f.runUntil(40, func(s autopilot.Status) bool {
		tr := f.s.Quad().Truth()
		alt, climb := -tr.Pos.Z, -tr.Vel.Z
		now := f.s.Time()
		if math.IsNaN(liftoff) && alt > 0.05 {
			liftoff = now
		}
		if !math.IsNaN(liftoff) && now-liftoff <= 1 {
			vAt1 = climb
		}
		if math.IsNaN(accepted) {
			vPeak = math.Max(vPeak, climb)
			if s.MissionItem == 1 {
				accepted, vAccept = now, climb
			}
		} else {
			zPeak = math.Max(zPeak, alt)
		}
		return !math.IsNaN(accepted) && now-accepted > 4
	})
	if math.IsNaN(accepted) {
		t.Fatal("take-off not accepted within 40 s")
	}
	t.Logf("lift-off %.1f s; 1 s later climbing %.2f m/s; peak %.2f m/s; accepted %.1f s after lift-off at %.2f m/s; highest %.2f m in the next 4 s",
		liftoff, vAt1, vPeak, accepted-liftoff, vAccept, zPeak)
	if vAt1 > 0.8 {
		t.Errorf("climb 1 s after lift-off %.2f m/s; want ≤ 0.8 (ramped at 0.5 m/s²)", vAt1)
	}
	if vPeak > 1.6 {
		t.Errorf("peak climb %.2f m/s; want ≤ MPC_TKO_SPEED 1.5", vPeak)
	}
	if vAccept > 1.0 {
		t.Errorf("climb when accepted %.2f m/s; want ≤ 1.0 (slowing toward the altitude)", vAccept)
	}
	if zPeak > 10.3 {
		t.Errorf("highest altitude after the take-off %.2f m; want ≤ 10.3 (no overshoot)", zPeak)
	}
	if d := accepted - liftoff; d < 7 || d > 11 {
		t.Errorf("take-off accepted %.1f s after lift-off; want 7–11 s", d)
	}
}
