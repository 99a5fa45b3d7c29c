// Package robot puts Shakedown's robots on a ROS 2 graph over rosbridge
// and reads ROS robots back through the same seams: a robot profile (topic
// names and types, nominal rates, geometry, battery, the safety interfaces,
// frame ids) says what a robot of a kind publishes and listens to. The
// frame conversions (ENU/FLU ↔ NED/FRD, REP 103) happen here only.
package robot

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	yaml "github.com/goccy/go-yaml"
)

// Kinds of robot.
const (
	KindQuad  = "quad"
	KindMower = "mower"
)

// Topic is one topic of a profile.
type Topic struct {
	Name   string  `yaml:"name"`
	Type   string  `yaml:"type"`
	RateHz float64 `yaml:"rate_hz,omitempty"` // nominal rate; 0 for commands (published by others)
}

// Service is one service of a profile.
type Service struct {
	Name string `yaml:"name"`
	Type string `yaml:"type"`
}

// Frames are the frame ids of a profile (REP 105).
type Frames struct {
	Map   string `yaml:"map"`   // world-fixed, ENU
	Odom  string `yaml:"odom"`  // odometry origin, ENU
	Base  string `yaml:"base"`  // body, FLU
	IMU   string `yaml:"imu"`   // the IMU, FLU
	GNSS  string `yaml:"gnss"`  // the GNSS antenna
	Lidar string `yaml:"lidar"` // the lidar, FLU
}

// Battery is a profile's battery.
type Battery struct {
	Chemistry   string  `yaml:"chemistry"` // LiPo, LiIon, LiFePO4, NiMH
	Cells       int     `yaml:"cells"`
	CapacityAh  float64 `yaml:"capacity_ah"`
	CellMinV    float64 `yaml:"cell_min_v"` // empty
	CellNominal float64 `yaml:"cell_nominal_v"`
}

// Geometry is a ground robot's drive geometry.
type Geometry struct {
	WheelRadiusM  float64 `yaml:"wheel_radius_m"`
	TrackM        float64 `yaml:"track_m"`        // between the drive wheels
	FrontM        float64 `yaml:"front_m"`        // front bumper ahead of the axle centre
	HalfWidthM    float64 `yaml:"half_width_m"`   // half the body's width
	BladeFullRPM  float64 `yaml:"blade_full_rpm"` // mower: the blade's full speed
	LidarMountXM  float64 `yaml:"lidar_mount_x_m"`
	MaxSpeedMS    float64 `yaml:"max_speed_ms"`
	MaxYawRateRdS float64 `yaml:"max_yaw_rate_rad_s"`
}

// Profile describes a robot of one kind on a ROS graph. The topic and
// service keys are fixed per kind (see RequiredTopics); Validate says which
// are missing.
type Profile struct {
	Name      string             `yaml:"name"`
	Kind      string             `yaml:"kind"` // quad or mower
	Frames    Frames             `yaml:"frames"`
	Topics    map[string]Topic   `yaml:"topics"`
	Services  map[string]Service `yaml:"services"`
	Actions   map[string]Service `yaml:"actions,omitempty"`
	Battery   Battery            `yaml:"battery"`
	Geometry  Geometry           `yaml:"geometry,omitempty"`
	Watchdog  float64            `yaml:"command_timeout_s,omitempty"` // the robot's gate stops without a command this long
	CommandHz float64            `yaml:"command_hz,omitempty"`        // how often a driver repeats its command
}

// Required topic, service and action keys per kind.
var (
	quadTopics     = []string{"imu", "odometry", "gnss", "battery", "status", "setpoint_pose", "setpoint_twist"}
	quadServices   = []string{"arm", "disarm", "takeoff", "land", "hold", "return_home", "kill"}
	quadActions    = []string{"waypoints"}
	mowerTopics    = []string{"imu", "gnss", "joints", "scan", "battery", "safety", "cmd_vel", "blade"}
	mowerServices  = []string{"stop_button", "go_button"}
	chemistryCellV = map[string][2]float64{"LiPo": {3.3, 3.7}, "LiIon": {3.0, 3.6}, "LiFePO4": {2.8, 3.2}, "NiMH": {1.0, 1.2}}
)

//go:embed profiles/quad.yaml
var quadYAML []byte

//go:embed profiles/mower.yaml
var mowerYAML []byte

// Builtin returns the built-in profile of kind (quad or mower).
func Builtin(kind string) (*Profile, error) {
	switch kind {
	case KindQuad:
		return Parse("quad.yaml", quadYAML)
	case KindMower:
		return Parse("mower.yaml", mowerYAML)
	}
	return nil, fmt.Errorf("robot: no built-in profile %q (want quad or mower)", kind)
}

// Load reads and validates a profile file.
func Load(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// ProfileError is a profile that does not validate.
type ProfileError struct {
	File  string
	Field string
	Err   error
}

func (e *ProfileError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.File, e.Field, e.Err)
}

func (e *ProfileError) Unwrap() error { return e.Err }

// Parse decodes a profile strictly (unknown keys are errors) and validates
// it; file names it in errors.
func Parse(file string, b []byte) (*Profile, error) {
	var p Profile
	if err := yaml.NewDecoder(bytes.NewReader(b), yaml.Strict()).Decode(&p); err != nil {
		return nil, &ProfileError{File: file, Err: errors.New(yaml.FormatError(err, false, true))}
	}
	if err := p.Validate(); err != nil {
		var pe *ProfileError
		if errors.As(err, &pe) {
			pe.File = file
		}
		return nil, err
	}
	return &p, nil
}

// Validate checks that every key the kind needs is there with a name, a
// type and, for sensors, a rate; and that the geometry and battery make
// sense.
func (p *Profile) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &ProfileError{Field: field, Err: fmt.Errorf(format, args...)}
	}
	var topics, services, actions []string
	switch p.Kind {
	case KindQuad:
		topics, services, actions = quadTopics, quadServices, quadActions
	case KindMower:
		topics, services = mowerTopics, mowerServices
	default:
		return bad("kind", "%q: want quad or mower", p.Kind)
	}
	if p.Name == "" {
		return bad("name", "missing")
	}
	for _, k := range topics {
		t, ok := p.Topics[k]
		if !ok {
			return bad("topics."+k, "missing")
		}
		if !strings.HasPrefix(t.Name, "/") || t.Type == "" || strings.Count(t.Type, "/") < 1 {
			return bad("topics."+k, "name %q (want an absolute ROS name) and type %q (want pkg/msg/Type)", t.Name, t.Type)
		}
		if !(t.RateHz >= 0) || t.RateHz > 10000 || math.IsInf(t.RateHz, 0) {
			return bad("topics."+k+".rate_hz", "%v: want 0..10000", t.RateHz)
		}
	}
	for _, k := range sortedKeys(p.Topics) {
		if !contains(topics, k) {
			return bad("topics."+k, "unknown key for a %s (want one of %s)", p.Kind, strings.Join(topics, ", "))
		}
	}
	for _, k := range services {
		s, ok := p.Services[k]
		if !ok {
			return bad("services."+k, "missing")
		}
		if !strings.HasPrefix(s.Name, "/") || s.Type == "" {
			return bad("services."+k, "name %q and type %q", s.Name, s.Type)
		}
	}
	for _, k := range actions {
		a, ok := p.Actions[k]
		if !ok || !strings.HasPrefix(a.Name, "/") || a.Type == "" {
			return bad("actions."+k, "missing or without an absolute name and a type")
		}
	}
	if p.Frames.Odom == "" || p.Frames.Base == "" || p.Frames.IMU == "" {
		return bad("frames", "odom, base and imu frame ids are required")
	}
	if _, ok := chemistryCellV[p.Battery.Chemistry]; !ok {
		return bad("battery.chemistry", "%q: want LiPo, LiIon, LiFePO4 or NiMH", p.Battery.Chemistry)
	}
	if p.Battery.Cells < 1 || p.Battery.Cells > 32 {
		return bad("battery.cells", "%d: want 1..32", p.Battery.Cells)
	}
	if p.Kind == KindMower {
		g := p.Geometry
		for _, f := range []struct {
			n string
			v float64
		}{{"wheel_radius_m", g.WheelRadiusM}, {"track_m", g.TrackM}, {"front_m", g.FrontM}, {"half_width_m", g.HalfWidthM}, {"blade_full_rpm", g.BladeFullRPM}} {
			if !(f.v > 0) || math.IsInf(f.v, 0) {
				return bad("geometry."+f.n, "%v: want > 0", f.v)
			}
		}
		if !(p.Watchdog > 0) || !(p.CommandHz > 0) {
			return bad("command_timeout_s", "command_timeout_s %v and command_hz %v: want > 0", p.Watchdog, p.CommandHz)
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
