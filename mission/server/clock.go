package server

import "time"

// Clock is the daemon's source of time: the machine's timeouts, the tick
// that polls the adapter and the simulated vehicle's time all follow it.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

// Ticker is a running ticker of a Clock.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// RealClock is the wall clock (under testing/synctest, the bubble's fake
// clock).
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTicker returns a time.Ticker.
func (RealClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }

// Scaled runs Base (RealClock when nil) Factor times faster: a flight at
// Factor 10 takes a tenth of the wall time, and every period in the daemon
// (timeouts, hold times, the tick) is measured in the scaled time.
type Scaled struct {
	Base   Clock
	Factor float64
	t0     time.Time
}

// NewScaled returns base sped up by factor (> 0) from now on.
func NewScaled(base Clock, factor float64) *Scaled {
	if base == nil {
		base = RealClock{}
	}
	return &Scaled{Base: base, Factor: factor, t0: base.Now()}
}

// Now returns the scaled time.
func (s *Scaled) Now() time.Time {
	return s.t0.Add(time.Duration(float64(s.Base.Now().Sub(s.t0)) * s.Factor))
}

// NewTicker ticks every d of scaled time (but at most every 100 µs of base
// time).
func (s *Scaled) NewTicker(d time.Duration) Ticker {
	return s.Base.NewTicker(max(100*time.Microsecond, time.Duration(float64(d)/s.Factor)))
}
