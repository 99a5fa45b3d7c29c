package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shakedown-robotics/shakedown/scenario"
)

// LoadMissions loads the case studies named by --mission (a built-in
// mission, a YAML or a .plan) and their names, refusing one given twice.
func LoadMissions(specs []string) ([]*scenario.CaseStudy, []string, error) {
	missions := make([]*scenario.CaseStudy, len(specs))
	names := make([]string, len(specs))
	for i, m := range specs {
		cs, err := scenario.Load(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--mission %s: %w", m, err)
		}
		if slices.Contains(names, cs.Name) {
			return nil, nil, fmt.Errorf("--mission %s: mission %s given twice", m, cs.Name)
		}
		missions[i], names[i] = cs, cs.Name
	}
	return missions, names, nil
}

// CheckDirs refuses what cannot be a set of suites, for lint and
// score: a path that is not a folder, a folder given twice (the same path
// under two spellings), and for every mission a suite folder with no
// test_*.yaml, saying whether it holds sub-folders of suites (the parent
// folder generate writes, or a --mission layout given without --mission).
// With several missions, a suite empty on some of them but not all is
// accepted: its tool found nothing there and scores 0.
func CheckDirs(dirs, missions []string) error {
	seen := map[string]string{}
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s: not a folder", d)
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		if prev, ok := seen[abs]; ok {
			return fmt.Errorf("%s and %s are the same suite folder: give each suite once", prev, d)
		}
		seen[abs] = d
	}
	for _, d := range dirs {
		var empty error // the first mission whose suite is empty
		nonEmpty := false
		for _, m := range missions {
			folder, err := Folder(d, m, len(missions) == 1)
			if err != nil {
				return err
			}
			files, err := TestFiles(folder)
			if err != nil {
				return err
			}
			if len(files) > 0 {
				nonEmpty = true
				continue
			}
			subs := suiteSubfolders(folder)
			switch {
			case len(subs) > 0 && len(missions) == 1:
				return fmt.Errorf("%s holds no test_*.yaml but %d sub-folders of tests (%s): it is a folder of suites; pass the suites themselves (%s), or, when the sub-folders are missions, one --mission per sub-folder",
					folder, len(subs), listSome(subs), filepath.Join(folder, subs[0]))
			case len(subs) > 0:
				return fmt.Errorf("%s holds no test_*.yaml but %d sub-folders of tests (%s): pass the suites inside it", folder, len(subs), listSome(subs))
			}
			if empty == nil {
				empty = fmt.Errorf("%s: no test_*.yaml: the suite for %s is empty", folder, m)
			}
		}
		// A tool that found nothing on one mission of several scores 0
		// there (Read warns); a suite empty on every mission is a mistake.
		if !nonEmpty && empty != nil {
			return empty
		}
	}
	return nil
}

// suiteSubfolders lists the sub-folders of dir that hold test_*.yaml
// themselves or one level further down.
func suiteSubfolders(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if files, _ := TestFiles(sub); len(files) > 0 || len(suiteSubfolders1(sub)) > 0 {
			out = append(out, e.Name())
		}
	}
	return out
}

func suiteSubfolders1(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			if files, _ := TestFiles(filepath.Join(dir, e.Name())); len(files) > 0 {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func listSome(names []string) string {
	if len(names) > 4 {
		return strings.Join(names[:4], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
