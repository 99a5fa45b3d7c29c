package mavlink

import "time"

// Clock is the source of wall time for the adapter and the server: command
// timeouts, link loss, heartbeats, the setpoint stream and the simulated
// vehicle's pace. Tests pass a fake, or run under testing/synctest with
// RealClock.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
	NewTimer(d time.Duration) Timer
}

// Ticker is a running ticker of a Clock.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Timer is a one-shot timer of a Clock.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// RealClock is the wall clock (under testing/synctest, the bubble's fake
// clock).
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTicker returns a time.Ticker.
func (RealClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

// NewTimer returns a time.Timer.
func (RealClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

func secondsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
