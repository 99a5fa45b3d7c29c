// Package world is the static scene a vehicle flies in: box obstacles in the
// UAV Testing Competition's model, the rectangle obstacles may be placed in,
// ray casts for range sensors, and the minimum-clearance rule Aerialist uses
// to judge a flight.
//
// Horizontal coordinates are shared by Shakedown's NED frame and the
// competition's frame (x North, y East); heights are metres above the ground,
// which lies at NED z = 0. The package is pure: no I/O, no clocks, no global
// randomness.
package world
