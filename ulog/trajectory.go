package ulog

import (
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/trace"
)

// Topic returns the topic name with instance multiID. When a topic was
// subscribed more than once with the same instance (a log restarted
// within the file), the first subscription is returned.
func (f *File) Topic(name string, multiID uint8) (*Topic, error) {
	for _, t := range f.Topics {
		if t.Name == name && t.MultiID == multiID {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w: %s instance %d", ErrNoTopic, name, multiID)
}

// Field returns the top-level field name of the topic's format.
func (t *Topic) Field(name string) (Field, error) {
	for _, fd := range t.Format.Fields {
		if fd.Name == name {
			return fd, nil
		}
	}
	return Field{}, fmt.Errorf("%w: %s has no field %q", ErrNoField, t.Name, name)
}

// Float returns the scalar numeric field fd of the message payload msg as a
// float64, and false when fd is an array, a nested format or char, or when
// msg is too short to hold it.
func (fd Field) Float(msg []byte) (float64, bool) {
	if fd.Len != 0 || fd.Nested != nil || fd.Type == "char" || fd.Offset+fd.Elem > len(msg) {
		return 0, false
	}
	v, ok := scalar(fd.Type, msg[fd.Offset:])
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Uint64 returns the unsigned integer field fd (timestamps) of msg.
func (fd Field) Uint64(msg []byte) (uint64, bool) {
	if fd.Len != 0 || fd.Nested != nil || fd.Offset+fd.Elem > len(msg) {
		return 0, false
	}
	v, ok := scalar(fd.Type, msg[fd.Offset:])
	if !ok {
		return 0, false
	}
	u, ok := v.(uint64)
	return u, ok
}

// MaxSpanUS is the longest trajectory Trajectory accepts, µs: a week,
// far beyond any battery, and far below where int64 µs would wrap.
const MaxSpanUS = 7 * 24 * 3600 * 1_000_000

// PositionTopic is the topic Aerialist reads trajectories from.
const PositionTopic = "vehicle_local_position"

// Trajectory returns the trajectory Aerialist extracts from a PX4 log
// (file_helper.extract_ulg and Trajectory.extract_from_log, competition.md
// §3.1): topic vehicle_local_position, instance 0, fields timestamp, x, y,
// z and heading (yaw in logs older than PX4 1.11, which had no heading),
// with the time and every value shifted so that the first sample is 0.
//
// The samples are in Shakedown's frame, local NED about the first sample:
// Aerialist's trajectory is the same with z negated (z up), which is what
// trace.WriteCSV writes. T is in seconds. Samples whose position is not a
// finite number (an estimator without a fix) are left out; the origin is
// the first sample kept. An error means the log holds no such topic or no
// usable sample.
func Trajectory(f *File) ([]trace.Sample, error) {
	t, err := f.Topic(PositionTopic, 0)
	if err != nil {
		return nil, err
	}
	var fs [4]Field
	for i, name := range []string{"timestamp", "x", "y", "z"} {
		if fs[i], err = t.Field(name); err != nil {
			return nil, err
		}
	}
	hd, err := t.Field("heading")
	if err != nil {
		if hd, err = t.Field("yaw"); err != nil {
			hd = Field{} // no heading at all: 0
		}
	}
	out := make([]trace.Sample, 0, len(t.Data))
	var t0, prev uint64
	var h0 float64
	var p0 geom.Vec3
	for _, msg := range t.Data {
		ts, ok := fs[0].Uint64(msg)
		if !ok {
			continue
		}
		x, okx := fs[1].Float(msg)
		y, oky := fs[2].Float(msg)
		z, okz := fs[3].Float(msg)
		p := geom.Vec3{X: x, Y: y, Z: z}
		if !okx || !oky || !okz || !p.IsFinite() {
			continue
		}
		h, ok := hd.Float(msg)
		if !ok || math.IsNaN(h) || math.IsInf(h, 0) {
			h = 0
		}
		if len(out) == 0 {
			t0, p0, h0 = ts, p, h
		}
		switch {
		case ts < prev:
			return nil, fmt.Errorf("%w: %s sample %d at %d µs is earlier than the sample before it at %d µs",
				ErrTimestamp, PositionTopic, len(out), ts, prev)
		case ts-t0 > MaxSpanUS:
			return nil, fmt.Errorf("%w: %s sample %d at %d µs is %d µs after the first, more than %d (a week)",
				ErrTimestamp, PositionTopic, len(out), ts, ts-t0, uint64(MaxSpanUS))
		}
		prev = ts
		out = append(out, trace.Sample{
			T:       float64(int64(ts-t0)) / 1e6,
			Pos:     p.Sub(p0),
			Heading: h - h0,
		})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ulog: %s has no sample with a finite position", PositionTopic)
	}
	return out, nil
}
