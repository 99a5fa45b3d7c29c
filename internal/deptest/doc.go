// Package deptest holds the test that keeps the pure packages pure
// (DESIGN.md: no os, net, clocks, goroutines or global random state inside;
// time comes in as dt, randomness as a seeded *rand.Rand).
package deptest
