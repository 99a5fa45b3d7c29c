package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	yaml "github.com/goccy/go-yaml"

	"github.com/shakedown-robotics/shakedown/avoid"
)

// expectConfig is avoid.DefaultConfig with the parameters of vals applied,
// written out field by field apart from the package's table, so that a
// parameter mapped to the wrong field fails the tests.
func expectConfig(t testing.TB, vals map[string]float64) avoid.Config {
	c := avoid.DefaultConfig()
	for k, v := range vals {
		switch k {
		case "max_sensor_range_":
			c.MaxRangeM = v
		case "min_sensor_range_":
			c.MinRangeM = v
		case "pitch_cost_param_":
			c.PitchCost = v
		case "yaw_cost_param_":
			c.YawCost = v
		case "velocity_cost_param_":
			c.VelocityCost = v
		case "obstacle_cost_param_":
			c.ObstacleCostM = v
		case "tree_heuristic_weight_":
			c.HeuristicWeight = v
		case "timeout_startup_":
			c.TimeoutStartupS = v
		case "timeout_critical_":
			c.TimeoutCriticalS = v
		case "max_point_age_s_":
			c.PointAgeS = v
		case "min_num_points_per_cell_":
			c.MinPointsPerCell = int(v)
		case "smoothing_speed_xy_":
			c.SmoothXY = v
		case "smoothing_speed_z_":
			c.SmoothZ = v
		case "smoothing_margin_degrees_":
			c.SmoothingDeg = v
		case "children_per_node_":
			c.Children = int(v)
		case "n_expanded_nodes_":
			c.ExpandedNodes = int(v)
		case "tree_node_distance_":
			c.NodeDistM = v
		default:
			t.Fatalf("no field for %q", k)
		}
	}
	return c
}

// cfgFile is LocalPlannerNode.cfg's modelled parameters, written out apart
// from the package's table: the default, the range dynamic_reconfigure
// accepts, and a value of the test's own, none equal to its default.
var cfgFile = map[string]struct{ def, lo, hi, own float64 }{
	"max_sensor_range_":         {15, 0, 40, 12.5},
	"min_sensor_range_":         {0.2, 0, 10, 0.35},
	"pitch_cost_param_":         {25, 0, 30, 21},
	"yaw_cost_param_":           {3, 0, 20, 4.5},
	"velocity_cost_param_":      {6000, 0, 50000, 7000},
	"obstacle_cost_param_":      {8.5, 0, 30, 7.25},
	"tree_heuristic_weight_":    {35, 0, 50, 30},
	"timeout_startup_":          {5, 0, 60, 6},
	"timeout_critical_":         {0.5, 0, 10, 0.75},
	"max_point_age_s_":          {20, 0, 500, 11},
	"min_num_points_per_cell_":  {1, 1, 500, 3},
	"smoothing_speed_xy_":       {10, 0, 30, 8},
	"smoothing_speed_z_":        {3, 0, 30, 2.5},
	"smoothing_margin_degrees_": {40, 0, 90, 33},
	"children_per_node_":        {8, 0, 100, 6},
	"n_expanded_nodes_":         {40, 0, 200, 25},
	"tree_node_distance_":       {2, 0, 20, 1.5},
}

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
	want := expectConfig(t, map[string]float64{"smoothing_margin_degrees_": 30, "min_num_points_per_cell_": 50,
		"max_point_age_s_": 8.5, "tree_node_distance_": 1, "min_sensor_range_": 0.001})
	if cfg != want {
		t.Errorf("config = %+v\nwant     %+v", cfg, want)
	}
	wantSet := []PlannerParam{{"smoothing_margin_degrees_", 30, 40, 2}, {"min_num_points_per_cell_", 50, 1, 3},
		{"max_point_age_s_", 8.5, 20, 4}, {"tree_node_distance_", 1, 2, 5}, {"min_sensor_range_", 0.001, 0.2, 6}}
	if fmt.Sprint(set) != fmt.Sprint(wantSet) {
		t.Errorf("set = %+v\nwant  %+v", set, wantSet)
	}

	// All seventeen, each to a value of its own, in block style with a
	// byte-order mark and CRLF line ends.
	own := map[string]float64{}
	for k, r := range cfgFile {
		own[k] = r.own
	}
	var b strings.Builder
	b.WriteString("\xef\xbb\xbf")
	for _, k := range modelledNames() {
		fmt.Fprintf(&b, "%s: %s\r\n", k, strconv.FormatFloat(cfgFile[k].own, 'g', -1, 64))
	}
	cfg, set, err = ParsePlannerParams("all.yaml", []byte(b.String()))
	if err != nil || cfg != expectConfig(t, own) || len(set) != len(own) {
		t.Errorf("every parameter: %v, %d set\nconfig %+v\nwant   %+v", err, len(set), cfg, expectConfig(t, own))
	}
	for _, p := range set {
		if p.Default != cfgFile[p.Name].def {
			t.Errorf("%s: default %v; want PX4-Avoidance's %v", p.Name, p.Default, cfgFile[p.Name].def)
		}
	}

	// The published defaults restated, in flow style, change nothing.
	b.Reset()
	b.WriteString("{")
	for i, k := range modelledNames() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %v", k, cfgFile[k].def)
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

// Each parameter's range is PX4-Avoidance's: its ends pass (or meet the
// embedded planner's own condition), a step beyond either end is refused.
func TestPlannerParamRanges(t *testing.T) {
	if len(cfgFile) != len(modelledNames()) {
		t.Fatalf("%d parameters in the test's table, %d modelled", len(cfgFile), len(modelledNames()))
	}
	for k, r := range cfgFile {
		for _, v := range []float64{r.lo - 1, r.hi + 1} {
			_, _, err := ParsePlannerParams("p.yaml", []byte(fmt.Sprintf("%s: %v\n", k, v)))
			if want := fmt.Sprintf("p.yaml:1: %s: %v out of [%v, %v], the range PX4-Avoidance accepts", k, v, r.lo, r.hi); err == nil || err.Error() != want {
				t.Errorf("%s: %v: %v; want %q", k, v, err, want)
			}
		}
	}
}

func TestParsePlannerParamsBadInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"smoothing_margin_degrees_: 30\nbogus_param_: 1\n", "p.yaml:2: bogus_param_: unknown parameter (want one of children_per_node_,"},
		{"local_planner_nodelet: {smoothing_margin_degrees_: 30}\n", "p.yaml:1: local_planner_nodelet: unknown parameter"},
		{"goal_z_param: 3.5\n", "p.yaml:1: goal_z_param: not modelled by the embedded planner"},
		{"smoothing_margin_degrees_: 91\n", "p.yaml:1: smoothing_margin_degrees_: 91 out of [0, 90], the range PX4-Avoidance accepts"},
		{"max_sensor_range_: 1e300\n", "p.yaml:1: max_sensor_range_: 1e+300 out of [0, 40]"},
		{"max_sensor_range_: 1e999\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: .nan\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: .inf\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: +.inf\n", "p.yaml:1: max_sensor_range_: not a finite number"},
		{"max_sensor_range_: fifteen\n", `p.yaml:1: max_sensor_range_: "fifteen" is not a number`},
		{"max_sensor_range_: '15'\n", `p.yaml:1: max_sensor_range_: "15" is not a number`},
		{"max_sensor_range_: 0x1p3\n", `p.yaml:1: max_sensor_range_: "0x1p3" is not a number`},
		{"max_sensor_range_: 010\n", `p.yaml:1: max_sensor_range_: "010": write the number in plain decimal`},
		{"max_sensor_range_: [15]\n", "p.yaml:1: max_sensor_range_: want a number, got a sequence"},
		{"max_sensor_range_:\n", "p.yaml:1: max_sensor_range_: want a number, got a null"},
		{"max_sensor_range_: &a 15\n", "p.yaml:1: max_sensor_range_: anchors, aliases and tags are not supported"},
		{"max_sensor_range_: !!float 15\n", "p.yaml:1: max_sensor_range_: anchors, aliases and tags are not supported"},
		{"!!str max_sensor_range_: 15\n", "p.yaml:1: a parameter's name must be plain text"},
		{"? max_sensor_range_\n: 15\n", "p.yaml:1: a parameter's name must be plain text"},
		{"children_per_node_: 8.5\n", "p.yaml:1: children_per_node_: 8.5 is not a whole number"},
		{"yaw_cost_param_: 3\nyaw_cost_param_: 4\n", "p.yaml:2: "},
		{"- 1\n- 2\n", "p.yaml:1: want a mapping of planner parameters (name: value), got a sequence"},
		{"", "p.yaml: no parameters"},
		{"yaw_cost_param_: 3\n---\npitch_cost_param_: 2\n", "p.yaml:3: 2 YAML documents, want one"},
		// In PX4-Avoidance's range, but not a set the embedded planner can run with.
		{"tree_node_distance_: 0\n", "p.yaml:1: tree_node_distance_: 0: the embedded planner needs a value above 0"},
		{"children_per_node_: 100\n", "p.yaml:1: children_per_node_: 100: the embedded planner takes 1 to 64 children per node"},
		{"timeout_critical_: 0.3\n", "p.yaml:1: timeout_critical_: 0.3: the embedded planner plans at most every 0.3 s"},
		{"min_sensor_range_: 10\nmax_sensor_range_: 5\n", "p.yaml:2: min_sensor_range_, max_sensor_range_: min_sensor_range_ 10 (line 1) must be below max_sensor_range_ 5 (line 2)"},
		{"max_sensor_range_: 0.1\n", "p.yaml:1: min_sensor_range_, max_sensor_range_: min_sensor_range_ 0.2 (default) must be below max_sensor_range_ 0.1 (line 1)"},
		{"a: [[[[\n", "p.yaml"},
	} {
		_, set, err := ParsePlannerParams("p.yaml", []byte(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) || set != nil {
			t.Errorf("%q: error %v (%T), set %v; want a *ParseError starting %q", c.in, err, err, set, c.want)
		}
	}
	long := strings.Repeat("k", 60000)
	if _, _, err := ParsePlannerParams("p.yaml", []byte(long+": 1\n")); err == nil || len(err.Error()) > 600 {
		t.Errorf("a 60-KB unknown name: message of %d bytes; want it cut", len(fmt.Sprint(err)))
	}
	if _, _, err := ParsePlannerParams("big.yaml", make([]byte, MaxPlannerParamsBytes+1)); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("a file over the bound: %v; want ErrFileTooLarge", err)
	}
}

// Whatever parses is avoid.DefaultConfig with exactly the fields an
// independent YAML decode of the file names changed to its values; no
// input panics the parser, and every refusal is a *ParseError.
func FuzzParsePlannerParams(f *testing.F) {
	f.Add([]byte("smoothing_margin_degrees_: 30\nmin_num_points_per_cell_: 50\n"))
	f.Add([]byte("{max_sensor_range_: 15, min_sensor_range_: 0.2}"))
	f.Add([]byte("children_per_node_: 8.0\n"))
	f.Add([]byte("timeout_critical_: 0.4\nmin_sensor_range_: 1e-3\n"))
	f.Add([]byte("x: &a [1]\ny: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, set, err := ParsePlannerParams("f.yaml", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *ParseError: %v", err, err)
			}
			if strings.Contains(err.Error(), "YAML parser failed") {
				t.Fatalf("the parser panicked: %v", err)
			}
			return
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("parsed, but an independent decode refuses it: %v", err)
		}
		vals := map[string]float64{}
		for k, v := range doc {
			var x float64
			switch v := v.(type) {
			case uint64:
				x = float64(v)
			case int64:
				x = float64(v)
			case float64:
				x = v
			case string:
				x, err = strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: %q taken for a number", k, v)
				}
			default:
				t.Fatalf("%s: %v (%T) taken for a number", k, v, v)
			}
			vals[k] = x + 0
		}
		if len(set) != len(vals) {
			t.Fatalf("%d parameters set, the file has %d: %v", len(set), len(vals), doc)
		}
		for _, p := range set {
			if x, ok := vals[p.Name]; !ok || x != p.Value || p.Line < 1 {
				t.Fatalf("parameter %+v; the file says %v", p, doc[p.Name])
			}
		}
		if want := expectConfig(t, vals); cfg != want || cfg.Validate() != nil {
			t.Fatalf("config %+v\nwant   %+v", cfg, want)
		}
	})
}
