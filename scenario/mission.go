package scenario

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/shakedown-robotics/shakedown/geom"
)

// ItemKind is the kind of a mission item. The zero value is not a valid kind.
type ItemKind int

// The mission items Shakedown models, after the MAVLink commands of the same
// names.
const (
	Takeoff  ItemKind = iota + 1 // MAV_CMD_NAV_TAKEOFF (22)
	Waypoint                     // MAV_CMD_NAV_WAYPOINT (16)
	Land                         // MAV_CMD_NAV_LAND (21)
)

// String returns "takeoff", "waypoint" or "land".
func (k ItemKind) String() string {
	switch k {
	case Takeoff:
		return "takeoff"
	case Waypoint:
		return "waypoint"
	case Land:
		return "land"
	}
	return "ItemKind(" + strconv.Itoa(int(k)) + ")"
}

// MAVLink command ids of the mission items (MAV_CMD).
const (
	cmdNavWaypoint = 16
	cmdNavLand     = 21
	cmdNavTakeoff  = 22
)

func (k ItemKind) command() int {
	switch k {
	case Takeoff:
		return cmdNavTakeoff
	case Waypoint:
		return cmdNavWaypoint
	case Land:
		return cmdNavLand
	}
	return 0
}

// Item is one positional mission item.
type Item struct {
	Kind ItemKind
	// Pos is the target in local NED about home: X North, Y East, Z minus the
	// altitude above home, in metres. A take-off's X and Y are 0 (the take-off
	// spot is the origin); its Z is minus the take-off altitude.
	Pos geom.Vec3
	// AcceptRadiusM is a waypoint's acceptance radius (MAV_CMD_NAV_WAYPOINT
	// param2), m; 0 means the vehicle default (PX4 NAV_ACC_RAD).
	AcceptRadiusM float64
	// SpeedMS is the cruise speed of the leg to this item that a
	// DO_CHANGE_SPEED before it set, m/s; 0 means the vehicle default
	// (PX4 MPC_XY_CRUISE).
	SpeedMS float64
}

// LatLonAlt is a geographic position: WGS-84 latitude and longitude in
// degrees and altitude above mean sea level in metres.
type LatLonAlt struct{ LatDeg, LonDeg, AltM float64 }

// Mission is a flight plan: a take-off, any number of waypoints and a
// landing, in the local frame about Home.
type Mission struct {
	Name  string    // the plan's file name without extension, e.g. "mission2"
	Home  LatLonAlt // the take-off point, the origin of the local frame
	Items []Item
}

// Path returns home (0, 0, 0) followed by the position of each item, the
// polyline the vehicle is asked to fly.
func (m Mission) Path() []geom.Vec3 {
	p := make([]geom.Vec3, 0, len(m.Items)+1)
	p = append(p, geom.Vec3{})
	for _, it := range m.Items {
		p = append(p, it.Pos)
	}
	return p
}

// MaxRangeM is the largest horizontal distance from home a mission item may
// have, m. The projection is local; a case study spans about 100 m, and
// 100 km keeps the plan conversion well conditioned.
const MaxRangeM = 100e3

// Validate reports whether m is a mission Shakedown can fly and encode: a
// home with a valid latitude and longitude and finite altitude, at most
// MaxItems items, a take-off at the origin first, a landing last, waypoints
// in between, finite positions within MaxRangeM of home, take-off and
// waypoint altitudes above 0 and at most MaxAltitudeM above home, and a
// landing altitude from MinLandAltitudeM to MaxAltitudeM.
func (m Mission) Validate() error {
	if err := checkLatLon(m.Home.LatDeg, m.Home.LonDeg); err != nil {
		return fmt.Errorf("home: %w", err)
	}
	if !finite(m.Home.AltM) {
		return fmt.Errorf("home: altitude %v is not a finite number", m.Home.AltM)
	}
	n := len(m.Items)
	if n < 2 {
		return errors.New("a mission needs at least a takeoff and a land item")
	}
	if n > MaxItems {
		return fmt.Errorf("%d items, more than %d", n, MaxItems)
	}
	for i, it := range m.Items {
		if err := it.check(i, n); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
	}
	return nil
}

func (it Item) check(i, n int) error {
	switch {
	case it.Kind != Takeoff && it.Kind != Waypoint && it.Kind != Land:
		return fmt.Errorf("unknown kind %v", it.Kind)
	case i == 0 && it.Kind != Takeoff:
		return fmt.Errorf("the first item is a %v, want a takeoff", it.Kind)
	case i > 0 && it.Kind == Takeoff:
		return errors.New("takeoff is allowed only as the first item")
	case i == n-1 && it.Kind != Land:
		return fmt.Errorf("the last item is a %v, want a land", it.Kind)
	case i < n-1 && it.Kind == Land:
		return errors.New("land is allowed only as the last item")
	case !it.Pos.IsFinite():
		return fmt.Errorf("position %v is not finite", it.Pos)
	case it.Kind == Takeoff && (it.Pos.X != 0 || it.Pos.Y != 0):
		return fmt.Errorf("takeoff at (%g, %g), want the origin (the take-off spot is home)", it.Pos.X, it.Pos.Y)
	case it.Kind != Land && !(-it.Pos.Z > 0 && -it.Pos.Z <= MaxAltitudeM):
		return fmt.Errorf("%v altitude %g m, want above 0 and at most %g m above home", it.Kind, -it.Pos.Z, MaxAltitudeM)
	case it.Kind == Land && !(-it.Pos.Z >= MinLandAltitudeM && -it.Pos.Z <= MaxAltitudeM):
		return fmt.Errorf("land altitude %g m, want %g to %g m above home", -it.Pos.Z, MinLandAltitudeM, MaxAltitudeM)
	case it.Pos.XY().Norm() > MaxRangeM:
		return fmt.Errorf("position %.0f m from home, more than %g m", it.Pos.XY().Norm(), MaxRangeM)
	case !finite(it.AcceptRadiusM) || it.AcceptRadiusM < 0:
		return fmt.Errorf("acceptance radius %v, want a finite number ≥ 0", it.AcceptRadiusM)
	case !(it.SpeedMS >= 0 && it.SpeedMS <= MaxSpeedMS):
		return fmt.Errorf("speed %v m/s, want 0 (the default) to %g m/s", it.SpeedMS, float64(MaxSpeedMS))
	case it.Kind != Waypoint && it.AcceptRadiusM != 0:
		return fmt.Errorf("acceptance radius %g on a %v, only waypoints have one", it.AcceptRadiusM, it.Kind)
	}
	return nil
}

func checkLatLon(lat, lon float64) error {
	if !finite(lat) || lat < -90 || lat > 90 {
		return fmt.Errorf("latitude %v out of range [-90, 90]", lat)
	}
	if !finite(lon) || lon < -180 || lon > 180 {
		return fmt.Errorf("longitude %v out of range [-180, 180]", lon)
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
