package flightlog

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"testing"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

func writeSample(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := New(&b)
	if err != nil {
		t.Fatal(err)
	}
	area := world.DefaultArea
	w.Scene(0, &area, []world.Box{{L: 10, W: 4, H: 20, X: 0, Y: 20, R: 30}})
	w.IdealPath(0, []geom.Vec3{{}, {X: 10, Z: -10}})
	w.Event(0, LevelInfo, "test", "start")
	for i := range 25 { // 2.5 s at 10 Hz
		tt := float64(i) / 10
		w.Pose(tt, geom.Vec3{X: tt, Z: -10}, geom.QuatEuler(0, 0, 0))
		w.WriteIMU(tt, IMU{AccelMS2: geom.Vec3{Z: -9.81}})
		if i%5 == 0 {
			w.WriteGNSS(tt, GNSS{Fix: 3, Satellites: 10, Pos: geom.Vec3{X: tt}, LatDeg: 47.4, LonDeg: 8.5, Valid: true})
			w.WriteBattery(tt, 16.4, 10, 0.9)
			w.WriteRange(tt, []float64{5, math.NaN(), 18}, 18)
		}
	}
	w.Finish(2.5)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The file reads back with the MCAP reader: every topic with its
// well-known schema name and the expected number of messages.
func TestReadBack(t *testing.T) {
	data := writeSample(t)
	r, err := mcap.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		schema string
		n      uint64
	}{
		TopicPose:    {"foxglove.PoseInFrame", 25},
		TopicTF:      {"foxglove.FrameTransform", 25},
		TopicFlown:   {"foxglove.PosesInFrame", 2 + 1}, // at 0 and 2 s, and Finish
		TopicIdeal:   {"foxglove.PosesInFrame", 1},
		TopicScene:   {"foxglove.SceneUpdate", 1},
		TopicEvents:  {"foxglove.Log", 1},
		TopicIMU:     {"shakedown.IMU", 25},
		TopicGNSS:    {"shakedown.GNSS", 5},
		TopicGNSSFix: {"foxglove.LocationFix", 5},
		TopicBattery: {"shakedown.Battery", 5},
		TopicRange:   {"shakedown.Range", 5},
	}
	if len(info.Channels) != len(want) {
		t.Errorf("channels: got %d; want %d", len(info.Channels), len(want))
	}
	for id, ch := range info.Channels {
		w, ok := want[ch.Topic]
		if !ok {
			t.Errorf("unexpected topic %s", ch.Topic)
			continue
		}
		sc := info.Schemas[ch.SchemaID]
		if sc == nil || sc.Name != w.schema || sc.Encoding != "jsonschema" || ch.MessageEncoding != "json" {
			t.Errorf("%s: schema %+v encoding %s; want %s jsonschema/json", ch.Topic, sc, ch.MessageEncoding, w.schema)
		}
		if sc != nil && !json.Valid(sc.Data) {
			t.Errorf("%s: schema is not valid JSON", sc.Name)
		}
		if got := info.Statistics.ChannelMessageCounts[id]; got != w.n {
			t.Errorf("%s: %d messages; want %d", ch.Topic, got, w.n)
		}
	}
	// The last pose: 2.4 m North at 10 m, facing North: ENU (0, 2.4, 10),
	// body x (forward) along +y.
	it, err := r.Messages(mcap.WithTopics([]string{TopicPose}), mcap.InOrder(mcap.LogTimeOrder))
	if err != nil {
		t.Fatal(err)
	}
	var last poseInFrame
	for {
		_, _, m, err := it.NextInto(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(m.Data, &last); err != nil {
			t.Fatal(err)
		}
	}
	p := last.Pose.Position
	if math.Abs(p.X) > 1e-9 || math.Abs(p.Y-2.4) > 1e-9 || math.Abs(p.Z-10) > 1e-9 {
		t.Errorf("last position (ENU): got %+v; want (0, 2.4, 10)", p)
	}
	o := last.Pose.Orientation
	fwd := geom.Quat{W: o.W, X: o.X, Y: o.Y, Z: o.Z}.Rotate(geom.Vec3{X: 1})
	up := geom.Quat{W: o.W, X: o.X, Y: o.Y, Z: o.Z}.Rotate(geom.Vec3{Z: 1})
	if fwd.Sub(geom.Vec3{Y: 1}).Norm() > 1e-9 || up.Sub(geom.Vec3{Z: 1}).Norm() > 1e-9 {
		t.Errorf("facing North level: body x → %v, z → %v; want +y (North) and +z (up)", fwd, up)
	}
}

// A box rotated by r (turning North toward East) has its long side along
// (sin r, cos r) in ENU.
func TestSceneCubeOrientation(t *testing.T) {
	var b bytes.Buffer
	w, _ := New(&b)
	w.Scene(0, nil, []world.Box{{L: 10, W: 4, H: 20, X: 1, Y: 2, R: 30}})
	_ = w.Close()
	r, _ := mcap.NewReader(bytes.NewReader(b.Bytes()))
	it, _ := r.Messages(mcap.WithTopics([]string{TopicScene}))
	_, _, m, err := it.NextInto(nil)
	if err != nil {
		t.Fatal(err)
	}
	var su sceneUpdate
	if err := json.Unmarshal(m.Data, &su); err != nil {
		t.Fatal(err)
	}
	c := su.Entities[0].Cubes[0]
	q := geom.Quat{W: c.Pose.Orientation.W, Z: c.Pose.Orientation.Z}
	long := q.Rotate(geom.Vec3{Y: 1}) // the cube's y is the box's l
	want := geom.Vec3{X: math.Sin(math.Pi / 6), Y: math.Cos(math.Pi / 6)}
	if long.Sub(want).Norm() > 1e-9 || c.Size.Y != 10 || c.Size.X != 4 || c.Pose.Position.X != 2 || c.Pose.Position.Y != 1 {
		t.Errorf("cube %+v: long side %v; want %v", c, long, want)
	}
}

func TestBadTime(t *testing.T) {
	var b bytes.Buffer
	w, _ := New(&b)
	w.Event(math.NaN(), LevelInfo, "x", "y")
	if err := w.Close(); err == nil {
		t.Error("a NaN time was accepted")
	}
}
