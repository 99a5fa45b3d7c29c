package scenario

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// EarthRadiusM is the sphere radius PX4's local projection uses
// (CONSTANTS_RADIUS_OF_EARTH, lib/geo), m.
const EarthRadiusM = 6371000

// Project returns the local North/East offset, m, of the point (latDeg,
// lonDeg) from home, with the azimuthal-equidistant projection PX4 uses for
// its local frame (MapProjection::project, competition.md §2.1):
//
//	x = k·(cosφ0·sinφ − sinφ0·cosφ·cosΔλ)·R,  y = k·cosφ·sinΔλ·R,  k = c/sin c,
//
// with c the angular distance between the two points. c is computed with the
// haversine formula rather than PX4's acos of the cosine, which is the same
// angle but keeps full precision over the few hundred metres of a mission.
func Project(home LatLonAlt, latDeg, lonDeg float64) geom.Vec2 {
	lat0, lon0 := rad(home.LatDeg), rad(home.LonDeg)
	lat, lon := rad(latDeg), rad(lonDeg)
	sinLat0, cosLat0 := math.Sincos(lat0)
	sinLat, cosLat := math.Sincos(lat)
	dLon := lon - lon0
	sinDLon, cosDLon := math.Sincos(dLon)

	sdLat, sdLon := math.Sin((lat-lat0)/2), math.Sin(dLon/2)
	h := sdLat*sdLat + cosLat0*cosLat*sdLon*sdLon
	c := 2 * math.Asin(math.Sqrt(geom.Clamp(h, 0, 1)))
	k := 1.0
	if c > 1e-12 {
		k = c / math.Sin(c)
	}
	return geom.Vec2{
		X: k * (cosLat0*sinLat - sinLat0*cosLat*cosDLon) * EarthRadiusM,
		Y: k * cosLat * sinDLon * EarthRadiusM,
	}
}

// Unproject is the inverse of Project: it returns the latitude and longitude,
// in degrees, of the point ne (North, East, m) about home
// (MapProjection::reproject, with atan2 in place of its asin for precision
// near the poles). The longitude is wrapped into [−180, 180].
func Unproject(home LatLonAlt, ne geom.Vec2) (latDeg, lonDeg float64) {
	lat0, lon0 := rad(home.LatDeg), rad(home.LonDeg)
	sinLat0, cosLat0 := math.Sincos(lat0)
	xr, yr := ne.X/EarthRadiusM, ne.Y/EarthRadiusM
	c := math.Hypot(xr, yr)
	if c == 0 {
		return home.LatDeg, home.LonDeg
	}
	sinC, cosC := math.Sincos(c)
	s := sinC / c
	// The point's sinφ, cosφ·sinΔλ and cosφ·cosΔλ: PX4 takes φ = asin(sinφ),
	// which loses precision near the poles; atan2 of the three keeps it.
	sinLat := cosC*sinLat0 + xr*s*cosLat0
	a := yr * s
	b := cosC*cosLat0 - xr*s*sinLat0
	lat := math.Atan2(sinLat, math.Hypot(a, b))
	lon := lon0 + math.Atan2(a, b)
	lonDeg = deg(lon)
	for lonDeg > 180 {
		lonDeg -= 360
	}
	for lonDeg < -180 {
		lonDeg += 360
	}
	return geom.Clamp(deg(lat), -90, 90), lonDeg
}

func rad(d float64) float64 { return d * math.Pi / 180 }
func deg(r float64) float64 { return r * 180 / math.Pi }
