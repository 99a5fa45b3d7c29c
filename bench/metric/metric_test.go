package metric_test

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/bench/metric"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

// perfect flies the nominal time law exactly, sampled at hz over the
// trajectory's duration only (airstack.md §2.4's floor experiment).
func perfect(t *testing.T, typ string, pose traj.Pose, hz float64) ([]metric.Sample, traj.Path, *traj.Timed) {
	t.Helper()
	p, err := traj.Generate(typ, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := p.World(pose)
	tr, err := traj.NewTimed(w.Waypoints)
	if err != nil {
		t.Fatal(err)
	}
	var s []metric.Sample
	for i := 0; ; i++ {
		tt := float64(i) / hz
		if tt > tr.Duration() {
			break
		}
		s = append(s, metric.Sample{T: tt, Pos: tr.At(tt).Pos})
	}
	return s, w, tr
}

// TestVertexFloor reproduces the floor of AirStack's nearest-vertex metric
// for a perfect tracker (airstack.md §2.4): the Circle's 10-m radial legs
// have vertices only at their ends.
func TestVertexFloor(t *testing.T) {
	cases := []struct {
		typ             string
		mean, max, rmse float64
	}{
		{traj.Circle, 0.934, 5.000, 1.485},
		{traj.Figure8, 0.042, 0.115, 0.050},
		{traj.Racetrack, 0.073, 0.160, 0.085},
		{traj.Line, 0.124, 0.249, 0.144},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			pose := traj.Pose{Pos: geom.Vec3{X: 3, Y: -7, Z: -10}, Yaw: 0.7}
			s, w, tr := perfect(t, c.typ, pose, 30)
			got := metric.VertexError(s, w.Positions())
			if m := metric.Round3(got.Mean); m != c.mean {
				t.Errorf("mean: got %.3f; want %.3f", m, c.mean)
			}
			if m := metric.Round3(got.Max); m != c.max {
				t.Errorf("max: got %.3f; want %.3f", m, c.max)
			}
			if m := metric.Round3(got.RMSE); m != c.rmse {
				t.Errorf("rmse: got %.3f; want %.3f", m, c.rmse)
			}
			seg := metric.Path(s, tr, 0)
			if seg.SegMax > 1e-9 || math.Abs(seg.LateralMean) > 1e-9 || math.Abs(seg.LagMax) > 1e-6 {
				t.Errorf("segment metrics of a perfect tracker: got max %g, lateral %g, lag max %g; want 0", seg.SegMax, seg.LateralMean, seg.LagMax)
			}
		})
	}
}

// climb returns samples at 10 Hz of a climb from 0 at speed v to top,
// held there for hold seconds.
func climb(v, top, hold float64) []metric.Sample {
	var s []metric.Sample
	for i := 0; ; i++ {
		t := float64(i) / 10
		z := math.Min(top, v*t)
		s = append(s, metric.Sample{T: t, Pos: geom.Vec3{Z: -z}})
		if t > top/v+hold {
			return s
		}
	}
}

// TestTakeoffLanding checks _takeoff_metrics and _landing_metrics on a
// hand-computable climb and descent.
func TestTakeoffLanding(t *testing.T) {
	s := climb(1, 10.2, 2) // overshoots the 10-m target by 0.2 m and holds
	m := metric.TakeoffMetrics(s, 10, 1)
	if math.Abs(m.AltErr-0.2) > 1e-9 || math.Abs(m.Overshoot-0.2) > 1e-9 {
		t.Errorf("altitude error, overshoot: got %v, %v; want 0.2, 0.2", m.AltErr, m.Overshoot)
	}
	// Motion starts at the first z > 0.3 (t = 0.4), the climb ends at the
	// first z ≥ 9.5 (t = 9.5).
	if !m.HasDuration || math.Abs(m.Duration-9.1) > 1e-9 {
		t.Errorf("takeoff duration: got %v (%v); want 9.1 s", m.Duration, m.HasDuration)
	}
	if m.VelRMSE > 1e-9 {
		t.Errorf("climb-rate RMSE of an exact 1-m/s climb: got %v; want 0", m.VelRMSE)
	}
	// Descent: mirror the climb.
	var d []metric.Sample
	for i, p := range s {
		q := s[len(s)-1-i]
		d = append(d, metric.Sample{T: p.T, Pos: q.Pos})
	}
	l := metric.LandingMetrics(d, 1)
	if l.FinalAlt != 0 {
		t.Errorf("final altitude: got %v; want 0", l.FinalAlt)
	}
	// Peak 10.2: descent counts from the first z < 8.16, ends at the first z < 0.5.
	if !l.HasDuration || math.Abs(l.Duration-7.7) > 0.1+1e-9 {
		t.Errorf("landing duration: got %v (%v); want 7.7 ± 0.1 s", l.Duration, l.HasDuration)
	}
	if got := metric.LandingMetrics(nil, 1); got.HasDuration {
		t.Errorf("no samples: got a duration")
	}
}

// TestHover checks the hover metrics on a known drift.
func TestHover(t *testing.T) {
	var s []metric.Sample
	for i := range 101 {
		tt := float64(i) / 10
		z := 10.0
		if tt >= 5 {
			z = 10.4
		}
		s = append(s, metric.Sample{T: tt, Pos: geom.Vec3{X: 0.3, Z: -z}})
	}
	h := metric.HoverMetrics(s)
	// Mean z = (50·10 + 51·10.4)/101; the first second's mean is 10.
	want := (50*10+51*10.4)/101 - 10
	if math.Abs(h.AltMeanErr-want) > 1e-9 {
		t.Errorf("hover altitude error: got %v; want %v", h.AltMeanErr, want)
	}
	if math.Abs(h.PosStd-0.2*math.Sqrt(50*51)/101*2) > 1e-9 {
		t.Errorf("hover stddev: got %v; want %v", h.PosStd, 0.2*math.Sqrt(50*51)/101*2)
	}
}

// TestLateralSign checks that the signed lateral error is positive to the
// left of travel, in NED (North up, East right).
func TestLateralSign(t *testing.T) {
	tr, err := traj.NewTimed([]traj.Waypoint{{Speed: 1}, {Pos: geom.Vec3{X: 10}, Speed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// Travel North; West (y < 0) is on the left.
	s := []metric.Sample{{T: 0, Pos: geom.Vec3{Y: -0.5}}, {T: 5, Pos: geom.Vec3{X: 3, Y: -0.5}}}
	m := metric.Path(s, tr, 0)
	if m.LateralMean != 0.5 || m.SegMean != 0.5 {
		t.Errorf("lateral, distance: got %v, %v; want +0.5, 0.5", m.LateralMean, m.SegMean)
	}
	// At t = 5 the schedule is at 5 m; the sample is at 3 m: 2 m behind.
	if m.LagMax != 2 || m.LagMean != 1 {
		t.Errorf("lag max, mean: got %v, %v; want 2, 1", m.LagMax, m.LagMean)
	}
	if m.ArrivalErr != math.Hypot(7, 0.5) {
		t.Errorf("arrival error: got %v; want %v", m.ArrivalErr, math.Hypot(7, 0.5))
	}
}

func BenchmarkPathCircle(b *testing.B) {
	p, _ := traj.Generate(traj.Circle, nil)
	tr, _ := traj.NewTimed(p.World(traj.Pose{}).Waypoints)
	var s []metric.Sample
	for i := 0; float64(i)/30 < tr.Duration(); i++ {
		s = append(s, metric.Sample{T: float64(i) / 30, Pos: tr.At(float64(i) / 30).Pos})
	}
	b.ReportAllocs()
	for b.Loop() {
		metric.Path(s, tr, 0)
	}
}
