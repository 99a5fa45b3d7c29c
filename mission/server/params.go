package server

import (
	"fmt"
	"math"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
)

// Params are the daemon's parameters under the specification's names, as a
// parameter file (--params) gives them.
type Params struct {
	Machine         mission.Config
	HomeZ           float64 // home_z: where the demo and state_only vehicles stand (NED z)
	RecordEvents    bool    // record_events
	RecordMaxEvents int     // record_max_events
	RecordDir       string  // record_dir ("" = the current directory)
	DumpOnShutdown  bool    // dump_on_shutdown
	// HomeZSet reports that the parameter file gave home_z (an adapter that
	// takes home from the vehicle refuses it).
	HomeZSet bool
}

// DefaultParams returns the defaults: mission.DefaultConfig, home_z 0, and
// the recorder on with 500 events, dumped on shutdown.
func DefaultParams() Params {
	return Params{Machine: mission.DefaultConfig(), RecordEvents: true, RecordMaxEvents: blackbox.DefaultMaxEvents,
		DumpOnShutdown: true}
}

// ParamNames lists the keys ParseParams knows.
var ParamNames = []string{"max_altitude", "home_z", "takeoff_altitude", "ground_margin", "max_hor_dist", "telemetry_timeout", "battery_min",
	"link_loss_timeout", "failsafe_action", "record_events", "record_max_events", "record_dir", "dump_on_shutdown"}

// ParseParams reads a parameter file, a JSON object such as
//
//	{"max_altitude": 30, "home_z": 0, "record_max_events": 1000}
//
// over DefaultParams. It is strict: unknown or duplicate keys, a boolean or
// string where a number belongs (and the reverse), numbers that are not
// finite and values out of range are refused with a *mission.ParseError
// naming file and key. max_altitude must be > 0 and at most 10 km, home_z
// finite and within ±100 km, takeoff_altitude > 0 and at most max_altitude,
// ground_margin ≥ 0 and below max_altitude, max_hor_dist (PX4's
// GF_MAX_HOR_DIST) > 0 and at most 100 km, telemetry_timeout > 0 s, link_loss_timeout ≥ 0 s (0 disables),
// battery_min in [0, 1) (0 disables), failsafe_action "hold" or "land",
// record_max_events an integer ≥ 1.
func ParseParams(data []byte, file string) (Params, error) {
	p := DefaultParams()
	ms, err := mission.ReadObject(data, file)
	if err != nil {
		return Params{}, err
	}
	bad := func(key string, e error, detail string) error {
		return &mission.ParseError{File: file, Field: key, Err: e, Detail: detail}
	}
	for _, m := range ms {
		var num float64
		var str string
		var flag bool
		var err error
		switch m.Key {
		case "max_altitude", "home_z", "takeoff_altitude", "ground_margin", "max_hor_dist", "telemetry_timeout", "battery_min", "link_loss_timeout", "record_max_events":
			num, err = mission.FieldNumber(m.Raw, m.Key)
		case "failsafe_action", "record_dir":
			str, err = mission.FieldString(m.Raw, m.Key)
		case "record_events", "dump_on_shutdown":
			flag, err = mission.FieldBool(m.Raw, m.Key)
		default:
			return Params{}, bad(m.Key, mission.ErrUnknownField, "known: "+fmt.Sprint(ParamNames))
		}
		if err != nil {
			if pe, ok := err.(*mission.ParseError); ok {
				pe.File = file
			}
			return Params{}, err
		}
		dur := func() time.Duration { return time.Duration(num * float64(time.Second)) }
		switch m.Key {
		case "max_altitude":
			if err := mission.ValidateBand(0, num); err != nil {
				return Params{}, withFile(err, file)
			}
			p.Machine.MaxAltitudeM = num
		case "home_z":
			if err := mission.ValidateBand(num, 1); err != nil {
				return Params{}, withFile(err, file)
			}
			p.HomeZ, p.HomeZSet = num, true
		case "takeoff_altitude":
			if !(num > 0) || num > mission.MaxAltitudeLimitM {
				return Params{}, bad(m.Key, mission.ErrRange, "metres, must be > 0 and at most max_altitude")
			}
			p.Machine.TakeoffAltM = num
		case "ground_margin":
			if !(num >= 0) || num > mission.MaxAltitudeLimitM {
				return Params{}, bad(m.Key, mission.ErrRange, "metres, must be ≥ 0 and below max_altitude")
			}
			p.Machine.GroundMarginM = num
		case "max_hor_dist":
			if !(num > 0) || num > mission.MaxCoordM {
				return Params{}, bad(m.Key, mission.ErrRange, "metres (PX4's GF_MAX_HOR_DIST), must be > 0 and at most 100000")
			}
			p.Machine.MaxHorDistM = num
		case "telemetry_timeout":
			if !(num > 0) || num > 3600 {
				return Params{}, bad(m.Key, mission.ErrRange, "seconds, must be > 0 and at most 3600")
			}
			p.Machine.TelemetryTimeout = dur()
		case "link_loss_timeout":
			if !(num >= 0) || num > 3600 {
				return Params{}, bad(m.Key, mission.ErrRange, "seconds, must be ≥ 0 (0 disables) and at most 3600")
			}
			p.Machine.LinkLoss = dur()
		case "battery_min":
			if !(num >= 0 && num < 1) {
				return Params{}, bad(m.Key, mission.ErrRange, "must be in [0, 1); 0 disables")
			}
			p.Machine.BatteryMin = num
		case "record_max_events":
			if num < 1 || num != math.Trunc(num) || num > 1e7 {
				return Params{}, bad(m.Key, mission.ErrRange, "must be an integer from 1 to 10000000")
			}
			p.RecordMaxEvents = int(num)
		case "failsafe_action":
			switch str {
			case "hold":
				p.Machine.FailsafeLand = false
			case "land":
				p.Machine.FailsafeLand = true
			default:
				return Params{}, bad(m.Key, mission.ErrRange, `must be "hold" or "land"`)
			}
		case "record_dir":
			p.RecordDir = str
		case "record_events":
			p.RecordEvents = flag
		case "dump_on_shutdown":
			p.DumpOnShutdown = flag
		}
	}
	if err := p.Validate(); err != nil {
		return Params{}, withFile(err, file)
	}
	return p, nil
}

// withFile sets the file of a *mission.ParseError, or wraps another error
// in one.
func withFile(err error, file string) error {
	if pe, ok := err.(*mission.ParseError); ok {
		pe.File = file
		return pe
	}
	return &mission.ParseError{File: file, Err: err}
}

// Validate checks the parameters together. Its errors name the parameters
// as the file and the flags do (takeoff_altitude, not the Go field
// TakeoffAltM), as *mission.ParseError values with the key as Field.
func (p Params) Validate() error {
	c := p.Machine
	if err := mission.ValidateBand(p.HomeZ, c.MaxAltitudeM); err != nil {
		return err
	}
	if p.RecordMaxEvents < 1 {
		return blackbox.ErrMaxEvents
	}
	rel := func(key string, v float64, what string, bound float64) error {
		return &mission.ParseError{Field: key, Err: mission.ErrRange,
			Detail: fmt.Sprintf("%v must be %s max_altitude %v", v, what, bound)}
	}
	bad := func(key, detail string) error {
		return &mission.ParseError{Field: key, Err: mission.ErrRange, Detail: detail}
	}
	switch {
	case !(c.TakeoffAltM > 0) || math.IsInf(c.TakeoffAltM, 0):
		return bad("takeoff_altitude", fmt.Sprintf("%v: metres, must be > 0", c.TakeoffAltM))
	case !(c.GroundMarginM >= 0) || math.IsInf(c.GroundMarginM, 0):
		return bad("ground_margin", fmt.Sprintf("%v: metres, must be ≥ 0", c.GroundMarginM))
	case !(c.MaxHorDistM > 0) || c.MaxHorDistM > mission.MaxCoordM:
		return bad("max_hor_dist", fmt.Sprintf("%v: metres (PX4's GF_MAX_HOR_DIST), must be > 0 and at most %v", c.MaxHorDistM, mission.MaxCoordM))
	case !(c.BatteryMin >= 0 && c.BatteryMin < 1):
		return bad("battery_min", fmt.Sprintf("%v: must be in [0, 1); 0 disables", c.BatteryMin))
	case c.TakeoffAltM > c.MaxAltitudeM:
		return rel("takeoff_altitude", c.TakeoffAltM, "at most", c.MaxAltitudeM)
	case c.AirborneTolM >= c.TakeoffAltM:
		return &mission.ParseError{Field: "takeoff_altitude", Err: mission.ErrRange,
			Detail: fmt.Sprintf("%v must be above the take-off tolerance %v m", c.TakeoffAltM, c.AirborneTolM)}
	case c.GroundMarginM >= c.MaxAltitudeM:
		return rel("ground_margin", c.GroundMarginM, "below", c.MaxAltitudeM)
	case c.ReturnMinAltM > c.MaxAltitudeM:
		return &mission.ParseError{Field: "max_altitude", Err: mission.ErrRange,
			Detail: fmt.Sprintf("%v is below the return altitude %v m", c.MaxAltitudeM, c.ReturnMinAltM)}
	}
	return c.Validate()
}
