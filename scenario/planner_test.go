package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/avoid"
)

func TestParsePlannerParams(t *testing.T) {
	in := "# tuned for a real camera\n" +
		"smoothing_margin_degrees_: 30\n" +
		"min_num_points_per_cell_: 50\n" +
		"max_point_age_s_: 8.5\n" +
		"tree_node_distance_: 1\n" +
		"min_sensor_range_: 1e-3\n"
	cfg, set, err := ParsePlannerParams("p.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := avoid.DefaultConfig()
	want.SmoothingDeg, want.MinPointsPerCell, want.PointAgeS, want.NodeDistM, want.MinRangeM = 30, 50, 8.5, 1, 0.001
	if cfg != want {
		t.Errorf("config = %+v\nwant     %+v", cfg, want)
	}
	wantSet := []PlannerParam{{"smoothing_margin_degrees_", 30, 40, 2}, {"min_num_points_per_cell_", 50, 1, 3},
		{"max_point_age_s_", 8.5, 20, 4}, {"tree_node_distance_", 1, 2, 5}, {"min_sensor_range_", 0.001, 0.2, 6}}
	if len(set) != len(wantSet) {
		t.Fatalf("set = %+v; want %+v", set, wantSet)
	}
	for i := range set {
		if set[i] != wantSet[i] {
			t.Errorf("set[%d] = %+v; want %+v", i, set[i], wantSet[i])
		}
	}
	// Flow style, and every default written out, give the defaults.
	var b strings.Builder
	b.WriteString("{")
	for i, n := range []string{"max_sensor_range_: 15", "min_sensor_range_: 0.2", "pitch_cost_param_: 25", "yaw_cost_param_: 3",
		"velocity_cost_param_: 6000", "obstacle_cost_param_: 8.5", "tree_heuristic_weight_: 35", "timeout_startup_: 5",
		"timeout_critical_: 0.5", "max_point_age_s_: 20", "min_num_points_per_cell_: 1", "smoothing_speed_xy_: 10",
		"smoothing_speed_z_: 3", "smoothing_margin_degrees_: 40", "children_per_node_: 8", "n_expanded_nodes_: 40",
		"tree_node_distance_: 2"} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	b.WriteString("}\n")
	cfg, set, err = ParsePlannerParams("defaults.yaml", []byte(b.String()))
	if err != nil || cfg != avoid.DefaultConfig() || len(set) != 17 {
		t.Errorf("the published defaults: %v, %d set, config %+v", err, len(set), cfg)
	}
	for _, p := range set {
		if p.Value != p.Default {
			t.Errorf("%s: value %v, default %v; want the default restated", p.Name, p.Value, p.Default)
		}
	}
}

func TestParsePlannerParamsBadInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"smoothing_margin_degrees_: 30\nbogus_param_: 1\n", "p.yaml:2: bogus_param_: unknown parameter (want one of LocalPlannerNode.cfg's: children_per_node_,"},
		{"goal_z_param: 3.5\n", "p.yaml:1: goal_z_param: not modelled by the embedded planner"},
		{"smoothing_margin_degrees_: 91\n", "p.yaml:1: smoothing_margin_degrees_: 91 out of [0, 90], the range PX4-Avoidance accepts"},
		{"max_sensor_range_: -1\n", "p.yaml:1: max_sensor_range_: -1 out of [0, 40]"},
		{"max_sensor_range_: 1e300\n", "p.yaml:1: max_sensor_range_: 1e+300 out of [0, 40]"},
		{"max_sensor_range_: .nan\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: .inf\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: fifteen\n", `p.yaml:1: max_sensor_range_: "fifteen" is not a number`},
		{"max_sensor_range_: '15'\n", `p.yaml:1: max_sensor_range_: "15" is not a number`},
		{"max_sensor_range_: Infinity\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: [15]\n", "p.yaml:1: max_sensor_range_: want a number, got a sequence"},
		{"max_sensor_range_:\n", "p.yaml:1: max_sensor_range_: want a number, got a null"},
		{"children_per_node_: 8.5\n", "p.yaml:1: children_per_node_: 8.5 is not a whole number"},
		{"yaw_cost_param_: 3\nyaw_cost_param_: 4\n", "p.yaml:2: "},
		{"- 1\n- 2\n", "p.yaml:1: want a mapping of planner parameters (name: value), got a sequence"},
		{"", "p.yaml: want one YAML mapping of planner parameters (name: value)"},
		// In range for PX4-Avoidance, but not a set the planner can run with.
		{"min_sensor_range_: 10\nmax_sensor_range_: 5\n", "p.yaml: avoid: range [10, 5] m is empty"},
		{"a: [[[[\n", "p.yaml"},
	} {
		_, set, err := ParsePlannerParams("p.yaml", []byte(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) || set != nil {
			t.Errorf("%q: error %v (%T), set %v; want a *ParseError starting %q", c.in, err, err, set, c.want)
		}
	}
	if _, _, err := ParsePlannerParams("big.yaml", make([]byte, MaxPlannerParamsBytes+1)); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("a file over the bound: %v; want ErrFileTooLarge", err)
	}
}

// Whatever parses is a configuration the planner accepts, with every
// parameter the file sets inside PX4-Avoidance's range; everything else is
// a *ParseError.
func FuzzParsePlannerParams(f *testing.F) {
	f.Add([]byte("smoothing_margin_degrees_: 30\nmin_num_points_per_cell_: 50\n"))
	f.Add([]byte("{max_sensor_range_: 15, min_sensor_range_: 0.2}"))
	f.Add([]byte("children_per_node_: 8.0\n"))
	f.Add([]byte("timeout_critical_: 0.2\n"))
	f.Add([]byte("x: &a [1]\ny: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, set, err := ParsePlannerParams("f.yaml", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *ParseError: %v", err, err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("parsed a configuration the planner refuses: %v", err)
		}
		for _, p := range set {
			r := plannerParams[p.Name]
			if r.set == nil || !(p.Value >= r.lo && p.Value <= r.hi) || p.Line < 1 || r.get(&cfg) != p.Value {
				t.Fatalf("parameter %+v: outside PX4-Avoidance's [%v, %v], not modelled, or not what the configuration holds", p, r.lo, r.hi)
			}
		}
	})
}
