package eol_test

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// sensorsOnly hides the simulator behind the runner's interface: its
// dynamic type is not *vehicle.MowerSim, so nothing can reach the ground
// truth through it, not even by a type assertion.
type sensorsOnly struct{ eol.Mower }

type quadOnly struct{ eol.Quad }

// The runners read no ground truth: run against vehicles that expose only
// their sensor data and commands, they write the same reports, byte for
// byte.
func TestNoGroundTruth(t *testing.T) {
	for _, c := range []mowerCase{{}, {noDog: true, unlimited: true}} {
		direct := runMower(t, newMower(t, c), c, "t").JSON()
		hidden := runMower(t, sensorsOnly{newMower(t, c)}, c, "t").JSON()
		if !bytes.Equal(direct, hidden) {
			t.Errorf("mower %+v: the report differs behind a sensors-only vehicle", c)
		}
	}
	if !bytes.Equal(runQuad(t, newQuad(t, 1), "t").JSON(), runQuad(t, quadOnly{newQuad(t, 1)}, "t").JSON()) {
		t.Errorf("quad: the report differs behind a sensors-only vehicle")
	}
}

// leafFields lists the fields of a struct type, recursively, as paths.
func leafFields(typ reflect.Type, prefix string) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := prefix + f.Name
		if f.Anonymous {
			name = prefix
		}
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == typ.PkgPath() {
			sep := "."
			if f.Anonymous {
				sep = ""
			}
			out = append(out, leafFields(f.Type, name+sep)...)
			continue
		}
		out = append(out, name)
	}
	return out
}

// What a mower tells the runner is its sensors and its gate's status, and
// nothing else. A new field here is a reviewed change to this list.
func TestMowerSensorsAreSensors(t *testing.T) {
	got := leafFields(reflect.TypeFor[vehicle.MowerSensors](), "")
	want := []string{"T",
		"IMU.T", "IMU.Seq", "IMU.Accel", "IMU.Gyro",
		"GNSS.T", "GNSS.Seq", "GNSS.Fix", "GNSS.SigmaM", "GNSS.Pos",
		"Joints.T", "Joints.Seq", "Joints.WheelRad", "Joints.WheelRadS", "Joints.BladeRadS",
		"Lidar.T", "Lidar.Seq", "Lidar.AngleMinRad", "Lidar.AngleIncRad", "Lidar.Ranges", "Lidar.MinM", "Lidar.MaxM", "Lidar.MountXM",
		"Battery.T", "Battery.Seq", "Battery.VoltageV", "Battery.CurrentA", "Battery.Remaining", "Battery.Cells",
		"Safety.Latched", "Safety.Ring", "Safety.Hold"}
	if !slices.Equal(got, want) {
		t.Errorf("MowerSensors fields:\n got %v\nwant %v", got, want)
	}
}

// The runner's package imports no simulator, no world and no trace: the
// only way it has to the robot is the interfaces.
func TestRunnerImportsNoTruth(t *testing.T) {
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/shakedown-robotics/shakedown/"
	banned := []string{"sim", "world", "trace", "run", "autopilot", "control"}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(".", n), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for _, b := range banned {
				if p == mod+b || strings.HasPrefix(p, mod+b+"/") {
					t.Errorf("%s imports %s", n, p)
				}
			}
			if p == "os" || strings.HasPrefix(p, "net") {
				t.Errorf("%s imports %s: the runner does no I/O of its own", n, p)
			}
		}
	}
}

// A cancelled context stops the run with its error and no report.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := eol.RunMower(ctx, newMower(t, mowerCase{}), eol.Options{Serial: "S", RunID: "r"})
	if err == nil || rep != nil {
		t.Errorf("cancelled run: got %v, %v; want an error and no report", rep, err)
	}
}
