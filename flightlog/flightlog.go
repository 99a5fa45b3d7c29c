// Package flightlog writes flights as MCAP files that Foxglove opens with
// no configuration: the vehicle pose, the flown and the ideal path, the
// obstacles and the placement area as a 3-D scene, the frame transform,
// events as log lines, and the raw telemetry (IMU, GNSS, battery, range) on
// their own channels, every message JSON with a JSON Schema under the
// well-known foxglove.* names (deps.md §2).
//
// Foxglove's 3-D panel draws +z up, so positions are written in ENU
// (x East, y North, z Up) in the frame "world", converted from Shakedown's
// NED; the vehicle's frame is "base_link" (FLU). A log of one of several
// robots (Options.Namespace) puts its topics under "/<namespace>" and its
// frames under "<namespace>/", beside the shared "world", so that the logs
// of a multi-robot flight overlay without mixing when opened together.
//
// A channel is written with its first message: a log has no empty
// channels.
package flightlog

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// Topics written by a Writer.
const (
	TopicPose      = "/vehicle/pose"
	TopicTF        = "/tf"
	TopicFlown     = "/path/flown"
	TopicIdeal     = "/path/ideal"
	TopicScene     = "/scene"
	TopicEvents    = "/events"
	TopicIMU       = "/telemetry/imu"
	TopicGNSS      = "/telemetry/gnss"
	TopicGNSSFix   = "/telemetry/gnss_fix"
	TopicBattery   = "/telemetry/battery"
	TopicRange     = "/telemetry/range"
	TopicJoints    = "/telemetry/joints"
	TopicSafety    = "/safety/status"
	TopicRequest   = "/safety/request" // what a driver asked the safety gate for
	WorldFrame     = "world"
	BodyFrame      = "base_link"
	library        = "shakedown flightlog"
	flownEveryS    = 2.0 // the flown path is re-published every 2 s
	flownStepS     = 0.5 // with one point per 0.5 s (Aerialist's resampling period)
	maxFlownPoints = 20000
)

// Writer writes one flight. Its methods take the time of the message in
// seconds since the start of the flight; they must be called in time order
// and not concurrently.
type Writer struct {
	w        *mcap.Writer
	ns       string
	channels map[string]uint16
	schemaID map[string]uint16
	seq      map[uint16]uint32
	flown    []pose
	lastFlow float64
	err      error
}

// Options configures a Writer; the zero value is one robot's log.
type Options struct {
	// Namespace names the robot among several ("uav2"): topics become
	// "/uav2/vehicle/pose", …, the body frame "uav2/base_link". "" = none.
	// Letters, digits, '_' and '-' only.
	Namespace string
}

type pose struct {
	t   float64
	pos geom.Vec3
	att geom.Quat
}

// New starts an MCAP file on out (chunked, zstd, with CRCs and an index).
func New(out io.Writer) (*Writer, error) { return NewWithOptions(out, Options{}) }

// NewWithOptions is New with options.
func NewWithOptions(out io.Writer, opt Options) (*Writer, error) {
	for _, r := range opt.Namespace {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return nil, fmt.Errorf("flightlog: namespace %q: want letters, digits, '_' or '-'", opt.Namespace)
		}
	}
	mw, err := mcap.NewWriter(out, &mcap.WriterOptions{Chunked: true, ChunkSize: 1 << 20, Compression: mcap.CompressionZSTD, IncludeCRC: true})
	if err != nil {
		return nil, fmt.Errorf("flightlog: %w", err)
	}
	if err := mw.WriteHeader(&mcap.Header{Profile: "", Library: library}); err != nil {
		return nil, fmt.Errorf("flightlog: %w", err)
	}
	return &Writer{w: mw, ns: opt.Namespace, channels: map[string]uint16{}, schemaID: map[string]uint16{},
		seq: map[uint16]uint32{}, lastFlow: math.Inf(-1)}, nil
}

// Topic returns the topic a Writer with namespace ns writes topic on.
func Topic(ns, topic string) string {
	if ns == "" {
		return topic
	}
	return "/" + ns + topic
}

// Frame returns the name of a robot's frame (BodyFrame) under namespace
// ns; the world frame is shared.
func Frame(ns, frame string) string {
	if ns == "" || frame == WorldFrame {
		return frame
	}
	return ns + "/" + frame
}

// channel returns the id of topic's channel, writing its schema and
// channel records first when it has none yet.
func (w *Writer) channel(topic string) (uint16, error) {
	if id, ok := w.channels[topic]; ok {
		return id, nil
	}
	schema := ""
	for _, c := range channelDefs {
		if c.topic == topic {
			schema = c.schema
		}
	}
	if schema == "" {
		return 0, fmt.Errorf("flightlog: unknown topic %s", topic)
	}
	sid, ok := w.schemaID[schema]
	if !ok {
		sid = uint16(len(w.schemaID) + 1)
		if err := w.w.WriteSchema(&mcap.Schema{ID: sid, Name: schema, Encoding: "jsonschema", Data: []byte(schemas[schema])}); err != nil {
			return 0, err
		}
		w.schemaID[schema] = sid
	}
	id := uint16(len(w.channels) + 1)
	if err := w.w.WriteChannel(&mcap.Channel{ID: id, SchemaID: sid, Topic: Topic(w.ns, topic), MessageEncoding: "json"}); err != nil {
		return 0, err
	}
	w.channels[topic] = id
	return id, nil
}

var channelDefs = []struct{ topic, schema string }{
	{TopicPose, "foxglove.PoseInFrame"},
	{TopicTF, "foxglove.FrameTransform"},
	{TopicFlown, "foxglove.PosesInFrame"},
	{TopicIdeal, "foxglove.PosesInFrame"},
	{TopicScene, "foxglove.SceneUpdate"},
	{TopicEvents, "foxglove.Log"},
	{TopicIMU, "shakedown.IMU"},
	{TopicGNSS, "shakedown.GNSS"},
	{TopicGNSSFix, "foxglove.LocationFix"},
	{TopicBattery, "shakedown.Battery"},
	{TopicRange, "shakedown.Range"},
	{TopicJoints, "shakedown.JointState"},
	{TopicSafety, "shakedown.Safety"},
	{TopicRequest, "shakedown.DriveRequest"},
}

// Close finishes the file (summary and index); it does not close the
// underlying writer. It returns the first error of any earlier call.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("flightlog: %w", err)
	}
	return nil
}

func (w *Writer) write(topic string, t float64, v any) {
	if w.err != nil {
		return
	}
	if !(t >= 0) || math.IsInf(t, 0) {
		w.err = fmt.Errorf("flightlog: %s: time %v is not a finite time ≥ 0", topic, t)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = fmt.Errorf("flightlog: %s: %w", topic, err)
		return
	}
	id, err := w.channel(topic)
	if err != nil {
		w.err = fmt.Errorf("flightlog: %s: %w", topic, err)
		return
	}
	ns := uint64(math.Round(t * 1e9))
	w.seq[id]++
	if err := w.w.WriteMessage(&mcap.Message{ChannelID: id, Sequence: w.seq[id], LogTime: ns, PublishTime: ns, Data: b}); err != nil {
		w.err = fmt.Errorf("flightlog: %w", err)
	}
}

// Foxglove message types (the JSON field names of the foxglove schemas).
type (
	stamp struct {
		Sec  uint32 `json:"sec"`
		Nsec uint32 `json:"nsec"`
	}
	vec3 struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
		Z float64 `json:"z"`
	}
	quat struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
		Z float64 `json:"z"`
		W float64 `json:"w"`
	}
	fgPose struct {
		Position    vec3 `json:"position"`
		Orientation quat `json:"orientation"`
	}
	poseInFrame struct {
		Timestamp stamp  `json:"timestamp"`
		FrameID   string `json:"frame_id"`
		Pose      fgPose `json:"pose"`
	}
	posesInFrame struct {
		Timestamp stamp    `json:"timestamp"`
		FrameID   string   `json:"frame_id"`
		Poses     []fgPose `json:"poses"`
	}
	frameTransform struct {
		Timestamp     stamp  `json:"timestamp"`
		ParentFrameID string `json:"parent_frame_id"`
		ChildFrameID  string `json:"child_frame_id"`
		Translation   vec3   `json:"translation"`
		Rotation      quat   `json:"rotation"`
	}
	color struct {
		R float64 `json:"r"`
		G float64 `json:"g"`
		B float64 `json:"b"`
		A float64 `json:"a"`
	}
	cube struct {
		Pose  fgPose `json:"pose"`
		Size  vec3   `json:"size"`
		Color color  `json:"color"`
	}
	// sceneEntity is foxglove.SceneEntity: every array is required, so
	// the kinds of primitive not drawn here are written empty.
	sceneEntity struct {
		Timestamp   stamp      `json:"timestamp"`
		FrameID     string     `json:"frame_id"`
		ID          string     `json:"id"`
		Lifetime    stamp      `json:"lifetime"`
		FrameLocked bool       `json:"frame_locked"`
		Metadata    []struct{} `json:"metadata"`
		Arrows      []struct{} `json:"arrows"`
		Cubes       []cube     `json:"cubes"`
		Spheres     []struct{} `json:"spheres"`
		Cylinders   []struct{} `json:"cylinders"`
		Lines       []struct{} `json:"lines"`
		Triangles   []struct{} `json:"triangles"`
		Texts       []struct{} `json:"texts"`
		Models      []struct{} `json:"models"`
	}
	// deletion is foxglove.SceneEntityDeletion.
	deletion struct {
		Timestamp stamp  `json:"timestamp"`
		Type      int    `json:"type"` // 0 MATCHING_ID, 1 ALL
		ID        string `json:"id"`
	}
	sceneUpdate struct {
		Deletions []deletion    `json:"deletions"`
		Entities  []sceneEntity `json:"entities"`
	}
	logLine struct {
		Timestamp stamp  `json:"timestamp"`
		Level     int    `json:"level"`
		Message   string `json:"message"`
		Name      string `json:"name"`
		File      string `json:"file"`
		Line      uint32 `json:"line"`
	}
)

func ts(t float64) stamp {
	s := math.Floor(t)
	return stamp{Sec: uint32(s), Nsec: uint32(math.Round((t - s) * 1e9))}
}

// enu converts a NED position to Foxglove's ENU world.
func enu(p geom.Vec3) vec3 { return vec3{X: p.Y, Y: p.X, Z: -p.Z} }

// enuAtt converts a body FRD → NED attitude into body FLU → ENU.
func enuAtt(q geom.Quat) quat {
	// q_enu_flu = q(NED→ENU) ⊗ q_ned_frd ⊗ q(FLU→FRD); both fixed rotations
	// are 180° turns: NED→ENU about (1, 1, 0)/√2, FRD↔FLU about x.
	s := 1 / math.Sqrt2
	nedToEnu := geom.Quat{W: 0, X: s, Y: s, Z: 0}
	fluToFrd := geom.Quat{W: 0, X: 1}
	r := nedToEnu.Mul(q).Mul(fluToFrd)
	return quat{X: r.X, Y: r.Y, Z: r.Z, W: r.W}
}

// Pose records the vehicle's pose (NED) at t: the pose, the world →
// base_link transform, and the flown path (re-published once a second).
func (w *Writer) Pose(t float64, pos geom.Vec3, att geom.Quat) {
	p := fgPose{Position: enu(pos), Orientation: enuAtt(att)}
	w.write(TopicPose, t, poseInFrame{Timestamp: ts(t), FrameID: WorldFrame, Pose: p})
	w.write(TopicTF, t, frameTransform{Timestamp: ts(t), ParentFrameID: WorldFrame, ChildFrameID: Frame(w.ns, BodyFrame), Translation: p.Position, Rotation: p.Orientation})
	if n := len(w.flown); n < maxFlownPoints && (n == 0 || t-w.flown[n-1].t >= flownStepS-1e-9) {
		w.flown = append(w.flown, pose{t, pos, att})
	}
	if t-w.lastFlow >= flownEveryS {
		w.lastFlow = t
		w.flownPath(t)
	}
}

func (w *Writer) flownPath(t float64) {
	ps := make([]fgPose, len(w.flown))
	for i, p := range w.flown {
		ps[i] = fgPose{Position: enu(p.pos), Orientation: enuAtt(p.att)}
	}
	w.write(TopicFlown, t, posesInFrame{Timestamp: ts(t), FrameID: WorldFrame, Poses: ps})
}

// Finish publishes the final flown path at t; call it before Close.
func (w *Writer) Finish(t float64) { w.flownPath(t) }

// IdealPath records the planned path (NED points) at t.
func (w *Writer) IdealPath(t float64, path []geom.Vec3) {
	ps := make([]fgPose, len(path))
	for i, p := range path {
		ps[i] = fgPose{Position: enu(p), Orientation: quat{W: 1}}
	}
	w.write(TopicIdeal, t, posesInFrame{Timestamp: ts(t), FrameID: WorldFrame, Poses: ps})
}

// Scene records the obstacles as translucent cubes and the placement area
// as a thin flat cube at ground level, at t.
func (w *Writer) Scene(t float64, area *world.Area, boxes []world.Box) {
	ents := []sceneEntity{}
	for i, b := range boxes {
		// In ENU the box's l side runs along North turned by r toward East:
		// a rotation of −r about z with l along the cube's y.
		s, c := math.Sincos(-b.R * math.Pi / 360)
		cu := cube{
			Pose:  fgPose{Position: vec3{X: b.Y, Y: b.X, Z: b.Z + b.H/2}, Orientation: quat{Z: s, W: c}},
			Size:  vec3{X: b.W, Y: b.L, Z: b.H},
			Color: color{R: 1, G: 0.5, B: 0.05, A: 0.6},
		}
		ents = append(ents, entity(t, fmt.Sprintf("obstacle-%d", i+1), cu))
	}
	if area != nil {
		cu := cube{
			Pose:  fgPose{Position: vec3{X: (area.MinY + area.MaxY) / 2, Y: (area.MinX + area.MaxX) / 2, Z: 0.01}, Orientation: quat{W: 1}},
			Size:  vec3{X: area.MaxY - area.MinY, Y: area.MaxX - area.MinX, Z: 0.02},
			Color: color{R: 0.85, G: 0.15, B: 0.15, A: 0.15},
		}
		ents = append(ents, entity(t, "placement-area", cu))
	}
	w.write(TopicScene, t, sceneUpdate{Deletions: []deletion{}, Entities: ents})
}

func entity(t float64, id string, cu cube) sceneEntity {
	none := []struct{}{}
	return sceneEntity{Timestamp: ts(t), FrameID: WorldFrame, ID: id, Metadata: none, Arrows: none, Cubes: []cube{cu},
		Spheres: none, Cylinders: none, Lines: none, Triangles: none, Texts: none, Models: none}
}

// Log levels of foxglove.Log.
const (
	LevelInfo    = 2
	LevelWarning = 3
	LevelError   = 4
)

// Event records a log line (a status change, a black-box event) at t.
func (w *Writer) Event(t float64, level int, name, msg string) {
	w.write(TopicEvents, t, logLine{Timestamp: ts(t), Level: level, Message: msg, Name: name})
}

// IMU is a raw inertial sample (body FRD).
type IMU struct {
	AccelMS2 geom.Vec3
	GyroRadS geom.Vec3
}

// WriteIMU records an IMU sample at t.
func (w *Writer) WriteIMU(t float64, s IMU) {
	w.write(TopicIMU, t, map[string]any{"timestamp": ts(t), "accel": vec3(s.AccelMS2), "gyro": vec3(s.GyroRadS)})
}

// GNSS is a receiver solution: local NED and, when Valid, latitude and
// longitude.
type GNSS struct {
	Fix                 int
	Satellites          int
	EphM, EpvM          float64
	Pos                 geom.Vec3
	LatDeg, LonDeg, Alt float64
	Valid               bool
}

// WriteGNSS records a GNSS solution at t, also as a foxglove.LocationFix for
// the map panel when it has latitude and longitude.
func (w *Writer) WriteGNSS(t float64, g GNSS) {
	w.write(TopicGNSS, t, map[string]any{"timestamp": ts(t), "fix_type": g.Fix, "satellites": g.Satellites,
		"eph": g.EphM, "epv": g.EpvM, "position": enu(g.Pos)})
	if g.Valid {
		// foxglove.LocationFix has no fix status: only fixes of 2-D or
		// better (Valid) are written.
		w.write(TopicGNSSFix, t, map[string]any{"timestamp": ts(t), "frame_id": Frame(w.ns, BodyFrame),
			"latitude": g.LatDeg, "longitude": g.LonDeg, "altitude": g.Alt,
			"position_covariance":      [9]float64{g.EphM * g.EphM, 0, 0, 0, g.EphM * g.EphM, 0, 0, 0, g.EpvM * g.EpvM},
			"position_covariance_type": 2})
	}
}

// WriteBattery records the battery monitor at t.
func (w *Writer) WriteBattery(t float64, voltageV, currentA, remaining float64) {
	w.write(TopicBattery, t, map[string]any{"timestamp": ts(t), "voltage": voltageV, "current": currentA, "remaining": remaining})
}

// WriteRange records a range scan at t; NaN readings (too close) are
// written as null.
func (w *Writer) WriteRange(t float64, ranges []float64, maxM float64) {
	rs := make([]*float64, len(ranges))
	for i := range ranges {
		if !math.IsNaN(ranges[i]) {
			rs[i] = &ranges[i]
		}
	}
	w.write(TopicRange, t, map[string]any{"timestamp": ts(t), "ranges": rs, "max": maxM, "min": minFinite(ranges)})
}

func minFinite(rs []float64) *float64 {
	m := math.Inf(1)
	for _, r := range rs {
		if !math.IsNaN(r) {
			m = math.Min(m, r)
		}
	}
	if math.IsInf(m, 1) {
		return nil
	}
	return &m
}
