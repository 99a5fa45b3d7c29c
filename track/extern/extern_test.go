package extern_test

import (
	"errors"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/track/extern"
	"github.com/shakedown-robotics/shakedown/track/extern/externtest"
	"github.com/shakedown-robotics/shakedown/traj"
)

// TestMain turns the test binary into the carrot tracker when asked to,
// so that tests can start it as a program.
func TestMain(m *testing.M) {
	switch os.Getenv(externtest.HelperEnv) {
	case "carrot":
		if err := externtest.Serve(os.Stdin, os.Stdout); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	case "huge":
		os.Stdout.WriteString(`{"ok":true}` + "\n" + `{"pos":[1e300,0,0]}` + "\n")
		// Read until the tracker closes the pipe: exiting earlier races the
		// tracker's next write (a broken pipe instead of the bad reply).
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var replyCases = []struct {
	name, line string
	err        string // "" = valid
}{
	{"pos", `{"pos":[1,2,-3],"progress":0.5}`, ""},
	{"vel and yaw", `{"vel":[1,0,0],"yaw":1.5,"done":false}`, ""},
	{"done alone", `{"done":true}`, ""},
	{"no setpoint", `{"progress":0.1}`, "neither pos nor vel"},
	{"huge", `{"pos":[1e300,0,0]}`, "pos[0] = 1e+300"},
	{"unknown field", `{"pos":[0,0,0],"speed":3}`, "unknown field"},
	{"two values", `{"pos":[0,0,0]} {}`, "more than one"},
	{"progress", `{"pos":[0,0,0],"progress":2}`, "progress = 2"},
	{"not json", `pos 1 2 3`, "invalid character"},
	{"short vector", `{"pos":[0,0]}`, ""},
	{"error", `{"error":"lost"}`, "the tracker failed: lost"},
	{"yaw", `{"vel":[0,0,0],"yaw":1e9}`, "yaw = 1e+09"},
}

func TestParseReply(t *testing.T) {
	for _, tc := range replyCases {
		r, err := extern.ParseReply([]byte(tc.line))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v; want an error containing %q", tc.name, err, tc.err)
		}
		if tc.name == "pos" && (r.Cmd.Pos != (geom.Vec3{X: 1, Y: 2, Z: -3}) || !math.IsNaN(r.Cmd.Vel.X) || r.Progress != 0.5) {
			t.Errorf("pos: %+v", r)
		}
	}
}

// FuzzParseReply: any line either fails or gives finite, bounded commands.
func FuzzParseReply(f *testing.F) {
	for _, tc := range replyCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := extern.ParseReply(line)
		if err != nil {
			return
		}
		for _, v := range []geom.Vec3{r.Cmd.Pos, r.Cmd.Vel, r.Cmd.Acc} {
			for _, x := range []float64{v.X, v.Y, v.Z} {
				if math.IsInf(x, 0) || math.Abs(x) > 1e4 {
					t.Fatalf("%q gave %v", line, x)
				}
			}
		}
		if !r.Done && math.IsNaN(r.Cmd.Pos.X) && math.IsNaN(r.Cmd.Vel.X) {
			t.Fatalf("%q: no setpoint and not done", line)
		}
		if !(r.Progress >= 0 && r.Progress <= 1) {
			t.Fatalf("%q: progress %v", line, r.Progress)
		}
	})
}

func line(t *testing.T) traj.Path {
	t.Helper()
	body, err := traj.Generate(traj.Line, nil)
	if err != nil {
		t.Fatal(err)
	}
	return body.World(traj.Pose{Pos: geom.Vec3{Z: -10}})
}

// TestProcess starts the carrot tracker as a program: it is asked at its
// rate of vehicle time, holds its command in between, and answers with the
// path's start at t0; a program that answers 1e300 ends the tracker with
// an error and a hold command.
func TestProcess(t *testing.T) {
	t.Setenv(externtest.HelperEnv, "carrot")
	p, err := extern.StartProcess([]string{os.Args[0]}, os.Stderr, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := extern.New("exec:carrot", p, 10)
	if err != nil {
		t.Fatal(err)
	}
	path := line(t)
	o := track.Odom{T: 5, Pos: geom.Vec3{Z: -10}}
	if err := tr.Start(path, o); err != nil {
		t.Fatal(err)
	}
	c := tr.Update(o)
	if want := path.Waypoints[0].Pos; c.Pos.Sub(want).Norm() > 1e-9 {
		t.Errorf("first command %v; want the path's start %v", c.Pos, want)
	}
	o.T = 5.05 // before the next 10-Hz tick: the same command
	if c2 := tr.Update(o); c2.Pos != c.Pos {
		t.Errorf("between ticks %v; want %v held", c2.Pos, c.Pos)
	}
	o.T = 6
	if c3 := tr.Update(o); c3.Pos.Sub(c.Pos).Norm() < 0.1 || tr.Err() != nil || tr.Progress() <= 0 {
		t.Errorf("after 1 s: %v (from %v), progress %v, err %v", c3.Pos, c.Pos, tr.Progress(), tr.Err())
	}
	if err := tr.Close(); err != nil {
		t.Errorf("close: %v", err)
	}

	t.Setenv(externtest.HelperEnv, "huge")
	p, err = extern.StartProcess([]string{os.Args[0]}, os.Stderr, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ = extern.New("exec:huge", p, 0)
	if err := tr.Start(path, o); err != nil {
		t.Fatal(err)
	}
	c = tr.Update(o)
	if !errors.Is(tr.Err(), extern.ErrReply) || !tr.Done() || c.Pos != o.Pos {
		t.Errorf("huge reply: err %v, done %v, command %v; want ErrReply, done, hold at %v", tr.Err(), tr.Done(), c.Pos, o.Pos)
	}
	tr.Close()
}
