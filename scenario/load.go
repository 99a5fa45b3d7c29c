package scenario

import (
	"errors"
	"fmt"
	"io"
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
//
// Every file is read with ReadFile: the YAML up to MaxYAMLBytes, the files
// it names up to MaxFileBytes, regular files only.
func LoadCaseStudy(path string) (*CaseStudy, error) { return LoadCaseStudyOr(path, nil) }

// LoadCaseStudyOr is LoadCaseStudy with a stand-in for the named files
// that exist nowhere it looks: missing(ref) returns the bytes to read
// instead (or an error). A nil missing makes such a file an error naming
// the places tried. Only a file that does not exist is stood in for: one
// too large, or not a regular file, is still an error.
func LoadCaseStudyOr(path string, missing func(ref string) ([]byte, error)) (*CaseStudy, error) {
	data, err := ReadFile(path, MaxYAMLBytes)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	resolve := func(ref string) ([]byte, error) {
		tried := referenceCandidates(dir, ref)
		for _, c := range tried {
			b, err := ReadFile(c, MaxFileBytes)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		if missing != nil {
			return missing(ref)
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
		data, err := ReadFile(arg, MaxFileBytes)
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
	want := fmt.Sprintf("want a built-in name (%s), a .yaml/.yml case study or a .plan mission", strings.Join(BuiltinNames(), ", "))
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is a directory; %s file", ErrUnknownCaseStudy, arg, want)
	}
	return nil, fmt.Errorf("%w %q: %s", ErrUnknownCaseStudy, arg, want)
}

// Errors of ReadFile.
var (
	ErrFileTooLarge = errors.New("scenario: file too large")
	ErrNotRegular   = errors.New("scenario: not a regular file")
)

// ReadFile reads the file at path, refusing anything but a regular file
// (a device such as /dev/zero, a pipe such as /dev/stdin, a directory)
// and files above limit bytes, without reading more than limit + 1 bytes
// even when the file grows meanwhile. Errors are *fs.PathError values
// wrapping ErrNotRegular, ErrFileTooLarge or the system's error, so
// errors.Is(err, fs.ErrNotExist) works as for os.ReadFile. Every command
// that reads a file a user names should read it with ReadFile.
func ReadFile(path string, limit int64) ([]byte, error) {
	bad := func(err error) error { return &fs.PathError{Op: "read", Path: path, Err: err} }
	fi, err := os.Stat(path) // before opening: opening a FIFO would block
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, bad(fmt.Errorf("%w (%s)", ErrNotRegular, describeMode(fi.Mode())))
	}
	if fi.Size() > limit {
		return nil, bad(fmt.Errorf("%w: %d bytes, more than %d", ErrFileTooLarge, fi.Size(), limit))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() { // replaced between Stat and Open
		return nil, bad(fmt.Errorf("%w (%s)", ErrNotRegular, describeMode(fi.Mode())))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, bad(fmt.Errorf("%w: more than %d bytes", ErrFileTooLarge, limit))
	}
	return data, nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
