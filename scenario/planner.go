package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
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
	// runs, when set, refuses a value PX4-Avoidance accepts but the
	// embedded planner cannot run with.
	runs func(v float64) error
}

// needing returns p with the embedded planner's own condition on its value.
func (p plannerParam) needing(runs func(v float64) error) plannerParam {
	p.runs = runs
	return p
}

func positive(v float64) error {
	if v > 0 {
		return nil
	}
	return errors.New("the embedded planner needs a value above 0")
}

var plannerParams = map[string]plannerParam{
	"max_sensor_range_":      num(0, 40, func(c *avoid.Config) *float64 { return &c.MaxRangeM }).needing(positive),
	"min_sensor_range_":      num(0, 10, func(c *avoid.Config) *float64 { return &c.MinRangeM }),
	"pitch_cost_param_":      num(0, 30, func(c *avoid.Config) *float64 { return &c.PitchCost }),
	"yaw_cost_param_":        num(0, 20, func(c *avoid.Config) *float64 { return &c.YawCost }),
	"velocity_cost_param_":   num(0, 50000, func(c *avoid.Config) *float64 { return &c.VelocityCost }),
	"obstacle_cost_param_":   num(0, 30, func(c *avoid.Config) *float64 { return &c.ObstacleCostM }),
	"tree_heuristic_weight_": num(0, 50, func(c *avoid.Config) *float64 { return &c.HeuristicWeight }),
	"goal_z_param":           unmodelled(-20, 20),
	"timeout_startup_":       num(0, 60, func(c *avoid.Config) *float64 { return &c.TimeoutStartupS }),
	"timeout_critical_": num(0, 10, func(c *avoid.Config) *float64 { return &c.TimeoutCriticalS }).needing(func(v float64) error {
		if gap := avoid.DefaultConfig().CloudGapS; !(v > gap) {
			return fmt.Errorf("the embedded planner plans at most every %v s (the point-cloud gap), so the cloud timeout must be longer", gap)
		}
		return nil
	}),
	"timeout_termination_":      unmodelled(0, 1000),
	"max_point_age_s_":          num(0, 500, func(c *avoid.Config) *float64 { return &c.PointAgeS }).needing(positive),
	"min_num_points_per_cell_":  whole(1, 500, func(c *avoid.Config) *int { return &c.MinPointsPerCell }),
	"smoothing_speed_xy_":       num(0, 30, func(c *avoid.Config) *float64 { return &c.SmoothXY }),
	"smoothing_speed_z_":        num(0, 30, func(c *avoid.Config) *float64 { return &c.SmoothZ }),
	"smoothing_margin_degrees_": num(0, 90, func(c *avoid.Config) *float64 { return &c.SmoothingDeg }),
	"children_per_node_": whole(0, 100, func(c *avoid.Config) *int { return &c.Children }).needing(func(v float64) error {
		if v >= 1 && v <= 64 {
			return nil
		}
		return errors.New("the embedded planner takes 1 to 64 children per node")
	}),
	"n_expanded_nodes_":   whole(0, 200, func(c *avoid.Config) *int { return &c.ExpandedNodes }),
	"tree_node_distance_": num(0, 20, func(c *avoid.Config) *float64 { return &c.NodeDistM }).needing(positive),
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
// dynamic_reconfigure accepts or that the embedded planner cannot run with
// (a node distance of 0, more than 64 children, a cloud timeout within its
// cloud gap, a minimum range at or above the maximum), a name given twice,
// a tag, anchor or alias, or an integer YAML 1.1 and 1.2 read differently
// (010) is a *ParseError naming the file, the line and the parameter.
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
	switch {
	case len(f.Docs) > 1:
		return avoid.Config{}, nil, perr(lineOf(f.Docs[1].Body), "", "%d YAML documents, want one mapping of planner parameters", len(f.Docs))
	case len(f.Docs) == 0 || f.Docs[0].Body == nil:
		return avoid.Config{}, nil, perr(0, "", "no parameters: want a YAML mapping of planner parameters (name: value)")
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
	lines := map[string]int{}
	for _, e := range entries {
		line := lineOf(e.Key)
		key, ok := e.Key.(*ast.StringNode)
		if !ok {
			return avoid.Config{}, nil, perr(line, "", "a parameter's name must be plain text (no tag, anchor or ? key)")
		}
		k := key.Value
		p, ok := plannerParams[k]
		switch {
		case !ok:
			hint := ""
			if _, nested := e.Value.(*ast.MappingNode); nested {
				hint = "; write the parameters at the top level, not under a node's name"
			}
			return avoid.Config{}, nil, perr(line, shorten(k), "unknown parameter (want one of %s)%s", strings.Join(modelledNames(), ", "), hint)
		case p.set == nil:
			return avoid.Config{}, nil, perr(line, k, "not modelled by the embedded planner")
		}
		v, err := paramNumber(e.Value)
		if err != nil {
			return avoid.Config{}, nil, perr(line, k, "%v", err)
		}
		v += 0 // -0 is 0
		if p.isInt && v != math.Trunc(v) {
			return avoid.Config{}, nil, perr(line, k, "%v is not a whole number", v)
		}
		if !(v >= p.lo && v <= p.hi) {
			return avoid.Config{}, nil, perr(line, k, "%v out of [%v, %v], the range PX4-Avoidance accepts", v, p.lo, p.hi)
		}
		if p.runs != nil {
			if err := p.runs(v); err != nil {
				return avoid.Config{}, nil, perr(line, k, "%v: %v", v, err)
			}
		}
		def := p.get(&cfg)
		p.set(&cfg, v)
		lines[k] = line
		set = append(set, PlannerParam{Name: k, Value: v, Default: def, Line: line})
	}
	if cfg.MinRangeM >= cfg.MaxRangeM {
		lo, hi := lines["min_sensor_range_"], lines["max_sensor_range_"]
		return avoid.Config{}, nil, perr(max(lo, hi), "min_sensor_range_, max_sensor_range_",
			"min_sensor_range_ %v (%s) must be below max_sensor_range_ %v (%s)", cfg.MinRangeM, where(lo), cfg.MaxRangeM, where(hi))
	}
	if err := cfg.Validate(); err != nil {
		return avoid.Config{}, nil, &ParseError{File: name, Err: err}
	}
	return cfg, set, nil
}

// shorten cuts a name to 40 bytes for a message, marking the cut.
func shorten(s string) string {
	if len(s) <= 40 {
		return s
	}
	return strings.ToValidUTF8(s[:40], "") + "…"
}

// where is "line N" for a parameter the file set, "default" otherwise.
func where(line int) string {
	if line == 0 {
		return "default"
	}
	return "line " + strconv.Itoa(line)
}

// modelledNames are the parameters the embedded planner models, sorted.
func modelledNames() []string {
	var out []string
	for _, n := range PlannerParamNames() {
		if plannerParams[n].set != nil {
			out = append(out, n)
		}
	}
	return out
}

var (
	// yamlNonFinite is YAML 1.2's infinity and not-a-number.
	yamlNonFinite = regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
	// plainInt is an integer that YAML 1.1 and 1.2 read alike: decimal
	// without a leading zero, or 0x hexadecimal.
	plainInt = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*|0x[0-9a-fA-F]+)$`)
)

// paramNumber is the value of a parameter: a YAML integer or float
// (not NaN or infinite).
func paramNumber(n ast.Node) (float64, error) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		if tk := v.GetToken(); tk != nil && !plainInt.MatchString(tk.Value) {
			return 0, fmt.Errorf("%.40q: write the number in plain decimal (a leading zero is octal in YAML 1.1 and decimal in 1.2)", tk.Value)
		}
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
		// text to goccy/go-yaml; unquoted, it is read as the number
		// (yamlFloat, the core schema's pattern).
		if tk := v.GetToken(); tk != nil && tk.Type == token.StringType {
			switch {
			case yamlNonFinite.MatchString(v.Value):
				return 0, errors.New("not a finite number")
			case yamlFloat.MatchString(v.Value):
				x, err := strconv.ParseFloat(v.Value, 64)
				if err != nil || math.IsInf(x, 0) {
					return 0, errors.New("not a finite number")
				}
				return x, nil
			}
		}
		return 0, fmt.Errorf("%.40q is not a number", v.Value)
	case *ast.AnchorNode, *ast.AliasNode, *ast.TagNode:
		return 0, errors.New("anchors, aliases and tags are not supported: write the number")
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
