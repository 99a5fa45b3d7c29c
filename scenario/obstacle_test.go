package scenario

import (
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/world"
)

// obstacleCases feed TestParseObstacle and the seeds of FuzzParseObstacle.
var obstacleCases = []struct {
	name    string
	in      string
	want    world.Box
	wantErr string
}{
	{"plain", "10,5,20,-8,24.5,0,30", world.Box{L: 10, W: 5, H: 20, X: -8, Y: 24.5, Z: 0, R: 30}, ""},
	{"spaces", " 12.5 , 4,20, 1e1 ,-0.5,0, 90 ", world.Box{L: 12.5, W: 4, H: 20, X: 10, Y: -0.5, R: 90}, ""},
	{"negative zero", "1,1,1,-0,0,0,0", world.Box{L: 1, W: 1, H: 1}, ""},
	{"six fields", "10,5,20,-8,24.5,0", world.Box{}, `obstacle "10,5,20,-8,24.5,0": want 7 comma-separated numbers l,w,h,x,y,z,r, got 6`},
	{"eight fields", "1,2,3,4,5,6,7,8", world.Box{}, "got 8"},
	{"empty", "", world.Box{}, "got 1"},
	{"not a number", "10,five,20,-8,24.5,0,30", world.Box{}, `obstacle "10,five,20,-8,24.5,0,30": w: "five" is not a number`},
	{"empty field", "10,5,,-8,24.5,0,30", world.Box{}, `h: "" is not a number`},
	{"NaN", "10,5,20,NaN,24.5,0,30", world.Box{}, `x: NaN is not a finite number`},
	{"Inf", "10,5,20,-8,24.5,0,-Inf", world.Box{}, `r: -Inf is not a finite number`},
	{"overflow", "10,5,20,-8,1e999,0,30", world.Box{}, `y: "1e999" is not a number`},
}

func TestParseObstacle(t *testing.T) {
	for _, c := range obstacleCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseObstacle(c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("got error %v; want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v; want none", err)
			}
			if got != c.want {
				t.Errorf("got %+v; want %+v", got, c.want)
			}
			back, err := ParseObstacle(got.String())
			if err != nil || back != got {
				t.Errorf("ParseObstacle(%q) = %+v, %v; want %+v", got.String(), back, err, got)
			}
		})
	}
}
