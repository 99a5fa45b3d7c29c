package avoid

import (
	"errors"
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
)

// Config holds the planner's parameters; DefaultConfig gives
// PX4-Avoidance's defaults (LocalPlannerNode.cfg) where it has them.
type Config struct {
	HFOVDeg       float64 // horizontal field of view of the sensor
	MaxRangeM     float64 // points farther away are ignored (max_sensor_range_)
	MinAltM       float64 // hits below this height are the ground and ignored
	CruiseMS      float64 // cruise ground speed
	AccMS2        float64 // MPC_ACC_HOR, for the stopping-distance speed cap
	JerkMS3       float64 // MPC_JERK_MAX, for the same cap
	BinDeg        float64 // histogram bin width (ALPHA_RES)
	ObstacleCostM float64 // obstacle_cost_param_
	// ObstacleWeight scales the sigmoid obstacle cost. PX4-Avoidance uses
	// 5000 and lets its tree search's goal heuristic do the rest; choosing
	// one direction per cycle against yaw costs counted in degrees², the
	// obstacle term needs more weight to win. 15000 puts the share of
	// critical tests among constrained-random ones near the 10 % the paper
	// saw on PX4 (see the closing note of the avoidance issue).
	ObstacleWeight  float64
	SmoothingDeg    float64 // smoothing_margin_degrees_
	YawCost         float64 // yaw_cost_param_ (per degree²)
	VelocityCost    float64 // velocity_cost_param_
	GoalClearDeg    float64 // half-width of the cone around the goal that decides the line weight
	PointAgeS       float64 // max_point_age_s_
	MaxPoints       int     // capacity of the point memory
	RateHz          float64 // planning rate
	SpeedTauS       float64 // low-pass of the speed
	YawRateRadS     float64 // heading rate toward the direction of travel (MPC_YAWRAUTO_MAX)
	GoalSnapM       float64 // within this distance the setpoint is the goal itself
	LineLookaheadM  float64 // how far along the leg the line-following point lies
	ObstacleSlowM   float64 // below this obstacle distance ahead, the speed scales down
	MinSpeedFactor  float64 // the least the obstacle slow-down leaves of the speed
	FOVFullSpeedDeg float64 // within ± this of the heading the full speed is allowed
}

// DefaultConfig returns the planner tuned like PX4-Avoidance with the
// competition's camera and a cruise of 2 m/s (competition.md §7: 1.5–1.7 m/s
// median ground speed, about 2 m/s at most).
func DefaultConfig() Config {
	return Config{
		HFOVDeg: 1.02974 * 180 / math.Pi, MaxRangeM: 15, MinAltM: 0.3,
		CruiseMS: 2, AccMS2: 3, JerkMS3: 8,
		BinDeg: 6, ObstacleCostM: 8.5, ObstacleWeight: 15000, SmoothingDeg: 40,
		YawCost: 3, VelocityCost: 6000, GoalClearDeg: 33,
		PointAgeS: 20, MaxPoints: 4096, RateHz: 10, SpeedTauS: 0.9,
		YawRateRadS: 60 * math.Pi / 180, GoalSnapM: 1, LineLookaheadM: 5,
		ObstacleSlowM: 6, MinSpeedFactor: 0.4, FOVFullSpeedDeg: 15,
	}
}

// Validate reports parameters the planner cannot work with.
func (c Config) Validate() error {
	pos := []struct {
		n string
		v float64
	}{{"hfov", c.HFOVDeg}, {"max range", c.MaxRangeM}, {"cruise", c.CruiseMS}, {"acceleration", c.AccMS2},
		{"jerk", c.JerkMS3}, {"bin", c.BinDeg}, {"rate", c.RateHz}, {"speed tau", c.SpeedTauS},
		{"yaw rate", c.YawRateRadS}, {"point age", c.PointAgeS}}
	for _, f := range pos {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("avoid: %s = %v must be a finite number > 0", f.n, f.v)
		}
	}
	nonneg := []float64{c.MinAltM, c.ObstacleCostM, c.ObstacleWeight, c.SmoothingDeg, c.YawCost, c.VelocityCost, c.GoalClearDeg,
		c.GoalSnapM, c.LineLookaheadM, c.ObstacleSlowM, c.MinSpeedFactor, c.FOVFullSpeedDeg}
	for i, v := range nonneg {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("avoid: parameter #%d = %v must be a finite number ≥ 0", i, v)
		}
	}
	if c.HFOVDeg > 360 || 360/c.BinDeg != math.Round(360/c.BinDeg) || 360/c.BinDeg > 720 {
		return fmt.Errorf("avoid: bin width %v° must divide 360° into at most 720 bins (fov %v°)", c.BinDeg, c.HFOVDeg)
	}
	if c.MaxPoints < 1 || c.MaxPoints > 1<<20 {
		return fmt.Errorf("avoid: point memory %d out of range [1, 1048576]", c.MaxPoints)
	}
	return nil
}

// point is a remembered obstacle point in the world (NED x, y).
type point struct {
	x, y float64
	t    float64
}

// Planner is the local planner's state. Its methods must not be called
// concurrently.
type Planner struct {
	cfg Config

	pts   []point // memory, capacity MaxPoints
	cell  []point // per-scan sub-sampling, one per 2° of azimuth
	nbins int
	sum   []float64
	cnt   []int
	cost  []float64
	obst  []float64

	lastPlan float64
	planned  bool
	dir      float64 // chosen direction of travel, rad
	speed    float64 // low-passed speed, m/s
	yaw      float64 // heading setpoint
	lastT    float64
	nearest  float64 // distance to the nearest point in the chosen direction's cone
}

// New returns a planner with an empty memory.
func New(cfg Config) (*Planner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := int(math.Round(360 / cfg.BinDeg))
	return &Planner{
		cfg: cfg, pts: make([]point, 0, cfg.MaxPoints), cell: make([]point, 180), nbins: n,
		sum: make([]float64, n), cnt: make([]int, n), cost: make([]float64, n), obst: make([]float64, n),
		lastPlan: math.Inf(-1), lastT: math.Inf(-1),
	}, nil
}

// Config returns the parameters in use.
func (p *Planner) Config() Config { return p.cfg }

// Points returns the number of remembered obstacle points.
func (p *Planner) Points() int { return len(p.pts) }

// ErrMismatch is returned when ranges and directions differ in length.
var ErrMismatch = errors.New("avoid: ranges and ray directions differ in length")

// Observe adds a range scan taken at time t from pos (NED) with attitude
// att: ranges[i] is the distance along the body-frame unit ray dirs[i],
// maxM means no return and NaN too close to measure (both ignored). Old
// points in the field of view are replaced by what the scan shows; those
// outside it are kept until they are PointAgeS old or out of range.
func (p *Planner) Observe(t float64, pos geom.Vec3, att geom.Quat, ranges []float64, dirs []geom.Vec3, maxM float64) error {
	if len(ranges) != len(dirs) {
		return ErrMismatch
	}
	heading := att.Yaw()
	half := p.cfg.HFOVDeg * math.Pi / 360
	r2 := p.cfg.MaxRangeM * p.cfg.MaxRangeM
	// Forget what the sensor sees again, what is too old and what is too far.
	keep := p.pts[:0]
	for _, q := range p.pts {
		dx, dy := q.x-pos.X, q.y-pos.Y
		if t-q.t > p.cfg.PointAgeS || dx*dx+dy*dy > r2 {
			continue
		}
		if math.Abs(geom.WrapPi(math.Atan2(dy, dx)-heading)) <= half {
			continue
		}
		keep = append(keep, q)
	}
	p.pts = keep
	// Sub-sample the scan to the nearest return per 2° azimuth cell, as
	// PX4-Avoidance keeps one point per cell of its polar grid.
	for i := range p.cell {
		p.cell[i] = point{t: math.Inf(1)}
	}
	for i, r := range ranges {
		if math.IsNaN(r) || r >= maxM || r > p.cfg.MaxRangeM {
			continue
		}
		hit := pos.Add(att.Rotate(dirs[i]).Scale(r))
		if -hit.Z < p.cfg.MinAltM {
			continue // the ground
		}
		az := math.Atan2(hit.Y-pos.Y, hit.X-pos.X)
		c := int(math.Floor((az+math.Pi)/(2*math.Pi)*float64(len(p.cell)))) % len(p.cell)
		if r < p.cell[c].t { // t holds the range while sub-sampling
			p.cell[c] = point{x: hit.X, y: hit.Y, t: r}
		}
	}
	for _, q := range p.cell {
		if math.IsInf(q.t, 1) {
			continue
		}
		if len(p.pts) == cap(p.pts) {
			// Full: drop the oldest (the slice is in arrival order).
			copy(p.pts, p.pts[1:])
			p.pts = p.pts[:len(p.pts)-1]
		}
		p.pts = append(p.pts, point{x: q.x, y: q.y, t: t})
	}
	return nil
}

type leg struct{ prev, goal geom.Vec3 }

// resumeGapS is the longest pause between two Setpoint calls that still
// counts as one continuous flight under the planner.
const resumeGapS = 0.5

func deg(r float64) float64 { return r * 180 / math.Pi }

// angDiffDeg is the absolute difference of two angles in degrees, 0..180.
func angDiffDeg(a, b float64) float64 { return math.Abs(deg(geom.WrapPi(a - b))) }

// Setpoint returns the setpoint that flies est along the leg from prev to
// goal (NED; what PX4 sends a companion planner as the desired path) around
// the remembered obstacles at time t. It re-plans at RateHz and otherwise
// keeps the last direction.
func (p *Planner) Setpoint(t float64, est control.State, prev, goal geom.Vec3) control.Setpoint {
	leg := leg{prev: prev, goal: goal}
	pos := est.Pos
	dt := t - p.lastT
	if !(dt >= 0 && dt <= resumeGapS) {
		// First call, or the flight controller flew without the planner
		// for a while (take-off, turning at a waypoint): start from the
		// vehicle's own heading and speed.
		dt = 0
		p.yaw = est.Att.Yaw()
		p.speed = est.Vel.XY().Norm()
		p.planned = false
	}
	p.lastT = t
	toGoal := leg.goal.XY().Sub(pos.XY())
	if toGoal.Norm() < p.cfg.GoalSnapM {
		// Close to the goal: fly onto it under position control.
		p.speed = math.Max(0, p.speed-p.cfg.AccMS2*dt)
		return control.Setpoint{Pos: leg.goal, Yaw: p.yaw}
	}
	if !p.planned || t-p.lastPlan >= 1/p.cfg.RateHz-1e-9 {
		p.plan(pos, est.Vel, leg)
		p.lastPlan, p.planned = t, true
	}

	// Speed: cruise, capped by the stopping distance within sensor range,
	// slowed near obstacles ahead, scaled to zero as the direction of travel
	// leaves the field of view; low-passed.
	a, j := p.cfg.AccMS2, p.cfg.JerkMS3
	b := 2 * a * (a / j)
	vmax := (-b + math.Sqrt(b*b+8*a*p.cfg.MaxRangeM)) / 2
	v := math.Min(p.cfg.CruiseMS, vmax)
	if p.cfg.ObstacleSlowM > 0 && p.nearest < p.cfg.ObstacleSlowM {
		v *= math.Max(p.cfg.MinSpeedFactor, p.nearest/p.cfg.ObstacleSlowM)
	}
	off := angDiffDeg(p.dir, est.Att.Yaw())
	half := p.cfg.HFOVDeg / 2
	switch {
	case off <= p.cfg.FOVFullSpeedDeg:
	case off >= half:
		v = 0
	default:
		v *= (half - off) / (half - p.cfg.FOVFullSpeedDeg)
	}
	// Do not overshoot the goal: brake within the acceleration limit.
	v = math.Min(v, math.Sqrt(2*a*toGoal.Norm()))
	p.speed += (v - p.speed) * (1 - math.Exp(-dt/p.cfg.SpeedTauS))

	// Heading turns toward the direction of travel.
	step := p.cfg.YawRateRadS * dt
	p.yaw = geom.WrapPi(p.yaw + geom.Clamp(geom.WrapPi(p.dir-p.yaw), -step, step))

	s, c := math.Sincos(p.dir)
	nan := math.NaN()
	return control.Setpoint{
		Pos: geom.Vec3{X: nan, Y: nan, Z: leg.goal.Z},
		Vel: geom.Vec3{X: c * p.speed, Y: s * p.speed},
		Yaw: p.yaw,
	}
}

// Direction returns the last chosen direction of travel (rad, 0 = North).
func (p *Planner) Direction() float64 { return p.dir }

// plan builds the histogram around pos and picks the cheapest direction.
func (p *Planner) plan(pos, vel geom.Vec3, leg leg) {
	cfg := &p.cfg
	n := p.nbins
	bin := cfg.BinDeg * math.Pi / 180
	for i := range n {
		p.sum[i], p.cnt[i], p.obst[i] = 0, 0, 0
	}
	r2 := cfg.MaxRangeM * cfg.MaxRangeM
	for _, q := range p.pts {
		dx, dy := q.x-pos.X, q.y-pos.Y
		d2 := dx*dx + dy*dy
		if d2 > r2 {
			continue
		}
		az := math.Atan2(dy, dx)
		i := int(math.Floor((az+math.Pi)/bin)) % n
		p.sum[i] += math.Sqrt(d2)
		p.cnt[i]++
	}
	// Sigmoid obstacle cost of the mean distance per bin.
	raw := p.cost // reuse as scratch for the raw costs
	for i := range n {
		raw[i] = 0
		if p.cnt[i] > 0 {
			d := p.sum[i] / float64(p.cnt[i])
			D := cfg.ObstacleCostM - d
			raw[i] = cfg.ObstacleWeight * (1 + D/math.Sqrt(1+D*D))
		}
	}
	// Conic inflation over ±SmoothingDeg.
	k := int(cfg.SmoothingDeg / cfg.BinDeg)
	for i := range n {
		if raw[i] == 0 {
			continue
		}
		for o := -k; o <= k; o++ {
			w := 1 - math.Abs(float64(o))*cfg.BinDeg/math.Max(cfg.SmoothingDeg, 1e-9)
			if w <= 0 && o != 0 {
				continue
			}
			jj := ((i+o)%n + n) % n
			if c := raw[i] * math.Max(w, 0); c > p.obst[jj] {
				p.obst[jj] = c
			}
		}
	}

	goalDir := math.Atan2(leg.goal.Y-pos.Y, leg.goal.X-pos.X)
	lineDir := p.lineDir(pos, leg, goalDir)
	// Line weight: 0.5 when no obstacle lies near the goal direction.
	w := 0.5
	for i := range n {
		if p.cnt[i] == 0 {
			continue
		}
		c := -math.Pi + (float64(i)+0.5)*bin
		if angDiffDeg(c, goalDir) <= cfg.GoalClearDeg {
			w = 0
			break
		}
	}
	speed := vel.XY().Norm()
	best, bestCost := 0, math.Inf(1)
	for i := range n {
		c := -math.Pi + (float64(i)+0.5)*bin
		dg := angDiffDeg(c, goalDir)
		dl := angDiffDeg(c, lineDir)
		sc, cc := math.Sincos(c)
		velCost := cfg.VelocityCost * (speed - (vel.X*cc + vel.Y*sc))
		total := p.obst[i] + (1-w)*cfg.YawCost*dg*dg + w*cfg.YawCost*dl*dl + velCost
		if total < bestCost {
			best, bestCost = i, total
		}
	}
	p.dir = -math.Pi + (float64(best)+0.5)*bin
	// If the goal direction itself is free of obstacle cost and falls in
	// the chosen bin, fly straight at the goal rather than the bin centre.
	if p.obst[best] == 0 && angDiffDeg(p.dir, goalDir) <= cfg.BinDeg/2 {
		p.dir = goalDir
	}
	// The nearest obstacle within ±BinDeg of the chosen direction.
	p.nearest = math.Inf(1)
	for o := -1; o <= 1; o++ {
		jj := ((best+o)%n + n) % n
		if p.cnt[jj] > 0 {
			p.nearest = math.Min(p.nearest, p.sum[jj]/float64(p.cnt[jj]))
		}
	}
}

// lineDir is the direction toward a point LineLookaheadM ahead of the
// vehicle's projection on the prev→goal line; the goal itself when the
// vehicle is closer to the line than the cruise speed in metres (as
// PX4-Avoidance does) or the leg is degenerate.
func (p *Planner) lineDir(pos geom.Vec3, leg leg, goalDir float64) float64 {
	a, b := leg.prev.XY(), leg.goal.XY()
	ab := b.Sub(a)
	l := ab.Norm()
	if l < 1e-6 {
		return goalDir
	}
	u := ab.Scale(1 / l)
	s := geom.Clamp(pos.XY().Sub(a).Dot(u), 0, l)
	foot := a.Add(u.Scale(s))
	if foot.Dist(pos.XY()) < p.cfg.CruiseMS {
		return goalDir
	}
	tgt := a.Add(u.Scale(math.Min(l, s+p.cfg.LineLookaheadM)))
	return math.Atan2(tgt.Y-pos.Y, tgt.X-pos.X)
}
