package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shakedown-robotics/shakedown/avoid"
	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
)

// addPlannerParamsFlag adds --planner-params, the file of PX4-Avoidance
// local-planner parameters the embedded simulator's planner flies with.
func addPlannerParamsFlag(fl *pflag.FlagSet, path *string) {
	fl.StringVar(path, "planner-params", "", "`FILE` of PX4-Avoidance local-planner parameters (YAML, LocalPlannerNode.cfg's names, e.g. smoothing_margin_degrees_: 30) for the embedded planner; unset ones keep PX4-Avoidance's defaults")
}

// plannerParams loads --planner-params (nil when it is unset) and tells
// warn which parameters differ from PX4-Avoidance's defaults.
func plannerParams(path string, warn io.Writer) (*avoid.Config, error) {
	if path == "" {
		return nil, nil
	}
	cfg, set, err := scenario.LoadPlannerParams(path)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, p := range set {
		if p.Value != p.Default {
			changed = append(changed, fmt.Sprintf("%s %s (default %s)", p.Name,
				strconv.FormatFloat(p.Value, 'g', -1, 64), strconv.FormatFloat(p.Default, 'g', -1, 64)))
		}
	}
	if warn != nil {
		if len(changed) == 0 {
			fmt.Fprintf(warn, "planner parameters from %s: PX4-Avoidance's defaults\n", path)
		} else {
			fmt.Fprintf(warn, "planner parameters from %s: %s\n", path, strings.Join(changed, ", "))
		}
	}
	return &cfg, nil
}

// runPlannerParams is plannerParams for `run`, whose --planner-params
// needs the embedded simulator and the autopilot with the planner.
func runPlannerParams(f runFlags) (*avoid.Config, error) {
	switch {
	case f.plannerParams == "":
		return nil, nil
	case f.autopilot != run.AutopilotAvoid:
		return nil, fmt.Errorf("--planner-params needs --autopilot %s, the one with the planner", run.AutopilotAvoid)
	case f.engines.engine != "" && f.engines.engine != campaign.EngineEmbedded:
		return nil, fmt.Errorf("--planner-params sets the embedded simulator's planner, not --engine %s", f.engines.engine)
	}
	return plannerParams(f.plannerParams, f.warn)
}
