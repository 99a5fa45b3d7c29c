package robot

import (
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
)

func near3(a, b geom.Vec3, tol float64) bool { return a.Sub(b).Norm() <= tol }

func TestFramesKnownAnswers(t *testing.T) {
	tests := []struct {
		name      string
		ned, want geom.Vec3
	}{
		{"north is +y in ENU", geom.Vec3{X: 1}, geom.Vec3{Y: 1}},
		{"east is +x in ENU", geom.Vec3{Y: 1}, geom.Vec3{X: 1}},
		{"down is -z in ENU", geom.Vec3{Z: 1}, geom.Vec3{Z: -1}},
		{"10 m up, 3 m north, 4 m west", geom.Vec3{X: 3, Y: -4, Z: -10}, geom.Vec3{X: -4, Y: 3, Z: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ENU(tt.ned); got != tt.want {
				t.Errorf("ENU(%v) = %v; want %v", tt.ned, got, tt.want)
			}
			if got := NED(tt.want); got != tt.ned {
				t.Errorf("NED(%v) = %v; want %v", tt.want, got, tt.ned)
			}
		})
	}
	if got, want := FLU(geom.Vec3{X: 1, Y: 2, Z: 3}), (geom.Vec3{X: 1, Y: -2, Z: -3}); got != want {
		t.Errorf("FLU = %v; want %v", got, want)
	}
	// A vehicle at rest feels +g upward: FRD (0, 0, -9.81) is FLU (0, 0, +9.81).
	if got, want := FLU(geom.Vec3{Z: -9.81}), (geom.Vec3{Z: 9.81}); got != want {
		t.Errorf("FLU(rest) = %v; want %v", got, want)
	}
}

func TestAttitudeConversion(t *testing.T) {
	tests := []struct {
		name            string
		roll, pitch, yw float64 // NED Euler angles
		wantYawENU      float64
	}{
		{"level facing north", 0, 0, 0, math.Pi / 2},
		{"level facing east", 0, 0, math.Pi / 2, 0},
		{"facing west", 0, 0, -math.Pi / 2, math.Pi},
		{"tilted facing south-east", 0.2, -0.3, 3 * math.Pi / 4, -math.Pi / 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := geom.QuatEuler(tt.roll, tt.pitch, tt.yw)
			e := AttENU(q)
			// Same physical rotation: a body vector mapped either way lands
			// on the same world vector.
			for _, v := range []geom.Vec3{{X: 1}, {Y: 1}, {Z: 1}, {X: 0.3, Y: -2, Z: 0.5}} {
				viaNED := ENU(q.Rotate(v))
				viaENU := e.Rotate(FLU(v))
				if !near3(viaNED, viaENU, 1e-12) {
					t.Errorf("body %v: NED path %v, ENU path %v", v, viaNED, viaENU)
				}
			}
			// ENU yaw of a level vehicle is the heading of its x axis.
			if tt.roll == 0 && tt.pitch == 0 {
				fwd := e.Rotate(geom.Vec3{X: 1})
				if got := math.Atan2(fwd.Y, fwd.X); math.Abs(wrap(got-tt.wantYawENU)) > 1e-12 {
					t.Errorf("ENU heading %v; want %v", got, tt.wantYawENU)
				}
			}
			if got := YawENU(tt.yw); math.Abs(wrap(got-tt.wantYawENU)) > 1e-12 {
				t.Errorf("YawENU(%v) = %v; want %v", tt.yw, got, tt.wantYawENU)
			}
			back := AttNED(e)
			for _, v := range []geom.Vec3{{X: 1}, {Y: 1}, {Z: 1}} {
				if !near3(back.Rotate(v), q.Rotate(v), 1e-12) {
					t.Errorf("AttNED(AttENU(q)) rotates %v to %v; want %v", v, back.Rotate(v), q.Rotate(v))
				}
			}
			if got := YawNED(YawENU(tt.yw)); math.Abs(wrap(got-tt.yw)) > 1e-12 {
				t.Errorf("YawNED(YawENU(%v)) = %v", tt.yw, got)
			}
		})
	}
}
