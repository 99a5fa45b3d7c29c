package mavlink

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// stream is the Goto setpoint stream: a carrot that moves from start to
// goal at speed in the vehicle's time, sent at StreamHz of wall time and of
// vehicle time (whichever is faster), so that a sped-up simulator still
// hears more than 2 Hz of its own time.
type stream struct {
	v    *Vehicle
	mu   sync.Mutex
	from geom.Vec3
	goal geom.Vec3
	spd  float64
	t0   float64
	stop chan struct{}
	done chan struct{}
}

// at returns the carrot's position and velocity at vehicle time t.
func (s *stream) at(t float64) (geom.Vec3, geom.Vec3) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.goal.Sub(s.from)
	dist := d.Norm()
	run := s.spd * math.Max(0, t-s.t0)
	if dist < 1e-6 || run >= dist {
		return s.goal, geom.Vec3{}
	}
	u := d.Scale(1 / dist)
	return s.from.Add(u.Scale(run)), u.Scale(s.spd)
}

func (s *stream) retarget(t float64, from, goal geom.Vec3, speed float64) {
	s.mu.Lock()
	s.from, s.goal, s.spd, s.t0 = from, goal, speed, t
	s.mu.Unlock()
}

func (s *stream) send(t float64) {
	p, vel := s.at(t)
	m, _ := setpointMsg(vehicle.Setpoint{Pos: p, Vel: vel, Acc: geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()}, Yaw: math.NaN()})
	s.v.sendSetpoint(m)
}

func (s *stream) run() {
	defer close(s.done)
	v := s.v
	period := 1 / v.cfg.StreamHz
	tk := v.cfg.Clock.NewTicker(secondsDur(period))
	defer tk.Stop()
	last := math.Inf(-1)
	for {
		up := v.updates()
		select {
		case <-s.stop:
			return
		case <-v.closing:
			return
		case <-tk.C():
		case <-up:
			if v.vehicleTime()-last < period*0.999 {
				continue
			}
		}
		last = v.vehicleTime()
		s.send(last)
	}
}

func (v *Vehicle) vehicleTime() float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.t.bootS
}

// stopStream ends the Goto stream, if any, and waits for it.
func (v *Vehicle) stopStream() {
	v.mu.Lock()
	s := v.stream
	v.stream = nil
	v.mu.Unlock()
	if s != nil {
		close(s.stop)
		<-s.done
	}
}

// Goto flies to p (local NED) at speedMS (Config.CruiseMS when 0) by
// streaming position setpoints with a velocity feed-forward along the
// straight line in Offboard (PX4) or GUIDED (ArduPilot), and holds there
// while the stream goes on. The stream ends when a command that changes
// the mode is accepted (Hold, Land, Return, Takeoff, StartMission,
// Setpoint, Disarm, Kill) or at Close.
func (v *Vehicle) Goto(ctx context.Context, p geom.Vec3, speedMS float64) error {
	if !allFinite(p) {
		return fmt.Errorf("mavlink: goto %v: %w", p, ErrBadSetpoint)
	}
	if speedMS < 0 || !fin(speedMS) {
		return fmt.Errorf("mavlink: goto speed %v m/s must be a finite number ≥ 0", speedMS)
	}
	if speedMS == 0 {
		speedMS = v.cfg.CruiseMS
	}
	v.mu.Lock()
	if v.t.sys == 0 || !v.t.lposOK {
		v.mu.Unlock()
		return ErrNotReady
	}
	now, pos, mode := v.t.bootS, v.t.tel.Pos, v.t.tel.Mode
	s := v.stream
	fresh := s == nil
	if fresh {
		s = &stream{v: v, stop: make(chan struct{}), done: make(chan struct{})}
		v.stream = s
	}
	v.mu.Unlock()
	from := pos
	if !fresh && mode == "offboard" {
		from, _ = s.at(now) // carry on from the carrot: no jump
	}
	s.retarget(now, from, p, speedMS)
	s.send(now)
	if fresh {
		go s.run()
	}
	if err := v.enterOffboard(ctx); err != nil {
		v.stopStream()
		return err
	}
	return nil
}

// CancelGoto stops the Goto carrot where it is; the stream goes on holding
// that point (stopping it would trip the offboard-loss failsafe) until a
// mode command is accepted.
func (v *Vehicle) CancelGoto() {
	v.mu.Lock()
	s, now := v.stream, v.t.bootS
	v.mu.Unlock()
	if s == nil {
		return
	}
	p, _ := s.at(now)
	s.retarget(now, p, p, 0)
	s.send(now)
}
