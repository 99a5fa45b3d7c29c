package robot

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
)

// Origin is the geodetic point the local frames are about: PX4 SITL's
// spawn point by default (47.397742 N, 8.545594 E, 488 m).
type Origin struct {
	LatDeg, LonDeg, AltM float64
}

// DefaultOrigin is PX4 SITL's spawn point.
var DefaultOrigin = Origin{LatDeg: 47.397742, LonDeg: 8.545594, AltM: 488}

// earthRadiusM is the WGS-84 equatorial radius; a flat-earth projection
// about the origin is exact to millimetres over a test field.
const earthRadiusM = 6378137.0

// fix returns latitude, longitude and altitude of a point north/east/up of
// the origin.
func (o Origin) fix(north, east, up float64) (lat, lon, alt float64) {
	lat = o.LatDeg + north/earthRadiusM*180/math.Pi
	lon = o.LonDeg + east/(earthRadiusM*math.Cos(o.LatDeg*math.Pi/180))*180/math.Pi
	return lat, lon, o.AltM + up
}

// local is the inverse of fix.
func (o Origin) local(lat, lon, alt float64) (north, east, up float64) {
	north = (lat - o.LatDeg) * math.Pi / 180 * earthRadiusM
	east = (lon - o.LonDeg) * math.Pi / 180 * earthRadiusM * math.Cos(o.LatDeg*math.Pi/180)
	return north, east, alt - o.AltM
}

// stepper runs a simulator in real time (times a speed factor) in steps of
// stepS: each step is a tick other goroutines can wait on.
type stepper struct {
	mu    sync.Mutex
	tick  chan struct{} // closed and replaced after every step
	stepS float64
	speed float64
}

func newStepper(stepS, speed float64) (*stepper, error) {
	if !(speed > 0) || speed > 1000 || math.IsInf(speed, 0) {
		return nil, fmt.Errorf("robot: speed %v: want a factor > 0 and at most 1000", speed)
	}
	return &stepper{tick: make(chan struct{}), stepS: stepS, speed: speed}, nil
}

// run calls step (with s.mu held) every stepS/speed of wall time until ctx
// is done; after each step, publish (without the lock).
func (s *stepper) run(ctx context.Context, step func() error, publish func()) error {
	period := time.Duration(s.stepS / s.speed * float64(time.Second))
	t := time.NewTicker(period)
	defer t.Stop()
	start := time.Now()
	var done int64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		// Catch up with the wall clock (a late tick steps more than once),
		// at most 10 steps at a time so that a stall does not burst.
		due := int64(time.Since(start).Seconds() * s.speed / s.stepS)
		n := min(max(due-done, 1), 10)
		done = max(done+n, due-10)
		for range n {
			s.mu.Lock()
			err := step()
			old := s.tick
			s.tick = make(chan struct{})
			s.mu.Unlock()
			close(old)
			if err != nil {
				return err
			}
			publish()
		}
	}
}

// next returns the channel closed after the next step.
func (s *stepper) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tick
}

// rate decides when a topic of a nominal rate is due on the vehicle's
// clock.
type rate struct {
	periodS float64
	next    float64
}

func newRate(hz float64) rate {
	if hz <= 0 {
		return rate{periodS: math.Inf(1), next: math.Inf(1)}
	}
	return rate{periodS: 1 / hz}
}

// due reports whether the topic is due at t, and schedules the next one.
func (r *rate) due(t float64) bool {
	if t+1e-9 < r.next {
		return false
	}
	r.next += r.periodS
	if r.next < t {
		r.next = t + r.periodS // fell behind: skip, do not burst
	}
	return true
}

// trigger answers a std_srvs/Trigger with fn's error.
func trigger(fn func(context.Context) error) rosbridge.ServiceFunc {
	return func(ctx context.Context, _ json.RawMessage) (any, error) {
		if err := fn(ctx); err != nil {
			return ros.TriggerResponse{Success: false, Message: err.Error()}, nil
		}
		return ros.TriggerResponse{Success: true, Message: "ok"}, nil
	}
}

// advertiseAll advertises the profile's sensor topics (those with a rate).
func advertiseAll(ctx context.Context, n rosbridge.Node, p *Profile, keys []string) error {
	for _, k := range keys {
		t := p.Topics[k]
		if err := n.Advertise(ctx, t.Name, t.Type); err != nil {
			return fmt.Errorf("advertise %s: %w", t.Name, err)
		}
	}
	return nil
}

func header(t float64, frame string) ros.Header {
	return ros.Header{Stamp: ros.TimeOf(t), FrameID: frame}
}

// noCov marks an estimate the sensor does not give (sensor_msgs/Imu).
var noCov = ros.Covariance9{-1}

func diag9(v float64) ros.Covariance9 { return ros.Covariance9{v, 0, 0, 0, v, 0, 0, 0, v} }
