package fidelity

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/ulog"
	"github.com/shakedown-robotics/shakedown/world"
)

// FromFolder builds references from a folder of test YAMLs each with the
// PX4 log of its flight beside it (test_0.yaml and test_0.ulg, as
// Aerialist leaves them): PX4's minimum distance is measured on the log's
// trajectory by Aerialist's rule (0.5-s bins, 2-D distance to each
// footprint), and its airborne time from the same trajectory. A YAML
// without a log is an error naming it.
func FromFolder(dir string) ([]Reference, error) {
	yamls, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(yamls)
	if len(yamls) == 0 {
		return nil, fmt.Errorf("%s: no test YAML", dir)
	}
	var out []Reference
	for i, y := range yamls {
		base := strings.TrimSuffix(y, filepath.Ext(y))
		cs, err := scenario.LoadCaseStudy(y)
		if err != nil {
			return nil, err
		}
		tr, err := readULogTrajectory(base + ".ulg")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", y, err)
		}
		ref := Reference{Line: i + 1, Test: filepath.Base(base), Mission: missionName(cs), YAML: y, AirborneS: math.NaN(), Usable: true}
		if len(cs.Obstacles) == 0 {
			return nil, fmt.Errorf("%s: no obstacles to measure a distance to", y)
		}
		path := trace.Positions(trace.Resample(tr, run.ResamplePeriodS))
		ref.MinDistM = world.MinClearance(cs.Obstacles, path, make([]float64, len(cs.Obstacles)))
		if a := airborneS(tr); a > 0 {
			ref.AirborneS = a
		}
		out = append(out, ref)
	}
	return out, nil
}

// missionName is the competition mission a case study flies, or "" when it
// is not one of them.
func missionName(cs *scenario.CaseStudy) string {
	for _, m := range scenario.CompetitionNames() {
		if cs.Mission.Name == m || strings.HasPrefix(cs.Mission.Name, m+".") {
			return m
		}
	}
	return ""
}

func readULogTrajectory(name string) ([]trace.Sample, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	lg, err := ulog.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	tr, err := ulog.Trajectory(lg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tr, nil
}

// airborneS is the time from the first sample more than 0.3 m above the
// start to the last one.
func airborneS(tr []trace.Sample) float64 {
	first, last := -1, -1
	for i, s := range tr {
		if s.Pos.Z < -0.3 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0
	}
	return tr[last].T - tr[first].T
}
