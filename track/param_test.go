package track

import (
	"errors"
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/traj"
)

// TestNewWith: a parameter changes what the tracker commands (a fixed
// sphere radius of 3 m instead of the speed-scaled one puts the tracking
// point farther along a Line); bad names and values are errors naming them.
func TestNewWith(t *testing.T) {
	body, err := traj.Generate(traj.Line, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := body.World(traj.Pose{Pos: geom.Vec3{Z: -10}})
	first := func(tr Tracker) geom.Vec3 {
		t.Helper()
		o := Odom{T: 0, Pos: geom.Vec3{Z: -10}}
		if err := tr.Start(w, o); err != nil {
			t.Fatal(err)
		}
		var c Command
		for k := range 40 { // 2 s with the vehicle held where it started
			o.T = float64(k) * 0.05
			c = tr.Update(o)
		}
		return c.Pos
	}
	def, _ := New("airstack")
	tr, err := NewWith("airstack", map[string]float64{"velocity_sphere_radius_multiplier": -1, "sphere_radius": 3})
	if err != nil {
		t.Fatal(err)
	}
	start := geom.Vec3{Z: -10}
	d0, d1 := first(def).Sub(start).Norm(), first(tr).Sub(start).Norm()
	if !(math.Abs(d1-3) < 0.1) || math.Abs(d1-d0) < 0.5 {
		t.Errorf("tracking point %.2f m ahead with sphere_radius 3; %.2f m with the defaults; want about 3 m and different", d1, d0)
	}
	for _, tc := range []struct {
		name string
		vals map[string]float64
	}{
		{"unknown", map[string]float64{"sphere_radiu": 1}},
		{"NaN", map[string]float64{"look_ahead_time": math.NaN()}},
		{"range", map[string]float64{"look_ahead_time": 1e300}},
		{"zero", map[string]float64{"sphere_radius": 0}},
	} {
		if _, err := NewWith("airstack", tc.vals); !errors.Is(err, ErrParam) {
			t.Errorf("%s: %v; want ErrParam", tc.name, err)
		}
	}
	if _, err := NewWith("nope", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown tracker: %v", err)
	}
}
