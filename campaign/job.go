package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
// (see NewJob). The fields are the model's own types (scenario.Mission,
// world.Box, sim.WindConfig); the JSON form (see MarshalJSON) is the wire
// and storage format, and the hashed content.
type Job struct {
	ID       ID
	Scenario Scenario
	Vehicle  Vehicle
	Seed     uint64
	// Run is the run index: repetition Run of this scenario.
	Run int
	// KeepTrace asks for the full-rate trace in the result, beside the
	// resampled trajectory every result has.
	KeepTrace bool
}

// Scenario is what is flown: a case study reduced to what the engine reads.
type Scenario struct {
	Name    string
	Mission scenario.Mission
	// Params are the PX4 parameters; IntParams marks those that are
	// integers (scenario.CaseStudy's).
	Params    map[string]float64
	IntParams map[string]bool
	Obstacles []world.Box
}

// Vehicle is the vehicle configuration of a run (run.Options without the
// seed). Defaults are written out, so that equal configurations have equal
// ids: Autopilot is never empty, TimeoutS never 0, Avoid nil means the
// planner's defaults.
type Vehicle struct {
	Engine    string
	Autopilot string
	TimeoutS  float64
	Wind      sim.WindConfig
	Range     quad.RangeConfig
	Avoid     *avoid.Config
	// PreArmS and AerialistUnspawned are run.Options's (the time on the
	// ground inside the log, Aerialist's unspawned-box quirk); omitted
	// from the JSON when zero, so jobs without them keep their ids.
	PreArmS            float64
	AerialistUnspawned bool
}

// The JSON form of a job. Its keys, their order and their omissions are
// what job ids hash (testdata/job.json pins them): change them and every
// stored result loses its job.
type (
	wireJob struct {
		ID        ID           `json:"id"`
		Scenario  wireScenario `json:"scenario"`
		Vehicle   wireVehicle  `json:"vehicle"`
		Seed      uint64       `json:"seed"`
		Run       int          `json:"run"`
		KeepTrace bool         `json:"keep_trace,omitempty"`
	}
	wireScenario struct {
		Name      string             `json:"name"`
		Mission   wireMission        `json:"mission"`
		Params    map[string]float64 `json:"params,omitempty"`
		IntParams []string           `json:"int_params,omitempty"` // sorted
		Obstacles Obstacles          `json:"obstacles"`
	}
	wireMission struct {
		Name  string     `json:"name"`
		Home  [3]float64 `json:"home"` // latitude, longitude (degrees), altitude (m AMSL)
		Items []wireItem `json:"items"`
	}
	wireItem struct {
		Kind          string     `json:"kind"` // takeoff, waypoint or land
		Pos           [3]float64 `json:"pos"`  // NED, m
		AcceptRadiusM float64    `json:"accept_radius_m,omitempty"`
		SpeedMS       float64    `json:"speed_m_s,omitempty"` // DO_CHANGE_SPEED; 0 = the default (older job ids unchanged)
	}
	wireBox struct {
		L float64 `json:"l"`
		W float64 `json:"w"`
		H float64 `json:"h"`
		X float64 `json:"x"`
		Y float64 `json:"y"`
		Z float64 `json:"z"`
		R float64 `json:"r"`
	}
	wireVehicle struct {
		Engine             string           `json:"engine"`
		Autopilot          string           `json:"autopilot"`
		TimeoutS           float64          `json:"timeout_s"`
		Wind               wireWind         `json:"wind"`
		Range              quad.RangeConfig `json:"range,omitzero"`
		Avoid              *avoid.Config    `json:"avoid,omitempty"`
		PreArmS            float64          `json:"pre_arm_s,omitempty"`
		AerialistUnspawned bool             `json:"aerialist_unspawned,omitempty"`
	}
	wireWind struct {
		SteadyMS    [3]float64 `json:"steady_ms,omitzero"` // NED, the direction the air moves toward
		GustSigmaMS float64    `json:"gust_sigma_ms,omitempty"`
		GustTauS    float64    `json:"gust_tau_s,omitempty"`
	}
)

// Obstacles are boxes whose JSON form is the job's: an array of objects
// with keys l, w, h, x, y, z and r (world.Box's fields), never null.
type Obstacles []world.Box

// MarshalJSON implements json.Marshaler.
func (o Obstacles) MarshalJSON() ([]byte, error) {
	w := make([]wireBox, len(o))
	for i, b := range o {
		w[i] = wireBox{b.L, b.W, b.H, b.X, b.Y, b.Z, b.R}
	}
	return json.Marshal(w)
}

// UnmarshalJSON implements json.Unmarshaler, rejecting unknown keys.
func (o *Obstacles) UnmarshalJSON(data []byte) error {
	var w []wireBox
	if err := decodeStrict(data, &w); err != nil {
		return err
	}
	out := make(Obstacles, len(w))
	for i, b := range w {
		out[i] = world.Box{L: b.L, W: b.W, H: b.H, X: b.X, Y: b.Y, Z: b.Z, R: b.R}
	}
	*o = out
	return nil
}

func v3(v geom.Vec3) [3]float64  { return [3]float64{v.X, v.Y, v.Z} }
func vec(a [3]float64) geom.Vec3 { return geom.Vec3{X: a[0], Y: a[1], Z: a[2]} }

// MarshalJSON implements json.Marshaler: the job's wire form.
func (j Job) MarshalJSON() ([]byte, error) {
	s, v := j.Scenario, j.Vehicle
	w := wireJob{ID: j.ID, Seed: j.Seed, Run: j.Run, KeepTrace: j.KeepTrace,
		Scenario: wireScenario{Name: s.Name, Params: s.Params, Obstacles: Obstacles(s.Obstacles),
			Mission: wireMission{Name: s.Mission.Name, Home: [3]float64{s.Mission.Home.LatDeg, s.Mission.Home.LonDeg, s.Mission.Home.AltM}}},
		Vehicle: wireVehicle{Engine: v.Engine, Autopilot: v.Autopilot, TimeoutS: v.TimeoutS, Range: v.Range, Avoid: v.Avoid,
			PreArmS: v.PreArmS, AerialistUnspawned: v.AerialistUnspawned,
			Wind: wireWind{SteadyMS: v3(v.Wind.Steady), GustSigmaMS: v.Wind.GustSigmaMS, GustTauS: v.Wind.GustTauS}},
	}
	if w.Scenario.Obstacles == nil {
		w.Scenario.Obstacles = Obstacles{}
	}
	for _, it := range s.Mission.Items {
		w.Scenario.Mission.Items = append(w.Scenario.Mission.Items, wireItem{Kind: it.Kind.String(), Pos: v3(it.Pos), AcceptRadiusM: it.AcceptRadiusM, SpeedMS: it.SpeedMS})
	}
	for k, isInt := range s.IntParams {
		if isInt {
			w.Scenario.IntParams = append(w.Scenario.IntParams, k)
		}
	}
	slices.Sort(w.Scenario.IntParams)
	return json.Marshal(w)
}

// UnmarshalJSON implements json.Unmarshaler: it reads the wire form,
// rejecting unknown keys and unknown item kinds. DecodeJob checks the
// rest.
func (j *Job) UnmarshalJSON(data []byte) error {
	var w wireJob
	if err := decodeStrict(data, &w); err != nil {
		return err
	}
	ws, wv := w.Scenario, w.Vehicle
	out := Job{ID: w.ID, Seed: w.Seed, Run: w.Run, KeepTrace: w.KeepTrace,
		Scenario: Scenario{Name: ws.Name, Params: ws.Params, Obstacles: []world.Box(ws.Obstacles),
			Mission: scenario.Mission{Name: ws.Mission.Name, Home: scenario.LatLonAlt{LatDeg: ws.Mission.Home[0], LonDeg: ws.Mission.Home[1], AltM: ws.Mission.Home[2]}}},
		Vehicle: Vehicle{Engine: wv.Engine, Autopilot: wv.Autopilot, TimeoutS: wv.TimeoutS, Range: wv.Range, Avoid: wv.Avoid,
			PreArmS: wv.PreArmS, AerialistUnspawned: wv.AerialistUnspawned,
			Wind: sim.WindConfig{Steady: vec(wv.Wind.SteadyMS), GustSigmaMS: wv.Wind.GustSigmaMS, GustTauS: wv.Wind.GustTauS}},
	}
	for i, it := range ws.Mission.Items {
		k, ok := itemKinds[it.Kind]
		if !ok {
			return fmt.Errorf("mission item %d: kind %q; want takeoff, waypoint or land", i+1, it.Kind)
		}
		out.Scenario.Mission.Items = append(out.Scenario.Mission.Items, scenario.Item{Kind: k, Pos: vec(it.Pos), AcceptRadiusM: it.AcceptRadiusM, SpeedMS: it.SpeedMS})
	}
	for i, k := range ws.IntParams {
		if _, ok := ws.Params[k]; !ok {
			return fmt.Errorf("int_params names %q, which is not a parameter", k)
		}
		if i > 0 && ws.IntParams[i-1] >= k {
			return errors.New("int_params are not sorted and unique")
		}
		if out.Scenario.IntParams == nil {
			out.Scenario.IntParams = map[string]bool{}
		}
		out.Scenario.IntParams[k] = true
	}
	*j = out
	return nil
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
			Name: cs.Name,
			Mission: scenario.Mission{Name: cs.Mission.Name, Home: cs.Mission.Home,
				Items: slices.Clone(cs.Mission.Items)},
			Obstacles: slices.Clone(cs.Obstacles),
		},
		Vehicle: Vehicle{
			Engine:             EngineEmbedded,
			Autopilot:          opt.Autopilot,
			TimeoutS:           opt.TimeoutS,
			Wind:               opt.Wind,
			Range:              opt.Range,
			PreArmS:            opt.PreArmS,
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
	if len(cs.Params) > 0 {
		j.Scenario.Params = maps.Clone(cs.Params)
		for k := range cs.Params {
			if cs.IntParams[k] {
				if j.Scenario.IntParams == nil {
					j.Scenario.IntParams = map[string]bool{}
				}
				j.Scenario.IntParams[k] = true
			}
		}
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
	if err := s.Mission.Validate(); err != nil {
		return bad("mission %s: %v", s.Mission.Name, err)
	}
	if len(s.Params) > scenario.MaxParams {
		return bad("%d parameters; want at most %d (scenario.MaxParams)", len(s.Params), scenario.MaxParams)
	}
	for k, p := range s.Params {
		if !goodText(k, 64) || k == "" || !finite(p) {
			return bad("parameter %q = %v: want a short name and a finite value", k, p)
		}
	}
	for k := range s.IntParams {
		if _, ok := s.Params[k]; !ok {
			return bad("int_params names %q, which is not a parameter", k)
		}
	}
	if len(s.Obstacles) > scenario.MaxBoxes {
		return bad("%d obstacles; want at most %d (scenario.MaxBoxes)", len(s.Obstacles), scenario.MaxBoxes)
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
	if err := v.Wind.Validate(); err != nil {
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
		Mission: scenario.Mission{Name: s.Mission.Name, Home: s.Mission.Home,
			Items: slices.Clone(s.Mission.Items)},
		Speed:     1,
		Headless:  true,
		Obstacles: slices.Clone(s.Obstacles),
	}
	if cs.Obstacles == nil {
		cs.Obstacles = []world.Box{}
	}
	if s.Params != nil {
		cs.Params = maps.Clone(s.Params)
		cs.IntParams = make(map[string]bool, len(s.IntParams))
		for k, isInt := range s.IntParams {
			if isInt {
				cs.IntParams[k] = true
			}
		}
	}
	return cs
}

// Options returns the run options the job flies with.
func (j Job) Options() run.Options {
	v := j.Vehicle
	o := run.Options{
		Autopilot:          v.Autopilot,
		Seed:               j.Seed,
		TimeoutS:           v.TimeoutS,
		Wind:               v.Wind,
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
func (j Job) Obstacles() []world.Box { return slices.Clone(j.Scenario.Obstacles) }
