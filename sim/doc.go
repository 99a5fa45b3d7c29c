// Package sim holds what every embedded simulator shares: the wind model,
// seeded sensor noise helpers and the fault switches that tests flip.
//
// Simulators advance only through Step(dt): they read no clock and draw every
// random number from a *rand.Rand (math/rand/v2) handed to them, so the same
// seed gives the same bytes. The vehicles themselves live in sub-packages:
// sim/quad (multirotor) and, later, sim/rover (mower).
package sim
