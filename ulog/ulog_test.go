package ulog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readShared reads one of the real PX4 logs in testdata: byte-for-byte
// copies of PX4/pyulog's test logs (testdata/README.md).
func readShared(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The expected numbers below come from outside this package:
// sample_appended_multiple's topic counts from pyulog's ulog_info output
// beside the file (sample_appended_multiple_info.txt), its logged message
// from sample_appended_multiple_messages.txt; sample_log_small's counts,
// first and last vehicle_local_position samples from the TypeScript reader
// @foxglove/ulog 2.3.2 (npm), run once by hand, and its messages from
// sample_log_small_messages.txt.
func TestParseRealLogs(t *testing.T) {
	type pos struct {
		ts      uint64
		x, y, z float64
	}
	cases := []struct {
		file        string
		topics      int // subscriptions with at least one data message
		counts      map[string]int
		multi       map[string]int // instance 1 counts
		first, last pos
		logged      []string
		appended    int
	}{
		{
			file:   "sample_log_small.ulg",
			topics: 70,
			counts: map[string]int{"vehicle_local_position": 636, "vehicle_attitude": 1298, "sensor_combined": 1298,
				"actuator_armed": 14, "vehicle_status": 14, "vehicle_land_detected": 11, "airspeed": 595,
				"vehicle_angular_velocity": 1812, "vehicle_angular_acceleration": 1811, "ekf2_timestamps": 1297},
			multi: map[string]int{"battery_status": 21, "sensor_accel": 6, "vehicle_imu_status": 7},
			first: pos{20321827, 0, 0, -1.1676559448242188},
			last:  pos{26817979, 0, 0, -0.15184055268764496},
			logged: []string{"[commander] Takeoff detected", "[commander] Landing detected",
				"[commander] Disarmed by landing"},
		},
		{
			file:   "sample_appended_multiple.ulg",
			topics: 20,
			counts: map[string]int{"actuator_controls_0": 95, "actuator_outputs": 95, "commander_state": 95,
				"control_state": 95, "cpuload": 10, "ekf2_innovations": 184, "ekf2_timestamps": 2373,
				"estimator_status": 48, "sensor_combined": 2373, "sensor_preflight": 184, "system_power": 32,
				"task_stack_info": 20, "vehicle_attitude": 306, "vehicle_attitude_setpoint": 306,
				"vehicle_land_detected": 1, "vehicle_local_position": 95, "vehicle_rates_setpoint": 306,
				"vehicle_status": 43, "wind_estimate": 95},
			multi:    map[string]int{"actuator_outputs": 96},
			first:    pos{12263164, 0, 0, -0.232159823179245},
			last:     pos{21803961, 0, 0, -0.39037570357322693},
			logged:   []string{"[commander_tests] Not ready to fly: Sensors not set up correctly"},
			appended: 3,
		},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, err := Parse(readShared(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			withData := 0
			for _, tp := range f.Topics {
				if tp.Len() > 0 {
					withData++
				}
			}
			if withData != c.topics {
				t.Errorf("got %d topics with data; want %d", withData, c.topics)
			}
			for name, n := range c.counts {
				tp, err := f.Topic(name, 0)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if tp.Len() != n {
					t.Errorf("%s: got %d samples; want %d", name, tp.Len(), n)
				}
			}
			for name, n := range c.multi {
				tp, err := f.Topic(name, 1)
				if err != nil {
					t.Errorf("%s instance 1: %v", name, err)
				} else if tp.Len() != n {
					t.Errorf("%s instance 1: got %d samples; want %d", name, tp.Len(), n)
				}
			}
			if len(f.AppendedOffsets) != c.appended {
				t.Errorf("got %d appended offsets; want %d", len(f.AppendedOffsets), c.appended)
			}
			lp, err := f.Topic(PositionTopic, 0)
			if err != nil {
				t.Fatal(err)
			}
			read := func(msg []byte) pos {
				var p pos
				fts, _ := lp.Field("timestamp")
				p.ts, _ = fts.Uint64(msg)
				for i, dst := range []*float64{&p.x, &p.y, &p.z} {
					fd, err := lp.Field([]string{"x", "y", "z"}[i])
					if err != nil {
						t.Fatal(err)
					}
					*dst, _ = fd.Float(msg)
				}
				return p
			}
			if got := read(lp.Data[0]); got != c.first {
				t.Errorf("first sample: got %+v; want %+v", got, c.first)
			}
			if got := read(lp.Data[lp.Len()-1]); got != c.last {
				t.Errorf("last sample: got %+v; want %+v", got, c.last)
			}
			var texts []string
			for _, l := range f.Logged {
				texts = append(texts, l.Text)
			}
			if strings.Join(texts, "|") != strings.Join(c.logged, "|") {
				t.Errorf("logged messages: got %q; want %q", texts, c.logged)
			}

			tr, err := Trajectory(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr) != c.counts[PositionTopic] {
				t.Errorf("trajectory: got %d samples; want %d", len(tr), c.counts[PositionTopic])
			}
			if tr[0].T != 0 || tr[0].Pos.Norm() != 0 || tr[0].Heading != 0 {
				t.Errorf("trajectory starts at %+v; want all zero", tr[0])
			}
			end := tr[len(tr)-1]
			wantT := float64(c.last.ts-c.first.ts) / 1e6
			if end.T != wantT || end.Pos.Z != c.last.z-c.first.z || end.Pos.X != 0 || end.Pos.Y != 0 {
				t.Errorf("trajectory ends at %+v; want t=%v, z=%v", end, wantT, c.last.z-c.first.z)
			}
		})
	}
}

func TestParamsAndInfo(t *testing.T) {
	f, err := Parse(readShared(t, "sample_log_small.ulg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Params) == 0 {
		t.Errorf("no parameters read")
	}
	if f.Info["sys_name"] != "PX4" {
		t.Errorf("info sys_name = %v; want PX4", f.Info["sys_name"])
	}
	a, err := Parse(readShared(t, "sample_appended_multiple.ulg"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Info["ver_hw"] != "PX4FMU_V4PRO" {
		t.Errorf("ver_hw = %v; want PX4FMU_V4PRO", a.Info["ver_hw"])
	}
	// pyulog lists three hard-fault dumps (one per appended part), each
	// joined from its continued messages.
	hf := a.MultiInfo["hardfault_plain"]
	if len(hf) != 3 {
		t.Fatalf("got %d hardfault_plain multi-info values; want 3", len(hf))
	}
	for i, v := range hf {
		s := string(v)
		if !strings.HasPrefix(s, "[hardfault_log] -- ") || !strings.Contains(s, "Begin Fault Log") || !strings.HasSuffix(s, "END Fault Log --\n") {
			t.Errorf("hardfault_plain[%d] is not one whole dump: %.60q … %q", i, s, s[max(0, len(s)-30):])
		}
	}
}

// builder writes small ULog files for tests.
type builder struct{ bytes.Buffer }

func newBuilder() *builder {
	b := &builder{}
	b.Write(magic)
	b.WriteByte(1)
	binary.Write(b, binary.LittleEndian, uint64(1000))
	return b
}

func (b *builder) msg(typ byte, body []byte) *builder {
	binary.Write(b, binary.LittleEndian, uint16(len(body)))
	b.WriteByte(typ)
	b.Write(body)
	return b
}

func (b *builder) format(s string) *builder { return b.msg('F', []byte(s)) }

func (b *builder) sub(multi uint8, id uint16, name string) *builder {
	body := []byte{multi, byte(id), byte(id >> 8)}
	return b.msg('A', append(body, name...))
}

func (b *builder) data(id uint16, fields ...any) *builder {
	var body bytes.Buffer
	binary.Write(&body, binary.LittleEndian, id)
	for _, f := range fields {
		binary.Write(&body, binary.LittleEndian, f)
	}
	return b.msg('D', body.Bytes())
}

func (b *builder) info(key string, val []byte) *builder {
	return b.msg('I', append(append([]byte{byte(len(key))}, key...), val...))
}

const posFormat = "vehicle_local_position:uint64_t timestamp;float x;float y;float z;float heading;uint8_t[3] _padding0;"

// synthetic is a small, complete log: one position topic with three
// samples, the last one cut short, plus messages of every other kind.
func synthetic() []byte {
	b := newBuilder()
	b.format(posFormat)
	b.format("inner:float a;int16_t[2] b;")
	b.format("outer:uint64_t timestamp;inner[2] in;bool ok;")
	b.info("char[3] sys_name", []byte("Sim"))
	b.info("int32_t time_ref_utc", []byte{0xf0, 0xff, 0xff, 0xff})
	b.msg('P', append([]byte{byte(len("float MPC_XY_CRUISE"))}, append([]byte("float MPC_XY_CRUISE"), 0, 0, 0xa0, 0x40)...))
	b.sub(0, 0, "vehicle_local_position")
	b.sub(0, 1, "outer")
	b.msg('Z', []byte("an unknown message type is skipped"))
	b.data(0, uint64(2_000_000), float32(1), float32(2), float32(-3), float32(0.5))
	b.data(1, uint64(2_000_001), float32(1.5), int16(-2), int16(3), float32(2.5), int16(4), int16(5), uint8(1))
	b.msg('L', append([]byte{'6'}, append(binary.LittleEndian.AppendUint64(nil, 2_100_000), "[navigator] hello"...)...))
	b.msg('O', []byte{100, 0})
	b.msg('S', []byte{0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12})
	b.data(0, uint64(2_500_000), float32(4), float32(6), float32(-3), float32(0.75))
	b.data(7, uint64(1)) // unknown subscription: ignored
	out := b.Bytes()
	// A last data message cut off in the middle.
	cut := newBuilder().data(0, uint64(3_000_000), float32(9), float32(9), float32(9), float32(9)).Bytes()[16:]
	return append(out, cut[:len(cut)-5]...)
}

func TestParseSynthetic(t *testing.T) {
	f, err := Parse(synthetic())
	if err != nil {
		t.Fatal(err)
	}
	lp, err := f.Topic(PositionTopic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lp.Len() != 2 {
		t.Fatalf("got %d samples; want 2 (the cut-off third dropped)", lp.Len())
	}
	if lp.Format.Size != 8+4*4+3 {
		t.Errorf("format size %d; want 27", lp.Format.Size)
	}
	if f.Info["sys_name"] != "Sim" || f.Info["time_ref_utc"] != int64(-16) {
		t.Errorf("info = %v", f.Info)
	}
	if f.Params["MPC_XY_CRUISE"] != 5 {
		t.Errorf("MPC_XY_CRUISE = %v; want 5", f.Params["MPC_XY_CRUISE"])
	}
	if len(f.Logged) != 1 || f.Logged[0].Text != "[navigator] hello" || f.Logged[0].Level != '6' || f.Logged[0].TimestampUS != 2_100_000 {
		t.Errorf("logged = %+v", f.Logged)
	}
	if len(f.Dropouts) != 1 || f.Dropouts[0].DurationMS != 100 {
		t.Errorf("dropouts = %+v", f.Dropouts)
	}
	outer, err := f.Topic("outer", 0)
	if err != nil {
		t.Fatal(err)
	}
	// inner is 4 + 2·2 = 8 bytes; outer = 8 + 2·8 + 1.
	if outer.Format.Size != 25 || outer.Len() != 1 {
		t.Errorf("outer: size %d, %d samples; want 25, 1", outer.Format.Size, outer.Len())
	}
	ok, _ := outer.Field("ok")
	if v, good := ok.Float(outer.Data[0]); !good || v != 1 || ok.Offset != 24 {
		t.Errorf("outer.ok = %v, %v at offset %d; want 1 at 24", v, good, ok.Offset)
	}
	in, _ := outer.Field("in")
	if _, good := in.Float(outer.Data[0]); good {
		t.Errorf("a nested array field read as a number")
	}
	tr, err := Trajectory(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 2 || tr[1].T != 0.5 || tr[1].Pos.X != 3 || tr[1].Pos.Y != 4 || tr[1].Pos.Z != 0 || tr[1].Heading != 0.25 {
		t.Errorf("trajectory = %+v", tr)
	}
}

func TestParseAppended(t *testing.T) {
	// A log cut in the middle of a message, then data appended at the cut
	// with the B message pointing there.
	b := newBuilder()
	flags := make([]byte, 40)
	flags[8] = incompatDataAppended
	b.msg('B', flags)
	b.format(posFormat).sub(0, 0, PositionTopic)
	b.data(0, uint64(1_000_000), float32(0), float32(0), float32(0), float32(0))
	half := newBuilder().data(0, uint64(2_000_000), float32(1), float32(1), float32(1), float32(1)).Bytes()[16:]
	b.Write(half[:10]) // cut off
	appendAt := b.Len()
	b.data(0, uint64(3_000_000), float32(2), float32(2), float32(2), float32(2))
	data := b.Bytes()
	binary.LittleEndian.PutUint64(data[16+3+16:], uint64(appendAt))
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	lp, _ := f.Topic(PositionTopic, 0)
	if lp.Len() != 2 {
		t.Fatalf("got %d samples; want 2 (before the cut and appended)", lp.Len())
	}
	ts, _ := lp.Field("timestamp")
	if v, _ := ts.Uint64(lp.Data[1]); v != 3_000_000 {
		t.Errorf("second sample at %d; want the appended 3000000", v)
	}
}

func TestParseErrors(t *testing.T) {
	withFlags := func(incompat byte) []byte {
		flags := make([]byte, 40)
		flags[8] = incompat
		return newBuilder().msg('B', flags).Bytes()
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"short", magic[:5], ErrShort},
		{"bad magic", []byte("not a ulog file at all"), ErrMagic},
		{"unknown incompatible flag", withFlags(2), ErrIncompatible},
		{"format without name", newBuilder().format(":float x;").Bytes(), ErrFormat},
		{"undefined format", newBuilder().sub(0, 0, "nothing").Bytes(), ErrFormat},
		{"bad field", newBuilder().format("a:float").sub(0, 0, "a").Bytes(), ErrFormat},
		{"bad array", newBuilder().format("a:float[x] v;").sub(0, 0, "a").Bytes(), ErrFormat},
		{"cycle", newBuilder().format("a:b x;").format("b:a y;").sub(0, 0, "a").Bytes(), ErrFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.data)
			if !errors.Is(err, c.want) {
				t.Fatalf("got error %v; want %v", err, c.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
		})
	}
	// Only the appended bit set: fine.
	if _, err := Parse(withFlags(incompatDataAppended)); err != nil {
		t.Errorf("DATA_APPENDED alone: %v", err)
	}
	// A log without the position topic.
	f, err := Parse(newBuilder().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Trajectory(f); !errors.Is(err, ErrNoTopic) {
		t.Errorf("Trajectory of an empty log: got %v; want ErrNoTopic", err)
	}
	// NaN positions only.
	nan := float32(math.NaN())
	f, err = Parse(newBuilder().format(posFormat).sub(0, 0, PositionTopic).data(0, uint64(1), nan, nan, nan, nan).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Trajectory(f); err == nil {
		t.Errorf("Trajectory with no finite sample: no error")
	}
}

// TestTrajectoryTimestamps is issue 21 item 13: timestamps that go back
// (a flight of −60 s) or wrap at 2^64 − 1 are refused, equal ones kept.
func TestTrajectoryTimestamps(t *testing.T) {
	log := func(ts ...uint64) []byte {
		b := newBuilder().format(posFormat).sub(0, 0, PositionTopic)
		for i, x := range ts {
			b.data(0, x, float32(i), float32(0), float32(-1), float32(0), uint8(0), uint8(0), uint8(0))
		}
		return b.Bytes()
	}
	tests := []struct {
		name string
		ts   []uint64
		err  error
		endT float64
	}{
		{"increasing", []uint64{1_000_000, 2_000_000, 3_000_000}, nil, 2},
		{"equal kept", []uint64{1_000_000, 1_000_000, 2_000_000}, nil, 1},
		{"back 60 s", []uint64{61_000_000, 62_000_000, 2_000_000}, ErrTimestamp, 0},
		{"first after second", []uint64{5_000_000, 1_000_000}, ErrTimestamp, 0},
		{"back 2 s, after the first", []uint64{1_000_000, 5_000_000, 3_000_000}, ErrTimestamp, 0},
		{"wrap to 2^64-1", []uint64{1_000_000, 2_000_000, math.MaxUint64}, ErrTimestamp, 0},
		{"a week and a second", []uint64{0, MaxSpanUS + 1_000_000}, ErrTimestamp, 0},
		{"exactly a week", []uint64{0, MaxSpanUS}, nil, 7 * 24 * 3600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(log(tt.ts...))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Trajectory(f)
			if !errors.Is(err, tt.err) {
				t.Fatalf("got %v; want %v", err, tt.err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "sample") {
					t.Errorf("error %q does not name the sample", err)
				}
				return
			}
			if got := tr[len(tr)-1].T; got != tt.endT {
				t.Errorf("last T = %v; want %v", got, tt.endT)
			}
			for i := 1; i < len(tr); i++ {
				if tr[i].T < tr[i-1].T {
					t.Errorf("T goes back at %d: %v < %v", i, tr[i].T, tr[i-1].T)
				}
			}
		})
	}
}

// TestReadLimit is issue 21 item 15 for logs: an endless stream is read up
// to the limit + 1 bytes, not to the end of memory (Read's limit is
// MaxBytes; 1 MiB here keeps the test small).
func TestReadLimit(t *testing.T) {
	var n int64
	_, err := read(countingZero{&n}, 1<<20)
	if !errors.Is(err, ErrTooLarge) || n > 2<<20 {
		t.Fatalf("read(zeros): got %v after %d bytes; want ErrTooLarge after about 1 MiB", err, n)
	}
	if _, err := read(bytes.NewReader(synthetic()), int64(len(synthetic()))); err != nil {
		t.Errorf("a log of exactly the limit: %v", err)
	}
}

// countingZero is /dev/zero that counts what it gave.
type countingZero struct{ n *int64 }

func (z countingZero) Read(p []byte) (int, error) {
	clear(p)
	*z.n += int64(len(p))
	return len(p), nil
}

func TestRead(t *testing.T) {
	f, err := Read(bytes.NewReader(synthetic()))
	if err != nil || len(f.Topics) != 2 {
		t.Fatalf("Read: %v, %d topics", err, len(f.Topics))
	}
}

func FuzzParse(f *testing.F) {
	f.Add(synthetic())
	f.Add(newBuilder().Bytes())
	f.Add(newBuilder().format("a:b x;").format("b:a y;").sub(0, 0, "a").Bytes())
	for _, name := range []string{"sample_log_small.ulg", "sample_appended_multiple.ulg"} {
		b := readShared(f, name)
		f.Add(b[:min(len(b), 6000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := Parse(data)
		if err != nil {
			return
		}
		for _, tp := range lf.Topics {
			for _, fd := range tp.Format.Fields {
				for _, msg := range tp.Data {
					fd.Float(msg)
					fd.Uint64(msg)
				}
			}
		}
		tr, err := Trajectory(lf)
		if err == nil && (len(tr) == 0 || tr[0].T != 0) {
			t.Fatalf("trajectory %v does not start at t = 0", tr[:min(1, len(tr))])
		}
		for i := 1; err == nil && i < len(tr); i++ {
			if !(tr[i].T >= tr[i-1].T) || tr[i].T > MaxSpanUS/1e6 {
				t.Fatalf("trajectory time goes from %v to %v at sample %d", tr[i-1].T, tr[i].T, i)
			}
		}
	})
}

func BenchmarkParseSmallLog(b *testing.B) {
	data := readShared(b, "sample_log_small.ulg")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Trajectory(f); err != nil {
			b.Fatal(err)
		}
	}
}
