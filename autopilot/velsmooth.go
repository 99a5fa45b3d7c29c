package autopilot

import "math"

// velSmooth is one axis of PX4's jerk-limited velocity smoothing
// (lib/motion_planning VelocitySmoothing, as FlightTaskAutoLineSmoothVel
// runs it in v1.12: one per axis, x, y and z). Given a velocity target it
// plans three phases from the state at planning time: jerk toward the target
// for t1, constant acceleration for t2, jerk back to zero acceleration for
// t3, each as short as the limits allow (or stretched to a given total time
// so that several axes arrive together). advance then follows that plan.
type velSmooth struct {
	a, v, x             float64 // state
	a0, v0, x0          float64 // state when the plan was made
	t1, t2, t3          float64
	tgt                 float64 // the velocity target of the plan
	dir                 float64 // +1, −1 or 0: the sign of the jerk in t1
	local               float64 // time since the plan was made
	jerk, accel, velMax float64
}

// reset puts the axis at a state with no plan.
func (s *velSmooth) reset(a, v, x float64) {
	s.a, s.v, s.x = a, v, x
	s.a0, s.v0, s.x0 = a, v, x
	s.t1, s.t2, s.t3, s.dir, s.local = 0, 0, 0, 0, 0
}

func (s *velSmooth) total() float64 { return s.t1 + s.t2 + s.t3 }

// velAtZeroAcc is the velocity reached by bringing the acceleration to zero
// at full jerk.
func (s *velSmooth) velAtZeroAcc() float64 {
	if s.a == 0 || s.jerk <= 0 {
		return s.v
	}
	t := math.Abs(s.a) / s.jerk
	return s.v + s.a*t - 0.5*math.Copysign(s.jerk, s.a)*t*t
}

// plan makes the plan toward velocity target (clamped to ±velMax) in the
// least time.
func (s *velSmooth) plan(target float64) {
	s.begin(target)
	if s.dir == 0 {
		return
	}
	j := s.dir * s.jerk
	dv := s.tgt - s.v
	// Without a constant phase (t3 = a0/j + t1) the velocity change is
	// j·t1² + 2·a0·t1 + a0²/(2j): t1 is its non-negative root, then capped
	// so that the acceleration stays within limits, and t2 makes up the rest.
	t1 := 0.0
	if delta := 2*s.a*s.a + 4*j*dv; delta >= 0 {
		r := 0.5 * math.Sqrt(delta)
		switch p, m := (-s.a+r)/j, (-s.a-r)/j; {
		case p >= 0 && s.a/j+p >= 0:
			t1 = p
		case m >= 0 && s.a/j+m >= 0:
			t1 = m
		}
	}
	s.t1 = math.Max(s.capAccel(j, t1), 0)
	s.t3 = math.Max(s.a/j+s.t1, 0)
	s.t2 = 0
	if den := s.a + j*s.t1; math.Abs(den) > 1e-7 {
		s.t2 = math.Max((-0.5*s.t1*s.t1*j-s.t1*s.t3*j-s.t1*s.a+0.5*s.t3*s.t3*j-s.t3*s.a+dv)/den, 0)
	}
}

// planIn makes the plan toward the target of the last plan in total time T
// (VelocitySmoothing::updateDurationsGivenTotalTime).
func (s *velSmooth) planIn(T float64) {
	if s.dir == 0 {
		return
	}
	// With t3 = a0/j + t1 and t2 = T − t1 − t3 the velocity change is
	// −j·t1² + (j·T − a0)·t1 + a0·T − a0²/(2j): t1 is the root that leaves
	// t1 + t3 within T.
	j := s.dir * s.jerk
	dv := s.tgt - s.v
	t1 := 0.0
	if delta := T*T*j*j + 2*T*s.a*j - s.a*s.a - 4*j*dv; delta >= 0 {
		r := math.Sqrt(delta)
		b := j*T - s.a
		p := math.Max((-b+r)/(-2*j), 0)
		m := math.Max((-b-r)/(-2*j), 0)
		switch {
		case p+s.a/j+p > T:
			t1 = m
		case m+s.a/j+m > T:
			t1 = p
		}
	}
	s.t1 = s.capAccel(j, t1)
	s.t3 = math.Max(s.a/j+s.t1, 0)
	s.t2 = math.Max(T-s.t1-s.t3, 0)
}

// capAccel shortens t1 so that the acceleration stays within ±accel.
func (s *velSmooth) capAccel(j, t1 float64) float64 {
	switch a := s.a + j*t1; {
	case a > s.accel:
		return (s.accel - s.a) / j
	case a < -s.accel:
		return (-s.accel - s.a) / j
	}
	return t1
}

// begin starts a plan from the current state toward target.
func (s *velSmooth) begin(target float64) {
	s.v0, s.a0, s.x0 = s.v, s.a, s.x
	s.local = 0
	s.tgt = math.Max(-s.velMax, math.Min(s.velMax, target))
	s.t1, s.t2, s.t3 = 0, 0, 0
	switch z := s.velAtZeroAcc(); {
	case s.tgt > z:
		s.dir = 1
	case s.tgt < z:
		s.dir = -1
	case s.a > 0:
		s.dir = 1
	case s.a < 0:
		s.dir = -1
	default:
		s.dir = 0
	}
}

// advance follows the plan for dt more seconds of its own time.
func (s *velSmooth) advance(dt float64) {
	s.local += dt
	left := s.local
	a, v, x := s.a0, s.v0, s.x0
	step := func(j, t float64) {
		x += v*t + 0.5*a*t*t + j*t*t*t/6
		v += a*t + 0.5*j*t*t
		a += j * t
	}
	phase := func(j, d float64) {
		if left > 0 {
			t := math.Min(left, d)
			step(j, t)
			left -= t
		}
	}
	phase(s.dir*s.jerk, s.t1)
	phase(0, s.t2)
	phase(-s.dir*s.jerk, s.t3)
	if left > 0 {
		a = 0
		step(0, left)
	}
	s.a, s.v, s.x = a, v, x
}

// syncAxes stretches the plans of all but the longest axis to end together
// (VelocitySmoothing::timeSynchronization).
func syncAxes(axes []velSmooth) {
	T, longest := 0.0, 0
	for i := range axes {
		if t := axes[i].total(); t > T {
			T, longest = t, i
		}
	}
	if T <= 1e-7 {
		return
	}
	for i := range axes {
		if i != longest {
			axes[i].planIn(T)
		}
	}
}
