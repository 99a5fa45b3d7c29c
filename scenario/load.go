package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// This file is the package's only contact with the file system.

// LoadCaseStudy reads the case-study YAML at path with ParseCaseStudy,
// reading the files it names from the first of these that exists: the path
// as written, relative to the working directory (as Aerialist reads it);
// relative to the YAML's directory; relative to that directory's parent;
// and the path's base name in the YAML's directory. The last two let the
// competition's files, which live in case_studies/ and name
// "case_studies/mission2.plan", load from anywhere.
func LoadCaseStudy(path string) (*CaseStudy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	resolve := func(ref string) ([]byte, error) {
		tried := referenceCandidates(dir, ref)
		for _, c := range tried {
			b, err := os.ReadFile(c)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		return nil, fmt.Errorf("%s not found (tried %s)", ref, strings.Join(tried, ", "))
	}
	return ParseCaseStudy(path, data, resolve)
}

// referenceCandidates returns, without repeats, the paths LoadCaseStudy
// tries for a file ref named in a YAML that lives in dir.
func referenceCandidates(dir, ref string) []string {
	if filepath.IsAbs(ref) {
		return []string{ref}
	}
	var out []string
	for _, c := range []string{
		ref,
		filepath.Join(dir, ref),
		filepath.Join(dir, "..", ref),
		filepath.Join(dir, filepath.Base(ref)),
	} {
		c = filepath.Clean(c)
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Load returns the case study arg names: a built-in name (see
// BuiltinNames), a .yaml or .yml file (LoadCaseStudy), or a .plan file,
// which gets the competition's defaults (NewCaseStudy).
func Load(arg string) (*CaseStudy, error) {
	if slices.Contains(BuiltinNames(), arg) {
		return Builtin(arg)
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml":
		return LoadCaseStudy(arg)
	case ".plan":
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		m, err := ParsePlan(arg, data)
		if err != nil {
			return nil, err
		}
		cs := NewCaseStudy(m)
		cs.Source = arg
		return cs, nil
	}
	return nil, fmt.Errorf("%w %q: want a built-in name (%s), a .yaml/.yml case study or a .plan mission", ErrUnknownCaseStudy, arg, strings.Join(BuiltinNames(), ", "))
}
