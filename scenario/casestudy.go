package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	yaml "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/shakedown-robotics/shakedown/world"
)

// Command is one Aerialist test command (command.py): at TimestampUS µs
// after the test starts, switch to flight Mode (3 = Mission, which arms and
// starts the uploaded mission) with the manual set-point X, Y, Z, R (used
// only by mode 100, Setpoint).
type Command struct {
	TimestampUS int64
	Mode        int
	X, Y, Z, R  float64
}

// CaseStudy is one test case: a mission, the PX4 parameters and Aerialist
// commands it runs with, and the obstacles in its way.
type CaseStudy struct {
	Name   string // file name without directory and extension, e.g. "mission2"
	Source string // the file it came from, or "builtin"

	Mission Mission

	// Params are the PX4 parameters: drone.params when the YAML has it,
	// else those of drone.params_file, as Aerialist reads them (an inline
	// params replaces the file; the two are not merged).
	Params map[string]float64
	// IntParams names the Params that are integers. Aerialist sets a value
	// written as an integer with set_param_int and any other with
	// set_param_float, and PX4 refuses the wrong type, so the distinction
	// is kept: MPC_YAW_MODE 0 is an integer, MIS_YAW_ERR 12.0 a float.
	// EncodeCaseStudy writes the other Params with a decimal point.
	IntParams map[string]bool

	// Port is drone.port as written: a name ("ros", "sitl", "cf", ...) or a
	// UDP port number ("14541"); "" when absent (Aerialist then uses 14540).
	Port string
	// Simulator is simulation.simulator: "gazebo", "jmavsim" or "ros"; ""
	// when absent (Aerialist then uses gazebo).
	Simulator string
	// Speed is simulation.speed, the simulation speed factor; 1 when absent.
	Speed float64
	// Headless is simulation.headless; true when absent, as in Aerialist.
	Headless bool

	Obstacles []world.Box
	// ObstacleLines are the lines of Source the Obstacles were read from
	// (ParseCaseStudy sets them), for errors that name a line: see
	// Rules.CheckCaseStudy. Nil, or of another length than Obstacles (the
	// obstacles were replaced), means not known.
	ObstacleLines []int
	// Commands are test.commands when the YAML has them, else those of
	// test.commands_file.
	Commands []Command
}

// The port names Aerialist accepts (RobotConfig), and its simulators
// (SimulationConfig).
var (
	portNames  = map[string]bool{"sitl": true, "sim": true, "ros": true, "avoidance": true, "cf": true, "hw": true, "px4_sitl": true, "px4_ros": true, "px4_cf": true}
	simulators = map[string]bool{"gazebo": true, "jmavsim": true, "ros": true}
)

func checkPort(p string) error {
	if portNames[p] {
		return nil
	}
	if n, err := strconv.Atoi(p); err == nil && n > 0 && n < 65536 && strconv.Itoa(n) == p {
		return nil
	}
	return fmt.Errorf("port %q: want a UDP port number or one of sitl, sim, ros, avoidance, cf, hw, px4_sitl, px4_ros, px4_cf", p)
}

// The YAML as decoded (with yaml.Strict, so that an unknown key anywhere is
// an error). Pointers tell an absent key from a zero value.
type yDoc struct {
	Drone      *yDrone `yaml:"drone"`
	Robot      *yDrone `yaml:"robot"` // Aerialist ≥ 2025-09 alias of drone
	Simulation *ySim   `yaml:"simulation"`
	Test       *yTest  `yaml:"test"`
	Mission    *yTest  `yaml:"mission"` // Aerialist ≥ 2025-09 alias of test
	Assertion  any     `yaml:"assertion"`
	Agent      any     `yaml:"agent"`
}

type yDrone struct {
	Port        any            `yaml:"port"`
	Params      map[string]any `yaml:"params"`
	ParamsFile  *string        `yaml:"params_file"`
	MissionFile *string        `yaml:"mission_file"`
}

type ySim struct {
	Simulator    *string     `yaml:"simulator"`
	Speed        *float64    `yaml:"speed"`
	Headless     *bool       `yaml:"headless"`
	Obstacles    []yObstacle `yaml:"obstacles"`
	HomePosition any         `yaml:"home_position"`
	World        any         `yaml:"world"`
	Wind         any         `yaml:"wind"`
	Timeout      any         `yaml:"timeout"`
}

type yObstacle struct {
	Size     *ySize  `yaml:"size"`
	Position *yPos   `yaml:"position"`
	Shape    *string `yaml:"shape"`
}

type ySize struct {
	L *float64 `yaml:"l"`
	W *float64 `yaml:"w"`
	H *float64 `yaml:"h"`
	R *float64 `yaml:"r"` // cylinder radius (newer Aerialist); unused for boxes
}

type yPos struct {
	X *float64 `yaml:"x"`
	Y *float64 `yaml:"y"`
	Z *float64 `yaml:"z"`
	R *float64 `yaml:"r"`
}

type yTest struct {
	CommandsFile *string    `yaml:"commands_file"`
	Commands     []yCommand `yaml:"commands"`
	Speed        any        `yaml:"speed"`
	Waypoints    any        `yaml:"waypoints"`
}

type yCommand struct {
	Timestamp *float64 `yaml:"timestamp"`
	Mode      *float64 `yaml:"mode"`
	X         *float64 `yaml:"x"`
	Y         *float64 `yaml:"y"`
	Z         *float64 `yaml:"z"`
	R         *float64 `yaml:"r"`
}

// ParseCaseStudy decodes an Aerialist test-description YAML
// (competition.md §1). name is the file name, used in errors and, without
// directory and extension, as the case study's Name. resolve returns the
// contents of a file the YAML refers to (drone.mission_file,
// drone.params_file, test.commands_file), given the path as written.
//
// Keys: drone (or its newer alias robot) with port, params, params_file and
// mission_file (required); simulation with simulator, speed, headless and
// obstacles; test (or its newer alias mission) with commands_file and
// commands. Giving both keys of an alias pair is an error. These are
// accepted and ignored: assertion and agent (a reference log and where to
// run, which do not change the test); simulation.home_position and world
// (unused by the competition's ros simulator); simulation.wind and timeout
// (newer Aerialist; the 2024/2025 parser rejects them); test.speed
// (Aerialist overwrites it with simulation.speed) and test.waypoints. Any
// other key, at any level, is an error naming the key and its line.
//
// An obstacle is {size: {l, w, h}, position: {x, y, z, r}} with all seven
// numbers required and finite; newer Aerialist's size.r (a cylinder radius)
// and shape: box are accepted. Validity against the competition's rules is
// Rules.Check's business, not the parser's.
//
// Errors are *ParseError values.
func ParseCaseStudy(name string, data []byte, resolve func(path string) ([]byte, error)) (*CaseStudy, error) {
	ix, doc, err := decodeYAML(name, data)
	if err != nil {
		return nil, err
	}
	p := &csParser{name: name, ix: ix, resolve: resolve}
	for _, pair := range [][2]string{{"drone", "robot"}, {"test", "mission"}} {
		if ix.has(pair[0]) && ix.has(pair[1]) {
			return nil, p.errorf(pair[1], "both %s and %s are given; %s is the newer name of %s, use one", pair[0], pair[1], pair[1], pair[0])
		}
	}
	cs := &CaseStudy{Name: baseName(name), Source: name, Speed: 1, Headless: true}
	drone, dk := doc.Drone, "drone"
	if ix.has("robot") {
		drone, dk = doc.Robot, "robot"
	}
	if err := p.drone(cs, dk, drone); err != nil {
		return nil, err
	}
	if err := p.simulation(cs, doc.Simulation); err != nil {
		return nil, err
	}
	test, tk := doc.Test, "test"
	if ix.has("mission") {
		test, tk = doc.Mission, "mission"
	}
	if err := p.test(cs, tk, test); err != nil {
		return nil, err
	}
	return cs, nil
}

// maxSimSpeed bounds simulation.speed: PX4 SITL's lockstep runs at most a
// few dozen times real time; 1000 leaves room and keeps durations finite.
const maxSimSpeed = 1000

// inRange checks a length or coordinate read from a file: within
// ±MaxRangeM, the range the plan codec accepts for positions. A finite
// 1e308 is a number, but no place Shakedown can fly.
func inRange(v float64) error {
	if math.Abs(v) > MaxRangeM {
		return fmt.Errorf("%g out of range [%g, %g]", v, -MaxRangeM, MaxRangeM)
	}
	return nil
}

// csParser turns a decoded yDoc into a CaseStudy, one section at a time.
type csParser struct {
	name    string
	ix      *yamlIndex
	resolve func(path string) ([]byte, error)
}

// errorf returns a *ParseError about the key at path p.
func (p *csParser) errorf(path, format string, args ...any) error {
	return p.wrap(path, fmt.Errorf(format, args...))
}

func (p *csParser) wrap(path string, err error) error {
	return &ParseError{File: p.name, Line: p.ix.lineOf(path), Field: path, Err: err}
}

// num checks the number at path: present, written as a number, finite.
func (p *csParser) num(path string, v *float64) (float64, error) {
	switch {
	case v == nil:
		return 0, p.errorf(path, "missing")
	case p.ix.isText(path):
		return 0, p.errorf(path, "want a number, got text")
	case !finite(*v):
		return 0, p.errorf(path, "%v is not a finite number", *v)
	}
	return *v + 0, nil // no negative zeros
}

// load returns the contents of the file ref named at path.
func (p *csParser) load(path, ref string) ([]byte, error) {
	if p.resolve == nil {
		return nil, p.errorf(path, "cannot read %s: no file resolver", ref)
	}
	b, err := p.resolve(ref)
	if err != nil {
		return nil, p.wrap(path, err)
	}
	return b, nil
}

// drone reads the drone (or robot, named dk) section.
func (p *csParser) drone(cs *CaseStudy, dk string, d *yDrone) error {
	if d == nil {
		d = &yDrone{}
	}
	switch v := d.Port.(type) {
	case nil:
	case string:
		cs.Port = v
	case uint64:
		cs.Port = strconv.FormatUint(v, 10)
	case int64:
		cs.Port = strconv.FormatInt(v, 10)
	default:
		return p.errorf(dk+".port", "want a port number or name, got %s", describe(v))
	}
	if cs.Port != "" {
		if err := checkPort(cs.Port); err != nil {
			return p.wrap(dk+".port", err)
		}
	}

	mf := dk + ".mission_file"
	if d.MissionFile == nil || *d.MissionFile == "" {
		return p.errorf(mf, "missing: a case study needs a mission (a QGroundControl .plan file)")
	}
	b, err := p.load(mf, *d.MissionFile)
	if err != nil {
		return err
	}
	if cs.Mission, err = ParsePlan(*d.MissionFile, b); err != nil {
		return p.wrap(mf, err)
	}

	switch {
	case len(d.Params) > MaxParams:
		return p.errorf(dk+".params", "%d parameters, more than %d", len(d.Params), MaxParams)
	case d.Params != nil: // Aerialist reads params_file only without params
		for _, k := range sortedKeys(d.Params) {
			path := dk + ".params." + k
			v, isInt, err := paramValue(d.Params[k])
			if err == nil {
				err = checkParam(k, v, isInt)
			}
			if err != nil {
				return p.wrap(path, err)
			}
			if cs.Params == nil {
				cs.Params = map[string]float64{}
			}
			cs.Params[k] = v
			if isInt {
				if cs.IntParams == nil {
					cs.IntParams = map[string]bool{}
				}
				cs.IntParams[k] = true
			}
		}
	case d.ParamsFile != nil && *d.ParamsFile != "":
		path := dk + ".params_file"
		b, err := p.load(path, *d.ParamsFile)
		if err != nil {
			return err
		}
		if cs.Params, cs.IntParams, err = parseParamsCSV(*d.ParamsFile, b); err != nil {
			return p.wrap(path, err)
		}
	}
	return nil
}

// paramValue reads a YAML parameter value: an integer (an int parameter)
// or a float.
func paramValue(x any) (v float64, isInt bool, err error) {
	switch x := x.(type) {
	case uint64:
		if x > math.MaxInt32 {
			return 0, false, fmt.Errorf("integer %d outside the int32 range of PX4 parameters", x)
		}
		return float64(x), true, nil
	case int64:
		if x < math.MinInt32 || x > math.MaxInt32 {
			return 0, false, fmt.Errorf("integer %d outside the int32 range of PX4 parameters", x)
		}
		return float64(x), true, nil
	case float64:
		return x, false, nil
	}
	return 0, false, fmt.Errorf("want a number, got %s", describe(x))
}

// simulation reads the simulation section.
func (p *csParser) simulation(cs *CaseStudy, sim *ySim) error {
	if sim == nil {
		return nil
	}
	if sim.Simulator != nil {
		cs.Simulator = *sim.Simulator
		if !simulators[cs.Simulator] {
			return p.errorf("simulation.simulator", "%q: want gazebo, jmavsim or ros", cs.Simulator)
		}
	}
	if sim.Speed != nil {
		v, err := p.num("simulation.speed", sim.Speed)
		if err != nil {
			return err
		}
		if v <= 0 || v > maxSimSpeed {
			return p.errorf("simulation.speed", "%v, want a speed factor above 0 and at most %v", v, maxSimSpeed)
		}
		cs.Speed = v
	}
	if sim.Headless != nil {
		cs.Headless = *sim.Headless
	}
	if len(sim.Obstacles) > MaxBoxes {
		return p.errorf("simulation.obstacles", "%d obstacles, more than %d", len(sim.Obstacles), MaxBoxes)
	}
	for i, o := range sim.Obstacles {
		path := fmt.Sprintf("simulation.obstacles[%d]", i)
		b, err := p.obstacle(path, o)
		if err != nil {
			return err
		}
		cs.Obstacles = append(cs.Obstacles, b)
		cs.ObstacleLines = append(cs.ObstacleLines, p.ix.lineOf(path))
	}
	return nil
}

// obstacle reads the obstacle at path; all seven fields are required.
func (p *csParser) obstacle(path string, o yObstacle) (world.Box, error) {
	if o.Shape != nil && *o.Shape != "box" {
		return world.Box{}, p.errorf(path+".shape", "%q is not supported, want box", *o.Shape)
	}
	if o.Size == nil {
		o.Size = &ySize{}
	}
	if o.Position == nil {
		o.Position = &yPos{}
	}
	var b world.Box
	for _, f := range [...]struct {
		field string
		v     *float64
		dst   *float64
	}{
		{"size.l", o.Size.L, &b.L}, {"size.w", o.Size.W, &b.W}, {"size.h", o.Size.H, &b.H},
		{"position.x", o.Position.X, &b.X}, {"position.y", o.Position.Y, &b.Y},
		{"position.z", o.Position.Z, &b.Z}, {"position.r", o.Position.R, &b.R},
	} {
		v, err := p.num(path+"."+f.field, f.v)
		if err != nil {
			return world.Box{}, err
		}
		if err := inRange(v); err != nil {
			return world.Box{}, p.wrap(path+"."+f.field, err)
		}
		*f.dst = v
	}
	if o.Size.R != nil {
		if _, err := p.num(path+".size.r", o.Size.R); err != nil {
			return world.Box{}, err
		}
	}
	return b, nil
}

// test reads the test (or mission, named tk) section.
func (p *csParser) test(cs *CaseStudy, tk string, t *yTest) error {
	switch {
	case t == nil:
	case len(t.Commands) > MaxCommands:
		return p.errorf(tk+".commands", "%d commands, more than %d", len(t.Commands), MaxCommands)
	case t.Commands != nil: // Aerialist reads commands_file only without commands
		for i, c := range t.Commands {
			cmd, err := p.command(fmt.Sprintf("%s.commands[%d]", tk, i), c)
			if err != nil {
				return err
			}
			cs.Commands = append(cs.Commands, cmd)
		}
		if len(cs.Commands) == 0 {
			return p.errorf(tk+".commands", "empty list (Aerialist fails on it); leave the key out")
		}
	case t.CommandsFile != nil && *t.CommandsFile != "":
		path := tk + ".commands_file"
		b, err := p.load(path, *t.CommandsFile)
		if err != nil {
			return err
		}
		if cs.Commands, err = parseCommandsCSV(*t.CommandsFile, b); err != nil {
			return p.wrap(path, err)
		}
	}
	return nil
}

// command reads the inline command at path. Absent fields take the
// defaults of Aerialist's Command: timestamp 0, mode 100 (Setpoint), x 0,
// y 0, z 0.5, r 0.
func (p *csParser) command(path string, c yCommand) (Command, error) {
	v := [6]float64{0, 100, 0, 0, 0.5, 0}
	for k, fp := range [...]*float64{c.Timestamp, c.Mode, c.X, c.Y, c.Z, c.R} {
		if fp == nil {
			continue
		}
		f := path + "." + commandColumns[k]
		x, err := p.num(f, fp)
		if err != nil {
			return Command{}, err
		}
		if k < 2 && (x != math.Trunc(x) || math.Abs(x) > maxExactInt) {
			return Command{}, p.errorf(f, "%v is not an integer", x)
		}
		v[k] = x
	}
	cmd := Command{TimestampUS: int64(v[0]), Mode: int(v[1]), X: v[2], Y: v[3], Z: v[4], R: v[5]}
	if field, err := checkCommand(cmd); err != nil {
		return Command{}, p.wrap(path+"."+field, err)
	}
	return cmd, nil
}

// decodeYAML parses data into the index of its keys and, with yaml.Strict,
// into yDoc.
func decodeYAML(name string, data []byte) (ix *yamlIndex, doc yDoc, err error) {
	defer func() {
		// goccy/go-yaml is outside code fed outside input: a panic in it
		// becomes an error rather than a crash.
		if r := recover(); r != nil {
			ix, doc, err = nil, yDoc{}, &ParseError{File: name, Err: fmt.Errorf("YAML parser failed: %v", r)}
		}
	}()
	// A UTF-8 byte-order mark is allowed at the start (YAML 1.2 §5.2;
	// PyYAML, which Aerialist uses, reads it).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(data) > MaxYAMLBytes {
		return nil, doc, &ParseError{File: name, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrFileTooLarge, len(data), MaxYAMLBytes)}
	}
	if err := checkYAMLShape(name, data); err != nil {
		return nil, doc, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, doc, yamlError(name, nil, err)
	}
	if len(f.Docs) > 1 {
		return nil, doc, &ParseError{File: name, Err: fmt.Errorf("%d YAML documents, want one", len(f.Docs))}
	}
	ix = newYAMLIndex(f)
	if err := yaml.UnmarshalWithOptions(data, &doc, yaml.Strict()); err != nil {
		return nil, doc, yamlError(name, ix, err)
	}
	return ix, doc, nil
}

// yamlError turns an error of goccy/go-yaml into a *ParseError with the line
// and, through ix, the key it is about.
func yamlError(name string, ix *yamlIndex, err error) error {
	pe := &ParseError{File: name, Err: err}
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return pe
	}
	tk := ye.GetToken()
	if tk != nil && tk.Position != nil {
		pe.Line = tk.Position.Line
	}
	if ix != nil {
		pe.Field = ix.at(tk)
	}
	msg := ye.GetMessage()
	var ue *yaml.UnknownFieldError
	var te *yaml.TypeError
	var ne *yaml.UnexpectedNodeTypeError
	switch {
	case errors.As(err, &ue):
		msg = "unknown key"
		if tk != nil {
			msg = fmt.Sprintf("unknown key %q", tk.Value)
		}
	case errors.As(err, &te):
		msg = "wrong type: want " + typeName(te.DstType)
	case errors.As(err, &ne):
		msg = fmt.Sprintf("want a %s, got a %s", ne.Expected.YAMLName(), ne.Actual.YAMLName())
	}
	pe.Err = &msgError{msg, err}
	return pe
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "text"
	case bool:
		return "true/false"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case float64:
		return "the fraction " + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
