package autopilot

import (
	"math"

	"github.com/shakedown-robotics/shakedown/control"
)

// landDetector is PX4's multicopter land detector (px4.md §3.7): ground
// contact, then maybe-landed, then landed, each held for a third of
// LNDMC_TRIG_TIME.
type landDetector struct {
	contactT, maybeT, landedT float64 // time each condition has held
}

// detectLanding updates the land detector; the vehicle counts as landed only
// while descending or landing is commanded (PX4: "a descent must be
// commanded").
func (a *Autopilot) detectLanding(est control.State, thrust, t, dt float64) {
	c := &a.cfg
	descending := a.mode == ModeLand || (a.mode == ModeMission && a.landing) || (a.mode == ModeReturn && a.rtlPhase == 3)
	gn := c.Gains
	hover := gn.ThrHover
	zv := c.LandZVelMax
	rot := c.LandRotMax
	if a.ld.maybeT > 0 {
		zv *= 2.5
		rot *= 2.5
	}
	contact := descending &&
		math.Abs(est.Vel.Z) < zv &&
		math.Hypot(est.Vel.X, est.Vel.Y) < c.LandXYVelMax &&
		thrust <= gn.ThrMin+0.3*(hover-gn.ThrMin)
	maybe := contact &&
		thrust <= gn.ThrMin+0.1*(hover-gn.ThrMin)+1e-9 &&
		math.Hypot(est.Rate.X, est.Rate.Y) < rot
	stage := c.LandTrigS / 3
	if contact {
		a.ld.contactT += dt
	} else {
		a.ld = landDetector{}
	}
	if maybe && a.ld.contactT >= stage {
		a.ld.maybeT += dt
	} else if !maybe {
		a.ld.maybeT, a.ld.landedT = 0, 0
	}
	if a.ld.maybeT >= stage {
		a.ld.landedT += dt
	}
	if a.ld.landedT >= stage && !a.landed {
		a.landed, a.landedT = true, t
		a.ld = landDetector{}
		a.mode = ModeLand // motors to idle; disarm after COM_DISARM_LAND
		a.emit("landing detected")
	}
	if !contact && a.landed && a.mode != ModeIdle {
		a.landed = false
	}
	if a.landed && a.thrustUp(est) {
		a.landed = false
	}
}

// thrustUp reports a take-off: the vehicle climbs clear of the ground.
func (a *Autopilot) thrustUp(est control.State) bool {
	return a.home.Z-est.Pos.Z > 0.5
}
