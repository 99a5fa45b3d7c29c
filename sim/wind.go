package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shakedown-robotics/shakedown/geom"
)

// WindConfig describes the air mass: a steady wind plus gusts.
//
// The steady part is the velocity of the air in NED (m/s; air moving toward
// North is +X). The gusts are a first-order Gauss–Markov process per axis
// (a discrete Dryden-like model): each component relaxes toward zero with
// time constant GustTauS and has standard deviation GustSigmaMS horizontally
// and half of it vertically. Zero values mean no wind and no gusts.
type WindConfig struct {
	Steady      geom.Vec3 // m/s, NED, the direction the air moves toward
	GustSigmaMS float64   // m/s, horizontal gust standard deviation; 0 = no gusts
	GustTauS    float64   // s, gust correlation time; 0 with gusts on means 2 s
}

// Validate reports a configuration that cannot be simulated.
func (c WindConfig) Validate() error {
	if !c.Steady.IsFinite() {
		return errors.New("sim: wind: steady wind is not finite")
	}
	if !(c.GustSigmaMS >= 0) || math.IsInf(c.GustSigmaMS, 0) {
		return fmt.Errorf("sim: wind: gust sigma %v must be a finite number ≥ 0", c.GustSigmaMS)
	}
	if !(c.GustTauS >= 0) || math.IsInf(c.GustTauS, 0) {
		return fmt.Errorf("sim: wind: gust tau %v must be a finite number ≥ 0", c.GustTauS)
	}
	return nil
}

// Wind is the state of the air mass. The zero value is calm air.
type Wind struct {
	cfg  WindConfig
	gust geom.Vec3
}

// NewWind returns the wind for cfg; gusts start at zero.
func NewWind(cfg WindConfig) Wind {
	if cfg.GustSigmaMS > 0 && cfg.GustTauS == 0 {
		cfg.GustTauS = 2
	}
	return Wind{cfg: cfg}
}

// Step advances the gusts by dt seconds using rng.
func (w *Wind) Step(dt float64, rng *rand.Rand) {
	if w.cfg.GustSigmaMS == 0 {
		return
	}
	// Exact discretisation of dx = −x/τ dt + σ√(2/τ) dW.
	a := math.Exp(-dt / w.cfg.GustTauS)
	b := w.cfg.GustSigmaMS * math.Sqrt(1-a*a)
	w.gust.X = a*w.gust.X + b*rng.NormFloat64()
	w.gust.Y = a*w.gust.Y + b*rng.NormFloat64()
	w.gust.Z = a*w.gust.Z + 0.5*b*rng.NormFloat64()
}

// Velocity returns the current air velocity in NED, m/s.
func (w *Wind) Velocity() geom.Vec3 { return w.cfg.Steady.Add(w.gust) }
