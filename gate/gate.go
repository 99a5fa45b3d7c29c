package gate

import (
	"fmt"
	"math"
)

// Command is a driver's request, and what the gate passes on.
type Command struct {
	V     float64 // forward speed, m/s
	W     float64 // yaw rate, rad/s, positive turning right
	Blade bool    // blade on
}

// Idle reports whether the command asks for nothing: no motion, blade off.
func (c Command) Idle() bool { return c.V == 0 && c.W == 0 && !c.Blade }

// Ring is the colour the gate shows on the status ring light.
type Ring int

// Ring colours: green passes commands, amber holds the robot (watchdog,
// obstacle, waiting for an idle command after a release), red is the STOP
// latch.
const (
	RingOff Ring = iota
	RingGreen
	RingAmber
	RingRed
)

var ringNames = [...]string{"off", "green", "amber", "red"}

func (r Ring) String() string {
	if r >= 0 && int(r) < len(ringNames) {
		return ringNames[r]
	}
	return fmt.Sprintf("Ring(%d)", int(r))
}

// Hold says why the gate withholds motion.
type Hold int

// Reasons for holding, most severe first when several apply.
const (
	HoldNone     Hold = iota
	HoldLatched       // STOP latched
	HoldRearm         // released; waiting for an idle command
	HoldWatchdog      // the driver went silent
	HoldObstacle      // an obstacle ahead (forward motion only)
	HoldNoLidar       // the lidar stopped publishing (forward motion only)
)

var holdNames = [...]string{"none", "latched", "rearm", "watchdog", "obstacle", "no lidar"}

func (h Hold) String() string {
	if h >= 0 && int(h) < len(holdNames) {
		return holdNames[h]
	}
	return fmt.Sprintf("Hold(%d)", int(h))
}

// Config configures the gate. Zero values mean the defaults named on each
// field.
type Config struct {
	WatchdogS    float64 // longest silence of a driver that wants motion; 0 = 0.5 s
	NoWatchdog   bool    // true leaves the watchdog out: only to reproduce the seed's eol-1
	ReleaseHoldS float64 // how long GO must be held to release the STOP latch; 0 = 2 s
	NoLidar      bool    // no lidar fitted: no obstacle stop (the seed's H2 robots)
	Obstacle     ObstacleConfig
}

// ObstacleConfig is the geometry and the limits of the obstacle stop. Zero
// values mean the defaults named, which fit rover.DefaultParams.
type ObstacleConfig struct {
	FrontM      float64 // front bumper ahead of the axle centre; 0 = 0.40 m
	HalfWidthM  float64 // half the body width; 0 = 0.28 m
	SideMarginM float64 // corridor margin on each side; 0 = 0.05 m
	StopM       float64 // distance left at rest; 0 = 0.25 m
	LatencyS    float64 // scan age plus reaction; 0 = 0.15 s (a 10-Hz lidar and a 50-Hz gate)
	BrakeMS2    float64 // deceleration the drive achieves; 0 = 2 m/s²
	StaleS      float64 // a scan older than this blocks forward motion; 0 = 0.5 s
	HysteresisM float64 // an obstacle stop holds until the obstacle is this much farther; 0 = 0.05 m
	MaxLookM    float64 // returns beyond this are ignored; 0 = 5 m
	MountXM     float64 // the lidar ahead of the axle centre when the scan does not say; 0 = 0.30 m
}

func (c ObstacleConfig) withDefaults() ObstacleConfig {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.FrontM, 0.40)
	def(&c.HalfWidthM, 0.28)
	def(&c.SideMarginM, 0.05)
	def(&c.StopM, 0.25)
	def(&c.LatencyS, 0.15)
	def(&c.BrakeMS2, 2)
	def(&c.StaleS, 0.5)
	def(&c.HysteresisM, 0.05)
	def(&c.MaxLookM, 5)
	def(&c.MountXM, 0.30)
	return c
}

// StopDistM returns the distance ahead at which the gate stops a robot
// asking for speed v.
func (c ObstacleConfig) StopDistM(v float64) float64 {
	c = c.withDefaults()
	v = math.Max(v, 0)
	return c.StopM + v*c.LatencyS + v*v/(2*c.BrakeMS2)
}

// Validate reports a configuration the gate cannot run with.
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"watchdog", c.WatchdogS}, {"release hold", c.ReleaseHoldS}, {"front", c.Obstacle.FrontM},
		{"half width", c.Obstacle.HalfWidthM}, {"side margin", c.Obstacle.SideMarginM}, {"stop distance", c.Obstacle.StopM},
		{"latency", c.Obstacle.LatencyS}, {"brake", c.Obstacle.BrakeMS2}, {"stale", c.Obstacle.StaleS},
		{"hysteresis", c.Obstacle.HysteresisM}, {"max look", c.Obstacle.MaxLookM}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("gate: %s = %v must be a finite number ≥ 0", f.name, f.v)
		}
	}
	if math.IsNaN(c.Obstacle.MountXM) || math.IsInf(c.Obstacle.MountXM, 0) {
		return fmt.Errorf("gate: lidar mount %v m must be finite", c.Obstacle.MountXM)
	}
	return nil
}

// Scan is a planar lidar scan as the gate reads it: beam i looks
// AngleMinRad + i·AngleIncRad from the forward direction, positive to the
// right; NaN ranges are returns too close to measure. Nil Ranges means no
// scan yet.
type Scan struct {
	T           float64
	AngleMinRad float64
	AngleIncRad float64
	Ranges      []float64
	MountXM     float64 // lidar ahead of the axle centre
}

// Inputs are what the gate reads each step besides the driver's requests.
type Inputs struct {
	Stop, Go bool // buttons held down
	Scan     Scan
}

// Output is what the gate sends on, and its state.
type Output struct {
	Drive   Command // to the drive plugin and the blade motor
	Ring    Ring
	Latched bool
	Hold    Hold
	AheadM  float64 // free distance ahead in the corridor from the latest scan; +Inf when clear or unknown
}

// Event is something the gate reports, for the robot's log.
type Event struct {
	T    float64
	Text string
}

// Gate is the safety gate's state. Its methods must not be called
// concurrently.
type Gate struct {
	cfg Config
	obs ObstacleConfig

	req      Command
	reqT     float64
	haveReq  bool
	latched  bool
	rearm    bool
	goSince  float64
	goHeld   bool
	stopWas  bool
	dogFired bool
	obsHold  bool
	lastHold Hold
	t        float64
	events   []Event
}

// New returns a gate, unlatched, with no request.
func New(cfg Config) (*Gate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.WatchdogS == 0 {
		cfg.WatchdogS = 0.5
	}
	if cfg.ReleaseHoldS == 0 {
		cfg.ReleaseHoldS = 2
	}
	cfg.Obstacle = cfg.Obstacle.withDefaults()
	return &Gate{cfg: cfg, obs: cfg.Obstacle, reqT: math.Inf(-1)}, nil
}

// Config returns the configuration in use, defaults filled in.
func (g *Gate) Config() Config { return g.cfg }

// Request records the driver's command at time t. Non-finite speeds count
// as 0. An idle command after a release re-enables motion.
func (g *Gate) Request(t float64, c Command) {
	if math.IsNaN(c.V) || math.IsInf(c.V, 0) {
		c.V = 0
	}
	if math.IsNaN(c.W) || math.IsInf(c.W, 0) {
		c.W = 0
	}
	g.req, g.reqT, g.haveReq = c, t, true
	g.dogFired = false
	if c.Idle() && g.rearm && !g.latched {
		g.rearm = false
		g.emit(t, "re-enabled by an idle command")
	}
}

// Latched reports whether the STOP latch is set.
func (g *Gate) Latched() bool { return g.latched }

// Events returns and clears what happened since the last call.
func (g *Gate) Events() []Event {
	e := g.events
	g.events = nil
	return e
}

func (g *Gate) emit(t float64, format string, args ...any) {
	g.events = append(g.events, Event{T: t, Text: fmt.Sprintf(format, args...)})
}

// Step advances the gate to time t and returns what the motors get.
func (g *Gate) Step(t float64, in Inputs) Output {
	g.t = t
	// STOP latches on the press; GO held for ReleaseHoldS releases it.
	if in.Stop && !g.stopWas && !g.latched {
		g.latched = true
		g.emit(t, "STOP latched")
	}
	g.stopWas = in.Stop
	if g.latched && in.Go && !in.Stop {
		if !g.goHeld {
			g.goHeld, g.goSince = true, t
		}
		if t-g.goSince >= g.cfg.ReleaseHoldS-1e-9 {
			g.latched, g.rearm, g.goHeld = false, true, false
			g.emit(t, "STOP released after GO held %.1f s; waiting for an idle command", t-g.goSince)
		}
	} else {
		g.goHeld = false
	}

	out := Output{Drive: g.req, Ring: RingGreen, Latched: g.latched, AheadM: math.Inf(1)}
	if !g.haveReq {
		out.Drive = Command{}
	}
	// The watchdog watches a driver that wants motion.
	if !g.cfg.NoWatchdog && g.haveReq && !g.req.Idle() && t-g.reqT > g.cfg.WatchdogS+1e-9 {
		if !g.dogFired {
			g.dogFired = true
			g.emit(t, "watchdog: driver silent for %.2f s, sending zero", t-g.reqT)
		}
		out.Hold = HoldWatchdog
	}
	if !g.cfg.NoLidar {
		ahead, fresh := g.ahead(in.Scan, t)
		out.AheadM = ahead
		if out.Drive.V > 0 && out.Hold == HoldNone {
			switch {
			case !fresh:
				out.Hold = HoldNoLidar
			default:
				lim := g.obs.StopDistM(out.Drive.V)
				if g.obsHold {
					lim += g.obs.HysteresisM
				}
				if ahead <= lim {
					if !g.obsHold {
						g.emit(t, "obstacle %.2f m ahead: stopping", ahead)
					}
					g.obsHold = true
					out.Hold = HoldObstacle
				} else {
					g.obsHold = false
				}
			}
		} else if out.Drive.V <= 0 {
			g.obsHold = false
		}
	}
	switch {
	case g.latched:
		out.Hold = HoldLatched
	case g.rearm:
		out.Hold = HoldRearm
	}
	switch out.Hold {
	case HoldLatched:
		out.Drive, out.Ring = Command{}, RingRed
	case HoldRearm, HoldWatchdog:
		out.Drive, out.Ring = Command{}, RingAmber
	case HoldObstacle, HoldNoLidar:
		out.Drive.V, out.Drive.W, out.Ring = 0, 0, RingAmber
	}
	if out.Hold != g.lastHold && out.Hold == HoldNoLidar {
		g.emit(t, "no recent lidar scan: forward motion blocked")
	}
	g.lastHold = out.Hold
	return out
}

// ahead returns the free distance from the front bumper to the nearest
// return inside the corridor ahead, and whether the scan is fresh.
func (g *Gate) ahead(s Scan, t float64) (float64, bool) {
	if s.Ranges == nil || t-s.T > g.obs.StaleS {
		return math.Inf(1), false
	}
	mount := s.MountXM
	if mount == 0 {
		mount = g.obs.MountXM
	}
	half := g.obs.HalfWidthM + g.obs.SideMarginM
	best := math.Inf(1)
	for i, r := range s.Ranges {
		if math.IsNaN(r) {
			r = 0 // too close to measure
		}
		if r > g.obs.MaxLookM {
			continue
		}
		sn, cs := math.Sincos(s.AngleMinRad + float64(i)*s.AngleIncRad)
		x, y := mount+r*cs, r*sn
		if x < mount-1e-9 || math.Abs(y) > half {
			continue
		}
		best = math.Min(best, math.Max(0, x-g.obs.FrontM))
	}
	return best, true
}
