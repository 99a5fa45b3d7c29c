package trace

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shakedown-robotics/shakedown/geom"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// csvCases feeds the decoding test, the encoding test (for cases without an
// error whose input is canonical) and the fuzz seeds.
var csvCases = []struct {
	name      string
	in        string
	want      []Sample
	canonical bool   // WriteCSV(want) gives exactly in
	line      int    // of the expected *ParseError; 0 for success
	column    string // of the expected *ParseError
	err       error  // wrapped by the expected *ParseError, if not nil
}{
	{
		name:      "header only",
		in:        "t,x,y,z,heading\n",
		canonical: true,
	},
	{
		name: "two rows",
		in: "t,x,y,z,heading\n" +
			"0.000,0.0000,0.0000,0.0000,0.0000\n" +
			"0.500,1.2500,-3.0000,10.0000,1.5708\n",
		want: []Sample{
			{},
			{T: 0.5, Pos: geom.Vec3{X: 1.25, Y: -3, Z: -10}, Heading: 1.5708},
		},
		canonical: true,
	},
	{
		name: "CRLF, no final newline, loose number forms",
		in: "t,x,y,z,heading\r\n" +
			"1,+2.5,-.5,1e1,3.\r\n" +
			"1,0,0,0,0",
		want: []Sample{
			{T: 1, Pos: geom.Vec3{X: 2.5, Y: -0.5, Z: -10}, Heading: 3},
			{T: 1},
		},
	},
	{name: "empty input", in: "", line: 1, err: ErrHeader},
	{name: "bad header", in: "t,x,y,z,yaw\n", line: 1, err: ErrHeader},
	{name: "header with BOM", in: "\uFEFFt,x,y,z,heading\n", line: 1, err: ErrHeader},
	{name: "header with spaces", in: "t, x, y, z, heading\n", line: 1, err: ErrHeader},
	{name: "NaN", in: "t,x,y,z,heading\n0,1,NaN,3,4\n", line: 2, column: "y", err: ErrNotFinite},
	{name: "Inf", in: "t,x,y,z,heading\n0,1,2,3,-Inf\n", line: 2, column: "heading", err: ErrNotFinite},
	{name: "overflow", in: "t,x,y,z,heading\n1e400,1,2,3,4\n", line: 2, column: "t", err: ErrNotFinite},
	{name: "too few columns", in: "t,x,y,z,heading\n0,0,0,0,0\n1,2,3\n", line: 3, column: "z", err: ErrFieldCount},
	{name: "too many columns", in: "t,x,y,z,heading\n0,0,0,0,0,0\n", line: 2, err: ErrFieldCount},
	{name: "decreasing t", in: "t,x,y,z,heading\n1.000,0,0,0,0\n0.999,0,0,0,0\n", line: 3, column: "t", err: ErrTimeOrder},
	{name: "blank line", in: "t,x,y,z,heading\n0,0,0,0,0\n\n1,0,0,0,0\n", line: 3, err: ErrBlankLine},
	{name: "empty field", in: "t,x,y,z,heading\n0,,0,0,0\n", line: 2, column: "x"},
	{name: "hex float", in: "t,x,y,z,heading\n0,0x1p-2,0,0,0\n", line: 2, column: "x"},
	{name: "underscore", in: "t,x,y,z,heading\n0,0,1_0,0,0\n", line: 2, column: "y"},
	{name: "space", in: "t,x,y,z,heading\n0,0,0, 1,0\n", line: 2, column: "z"},
	{name: "bare exponent", in: "t,x,y,z,heading\n0,0,0,0,1e\n", line: 2, column: "heading"},
}

func TestReadCSV(t *testing.T) {
	for _, tt := range csvCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadCSV(strings.NewReader(tt.in))
			if tt.line == 0 {
				if err != nil {
					t.Fatalf("ReadCSV: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ReadCSV mismatch (-want +got):\n%s", diff)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ReadCSV error = %v, want a *ParseError", err)
			}
			if pe.Line != tt.line || pe.Column != tt.column {
				t.Errorf("error at line %d, column %q; want line %d, column %q (%v)", pe.Line, pe.Column, tt.line, tt.column, err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %v does not wrap %v", err, tt.err)
			}
			if got != nil {
				t.Errorf("ReadCSV returned %d samples with the error", len(got))
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "trace: line "+strconv.Itoa(tt.line)) || strings.Count(msg, "trace:") != 1 {
				t.Errorf("error message %q: want one prefix \"trace: line %d\"", msg, tt.line)
			}
		})
	}
}

func TestWriteCSVCanonical(t *testing.T) {
	for _, tt := range csvCases {
		if !tt.canonical {
			continue
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tt.want); err != nil {
			t.Fatalf("%s: WriteCSV: %v", tt.name, err)
		}
		if got := buf.String(); got != tt.in {
			t.Errorf("%s: WriteCSV wrote\n%s\nwant\n%s", tt.name, got, tt.in)
		}
	}
}

// goldenSamples covers rounding in every column, negative zeros, headings
// of both signs and times that do not fall on whole milliseconds.
func goldenSamples() []Sample {
	return []Sample{
		{T: 0, Pos: geom.Vec3{X: math.Copysign(0, -1), Y: -0.00004, Z: 0}, Heading: -0.00001},
		{T: 0.0504999, Pos: geom.Vec3{X: 0.12345, Y: -0.00005, Z: -0.5}, Heading: math.Pi},
		{T: 0.5, Pos: geom.Vec3{X: -12.3456789, Y: 40.5, Z: -10.00005}, Heading: -math.Pi / 2},
		{T: 1.0004, Pos: geom.Vec3{X: 1e6, Y: -1e-9, Z: 0.25}, Heading: 2 * math.Pi},
		{T: 123.4565, Pos: geom.Vec3{X: 0.99995, Y: -0.99995, Z: 3}, Heading: 0.5},
	}
}

func TestWriteCSVGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, goldenSamples()); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	path := filepath.Join("testdata", "golden.csv")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteCSV output differs from %s:\ngot\n%s\nwant\n%s", path, buf.Bytes(), want)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		for _, field := range strings.Split(line, ",") {
			if strings.Trim(field, "-0.") == "" && strings.HasPrefix(field, "-") {
				t.Errorf("output contains the negative zero %q in line %q", field, line)
			}
		}
	}
}

func TestWriteCSVNegativeZero(t *testing.T) {
	for _, v := range []float64{math.Copysign(0, -1), -1e-300, -0.00004999} {
		var buf bytes.Buffer
		s := []Sample{{T: v / 10, Pos: geom.Vec3{X: v, Y: v, Z: -v}, Heading: v}}
		if err := WriteCSV(&buf, s); err != nil {
			t.Fatal(err)
		}
		row := strings.SplitN(buf.String(), "\n", 3)[1]
		if strings.Contains(row, "-") {
			t.Errorf("value %v written as %q", v, row)
		}
	}
	// A small negative value that does not round to zero keeps its sign.
	var buf bytes.Buffer
	if err := WriteCSV(&buf, []Sample{{Heading: -0.00006}}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), Header+"\n0.000,0.0000,0.0000,0.0000,-0.0001\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteCSVRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   []Sample
	}{
		{"NaN t", []Sample{{T: math.NaN()}}},
		{"Inf z", []Sample{{Pos: geom.Vec3{Z: math.Inf(-1)}}}},
		{"NaN heading", []Sample{{}, {T: 1, Heading: math.NaN()}}},
		{"decreasing t", []Sample{{T: 1}, {T: 0.5}}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tt.in); err == nil {
			t.Errorf("%s: WriteCSV succeeded, want an error", tt.name)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: WriteCSV wrote %q before failing", tt.name, buf.String())
		}
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteCSVWriterError(t *testing.T) {
	want := errors.New("disk full")
	if err := WriteCSV(failWriter{want}, goldenSamples()); !errors.Is(err, want) {
		t.Errorf("WriteCSV error = %v, want %v", err, want)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	in := make([]Sample, 200)
	tm := 0.0
	for i := range in {
		tm += r.Float64() * 0.2
		in[i] = Sample{
			T:       tm,
			Pos:     geom.Vec3{X: r.NormFloat64() * 50, Y: r.NormFloat64() * 50, Z: -r.Float64() * 30},
			Heading: (r.Float64()*2 - 1) * math.Pi,
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("read %d samples, want %d", len(got), len(in))
	}
	for i := range in {
		checkWithinFormat(t, in[i], got[i])
	}
	// Values already at the format's precision survive exactly.
	var again bytes.Buffer
	if err := WriteCSV(&again, got); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	_ = WriteCSV(&first, in)
	if !bytes.Equal(first.Bytes(), again.Bytes()) {
		t.Errorf("re-encoding changed the bytes")
	}
}

// checkWithinFormat reports a difference between want and got larger than
// half a unit in the last written decimal, plus float rounding.
func checkWithinFormat(t *testing.T, want, got Sample) {
	t.Helper()
	w, g := row(want), row(got)
	for j := range w {
		tol := 0.5*math.Pow10(-decimals[j]) + 1e-15*math.Abs(w[j])
		if !(math.Abs(w[j]-g[j]) <= tol) {
			t.Errorf("%s: got %v, want %v ± %v", columns[j], g[j], w[j], tol)
		}
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, tt := range csvCases {
		f.Add([]byte(tt.in))
	}
	var buf bytes.Buffer
	_ = WriteCSV(&buf, goldenSamples())
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadCSV(bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Line < 1 {
				t.Fatalf("error %v names line %d", err, pe.Line)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteCSV(&out, s); err != nil {
			t.Fatalf("WriteCSV of parsed samples: %v", err)
		}
		s2, err := ReadCSV(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("ReadCSV of re-encoded samples: %v\n%s", err, out.Bytes())
		}
		if len(s2) != len(s) {
			t.Fatalf("re-parsed %d samples, want %d", len(s2), len(s))
		}
		for i := range s {
			checkWithinFormat(t, s[i], s2[i])
		}
		// Once at the format's precision, encoding is a fixed point.
		var out2 bytes.Buffer
		if err := WriteCSV(&out2, s2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), out2.Bytes()) {
			t.Fatalf("encoding is not stable:\n%s\nthen\n%s", out.Bytes(), out2.Bytes())
		}
	})
}
