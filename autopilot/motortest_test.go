package autopilot_test

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/autopilot"
	"github.com/shakedown-robotics/shakedown/control"
	"github.com/shakedown-robotics/shakedown/geom"
)

// A motor test drives one output alone until its timeout (at most 3 s).
func TestMotorTestOutputs(t *testing.T) {
	a, err := autopilot.New(autopilot.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	est := control.State{Att: geom.Quat{W: 1}}
	a.Update(est, 1, 0.005)
	if err := a.MotorTest(2, 0.15, 10); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		t    float64
		want [4]float64
	}{{1.005, [4]float64{0, 0, 0.15, 0}}, {3.99, [4]float64{0, 0, 0.15, 0}}, {4.0, [4]float64{}}}
	for _, c := range cases {
		if got := a.Update(est, c.t, 0.005); got != c.want {
			t.Errorf("t = %.3f: got %v; want %v", c.t, got, c.want)
		}
	}
	for _, bad := range []struct {
		name          string
		motor         int
		thr, timeoutS float64
	}{{"motor 4", 4, 0.1, 1}, {"negative throttle", 0, -0.1, 1}, {"NaN throttle", 0, math.NaN(), 1}, {"zero timeout", 0, 0.1, 0}} {
		if err := a.MotorTest(bad.motor, bad.thr, bad.timeoutS); err == nil {
			t.Errorf("%s: accepted", bad.name)
		}
	}
	if err := a.Arm(); err != nil {
		t.Fatal(err)
	}
	if err := a.MotorTest(0, 0.1, 1); err != autopilot.ErrMotorTestDenied {
		t.Errorf("armed: got %v; want %v", err, autopilot.ErrMotorTestDenied)
	}
}

// Collision prevention is off by default: an obstacle map changes nothing.
func TestCollisionPreventionOffByDefault(t *testing.T) {
	run := func(feed bool, cp autopilot.CollisionPrevention) [4]float64 {
		a, err := autopilot.New(autopilot.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if err := a.SetCollisionPrevention(cp); err != nil {
			t.Fatal(err)
		}
		est := control.State{Att: geom.Quat{W: 1}, Pos: geom.Vec3{Z: -5}}
		a.Update(est, 0, 0.005)
		if err := a.Arm(); err != nil {
			t.Fatal(err)
		}
		var u [4]float64
		for k := 1; k < 400; k++ {
			tm := float64(k) * 0.005
			if k == 1 {
				_ = a.Takeoff(5)
			}
			if k == 300 {
				if err := a.Goto(geom.Vec3{X: 10, Z: -5}, 2); err != nil {
					t.Fatal(err)
				}
			}
			if feed {
				var o autopilot.Obstacles
				for i := range o.Dist {
					o.Dist[i] = math.Inf(1)
				}
				o.T, o.Dist[0] = tm, 1
				a.SetObstacles(o)
			}
			u = a.Update(est, tm, 0.005)
		}
		return u
	}
	if a, b := run(false, autopilot.CollisionPrevention{}), run(true, autopilot.CollisionPrevention{}); a != b {
		t.Errorf("an obstacle map changed the outputs with collision prevention off: %v vs %v", a, b)
	}
	if a, b := run(false, autopilot.CollisionPrevention{DistM: 2}), run(true, autopilot.CollisionPrevention{DistM: 2}); a == b {
		t.Errorf("a wall 1 m ahead did not change the outputs with CP_DIST 2 m")
	}
	a, _ := autopilot.New(autopilot.DefaultConfig())
	for _, bad := range []autopilot.CollisionPrevention{{DistM: math.NaN()}, {DistM: 2, DelayS: -1}, {DistM: 2, MaxAgeS: math.Inf(1)}} {
		if err := a.SetCollisionPrevention(bad); err == nil {
			t.Errorf("SetCollisionPrevention accepted %+v", bad)
		}
	}
}
