package scenario

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// TestOnlyLoadTouchesFiles keeps the parsers pure: of the package's own
// files only load.go may import os, and none may use clocks, randomness or
// the network.
func TestOnlyLoadTouchesFiles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{"os": true, "net": true, "time": true, "math/rand": true, "math/rand/v2": true, "io/ioutil": true}
	fset := token.NewFileSet()
	for _, f := range files {
		if matched, _ := filepath.Match("*_test.go", f); matched {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if banned[path] && !(f == "load.go" && path == "os") {
				t.Errorf("%s imports %s; only load.go may reach the file system, and nothing the clock, randomness or network", f, path)
			}
		}
	}
}
