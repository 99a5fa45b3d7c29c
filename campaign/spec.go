package campaign

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	yaml "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/shakedown-robotics/shakedown/run"
)

// Spec is a campaign file: the tests to fly and how, the input of
// `shakedown campaign run`. Every key is optional but tests:
//
//	name: nightly-m2            # a label; default: the file name
//	tests:                      # case studies: built-in names, .yaml/.plan files, globs,
//	  - generated/test_*.yaml   #   relative to the spec's folder
//	runs: 3                     # runs per test, each with its own seed (default 1)
//	seed: 1                     # base seed: run k of test i uses run.RunSeed(seed, i·runs+k) (default 1)
//	gust: 0.3                   # wind gusts, m/s 1σ (default 0, run.DefaultGustMS)
//	autopilot: avoid            # avoid or plain (default avoid)
//	timeout: 500                # simulated seconds per run (default 500)
//	rules: "2025"               # obstacle rules every test must satisfy: 2024, 2025 or 2026 (default 2025)
//	pre_arm: 19                 # seconds on the ground before arming, inside the log (default run.DefaultPreArmS)
//	engine: embedded            # what flies the tests: embedded, mavlink or aerialist (default embedded);
//	                            #   the vehicle URL or the Aerialist command is the executor's configuration
//
// The seeds are those of `shakedown run` given the same tests, runs and
// seed, so the two give the same flights.
type Spec struct {
	Name      string   `json:"name"`
	Tests     []string `json:"tests"`
	Runs      int      `json:"runs"`
	Seed      uint64   `json:"seed"`
	GustMS    float64  `json:"gust"`
	Autopilot string   `json:"autopilot"`
	TimeoutS  float64  `json:"timeout"`
	Rules     string   `json:"rules"`
	PreArmS   float64  `json:"pre_arm"`
	Engine    string   `json:"engine"` // EngineEmbedded, EngineMAVLink or EngineAerialist
}

// SpecError is an error in a campaign file, after encoding/csv.ParseError.
type SpecError struct {
	File  string // the file name given to ParseSpec
	Line  int    // 1-based; 0 if not known
	Field string // the key, "" if none
	Err   error
}

// Error returns "file:line: field: message", leaving out what is unknown.
func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *SpecError) Unwrap() error { return e.Err }

// ErrSpec marks every SpecError's Err.
var ErrSpec = errors.New("campaign: bad campaign file")

// ParseSpec reads a campaign file, fills in the defaults and checks the
// values. An unknown key, a duplicate key or a value of the wrong type is a
// *SpecError naming the line and the key.
func ParseSpec(name string, data []byte) (s Spec, err error) {
	defer func() {
		// goccy/go-yaml is outside code fed outside input.
		if r := recover(); r != nil {
			s, err = Spec{}, &SpecError{File: name, Err: fmt.Errorf("%w: YAML parser failed: %v", ErrSpec, r)}
		}
	}()
	if len(data) > 1<<20 {
		return Spec{}, &SpecError{File: name, Err: fmt.Errorf("%w: %d bytes, more than 1 MiB", ErrSpec, len(data))}
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return Spec{}, specYAMLError(name, data, err)
	}
	if len(f.Docs) != 1 {
		return Spec{}, &SpecError{File: name, Err: fmt.Errorf("%w: %d YAML documents, want one", ErrSpec, len(f.Docs))}
	}
	var raw struct {
		Name      string   `yaml:"name"`
		Tests     []string `yaml:"tests"`
		Runs      *int     `yaml:"runs"`
		Seed      *uint64  `yaml:"seed"`
		Gust      *float64 `yaml:"gust"`
		Autopilot string   `yaml:"autopilot"`
		Timeout   *float64 `yaml:"timeout"`
		Rules     any      `yaml:"rules"`
		PreArm    *float64 `yaml:"pre_arm"`
		Engine    string   `yaml:"engine"`
	}
	if err := yaml.UnmarshalWithOptions(data, &raw, yaml.Strict()); err != nil {
		return Spec{}, specYAMLError(name, data, err)
	}
	s = Spec{Name: raw.Name, Tests: raw.Tests, Runs: 1, Autopilot: raw.Autopilot, TimeoutS: run.DefaultTimeoutS, Engine: raw.Engine}
	if raw.Runs != nil {
		s.Runs = *raw.Runs
	}
	if raw.Timeout != nil {
		s.TimeoutS = *raw.Timeout
	}
	switch r := raw.Rules.(type) {
	case nil:
	case string:
		s.Rules = r
	case uint64:
		s.Rules = strconv.FormatUint(r, 10)
	case int64:
		s.Rules = strconv.FormatInt(r, 10)
	default:
		s.Rules = fmt.Sprint(r)
	}
	bad := func(field, format string, args ...any) error {
		key, _, _ := strings.Cut(field, "[")
		return &SpecError{File: name, Line: lineOfKey(data, key), Field: field, Err: fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, args...))}
	}
	s.GustMS, s.Seed = run.DefaultGustMS, 1
	if raw.Gust != nil {
		s.GustMS = *raw.Gust
	}
	if raw.Seed != nil {
		s.Seed = *raw.Seed
	}
	if s.Autopilot == "" {
		s.Autopilot = run.AutopilotAvoid
	}
	if s.Rules == "" {
		s.Rules = "2025"
	}
	if s.Engine == "" {
		s.Engine = EngineEmbedded
	}
	s.PreArmS = run.DefaultPreArmS
	if raw.PreArm != nil {
		s.PreArmS = *raw.PreArm
	}
	switch {
	case !goodText(s.Name, 256):
		return Spec{}, bad("name", "want one line of at most 256 bytes")
	case len(s.Tests) == 0:
		return Spec{}, bad("tests", "want at least one test (a case study, file or glob)")
	case len(s.Tests) > 100000:
		return Spec{}, bad("tests", "%d entries; want at most 100000", len(s.Tests))
	case s.Runs < 1 || s.Runs > 1000:
		return Spec{}, bad("runs", "%d; want 1 to 1000", s.Runs)
	case !(s.GustMS >= 0 && s.GustMS <= 10):
		return Spec{}, bad("gust", "%v; want 0 to 10 m/s", s.GustMS)
	case s.Autopilot != run.AutopilotAvoid && s.Autopilot != run.AutopilotPlain:
		return Spec{}, bad("autopilot", "%q; want %s or %s", s.Autopilot, run.AutopilotAvoid, run.AutopilotPlain)
	case !(s.TimeoutS > 0) || s.TimeoutS > 1e6 || math.IsInf(s.TimeoutS, 0):
		return Spec{}, bad("timeout", "%v; want a number of seconds in (0, 1e6]", s.TimeoutS)
	case s.Rules != "2024" && s.Rules != "2025" && s.Rules != "2026":
		return Spec{}, bad("rules", "%q; want 2024, 2025 or 2026", s.Rules)
	case !(s.PreArmS >= 0 && s.PreArmS <= 600):
		return Spec{}, bad("pre_arm", "%v; want 0 to 600 s", s.PreArmS)
	case !slices.Contains(engineNames, s.Engine):
		return Spec{}, bad("engine", "%q; want %s", s.Engine, strings.Join(engineNames, ", "))
	}
	for i, t := range s.Tests {
		if t == "" || !goodText(t, 4096) {
			return Spec{}, bad(fmt.Sprintf("tests[%d]", i), "want a non-empty one-line name or path")
		}
	}
	return s, nil
}

func specYAMLError(name string, data []byte, err error) error {
	se := &SpecError{File: name, Err: fmt.Errorf("%w: %v", ErrSpec, err)}
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return se
	}
	tk := ye.GetToken()
	if tk != nil && tk.Position != nil {
		se.Line = tk.Position.Line
	}
	msg := ye.GetMessage()
	var ue *yaml.UnknownFieldError
	var te *yaml.TypeError
	switch {
	case errors.As(err, &ue) && tk != nil:
		se.Field = tk.Value
		msg = "unknown key (want name, tests, runs, seed, gust, autopilot, timeout, rules, pre_arm or engine)"
	case errors.As(err, &te):
		msg = fmt.Sprintf("wrong type: want %v", te.DstType)
		if tk != nil {
			msg = fmt.Sprintf("%q has the wrong type: want %v", tk.Value, te.DstType)
		}
	}
	if se.Field == "" {
		se.Field = keyOnLine(data, se.Line)
	}
	se.Err = fmt.Errorf("%w: %s", ErrSpec, msg)
	return se
}

// keyOnLine returns the top-level key written on 1-based line n of data,
// or "".
func keyOnLine(data []byte, n int) string {
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	k, _, ok := strings.Cut(lines[n-1], ":")
	if !ok || strings.HasPrefix(k, " ") || strings.HasPrefix(k, "-") || strings.HasPrefix(k, "#") {
		return ""
	}
	return strings.TrimSpace(k)
}

// lineOfKey returns the 1-based line where top-level key is written, or 0.
func lineOfKey(data []byte, key string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok && k == key {
			return i + 1
		}
	}
	return 0
}
