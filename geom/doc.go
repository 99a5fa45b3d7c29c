// Package geom holds the value types every other package computes with:
// 2-D and 3-D vectors, unit quaternions, and distances between points,
// segments and polylines.
//
// All quantities are SI (metres, seconds, radians). Vectors are plain values
// passed by value; functions and methods never allocate. The internal frame of
// Shakedown is local NED (x North, y East, z Down); geom itself is frame-agnostic
// and frames are named where vectors are stored.
package geom
