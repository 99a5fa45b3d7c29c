package adapter

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
)

// FaultKind is a failure `mission serve --fault KIND@T` injects at daemon
// time T.
type FaultKind string

// Fault kinds, each with the FAILSAFE reason it ends in (Reason):
const (
	// FaultAltitude: the vehicle runs away upward to 5 m above the band's
	// ceiling (a stuck climb setpoint) → altitude_violation, hold.
	FaultAltitude FaultKind = "altitude"
	// FaultRPC: the next command the vehicle gets fails → rpc_error.
	FaultRPC FaultKind = "rpc"
	// FaultTakeoff: every take-off command from T on is refused
	// (takeoff_rpc_result false) → takeoff_rejected, disarm.
	FaultTakeoff FaultKind = "takeoff"
	// FaultBattery: the battery monitor reads 5 % (PX4's BAT_EMERGEN_THR)
	// → battery_low, land.
	FaultBattery FaultKind = "battery"
	// FaultLink: the heartbeats stop while telemetry still arrives →
	// link_lost after link_loss_timeout.
	FaultLink FaultKind = "link"
	// FaultTelemetry: the telemetry stops → telemetry_timeout.
	FaultTelemetry FaultKind = "telemetry"
	// FaultGNSS: GNSS is lost (no fix, eph 100 m) → position_lost, land.
	FaultGNSS FaultKind = "gnss"
	// FaultMotor: motor 1 stops (sim only); the vehicle tilts past 60° →
	// attitude_failure, land.
	FaultMotor FaultKind = "motor"
)

// FaultKinds lists every kind, in the order `mission smoke --faults` runs
// them.
var FaultKinds = []FaultKind{FaultAltitude, FaultRPC, FaultTakeoff, FaultBattery, FaultLink, FaultTelemetry, FaultGNSS, FaultMotor}

// Reason returns the FAILSAFE reason the fault ends in.
func (k FaultKind) Reason() string {
	switch k {
	case FaultAltitude:
		return mission.ReasonAltitude
	case FaultRPC:
		return mission.ReasonRPC
	case FaultTakeoff:
		return mission.ReasonTakeoffRejected
	case FaultBattery:
		return mission.ReasonBatteryLow
	case FaultLink:
		return mission.ReasonLinkLost
	case FaultTelemetry:
		return mission.ReasonTelemetryTimeout
	case FaultGNSS:
		return mission.ReasonPositionLost
	case FaultMotor:
		return mission.ReasonAttitude
	}
	return ""
}

// Fault is one scheduled failure.
type Fault struct {
	Kind FaultKind
	At   time.Duration // daemon time (since the daemon started)
}

func (f Fault) String() string { return fmt.Sprintf("%s@%gs", f.Kind, f.At.Seconds()) }

// ErrFault is returned by ParseFault.
var ErrFault = errors.New("adapter: bad fault")

// ParseFault parses KIND@T: a kind of FaultKinds and a daemon time T in
// seconds ("12", "12.5", "12s", "1m30s"), from 0 to 24 h.
func ParseFault(s string) (Fault, error) {
	kind, at, ok := strings.Cut(s, "@")
	if !ok {
		return Fault{}, fmt.Errorf("%w %q: want KIND@T, e.g. gnss@20 (kinds: %s)", ErrFault, s, kindList())
	}
	k := FaultKind(kind)
	if !slices.Contains(FaultKinds, k) {
		return Fault{}, fmt.Errorf("%w %q: unknown kind %q (kinds: %s)", ErrFault, s, kind, kindList())
	}
	var d time.Duration
	if f, err := strconv.ParseFloat(at, 64); err == nil {
		if math.IsNaN(f) || f < 0 || f > 86400 {
			return Fault{}, fmt.Errorf("%w %q: time %s: want seconds from 0 to 86400", ErrFault, s, at)
		}
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(at); err != nil || d < 0 || d > 24*time.Hour {
		return Fault{}, fmt.Errorf("%w %q: time %q: want seconds (12.5) or a duration (1m30s) from 0 to 24h", ErrFault, s, at)
	}
	return Fault{Kind: k, At: d}, nil
}

func kindList() string {
	s := make([]string, len(FaultKinds))
	for i, k := range FaultKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// schedule is an adapter's scheduled faults and what they switched on.
type schedule struct {
	faults   []Fault
	fired    []bool
	ceilingZ float64 // the band's ceiling (home_z − max_altitude), for FaultAltitude

	rpcNext       bool // the next command fails
	batteryLow    bool
	heartbeatLost bool
	gnssLost      bool
}

// ErrFaultUnsupported is returned by SetSchedule for a fault the adapter
// cannot inject.
var ErrFaultUnsupported = errors.New("adapter: fault not supported by this adapter")

func newSchedule(faults []Fault, ceilingZ float64, supported func(FaultKind) bool) (schedule, error) {
	for _, f := range faults {
		if !supported(f.Kind) {
			return schedule{}, fmt.Errorf("%w: %s", ErrFaultUnsupported, f)
		}
	}
	return schedule{faults: slices.Clone(faults), fired: make([]bool, len(faults)), ceilingZ: ceilingZ}, nil
}

// due returns the faults due at now that have not fired yet, marking them
// fired.
func (s *schedule) due(now time.Duration) []FaultKind {
	var out []FaultKind
	for i, f := range s.faults {
		if !s.fired[i] && now >= f.At {
			s.fired[i] = true
			out = append(out, f.Kind)
		}
	}
	return out
}

// command applies the one-shot RPC fault to the command being executed.
func (s *schedule) command(c mission.Command) error {
	if s.rpcNext {
		s.rpcNext = false
		return fmt.Errorf("%s: injected rpc error: %w", c.Kind, ErrRefused)
	}
	return nil
}

// telemetry applies the sensor faults to a sample.
func (s *schedule) telemetry(t *mission.Telemetry) {
	if s.batteryLow {
		t.Battery = 0.05
	}
	if s.gnssLost && t.EphM < 100 {
		t.EphM = 100
	}
}
