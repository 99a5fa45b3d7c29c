package autopilot

import (
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
)

// ObstacleSectors is the number of sectors of an obstacle map, 5° each, as
// MAVLink's OBSTACLE_DISTANCE (72 distances).
const ObstacleSectors = 72

// Obstacles is the obstacle map collision prevention reads, like
// OBSTACLE_DISTANCE in its north-aligned frame (px4.md §5.5): sector i is
// centred on the bearing i·5° (0 = North, clockwise); each distance is the
// horizontal range from the vehicle to the nearest return in that sector,
// +Inf when the sensor saw nothing there and NaN when it has no data.
type Obstacles struct {
	T    float64 // time of the scan, s
	Dist [ObstacleSectors]float64
}

// CollisionPrevention configures PX4's collision prevention (px4.md §4:
// CP_DIST, CP_DELAY; Position mode only). In hold and goto, the position
// modes of this autopilot, the horizontal reference may move toward an
// obstacle only as fast as lets it stop DistM short of it after DelayS of
// sensor and tracking delay, braking at half of MPC_ACC_HOR
// (cpBrakeShare). While limited, the reference may not lead the vehicle
// toward the obstacle. Without a recent map (MaxAgeS) the vehicle may not
// move horizontally at all, as PX4 with CP_GO_NO_DATA = 0; in a recent map,
// sectors without data do not restrict motion (PX4's CP_GO_NO_DATA = 1:
// a forward depth camera sees only ahead). DistM ≤ 0 turns it off, PX4's
// default (CP_DIST = −1).
type CollisionPrevention struct {
	DistM   float64 // CP_DIST: the closest the vehicle may come, from the sensor, m
	DelayS  float64 // CP_DELAY; 0 = 0.4 s
	MaxAgeS float64 // an obstacle map older than this is ignored; 0 = 0.5 s
}

// SetCollisionPrevention configures collision prevention.
func (a *Autopilot) SetCollisionPrevention(cp CollisionPrevention) error {
	if math.IsNaN(cp.DistM) || math.IsInf(cp.DistM, 0) || !(cp.DelayS >= 0) || math.IsInf(cp.DelayS, 0) ||
		!(cp.MaxAgeS >= 0) || math.IsInf(cp.MaxAgeS, 0) {
		return fmt.Errorf("autopilot: collision prevention %+v: want finite values, delay and age ≥ 0", cp)
	}
	if cp.DelayS == 0 {
		cp.DelayS = 0.4
	}
	if cp.MaxAgeS == 0 {
		cp.MaxAgeS = 0.5
	}
	a.cp = cpState{cfg: cp, obs: a.cp.obs, have: a.cp.have}
	return nil
}

// CollisionPreventionOn reports whether collision prevention is configured
// (CP_DIST > 0), so that a caller can skip building obstacle maps otherwise.
func (a *Autopilot) CollisionPreventionOn() bool { return a.cp.cfg.DistM > 0 }

// SetObstacles hands collision prevention the latest obstacle map.
func (a *Autopilot) SetObstacles(o Obstacles) {
	a.cp.obs, a.cp.have = o, true
}

// cpBrakeShare is the part of MPC_ACC_HOR the braking toward an obstacle
// plans with. The cascade lags its reference; planning with all of
// MPC_ACC_HOR the simulated vehicle runs about 0.35 m past CP_DIST from
// 2 m/s, with half of it about 0.2 m.
const cpBrakeShare = 0.5

// cpState is collision prevention's configuration and latest map.
type cpState struct {
	cfg     CollisionPrevention
	obs     Obstacles
	have    bool
	holding bool      // holding for want of a recent map
	hold    geom.Vec2 // where
}

// preventCollision limits the reference of the position modes so that it
// can stop CP_DIST short of every obstacle in the map, and returns the
// setpoint of the limited reference.
func (a *Autopilot) preventCollision(sp control.Setpoint, t float64) control.Setpoint {
	c := &a.cp
	if c.cfg.DistM <= 0 || (a.mode != ModeHold && a.mode != ModeGoto) {
		return sp
	}
	if !c.have || t-c.obs.T > c.cfg.MaxAgeS {
		// No recent map: no horizontal motion at all, as PX4 with
		// CP_GO_NO_DATA = 0 when no sector has data.
		if !c.holding {
			c.holding, c.hold = true, a.r.pos.XY()
		}
		a.r.pos.X, a.r.pos.Y = c.hold.X, c.hold.Y
		a.r.vel.X, a.r.vel.Y = 0, 0
		sp.Pos.X, sp.Pos.Y = c.hold.X, c.hold.Y
		sp.Vel.X, sp.Vel.Y = 0, 0
		return sp
	}
	c.holding = false
	acc := cpBrakeShare * a.cfg.AccHorMS2
	tau := c.cfg.DelayS
	changed := false
	for i, d := range c.obs.Dist {
		if math.IsNaN(d) || math.IsInf(d, 1) {
			continue
		}
		s, co := math.Sincos(float64(i) * 2 * math.Pi / ObstacleSectors)
		u := geom.Vec3{X: co, Y: s}
		// How far the vehicle may still go toward this obstacle, and the
		// largest speed that stops within it after the delay:
		// v·τ + v²/(2a) = room.
		room := math.Max(0, d-c.cfg.DistM)
		vmax := acc * (-tau + math.Sqrt(tau*tau+2*room/acc))
		if vu := a.r.vel.Dot(u); vu > vmax {
			a.r.vel = a.r.vel.Sub(u.Scale(vu - vmax))
			// While limited, the reference may not lead the vehicle toward
			// the obstacle (the position error would pull it on, past what
			// the braking planned); behind the vehicle it pulls it back.
			if lead := a.r.pos.Sub(a.est.Pos).Dot(u); lead > 0 {
				a.r.pos = a.r.pos.Sub(u.Scale(lead))
			}
			changed = true
		}
	}
	if !changed {
		return sp
	}
	sp.Pos.X, sp.Pos.Y = a.r.pos.X, a.r.pos.Y
	sp.Vel.X, sp.Vel.Y = a.r.vel.X, a.r.vel.Y
	return sp
}
