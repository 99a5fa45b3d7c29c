package scenario

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// competitionFS holds byte-exact copies of the competition's case studies
// (shared/data/competition: the organisers' mission1–3 and the evaluation
// missions 4–7 as copied by an entrant; its README gives provenance).
//
//go:embed competition/*.plan competition/*.yaml competition/*.csv
var competitionFS embed.FS

// BuiltinNames returns the names of the built-in case studies, mission1 to
// mission7, sorted.
func BuiltinNames() []string {
	entries, _ := fs.Glob(competitionFS, "competition/*.yaml")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(path.Base(e), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Builtin returns the built-in case study name (one of BuiltinNames), read
// from its YAML exactly as Aerialist would read the competition's file: the
// mission, the competition's mission-params.csv and mission-commands.csv, no
// obstacles. Its Source is "builtin".
func Builtin(name string) (*CaseStudy, error) {
	if !slices.Contains(BuiltinNames(), name) {
		return nil, fmt.Errorf("%w %q: the built-in case studies are %s", ErrUnknownCaseStudy, name, strings.Join(BuiltinNames(), ", "))
	}
	data, err := fs.ReadFile(competitionFS, "competition/"+name+".yaml")
	if err != nil {
		return nil, err
	}
	cs, err := ParseCaseStudy(name+".yaml", data, builtinFile)
	if err != nil {
		return nil, err
	}
	cs.Source = "builtin"
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
