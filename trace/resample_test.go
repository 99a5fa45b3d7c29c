package trace

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shakedown-robotics/shakedown/geom"
)

// line returns samples at times ts with x = 2t, y = −t, z = −10 (10 m up)
// and heading = t/10, so every mean is known in closed form.
func line(ts ...float64) []Sample {
	s := make([]Sample, len(ts))
	for i, t := range ts {
		s[i] = lineAt(t)
	}
	return s
}

func lineAt(t float64) Sample {
	return Sample{T: t, Pos: geom.Vec3{X: 2 * t, Y: -t, Z: -10}, Heading: t / 10}
}

// tenHz returns the times i/10 for i in [from, to].
func tenHz(from, to int) []float64 {
	var ts []float64
	for i := from; i <= to; i++ {
		ts = append(ts, float64(i)/10)
	}
	return ts
}

// approx compares floats to 1e-12: the means below are of a handful of
// values of order 1, so they agree with the exact answers to a few ulps.
var approx = cmpopts.EquateApprox(0, 1e-12)

func TestResample(t *testing.T) {
	tests := []struct {
		name    string
		in      []Sample
		periodS float64
		want    []Sample
	}{
		{
			// Aerialist's bins are closed on the right: [0, 0.5], (0.5, 1.0],
			// (1.0, 1.5] hold 6, 5 and 2 samples of the 13 taken at 10 Hz.
			name:    "10 Hz for 1.2 s",
			in:      line(tenHz(0, 12)...),
			periodS: 0.5,
			want:    []Sample{lineAt(0.25), lineAt(0.8), lineAt(1.15)},
		},
		{
			name:    "gap leaves bins out",
			in:      line(0, 0.2, 0.4, 1.6, 1.8, 2.0),
			periodS: 0.5,
			want:    []Sample{lineAt(0.2), lineAt(1.8)},
		},
		{
			// [100.2, 100.7], (100.7, 101.2], (101.2, 101.7]; bins aligned
			// on whole multiples of 0.5 s would split 100.2 from 100.5.
			name:    "bins align on the first sample",
			in:      line(100.2, 100.5, 100.75, 100.9, 101.3),
			periodS: 0.5,
			want:    []Sample{lineAt(100.35), lineAt(100.825), lineAt(101.3)},
		},
		{
			name:    "sample on a boundary belongs to the bin it closes",
			in:      line(0, 0.5, 0.5000004, 0.500001, 1),
			periodS: 0.5,
			want:    []Sample{lineAt(1.0000004 / 3), lineAt(1.500001 / 2)},
		},
		{
			// 0.1·3 = 0.30000000000000004 > 0.3, yet it is 300000 µs.
			name:    "float noise does not cross a boundary",
			in:      line(0, 0.1, 0.2, 0.1*3, 0.4),
			periodS: 0.3,
			want:    []Sample{lineAt((0.3 + 0.1*3) / 4), lineAt(0.4)},
		},
		{
			name:    "out-of-order sample joins the current bin",
			in:      line(0, 0.6, 0.3, 1.2),
			periodS: 0.5,
			want:    []Sample{lineAt(0), lineAt(0.45), lineAt(1.2)},
		},
		{
			name:    "single sample",
			in:      line(7),
			periodS: 0.5,
			want:    line(7),
		},
		{
			name:    "empty",
			in:      nil,
			periodS: 0.5,
			want:    nil,
		},
		{
			// Aerialist averages headings as plain numbers.
			name: "headings are averaged as numbers",
			in: []Sample{
				{T: 0, Heading: 3.1},
				{T: 0.1, Heading: -3.1},
			},
			periodS: 0.5,
			want:    []Sample{{T: 0.05, Heading: 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resample(tt.in, tt.periodS)
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Resample(…, %v) mismatch (-want +got):\n%s", tt.periodS, diff)
			}
		})
	}
}

func TestResampleBinSizes(t *testing.T) {
	// Count members by resampling T only: bin k of 10 Hz samples from 0 to
	// 1.2 s averages i/10 over its members.
	in := line(tenHz(0, 12)...)
	got := Resample(in, AerialistPeriodS)
	wantCounts := []int{6, 5, 2}
	if len(got) != len(wantCounts) {
		t.Fatalf("got %d bins, want %d", len(got), len(wantCounts))
	}
	first := 0
	for k, n := range wantCounts {
		var sum float64
		for i := first; i < first+n; i++ {
			sum += in[i].T
		}
		if want := sum / float64(n); math.Abs(got[k].T-want) > 1e-12 {
			t.Errorf("bin %d: T = %v, want %v (mean of %d samples)", k, got[k].T, want, n)
		}
		first += n
	}
}

func TestResampleConstantBinIsExact(t *testing.T) {
	s := Sample{T: 1e9, Pos: geom.Vec3{X: 0.1, Y: 0.7, Z: -0.3}, Heading: 0.3}
	in := []Sample{s, s, s}
	got := Resample(in, 0.5)
	if len(got) != 1 || got[0] != s {
		t.Errorf("Resample of equal samples = %v, want [%v]", got, s)
	}
}

func TestResamplePanicsOnBadPeriod(t *testing.T) {
	for _, p := range []float64{0, -0.5, 4e-7, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Resample(…, %v) did not panic", p)
				}
			}()
			Resample(line(0, 1), p)
		}()
	}
}

func TestAppendResampled(t *testing.T) {
	in := line(tenHz(0, 12)...)
	prefix := Sample{T: -1}
	dst := make([]Sample, 1, 8)
	dst[0] = prefix
	got := AppendResampled(dst, in, 0.5)
	want := append([]Sample{prefix}, Resample(in, 0.5)...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AppendResampled mismatch (-want +got):\n%s", diff)
	}
	if &got[0] != &dst[0] {
		t.Errorf("AppendResampled reallocated although dst had room")
	}
	allocs := testing.AllocsPerRun(100, func() {
		dst = AppendResampled(dst[:0], in, 0.5)
	})
	if allocs != 0 {
		t.Errorf("AppendResampled with room allocates %v times, want 0", allocs)
	}
}

func TestPositions(t *testing.T) {
	in := line(0, 1)
	want := []geom.Vec3{{X: 0, Y: 0, Z: -10}, {X: 2, Y: -1, Z: -10}}
	if diff := cmp.Diff(want, Positions(in)); diff != "" {
		t.Errorf("Positions mismatch (-want +got):\n%s", diff)
	}
	if got := Positions(nil); got != nil {
		t.Errorf("Positions(nil) = %v, want nil", got)
	}
}

func TestPathLength(t *testing.T) {
	tests := []struct {
		name string
		in   []Sample
		want float64
	}{
		{"empty", nil, 0},
		{"one point", line(3), 0},
		{"3-4-5 then 12 down", []Sample{
			{Pos: geom.Vec3{}},
			{Pos: geom.Vec3{X: 3, Y: 4}},
			{Pos: geom.Vec3{X: 3, Y: 4, Z: 12}},
		}, 17},
		{"3-D diagonal", []Sample{
			{Pos: geom.Vec3{X: 1, Y: 2, Z: 3}},
			{Pos: geom.Vec3{X: 3, Y: 5, Z: 9}},
		}, 7},
	}
	for _, tt := range tests {
		if got := PathLength(tt.in); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: PathLength = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// BenchmarkResample resamples a 500 s flight logged at 10 Hz, the
// competition's simulation timeout at PX4's default logging rate.
func BenchmarkResample(b *testing.B) {
	in := make([]Sample, 5000)
	for i := range in {
		in[i] = lineAt(float64(i) / 10)
	}
	dst := make([]Sample, 0, len(in))
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendResampled(dst[:0], in, AerialistPeriodS)
	}
	if len(dst) != 1000 {
		b.Fatalf("got %d bins, want 1000", len(dst))
	}
}
