package scenario

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/shakedown-robotics/shakedown/geom"
)

// competitionFS holds byte-exact copies of the competition's case studies
// (shared/data/competition: the organisers' mission1–3 and the evaluation
// missions 4–7 as copied by an entrant; its README gives provenance).
//
//go:embed competition/*.plan competition/*.yaml competition/*.csv
var competitionFS embed.FS

// BuiltinSource is the Source of a built-in case study.
const BuiltinSource = "builtin"

// CanonicalName is the built-in canonical mission (see Canonical).
const CanonicalName = "canonical"

// CompetitionNames returns the names of the competition's case studies
// built in as files, mission1 to mission7, sorted.
func CompetitionNames() []string {
	entries, _ := fs.Glob(competitionFS, "competition/*.yaml")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(path.Base(e), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// BuiltinNames returns the names of the built-in case studies: the
// competition's mission1 to mission7, then "canonical".
func BuiltinNames() []string {
	return append(CompetitionNames(), CanonicalName)
}

// Canonical returns the canonical mission of the surrogate-assisted testing
// paper (§IV-B, Fig. 1b): one straight leg through the middle of the
// placement area, South to North in the figure's axes, that is along +y
// (East) at x = −5 m, the centre of −40 < x < 30, from y = 0 to y = 50 at
// 10 m. The vehicle takes off at home (0, 0), moves 5 m to the start of the
// leg and lands at its end. Home is PX4 SITL's spawn point.
func Canonical() Mission {
	return Mission{
		Name: CanonicalName,
		Home: SITLHome,
		Items: []Item{
			{Kind: Takeoff, Pos: geom.Vec3{Z: -10}},
			{Kind: Waypoint, Pos: geom.Vec3{X: -5, Z: -10}},
			{Kind: Land, Pos: geom.Vec3{X: -5, Y: 50}},
		},
	}
}

// Builtin returns the built-in case study name (one of BuiltinNames), read
// from its YAML exactly as Aerialist would read the competition's file: the
// mission, the competition's mission-params.csv and mission-commands.csv, no
// obstacles. Its Source is BuiltinSource.
func Builtin(name string) (*CaseStudy, error) {
	if !slices.Contains(BuiltinNames(), name) {
		return nil, fmt.Errorf("%w %q: the built-in case studies are %s", ErrUnknownCaseStudy, name, strings.Join(BuiltinNames(), ", "))
	}
	if name == CanonicalName {
		cs := NewCaseStudy(Canonical())
		cs.Source = BuiltinSource
		return cs, nil
	}
	data, err := fs.ReadFile(competitionFS, "competition/"+name+".yaml")
	if err != nil {
		return nil, err
	}
	cs, err := ParseCaseStudy(name+".yaml", data, builtinFile)
	if err != nil {
		return nil, err
	}
	cs.Source = BuiltinSource
	return cs, nil
}

// builtinFile resolves the paths the built-in YAML files name
// ("case_studies/mission2.plan") to the embedded copy of that base name.
func builtinFile(p string) ([]byte, error) {
	return fs.ReadFile(competitionFS, "competition/"+path.Base(p))
}

// NewCaseStudy returns a case study flying m the way the competition's case
// studies do: the competition's PX4 parameters (mission-params.csv) and
// start command (mission-commands.csv: mode 3, Mission, at 1 µs), port and
// simulator ros, speed 1, headless, no obstacles. Name is m.Name; Source is
// left empty for the caller.
func NewCaseStudy(m Mission) *CaseStudy {
	params, ints, err := parseParamsCSV("mission-params.csv", mustBuiltinFile("mission-params.csv"))
	if err != nil {
		panic("scenario: embedded mission-params.csv: " + err.Error())
	}
	cmds, err := parseCommandsCSV("mission-commands.csv", mustBuiltinFile("mission-commands.csv"))
	if err != nil {
		panic("scenario: embedded mission-commands.csv: " + err.Error())
	}
	return &CaseStudy{
		Name:      m.Name,
		Mission:   m,
		Params:    params,
		IntParams: ints,
		Port:      "ros",
		Simulator: "ros",
		Speed:     1,
		Headless:  true,
		Commands:  cmds,
	}
}

func mustBuiltinFile(name string) []byte {
	b, err := builtinFile(name)
	if err != nil {
		panic("scenario: embedded file missing: " + err.Error())
	}
	return b
}
