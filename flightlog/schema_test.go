package flightlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// check validates v against the subset of JSON Schema that Foxglove's
// schemas use (type, properties, required, items, min/maxItems, oneOf of
// consts, minimum/maximum), strictly: a property the schema does not
// define is an error too, as in a consumer that rejects unknown fields.
// The interop tests validate with ajv against @foxglove/schemas itself;
// this is the same check without Node.
func check(path string, schema map[string]any, v any) error {
	if alts, ok := schema["oneOf"].([]any); ok {
		for _, a := range alts {
			if c, ok := a.(map[string]any)["const"]; ok && c == v {
				return nil
			}
		}
		return fmt.Errorf("%s: %v is none of the schema's values", path, v)
	}
	switch schema["type"] {
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: %T is not an object", path, v)
		}
		props, _ := schema["properties"].(map[string]any)
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := o[r.(string)]; !ok {
				return fmt.Errorf("%s: required %q missing", path, r)
			}
		}
		for k, x := range o {
			ps, ok := props[k].(map[string]any)
			if !ok {
				return fmt.Errorf("%s: %q is not in the schema", path, k)
			}
			if err := check(path+"."+k, ps, x); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %T is not an array", path, v)
		}
		if n, ok := schema["minItems"].(float64); ok && float64(len(a)) < n {
			return fmt.Errorf("%s: %d items, fewer than %v", path, len(a), n)
		}
		if n, ok := schema["maxItems"].(float64); ok && float64(len(a)) > n {
			return fmt.Errorf("%s: %d items, more than %v", path, len(a), n)
		}
		items, _ := schema["items"].(map[string]any)
		for i, x := range a {
			if err := check(fmt.Sprintf("%s[%d]", path, i), items, x); err != nil {
				return err
			}
		}
	case "number", "integer":
		f, ok := v.(float64)
		if !ok || schema["type"] == "integer" && f != math.Trunc(f) {
			return fmt.Errorf("%s: %v is not an %s", path, v, schema["type"])
		}
		if m, ok := schema["minimum"].(float64); ok && f < m {
			return fmt.Errorf("%s: %v below %v", path, f, m)
		}
		if m, ok := schema["maximum"].(float64); ok && f > m {
			return fmt.Errorf("%s: %v above %v", path, f, m)
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: %T is not a string", path, v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: %T is not a boolean", path, v)
		}
	}
	return nil
}

// messages returns every message of the file by topic, with the schema of
// its channel.
func messages(t *testing.T, data []byte) (map[string][][]byte, map[string]*mcap.Schema) {
	t.Helper()
	r, err := mcap.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Messages(mcap.InOrder(mcap.LogTimeOrder))
	if err != nil {
		t.Fatal(err)
	}
	msgs, schemas := map[string][][]byte{}, map[string]*mcap.Schema{}
	for {
		sc, ch, m, err := it.NextInto(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs[ch.Topic] = append(msgs[ch.Topic], append([]byte(nil), m.Data...))
		schemas[ch.Topic] = sc
	}
	return msgs, schemas
}

// Issue 17 items 14 and 15: every message of every foxglove.* channel
// validates against its channel's schema, which is Foxglove's own (the
// scene's entities with all their arrays, no status in LocationFix).
func TestFoxgloveMessagesValid(t *testing.T) {
	msgs, scs := messages(t, writeSample(t))
	n := 0
	for topic, ms := range msgs {
		sc := scs[topic]
		if !strings.HasPrefix(sc.Name, "foxglove.") {
			continue
		}
		if string(sc.Data) != schemas[sc.Name] {
			t.Errorf("%s: the channel's schema is not the embedded %s", topic, sc.Name)
		}
		var schema map[string]any
		if err := json.Unmarshal(sc.Data, &schema); err != nil {
			t.Fatal(err)
		}
		if _, ok := schema["required"]; !ok {
			t.Errorf("%s: schema %s has no required list: not Foxglove's", topic, sc.Name)
		}
		for i, m := range ms {
			var v any
			if err := json.Unmarshal(m, &v); err != nil {
				t.Fatal(err)
			}
			if err := check(fmt.Sprintf("%s#%d", topic, i), schema, v); err != nil {
				t.Error(err)
			}
			n++
		}
	}
	if n < 60 {
		t.Errorf("validated %d foxglove messages; want the sample's 60 and more", n)
	}
}

// Issue 17 item 16: no channel without messages (bench wrote /path/ideal
// with none), and a namespaced log puts its topics and the robot's frame
// under the namespace, the world frame shared.
func TestChannelsAndNamespace(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWithOptions(&b, Options{Namespace: "uav2"})
	if err != nil {
		t.Fatal(err)
	}
	w.Pose(0, geom.Vec3{Z: -1}, geom.Quat{W: 1})
	w.WriteGNSS(0, GNSS{Fix: 3, LatDeg: 47, LonDeg: 8, Valid: true})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := mcap.NewReader(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	var topics []string
	for id, ch := range info.Channels {
		topics = append(topics, ch.Topic)
		if info.Statistics.ChannelMessageCounts[id] == 0 {
			t.Errorf("%s: a channel with no message", ch.Topic)
		}
	}
	slices.Sort(topics)
	want := []string{"/uav2/path/flown", "/uav2/telemetry/gnss", "/uav2/telemetry/gnss_fix", "/uav2/tf", "/uav2/vehicle/pose"}
	if !slices.Equal(topics, want) {
		t.Errorf("topics: %v; want %v", topics, want)
	}
	msgs, _ := messages(t, b.Bytes())
	var tf frameTransform
	if err := json.Unmarshal(msgs["/uav2/tf"][0], &tf); err != nil || tf.ParentFrameID != "world" || tf.ChildFrameID != "uav2/base_link" {
		t.Errorf("transform %+v (%v); want world → uav2/base_link", tf, err)
	}
	if _, err := NewWithOptions(io.Discard, Options{Namespace: "a/b"}); err == nil {
		t.Error(`namespace "a/b" accepted`)
	}
}

// Issue 17 item 17: a crash is logged when it happens, not with the
// verdict: a vehicle killed at 6 m hits the ground, and the crash line
// comes within one recording period of the contact.
func TestCrashLoggedWhenItHappens(t *testing.T) {
	var b bytes.Buffer
	w, err := New(&b)
	if err != nil {
		t.Fatal(err)
	}
	rec := &SimRecorder{W: w}
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 3, OnRecord: rec.Sample})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sim.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sim.Takeoff(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Wait(ctx, 20*time.Second, func(t vehicle.Telemetry) bool { return t.AltM() > 5.8 }); err != nil {
		t.Fatal(err)
	}
	_ = sim.Kill(ctx)
	_, _ = sim.Wait(ctx, 5*time.Second, nil)
	c, ok := sim.Crash()
	if !ok {
		t.Fatal("no crash after a kill at 6 m")
	}
	_ = sim.Kill(ctx)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, _ := mcap.NewReader(bytes.NewReader(b.Bytes()))
	it, _ := r.Messages(mcap.WithTopics([]string{TopicEvents}))
	found := false
	for {
		_, _, m, err := it.NextInto(nil)
		if err != nil {
			break
		}
		var l logLine
		_ = json.Unmarshal(m.Data, &l)
		if l.Name == "crash" {
			found = true
			at := float64(m.LogTime) / 1e9
			if at < c.T || at > c.T+0.1+1e-9 || l.Level != LevelError || !strings.Contains(l.Message, "the ground") {
				t.Errorf("crash at %.3f s logged at %.3f s: %+v", c.T, at, l)
			}
		}
	}
	if !found {
		t.Error("no crash line in /events")
	}
}
