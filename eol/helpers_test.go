package eol_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// runTime is the start time written into test reports.
var runTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// mowerCase describes a simulated mower.
type mowerCase struct {
	unlimited bool // blade motor without a torque limit (eol-1, eol-2)
	noDog     bool // gate without its watchdog (eol-1)
	noBlade   bool
	noLidar   bool
	faults    rover.Faults
	seed      uint64
}

func newMower(t testing.TB, c mowerCase) *vehicle.MowerSim {
	t.Helper()
	p := rover.DefaultParams()
	if c.unlimited {
		p.BladeTorqueNm = rover.Unlimited
	}
	seed := c.seed
	if seed == 0 {
		seed = 1
	}
	s, err := vehicle.NewMowerSim(vehicle.MowerSimConfig{
		Rover: rover.Config{Params: p, NoBlade: c.noBlade, NoLidar: c.noLidar},
		Gate:  gate.Config{NoWatchdog: c.noDog},
		Scene: world.Scene{Boxes: []world.Box{vehicle.MowerTestBox()}},
		Seed:  seed,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Rover().Faults = c.faults
	return s
}

func runMower(t testing.TB, m eol.Mower, c mowerCase, runID string) *eol.Report {
	t.Helper()
	rep, err := eol.RunMower(context.Background(), m, eol.Options{Serial: "MB-0001", RunID: runID, Time: runTime, NoBlade: c.noBlade, NoLidar: c.noLidar})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func newQuad(t testing.TB, seed uint64) *vehicle.Sim {
	t.Helper()
	s, err := vehicle.NewQuadTestSim(seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runQuad(t testing.TB, q eol.Quad, runID string) *eol.Report {
	t.Helper()
	rep, err := eol.RunQuad(context.Background(), q, eol.QuadOptions{Options: eol.Options{Serial: "QD-0001", RunID: runID, Time: runTime}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// ids returns the ids of the checks with result r.
func ids(rep *eol.Report, r eol.Result) []string {
	var out []string
	for _, c := range rep.Checks {
		if c.Result == r {
			out = append(out, c.ID)
		}
	}
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./eol -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, d)
	}
}
