package flightlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// The mower's bag holds every sensor sample at its rate, the gate's status
// changes, the requests and the button changes, each message valid against
// its channel's schema; the recorder does not change what the runner sees.
func TestMowerRecorder(t *testing.T) {
	sim, err := vehicle.NewMowerSim(vehicle.MowerSimConfig{Scene: world.Scene{Boxes: []world.Box{vehicle.MowerTestBox()}}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := New(&buf)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := &MowerRecorder{Mower: sim, W: w}
	if _, err := m.Wait(ctx, 2*time.Second, nil); err != nil {
		t.Fatalf("Wait without a condition: %v", err)
	}
	if err := m.Send(ctx, gate.Command{V: 0.2}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Wait(ctx, time.Second, func(s vehicle.MowerSensors) bool { return false }); err != vehicle.ErrTimeout {
		t.Fatalf("Wait with an unmet condition: %v; want ErrTimeout", err)
	}
	for _, down := range []bool{true, false} {
		if err := m.Press(ctx, vehicle.ButtonStop, down); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Wait(ctx, 500*time.Millisecond, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	msgs, scs := messages(t, buf.Bytes())
	// 4 s at the simulated rates (IMU 100 Hz, joints 50 Hz, GNSS 10 Hz,
	// lidar 10 Hz, battery 2 Hz).
	for topic, want := range map[string][2]int{TopicIMU: {395, 401}, TopicJoints: {195, 201}, TopicGNSS: {38, 41}, TopicRange: {38, 41},
		TopicBattery: {7, 9}, TopicRequest: {1, 1}, TopicEvents: {2, 2}, TopicSafety: {2, 6}} {
		if n := len(msgs[topic]); n < want[0] || n > want[1] {
			t.Errorf("%s: %d messages; want %d to %d", topic, n, want[0], want[1])
		}
	}
	if ev := string(msgs[TopicEvents][0]); !strings.Contains(ev, "STOP pressed") {
		t.Errorf("first event %s; want STOP pressed", ev)
	}
	latched := false
	for _, m := range msgs[TopicSafety] {
		latched = latched || strings.Contains(string(m), `"latched":true`)
	}
	if !latched {
		t.Errorf("no latched status after STOP: %s", msgs[TopicSafety])
	}
	for topic, ms := range msgs {
		var schema map[string]any
		if err := json.Unmarshal(scs[topic].Data, &schema); err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			var v any
			if err := json.Unmarshal(m, &v); err != nil {
				t.Fatal(err)
			}
			if err := check(fmt.Sprintf("%s#%d", topic, i), schema, v); err != nil {
				t.Error(err)
			}
		}
	}
}
