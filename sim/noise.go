package sim

import "math/rand/v2"

// GaussMarkov is a first-order Gauss–Markov error e ← a·e + s·w with w unit
// white noise, as PX4's GPS simulator models position and velocity errors
// (px4.md §1.4).
type GaussMarkov struct {
	A, S float64 // decay per sample and driving noise scale
	E    float64 // current error
}

// Next advances the process one sample and returns the new error.
func (g *GaussMarkov) Next(rng *rand.Rand) float64 {
	g.E = g.A*g.E + g.S*rng.NormFloat64()
	return g.E
}

// Every counts fixed-rate sensor samples in a fixed-step simulation: Due
// reports whether a sample falls in the step that ends at time t.
type Every struct {
	PeriodS float64
	next    float64
}

// Due reports whether the sensor samples at time t, and schedules the next
// sample. A zero or negative period never samples.
func (e *Every) Due(t float64) bool {
	if e.PeriodS <= 0 {
		return false
	}
	if t+1e-9 < e.next {
		return false
	}
	e.next += e.PeriodS
	if e.next <= t {
		// Catch up after a long step without bursting.
		e.next = t + e.PeriodS
	}
	return true
}
