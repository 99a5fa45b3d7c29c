package track

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// ErrParam is a tracker parameter that is unknown or out of range.
var ErrParam = errors.New("track: bad tracker parameter")

// param is one settable parameter of a built-in tracker: its ROS name (as
// AirStack's trajectory_controller.yaml spells it, for the AirStack
// tracker), what it sets, and its range.
type param struct {
	set      func(cfg any, v float64)
	min, max float64
	doc      string
}

var params = map[string]map[string]param{
	"airstack": {
		"tracker_rate":                      {func(c any, v float64) { c.(*AirStackConfig).RateHz = v }, 1, 1000, "tracker timer, Hz"},
		"look_ahead_time":                   {func(c any, v float64) { c.(*AirStackConfig).LookAheadTimeS = v }, 0.01, 60, "projection window, s"},
		"min_virtual_tracking_velocity":     {func(c any, v float64) { c.(*AirStackConfig).MinVirtualTrackingMS = v }, 0.01, 20, "m/s"},
		"velocity_sphere_radius_multiplier": {func(c any, v float64) { c.(*AirStackConfig).SphereRadiusMultiplier = v }, -1, 10, "s; negative uses sphere_radius"},
		"sphere_radius":                     {func(c any, v float64) { c.(*AirStackConfig).SphereRadiusM = v }, 0.01, 50, "m"},
	},
	"feedforward": {
		"acc":        {func(c any, v float64) { c.(*FeedforwardConfig).AccMS2 = v }, 0.01, 20, "m/s²"},
		"corner_tol": {func(c any, v float64) { c.(*FeedforwardConfig).CornerTolM = v }, 0.001, 5, "m"},
		"arrive":     {func(c any, v float64) { c.(*FeedforwardConfig).ArriveM = v }, 0.01, 10, "m"},
		"lag_slow":   {func(c any, v float64) { c.(*FeedforwardConfig).LagSlowM = v }, 0.01, 50, "m"},
		"lag_stop":   {func(c any, v float64) { c.(*FeedforwardConfig).LagStopM = v }, 0.01, 100, "m"},
		"drag_per_s": {func(c any, v float64) { c.(*FeedforwardConfig).DragPerS = v }, -1, 10, "1/s; negative = none"},
	},
}

// Params returns the parameter names of the named tracker, sorted.
func Params(name string) []string {
	var out []string
	for k := range params[name] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NewWith returns a tracker of the named kind with the given parameters
// (by name, see Params) over its defaults. A value that is unknown, not
// finite or out of range is an ErrParam naming it.
func NewWith(name string, values map[string]float64) (Tracker, error) {
	if _, err := New(name); err != nil {
		return nil, err
	}
	var ac AirStackConfig
	var fc FeedforwardConfig
	cfg := map[string]any{"airstack": &ac, "feedforward": &fc}[name]
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := values[k]
		p, ok := params[name][k]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no parameter %q (want one of %s)", ErrParam, name, k, strings.Join(Params(name), ", "))
		}
		if math.IsNaN(v) || v < p.min || v > p.max {
			return nil, fmt.Errorf("%w: %s %s = %v: want %g to %g (%s)", ErrParam, name, k, v, p.min, p.max, p.doc)
		}
		if v == 0 { // zero means "the default" in the configs: say it instead
			return nil, fmt.Errorf("%w: %s %s = 0: zero selects the default; give the value", ErrParam, name, k)
		}
		p.set(cfg, v)
	}
	switch name {
	case "airstack":
		return NewAirStack(ac), nil
	default:
		return NewFeedforward(fc), nil
	}
}
