// Package trace holds recorded time series of a vehicle's state: the samples
// a flight leaves behind, Aerialist's resampling of them, and a CSV codec.
//
// Samples are stored in Shakedown's internal frame, local NED (x North,
// y East, z Down), metres, seconds and radians. The CSV codec converts to and
// from the UAV Testing Competition's frame (x North, y East, z Up), the frame
// Aerialist extracts trajectories in (competition.md §2.1, §3.1).
//
// The package is pure: it reads and writes only through the io.Reader and
// io.Writer it is given, and reads no clock.
package trace

import "github.com/shakedown-robotics/shakedown/geom"

// Sample is one recorded state: T seconds since the start of the recording,
// Pos in local NED (m), Heading rad (yaw, 0 = North, + toward East).
type Sample struct {
	T       float64
	Pos     geom.Vec3
	Heading float64
}

// Positions returns the positions of s, in order, in local NED.
func Positions(s []Sample) []geom.Vec3 {
	if s == nil {
		return nil
	}
	p := make([]geom.Vec3, len(s))
	for i := range s {
		p[i] = s[i].Pos
	}
	return p
}

// PathLength returns the 3-D length of the polyline through the positions of
// s, in metres; 0 for fewer than two samples.
func PathLength(s []Sample) float64 {
	var l float64
	for i := 1; i < len(s); i++ {
		l += s[i].Pos.Sub(s[i-1].Pos).Norm()
	}
	return l
}
