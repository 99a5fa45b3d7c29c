package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shakedown-robotics/shakedown/avoid"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/sim/quad"
	"github.com/shakedown-robotics/shakedown/world"
)

// Errors of the package.
var (
	// ErrBadJob marks a job that cannot be flown or decoded.
	ErrBadJob = errors.New("campaign: bad job")
	// ErrBadResult marks a result message that cannot be decoded.
	ErrBadResult = errors.New("campaign: bad result")
	// ErrJobFailed marks a job whose run ended in an error.
	ErrJobFailed = errors.New("campaign: job failed")
	// ErrUnreachable marks a NATS server that cannot be reached.
	ErrUnreachable = errors.New("campaign: NATS server unreachable")
)

// ID identifies a job or a campaign by its content: the first 16 bytes of
// a SHA-256 hash, in lower-case hex (32 characters).
type ID string

// Short is the first 12 characters of the id, for people.
func (id ID) Short() string {
	if len(id) > 12 {
		return string(id[:12])
	}
	return string(id)
}

// Valid reports whether id has the form of an ID.
func (id ID) Valid() bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func hashID(parts ...[]byte) ID {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return ID(hex.EncodeToString(h.Sum(nil)[:16]))
}

// Job is one test run. Every field but ID is content; ID is their hash
// (see NewJob). The JSON form is the wire and storage format.
type Job struct {
	ID       ID       `json:"id"`
	Scenario Scenario `json:"scenario"`
	Vehicle  Vehicle  `json:"vehicle"`
	Seed     uint64   `json:"seed"`
	// Run is the run index: repetition Run of this scenario.
	Run int `json:"run"`
	// KeepTrace asks for the full-rate trace in the result, beside the
	// resampled trajectory every result has.
	KeepTrace bool `json:"keep_trace,omitempty"`
}

// Scenario is what is flown: a case study reduced to what the engine reads.
type Scenario struct {
	Name    string  `json:"name"`
	Mission Mission `json:"mission"`
	// Params are the PX4 parameters; IntParams names, sorted, those that
	// are integers.
	Params    map[string]float64 `json:"params,omitempty"`
	IntParams []string           `json:"int_params,omitempty"`
	Obstacles []Box              `json:"obstacles"`
}

// Mission is a flight plan in local NED about Home (scenario.Mission).
type Mission struct {
	Name  string     `json:"name"`
	Home  [3]float64 `json:"home"` // latitude, longitude (degrees), altitude (m AMSL)
	Items []Item     `json:"items"`
}

// Item is one mission item; Kind is "takeoff", "waypoint" or "land".
type Item struct {
	Kind          string     `json:"kind"`
	Pos           [3]float64 `json:"pos"` // NED, m
	AcceptRadiusM float64    `json:"accept_radius_m,omitempty"`
	SpeedMS       float64    `json:"speed_m_s,omitempty"` // DO_CHANGE_SPEED; 0 = the default (older job ids unchanged)
}

// Box is an obstacle in the competition's model (world.Box).
type Box struct {
	L float64 `json:"l"`
	W float64 `json:"w"`
	H float64 `json:"h"`
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
	R float64 `json:"r"`
}

// Vehicle is the vehicle configuration of a run (run.Options without the
// seed). Defaults are written out, so that equal configurations have equal
// ids: Autopilot is never empty, TimeoutS never 0, Avoid nil means the
// planner's defaults.
type Vehicle struct {
	Engine    string           `json:"engine"`
	Autopilot string           `json:"autopilot"`
	TimeoutS  float64          `json:"timeout_s"`
	Wind      Wind             `json:"wind"`
	Range     quad.RangeConfig `json:"range,omitzero"`
	Avoid     *avoid.Config    `json:"avoid,omitempty"`
	// PreArmS and AerialistUnspawned are run.Options's (the time on the
	// ground inside the log, Aerialist's unspawned-box quirk); omitted
	// when zero, so jobs without them keep their ids.
	PreArmS            float64 `json:"pre_arm_s,omitempty"`
	AerialistUnspawned bool    `json:"aerialist_unspawned,omitempty"`
}

// Wind is sim.WindConfig.
type Wind struct {
	SteadyMS    [3]float64 `json:"steady_ms,omitzero"` // NED, the direction the air moves toward
	GustSigmaMS float64    `json:"gust_sigma_ms,omitempty"`
	GustTauS    float64    `json:"gust_tau_s,omitempty"`
}

// WithEngine returns the job flown on the engine named engine ("" =
// EngineEmbedded), with its id recomputed.
func (j Job) WithEngine(engine string) (Job, error) {
	if engine == "" {
		engine = EngineEmbedded
	}
	j.Vehicle.Engine = engine
	if err := j.validate(); err != nil {
		return Job{}, err
	}
	id, err := j.contentID()
	if err != nil {
		return Job{}, err
	}
	j.ID = id
	return j, nil
}

// NewJob builds the job that flies cs with opt as run index runIndex on the
// embedded simulator (see WithEngine), and computes its id.
func NewJob(cs *scenario.CaseStudy, opt run.Options, runIndex int, keepTrace bool) (Job, error) {
	if cs == nil {
		return Job{}, fmt.Errorf("%w: nil case study", ErrBadJob)
	}
	j := Job{
		Scenario: Scenario{
			Name:      cs.Name,
			Mission:   Mission{Name: cs.Mission.Name, Home: [3]float64{cs.Mission.Home.LatDeg, cs.Mission.Home.LonDeg, cs.Mission.Home.AltM}},
			Obstacles: make([]Box, len(cs.Obstacles)),
		},
		Vehicle: Vehicle{
			Engine:    EngineEmbedded,
			Autopilot: opt.Autopilot,
			TimeoutS:  opt.TimeoutS,
			Wind:      Wind{SteadyMS: [3]float64{opt.Wind.Steady.X, opt.Wind.Steady.Y, opt.Wind.Steady.Z}, GustSigmaMS: opt.Wind.GustSigmaMS, GustTauS: opt.Wind.GustTauS},
			Range:     opt.Range,
			PreArmS:   opt.PreArmS,

			AerialistUnspawned: opt.AerialistUnspawned,
		},
		Seed:      opt.Seed,
		Run:       runIndex,
		KeepTrace: keepTrace,
	}
	if j.Vehicle.Autopilot == "" {
		j.Vehicle.Autopilot = run.AutopilotAvoid
	}
	if j.Vehicle.TimeoutS == 0 {
		j.Vehicle.TimeoutS = run.DefaultTimeoutS
	}
	if opt.Avoid != nil && *opt.Avoid != avoid.DefaultConfig() {
		a := *opt.Avoid
		j.Vehicle.Avoid = &a
	}
	for _, it := range cs.Mission.Items {
		j.Scenario.Mission.Items = append(j.Scenario.Mission.Items, Item{Kind: it.Kind.String(), Pos: [3]float64{it.Pos.X, it.Pos.Y, it.Pos.Z}, AcceptRadiusM: it.AcceptRadiusM, SpeedMS: it.SpeedMS})
	}
	if len(cs.Params) > 0 {
		j.Scenario.Params = make(map[string]float64, len(cs.Params))
		for k, v := range cs.Params {
			j.Scenario.Params[k] = v
			if cs.IntParams[k] {
				j.Scenario.IntParams = append(j.Scenario.IntParams, k)
			}
		}
		slices.Sort(j.Scenario.IntParams)
	}
	for i, b := range cs.Obstacles {
		j.Scenario.Obstacles[i] = Box{b.L, b.W, b.H, b.X, b.Y, b.Z, b.R}
	}
	if err := j.validate(); err != nil {
		return Job{}, err
	}
	id, err := j.contentID()
	if err != nil {
		return Job{}, err
	}
	j.ID = id
	return j, nil
}

// contentID hashes the job's content: its JSON form without the id.
func (j Job) contentID() (ID, error) {
	j.ID = ""
	b, err := json.Marshal(j)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadJob, err)
	}
	return hashID([]byte("shakedown job v1\n"), b), nil
}

// Encode returns the job's JSON form, the bytes that travel and are stored.
func (j Job) Encode() ([]byte, error) {
	b, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadJob, err)
	}
	return b, nil
}

// maxMessage bounds a job or result message (NATS's default max payload).
const maxMessage = 1 << 20

// DecodeJob reads a job from its JSON form. It rejects unknown keys,
// values the engine cannot fly, and an id that is not the hash of the
// content.
func DecodeJob(data []byte) (Job, error) {
	var j Job
	if len(data) > maxMessage {
		return j, fmt.Errorf("%w: %d bytes, more than %d", ErrBadJob, len(data), maxMessage)
	}
	if err := decodeStrict(data, &j); err != nil {
		return Job{}, fmt.Errorf("%w: %v", ErrBadJob, err)
	}
	if err := j.validate(); err != nil {
		return Job{}, err
	}
	id, err := j.contentID()
	if err != nil {
		return Job{}, err
	}
	if id != j.ID {
		return Job{}, fmt.Errorf("%w: id %q is not the hash of its content (%s)", ErrBadJob, j.ID, id)
	}
	return j, nil
}

// decodeStrict decodes one JSON value into v, rejecting unknown fields and
// trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func goodText(s string, max int) bool {
	return len(s) <= max && utf8.ValidString(s) && !strings.ContainsAny(s, "\x00\n\r")
}

// validate checks what a job must satisfy before it is hashed or flown.
func (j Job) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadJob, fmt.Sprintf(format, args...))
	}
	s, v := j.Scenario, j.Vehicle
	if !goodText(s.Name, 256) || !goodText(s.Mission.Name, 256) {
		return bad("scenario name %q or mission name %q: want one line of UTF-8 of at most 256 bytes", s.Name, s.Mission.Name)
	}
	if !finite(s.Mission.Home[:]...) {
		return bad("mission home %v is not finite", s.Mission.Home)
	}
	if len(s.Mission.Items) == 0 || len(s.Mission.Items) > 10000 {
		return bad("mission has %d items; want 1 to 10000", len(s.Mission.Items))
	}
	for i, it := range s.Mission.Items {
		if _, ok := itemKinds[it.Kind]; !ok {
			return bad("mission item %d: kind %q; want takeoff, waypoint or land", i+1, it.Kind)
		}
		if !finite(it.Pos[:]...) || !finite(it.AcceptRadiusM) || it.AcceptRadiusM < 0 {
			return bad("mission item %d: position %v or accept radius %v is not a finite number", i+1, it.Pos, it.AcceptRadiusM)
		}
		if !(it.SpeedMS >= 0 && it.SpeedMS <= scenario.MaxSpeedMS) {
			return bad("mission item %d: speed %v m/s; want 0 to %d", i+1, it.SpeedMS, scenario.MaxSpeedMS)
		}
	}
	if len(s.Params) > 1000 {
		return bad("%d parameters; want at most 1000", len(s.Params))
	}
	for k, p := range s.Params {
		if !goodText(k, 64) || k == "" || !finite(p) {
			return bad("parameter %q = %v: want a short name and a finite value", k, p)
		}
	}
	for i, k := range s.IntParams {
		if _, ok := s.Params[k]; !ok {
			return bad("int_params names %q, which is not a parameter", k)
		}
		if i > 0 && s.IntParams[i-1] >= k {
			return bad("int_params are not sorted and unique")
		}
	}
	if len(s.Obstacles) > 1000 {
		return bad("%d obstacles; want at most 1000", len(s.Obstacles))
	}
	for i, b := range s.Obstacles {
		if !finite(b.L, b.W, b.H, b.X, b.Y, b.Z, b.R) {
			return bad("obstacle %d: %v is not finite", i+1, b)
		}
	}
	if !slices.Contains(engineNames, v.Engine) {
		return bad("engine %q; want %s", v.Engine, strings.Join(engineNames, ", "))
	}
	if v.Autopilot != run.AutopilotAvoid && v.Autopilot != run.AutopilotPlain {
		return bad("autopilot %q; want %s or %s", v.Autopilot, run.AutopilotAvoid, run.AutopilotPlain)
	}
	if !(v.TimeoutS > 0) || v.TimeoutS > 1e6 {
		return bad("timeout %v s; want (0, 1e6]", v.TimeoutS)
	}
	w := v.Wind
	if err := (sim.WindConfig{Steady: geom.Vec3{X: w.SteadyMS[0], Y: w.SteadyMS[1], Z: w.SteadyMS[2]}, GustSigmaMS: w.GustSigmaMS, GustTauS: w.GustTauS}).Validate(); err != nil {
		return bad("%v", err)
	}
	r := v.Range
	if !finite(r.HFOVDeg, r.VFOVDeg, r.MinRangeM, r.MaxRangeM, r.RateHz, r.NoiseSigmaM) || r.Cols < 0 || r.Rows < 0 || r.Cols > 4096 || r.Rows > 4096 {
		return bad("range sensor %+v is out of range", r)
	}
	if v.Avoid != nil {
		if err := v.Avoid.Validate(); err != nil {
			return bad("avoidance configuration: %v", err)
		}
	}
	if !(v.PreArmS >= 0 && v.PreArmS <= 600) {
		return bad("pre-arm time %v s; want [0, 600]", v.PreArmS)
	}
	if j.Run < 0 {
		return bad("run index %d < 0", j.Run)
	}
	return nil
}

var itemKinds = map[string]scenario.ItemKind{"takeoff": scenario.Takeoff, "waypoint": scenario.Waypoint, "land": scenario.Land}

// CaseStudy returns the case study the job flies. Only what the engine
// reads is set: the name, the mission, the parameters and the obstacles.
func (j Job) CaseStudy() *scenario.CaseStudy {
	s := j.Scenario
	cs := &scenario.CaseStudy{
		Name:   s.Name,
		Source: "campaign job " + string(j.ID),
		Mission: scenario.Mission{Name: s.Mission.Name,
			Home: scenario.LatLonAlt{LatDeg: s.Mission.Home[0], LonDeg: s.Mission.Home[1], AltM: s.Mission.Home[2]}},
		Speed:     1,
		Headless:  true,
		Obstacles: make([]world.Box, len(s.Obstacles)),
	}
	for _, it := range s.Mission.Items {
		cs.Mission.Items = append(cs.Mission.Items, scenario.Item{Kind: itemKinds[it.Kind],
			Pos: geom.Vec3{X: it.Pos[0], Y: it.Pos[1], Z: it.Pos[2]}, AcceptRadiusM: it.AcceptRadiusM, SpeedMS: it.SpeedMS})
	}
	if s.Params != nil {
		cs.Params = make(map[string]float64, len(s.Params))
		cs.IntParams = make(map[string]bool, len(s.IntParams))
		for k, v := range s.Params {
			cs.Params[k] = v
		}
		for _, k := range s.IntParams {
			cs.IntParams[k] = true
		}
	}
	for i, b := range s.Obstacles {
		cs.Obstacles[i] = world.Box{L: b.L, W: b.W, H: b.H, X: b.X, Y: b.Y, Z: b.Z, R: b.R}
	}
	return cs
}

// Options returns the run options the job flies with.
func (j Job) Options() run.Options {
	v := j.Vehicle
	o := run.Options{
		Autopilot: v.Autopilot,
		Seed:      j.Seed,
		TimeoutS:  v.TimeoutS,
		Wind: sim.WindConfig{Steady: geom.Vec3{X: v.Wind.SteadyMS[0], Y: v.Wind.SteadyMS[1], Z: v.Wind.SteadyMS[2]},
			GustSigmaMS: v.Wind.GustSigmaMS, GustTauS: v.Wind.GustTauS},
		Range:              v.Range,
		PreArmS:            v.PreArmS,
		AerialistUnspawned: v.AerialistUnspawned,
	}
	if v.Avoid != nil {
		a := *v.Avoid
		o.Avoid = &a
	}
	return o
}

// Obstacles returns the scenario's obstacles.
func (j Job) Obstacles() []world.Box { return j.CaseStudy().Obstacles }
