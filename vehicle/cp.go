package vehicle

import (
	"math"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/world"
)

// feedObstacles hands the autopilot's collision prevention each new range
// scan as a north-aligned obstacle map, as a distance-sensor driver or a
// companion computer publishes OBSTACLE_DISTANCE. A planar lidar tilts with
// the vehicle: rays within 30° of the horizontal count, and returns from
// the ground (hit points less than 20 cm above home) are dropped.
func (s *Sim) feedObstacles() {
	if !s.ap.CollisionPreventionOn() {
		return
	}
	r := s.q.Range()
	if r.Ranges == nil || (s.x.haveScan && r.T == s.x.lastScan) {
		return
	}
	s.x.lastScan, s.x.haveScan = r.T, true
	home, _ := s.ap.Home()
	s.ap.SetObstacles(obstaclesFromScan(r.T, r.Ranges, r.Dirs, r.MaxM, s.est.Att, home.Z-s.est.Pos.Z))
}

// QuadTestBox is the quadrotor end-of-line test's obstacle: a wall 6 m wide
// and 10 m tall whose near face is 9 m North of the origin, in front of a
// vehicle that takes off there facing North.
func QuadTestBox() world.Box {
	return world.Box{L: 2, W: 6, H: 10, X: 10, Y: 0}
}

// obstacleSpread is the elevation within which a ray counts.
var obstacleSpread = math.Sin(30 * math.Pi / 180)

// groundM is the height above home below which a return is the ground.
const groundM = 0.2

func obstaclesFromScan(t float64, ranges []float64, dirs []geom.Vec3, maxM float64, att geom.Quat, altM float64) (o autopilot.Obstacles) {
	for i := range o.Dist {
		o.Dist[i] = math.NaN()
	}
	o.T = t
	n := len(o.Dist)
	for i, rg := range ranges {
		d := att.Rotate(dirs[i])
		if math.Abs(d.Z) > obstacleSpread {
			continue
		}
		k := int(math.Round(math.Atan2(d.Y, d.X)/(2*math.Pi)*float64(n))) % n
		if k < 0 {
			k += n
		}
		dist := math.Inf(1)
		switch {
		case math.IsNaN(rg):
			dist = 0 // too close to measure
		case rg < maxM && altM-rg*d.Z > groundM:
			dist = rg * math.Hypot(d.X, d.Y)
		}
		if math.IsNaN(o.Dist[k]) || dist < o.Dist[k] {
			o.Dist[k] = dist
		}
	}
	return o
}

// QuadTestCPDistM is the collision-prevention distance of the simulated
// quadrotor the end-of-line test flies (CP_DIST; PX4's default −1 is off).
const QuadTestCPDistM = 2

// NewQuadTestSim returns the embedded quadrotor as the end-of-line test
// flies it: a 72-beam planar lidar at 10 Hz, collision prevention at
// QuadTestCPDistM, and QuadTestBox ahead.
func NewQuadTestSim(seed uint64) (*Sim, error) {
	s, err := NewSim(SimConfig{Quad: quad.Config{Range: quad.Lidar(72)}, Scene: world.Scene{Boxes: []world.Box{QuadTestBox()}}, Seed: seed})
	if err != nil {
		return nil, err
	}
	if err := s.ap.SetCollisionPrevention(autopilot.CollisionPrevention{DistM: QuadTestCPDistM}); err != nil {
		return nil, err
	}
	return s, nil
}
