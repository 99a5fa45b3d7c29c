package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/shakedown-robotics/shakedown/avoid"
)

// MaxPlannerParamsBytes bounds a planner-parameter file: the 19 parameters
// of LocalPlannerNode.cfg with comments fit in a few kilobytes.
const MaxPlannerParamsBytes = 64 << 10

// plannerParam is one parameter of PX4-Avoidance's local planner as its
// dynamic_reconfigure file (LocalPlannerNode.cfg, c386852c) declares it:
// the name, the range dynamic_reconfigure accepts, whether it is an
// integer, and the field of avoid.Config it reads and sets (nil: the
// embedded planner does not model it).
type plannerParam struct {
	lo, hi float64
	isInt  bool
	get    func(c *avoid.Config) float64
	set    func(c *avoid.Config, v float64)
}

var plannerParams = map[string]plannerParam{
	"max_sensor_range_":         num(0, 40, func(c *avoid.Config) *float64 { return &c.MaxRangeM }),
	"min_sensor_range_":         num(0, 10, func(c *avoid.Config) *float64 { return &c.MinRangeM }),
	"pitch_cost_param_":         num(0, 30, func(c *avoid.Config) *float64 { return &c.PitchCost }),
	"yaw_cost_param_":           num(0, 20, func(c *avoid.Config) *float64 { return &c.YawCost }),
	"velocity_cost_param_":      num(0, 50000, func(c *avoid.Config) *float64 { return &c.VelocityCost }),
	"obstacle_cost_param_":      num(0, 30, func(c *avoid.Config) *float64 { return &c.ObstacleCostM }),
	"tree_heuristic_weight_":    num(0, 50, func(c *avoid.Config) *float64 { return &c.HeuristicWeight }),
	"goal_z_param":              unmodelled(-20, 20),
	"timeout_startup_":          num(0, 60, func(c *avoid.Config) *float64 { return &c.TimeoutStartupS }),
	"timeout_critical_":         num(0, 10, func(c *avoid.Config) *float64 { return &c.TimeoutCriticalS }),
	"timeout_termination_":      unmodelled(0, 1000),
	"max_point_age_s_":          num(0, 500, func(c *avoid.Config) *float64 { return &c.PointAgeS }),
	"min_num_points_per_cell_":  whole(1, 500, func(c *avoid.Config) *int { return &c.MinPointsPerCell }),
	"smoothing_speed_xy_":       num(0, 30, func(c *avoid.Config) *float64 { return &c.SmoothXY }),
	"smoothing_speed_z_":        num(0, 30, func(c *avoid.Config) *float64 { return &c.SmoothZ }),
	"smoothing_margin_degrees_": num(0, 90, func(c *avoid.Config) *float64 { return &c.SmoothingDeg }),
	"children_per_node_":        whole(0, 100, func(c *avoid.Config) *int { return &c.Children }),
	"n_expanded_nodes_":         whole(0, 200, func(c *avoid.Config) *int { return &c.ExpandedNodes }),
	"tree_node_distance_":       num(0, 20, func(c *avoid.Config) *float64 { return &c.NodeDistM }),
}

// num, whole and unmodelled make the table's entries: a float or integer
// field of avoid.Config, or a parameter the embedded planner lacks.
func num(lo, hi float64, f func(*avoid.Config) *float64) plannerParam {
	return plannerParam{lo: lo, hi: hi, get: func(c *avoid.Config) float64 { return *f(c) }, set: func(c *avoid.Config, v float64) { *f(c) = v }}
}

func whole(lo, hi float64, f func(*avoid.Config) *int) plannerParam {
	return plannerParam{lo: lo, hi: hi, isInt: true, get: func(c *avoid.Config) float64 { return float64(*f(c)) },
		set: func(c *avoid.Config, v float64) { *f(c) = int(v) }}
}

func unmodelled(lo, hi float64) plannerParam { return plannerParam{lo: lo, hi: hi} }

// PlannerParamNames returns the parameter names ParsePlannerParams knows,
// sorted.
func PlannerParamNames() []string { return sortedKeys(plannerParams) }

// PlannerParam is one parameter a planner-parameter file set: its value,
// PX4-Avoidance's default, and the line.
type PlannerParam struct {
	Name           string
	Value, Default float64
	Line           int
}

// ParsePlannerParams reads a YAML mapping of PX4-Avoidance local-planner
// parameters, named as in LocalPlannerNode.cfg (the names a launch file's
// <param> tags or rosparam use, e.g. smoothing_margin_degrees_: 30), and
// returns avoid.DefaultConfig with them applied, and the parameters in file
// order. An unknown name, a parameter the embedded planner does not model
// (goal_z_param, timeout_termination_), a value that is not a number, a
// fraction for an integer parameter, a value outside the range
// dynamic_reconfigure accepts, a name given twice, or a set the planner
// cannot run with (avoid.Config.Validate) is a *ParseError naming the file,
// the line and the parameter.
func ParsePlannerParams(name string, data []byte) (cfg avoid.Config, set []PlannerParam, err error) {
	defer func() {
		// goccy/go-yaml is outside code fed outside input: a panic in it
		// becomes an error rather than a crash.
		if r := recover(); r != nil {
			cfg, set, err = avoid.Config{}, nil, &ParseError{File: name, Err: fmt.Errorf("YAML parser failed: %v", r)}
		}
	}()
	perr := func(line int, field string, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(data) > MaxPlannerParamsBytes {
		return avoid.Config{}, nil, &ParseError{File: name, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrFileTooLarge, len(data), MaxPlannerParamsBytes)}
	}
	if err := checkYAMLShape(name, data); err != nil {
		return avoid.Config{}, nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return avoid.Config{}, nil, yamlError(name, nil, err)
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return avoid.Config{}, nil, perr(0, "", "want one YAML mapping of planner parameters (name: value)")
	}
	var entries []*ast.MappingValueNode
	switch body := f.Docs[0].Body.(type) {
	case *ast.MappingNode:
		entries = body.Values
	case *ast.MappingValueNode:
		entries = []*ast.MappingValueNode{body}
	default:
		return avoid.Config{}, nil, perr(lineOf(body), "", "want a mapping of planner parameters (name: value), got a %s", body.Type().YAMLName())
	}
	cfg = avoid.DefaultConfig()
	for _, e := range entries {
		key := e.Key.GetToken()
		line := lineOf(e.Key)
		if key == nil {
			return avoid.Config{}, nil, perr(line, "", "a parameter without a name")
		}
		k := key.Value
		p, ok := plannerParams[k]
		switch {
		case !ok:
			return avoid.Config{}, nil, perr(line, k, "unknown parameter (want one of LocalPlannerNode.cfg's: %s)", strings.Join(PlannerParamNames(), ", "))
		case p.set == nil:
			return avoid.Config{}, nil, perr(line, k, "not modelled by the embedded planner")
		}
		v, err := paramNumber(e.Value)
		if err != nil {
			return avoid.Config{}, nil, perr(line, k, "%v", err)
		}
		if p.isInt && v != math.Trunc(v) {
			return avoid.Config{}, nil, perr(line, k, "%v is not a whole number", v)
		}
		if !(v >= p.lo && v <= p.hi) {
			return avoid.Config{}, nil, perr(line, k, "%v out of [%v, %v], the range PX4-Avoidance accepts", v, p.lo, p.hi)
		}
		def := p.get(&cfg)
		p.set(&cfg, v)
		set = append(set, PlannerParam{Name: k, Value: v, Default: def, Line: line})
	}
	if err := cfg.Validate(); err != nil {
		return avoid.Config{}, nil, &ParseError{File: name, Err: err}
	}
	return cfg, set, nil
}

// paramNumber is the value of a parameter: a YAML integer or float
// (not NaN or infinite).
func paramNumber(n ast.Node) (float64, error) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			return float64(x), nil
		case uint64:
			return float64(x), nil
		}
	case *ast.FloatNode:
		if !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) {
			return v.Value, nil
		}
		return 0, errors.New("not a finite number")
	case *ast.InfinityNode, *ast.NanNode:
		return 0, errors.New("not a finite number")
	case *ast.StringNode:
		// An exponent without a dot (1e-3) is a number to YAML 1.2 but
		// text to goccy/go-yaml; unquoted, it is read as the number.
		if tk := v.GetToken(); tk != nil && tk.Type == token.StringType {
			if x, err := strconv.ParseFloat(v.Value, 64); err == nil {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return 0, errors.New("not a finite number")
				}
				return x, nil
			}
		}
		return 0, fmt.Errorf("%s is not a number", strconv.Quote(v.Value))
	case nil:
		return 0, errors.New("no value")
	}
	return 0, fmt.Errorf("want a number, got a %s", n.Type().YAMLName())
}

func lineOf(n ast.Node) int {
	if n == nil {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

// LoadPlannerParams reads the planner-parameter file at path
// (ParsePlannerParams), with ReadFile's bounds.
func LoadPlannerParams(path string) (avoid.Config, []PlannerParam, error) {
	data, err := ReadFile(path, MaxPlannerParamsBytes)
	if err != nil {
		return avoid.Config{}, nil, err
	}
	return ParsePlannerParams(path, data)
}
