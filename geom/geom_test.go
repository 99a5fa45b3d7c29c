package geom

import (
	"math"
	"testing"
)

// tol covers a few roundings of unit-sized values.
const tol = 1e-12

func near(got, want float64) bool { return math.Abs(got-want) <= tol }

func nearVec3(got, want Vec3) bool {
	return near(got.X, want.X) && near(got.Y, want.Y) && near(got.Z, want.Z)
}

func TestQuatRotate(t *testing.T) {
	s := math.Sqrt2 / 2
	tests := []struct {
		name string
		q    Quat
		v    Vec3
		want Vec3
	}{
		{"identity", QuatIdentity, Vec3{1, 2, 3}, Vec3{1, 2, 3}},
		// Yaw +90° turns North (x) to East (y), and East to South.
		{"yaw 90 x", QuatEuler(0, 0, math.Pi/2), Vec3{1, 0, 0}, Vec3{0, 1, 0}},
		{"yaw 90 y", QuatEuler(0, 0, math.Pi/2), Vec3{0, 1, 0}, Vec3{-1, 0, 0}},
		// Pitch +90° (nose up) turns the body x axis to NED up, −z.
		{"pitch 90 x", QuatEuler(0, math.Pi/2, 0), Vec3{1, 0, 0}, Vec3{0, 0, -1}},
		// Roll +90° (right wing down) turns body y to NED down, +z.
		{"roll 90 y", QuatEuler(math.Pi/2, 0, 0), Vec3{0, 1, 0}, Vec3{0, 0, 1}},
		{"axis angle z 45", QuatAxisAngle(Vec3{0, 0, math.Pi / 4}), Vec3{1, 0, 0}, Vec3{s, s, 0}},
		{"axis angle x 180", QuatAxisAngle(Vec3{math.Pi, 0, 0}), Vec3{0, 1, 1}, Vec3{0, -1, -1}},
		// Yaw then pitch: the body x axis points 45° up toward East.
		{"yaw 90 pitch 45", QuatEuler(0, math.Pi/4, math.Pi/2), Vec3{1, 0, 0}, Vec3{0, s, -s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.q.Rotate(tt.v)
			if !nearVec3(got, tt.want) {
				t.Errorf("Rotate(%v) = %v; want %v", tt.v, got, tt.want)
			}
			if back := tt.q.RotateInv(got); !nearVec3(back, tt.v) {
				t.Errorf("RotateInv(Rotate(%v)) = %v; want %v", tt.v, back, tt.v)
			}
		})
	}
}

func TestQuatEulerRoundTrip(t *testing.T) {
	tests := []struct {
		name             string
		roll, pitch, yaw float64
	}{
		{"zero", 0, 0, 0},
		{"roll", 0.3, 0, 0},
		{"pitch", 0, -0.7, 0},
		{"yaw", 0, 0, 2.5},
		{"all", 0.2, -0.4, -3},
		{"steep", -1.2, 1.4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := QuatEuler(tt.roll, tt.pitch, tt.yaw)
			if n := q.Norm(); !near(n, 1) {
				t.Errorf("|q| = %v; want 1", n)
			}
			r, p, y := q.Euler()
			if !near(r, tt.roll) || !near(p, tt.pitch) || !near(y, tt.yaw) {
				t.Errorf("Euler() = (%v, %v, %v); want (%v, %v, %v)", r, p, y, tt.roll, tt.pitch, tt.yaw)
			}
			if y := q.Yaw(); !near(y, tt.yaw) {
				t.Errorf("Yaw() = %v; want %v", y, tt.yaw)
			}
		})
	}
}

func TestQuatBetween(t *testing.T) {
	s := math.Sqrt2 / 2
	tests := []struct {
		name string
		a, b Vec3
	}{
		{"same", Vec3{1, 0, 0}, Vec3{1, 0, 0}},
		{"x to y", Vec3{1, 0, 0}, Vec3{0, 1, 0}},
		{"z to diagonal", Vec3{0, 0, 1}, Vec3{s, 0, s}},
		{"opposite x", Vec3{1, 0, 0}, Vec3{-1, 0, 0}},
		{"opposite z", Vec3{0, 0, 1}, Vec3{0, 0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := QuatBetween(tt.a, tt.b)
			if got := q.Rotate(tt.a); !nearVec3(got, tt.b) {
				t.Errorf("QuatBetween(%v, %v).Rotate(a) = %v; want %v", tt.a, tt.b, got, tt.b)
			}
		})
	}
	// x to y is the 90° turn about z: (cos 45°, 0, 0, sin 45°).
	want := Quat{s, 0, 0, s}
	got := QuatBetween(Vec3{1, 0, 0}, Vec3{0, 1, 0})
	if !near(got.W, want.W) || !near(got.X, want.X) || !near(got.Y, want.Y) || !near(got.Z, want.Z) {
		t.Errorf("QuatBetween(x, y) = %v; want %v", got, want)
	}
}

func TestWrapPi(t *testing.T) {
	tests := []struct {
		name    string
		in, out float64
	}{
		{"zero", 0, 0},
		{"inside", 1, 1},
		{"pi stays", math.Pi, math.Pi},
		{"minus pi to pi", -math.Pi, math.Pi},
		{"three halves pi", 1.5 * math.Pi, -0.5 * math.Pi},
		{"minus three halves pi", -1.5 * math.Pi, 0.5 * math.Pi},
		{"five halves pi", 2.5 * math.Pi, 0.5 * math.Pi},
		{"two pi", 2 * math.Pi, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WrapPi(tt.in); !near(got, tt.out) {
				t.Errorf("WrapPi(%v) = %v; want %v", tt.in, got, tt.out)
			}
		})
	}
}

func TestPointSegmentDist(t *testing.T) {
	tests := []struct {
		name    string
		p, a, b Vec2
		want    float64
	}{
		{"on segment", Vec2{1, 0}, Vec2{0, 0}, Vec2{2, 0}, 0},
		{"above middle", Vec2{1, 3}, Vec2{0, 0}, Vec2{2, 0}, 3},
		{"beyond end", Vec2{5, 4}, Vec2{0, 0}, Vec2{2, 0}, 5},
		{"before start", Vec2{-1, -1}, Vec2{0, 0}, Vec2{2, 0}, math.Sqrt2},
		{"degenerate", Vec2{3, 4}, Vec2{0, 0}, Vec2{0, 0}, 5},
		// The diagonal x = y is √2/2·|x − y| from a point.
		{"diagonal", Vec2{2, 0}, Vec2{-5, -5}, Vec2{5, 5}, math.Sqrt2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PointSegmentDist(tt.p, tt.a, tt.b); !near(got, tt.want) {
				t.Errorf("PointSegmentDist(%v, %v, %v) = %v; want %v", tt.p, tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestSegmentSegmentDist(t *testing.T) {
	tests := []struct {
		name           string
		p1, p2, q1, q2 Vec2
		want           float64
	}{
		{"crossing", Vec2{-1, 0}, Vec2{1, 0}, Vec2{0, -1}, Vec2{0, 1}, 0},
		{"touching end", Vec2{0, 0}, Vec2{1, 0}, Vec2{1, 0}, Vec2{1, 5}, 0},
		{"T touching", Vec2{-1, 0}, Vec2{1, 0}, Vec2{0, 0}, Vec2{0, 1}, 0},
		{"parallel", Vec2{0, 0}, Vec2{4, 0}, Vec2{1, 1}, Vec2{3, 1}, 1},
		{"collinear gap", Vec2{0, 0}, Vec2{1, 0}, Vec2{3, 0}, Vec2{4, 0}, 2},
		{"collinear overlap", Vec2{0, 0}, Vec2{2, 0}, Vec2{1, 0}, Vec2{4, 0}, 0},
		{"T apart", Vec2{-1, 0}, Vec2{1, 0}, Vec2{0, 2}, Vec2{0, 5}, 2},
		// End (4, 0) to end (7, 4): a 3-4-5 triangle.
		{"ends apart", Vec2{0, 0}, Vec2{4, 0}, Vec2{7, 4}, Vec2{9, 9}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SegmentSegmentDist(tt.p1, tt.p2, tt.q1, tt.q2); !near(got, tt.want) {
				t.Errorf("SegmentSegmentDist = %v; want %v", got, tt.want)
			}
			if got := SegmentSegmentDist(tt.q1, tt.q2, tt.p1, tt.p2); !near(got, tt.want) {
				t.Errorf("SegmentSegmentDist (swapped) = %v; want %v", got, tt.want)
			}
		})
	}
}
