package deptest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/shakedown-robotics/shakedown"

// pure lists the packages DESIGN.md calls pure, by directory below the
// module root. New pure packages are added here as they land.
var pure = []string{
	"geom", "world", "sim", "sim/quad", "sim/rover", "gate", "control", "autopilot", "avoid", "gen", "gen/surrogate", "trace",
	"score", "score/dtw", "ulog", "mission", "mission/blackbox", "mission/statelog",
	"traj", "track", "bench/metric",
}

// adapters are packages that own I/O, sockets or goroutines; a pure package
// must not import them.
var adapters = []string{"vehicle", "mavlink", "run", "scenario", "plot", "report", "campaign", "cmd"}

// forbidden are standard packages a pure package must not import directly.
func forbidden(path string) bool {
	switch {
	case path == "os", strings.HasPrefix(path, "os/"),
		path == "net", strings.HasPrefix(path, "net/"),
		path == "math/rand", path == "syscall", path == "unsafe",
		path == "io/ioutil", path == "plugin":
		return true
	}
	return false
}

// randAllowed are the identifiers of math/rand/v2 that do not touch the
// global source.
var randAllowed = map[string]bool{"New": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true,
	"Rand": true, "Source": true, "PCG": true, "ChaCha8": true, "Zipf": true}

func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", r, err)
	}
	return r
}

// parsePkg parses the non-test Go files of one directory.
func parsePkg(t *testing.T, dir string) []*ast.File {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

type reporter interface {
	Errorf(format string, args ...any)
}

type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestPurePackages(t *testing.T) {
	r := root(t)
	for _, p := range pure {
		files := parsePkg(t, filepath.Join(r, p))
		if len(files) == 0 {
			t.Errorf("%s: no Go files (remove it from the pure list or restore it)", p)
		}
		checkFiles(t, p, files)
	}
}

// clockFuncs are the functions of package time that read or wait on the
// wall clock.
var clockFuncs = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}

// checkFiles reports every rule of purity the files of package p break.
func checkFiles(t reporter, p string, files []*ast.File) {
	isPure := map[string]bool{}
	for _, q := range pure {
		isPure[module+"/"+q] = true
	}
	for _, f := range files {
		randName, timeName := "", ""
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			local := filepath.Base(path)
			if path == "math/rand/v2" {
				local = "rand"
			}
			if im.Name != nil {
				local = im.Name.Name
			}
			switch {
			case forbidden(path):
				t.Errorf("%s: imports %q", p, path)
			case path == "math/rand/v2":
				randName = local
			case path == "time":
				timeName = local
			case strings.HasPrefix(path, module+"/"):
				rel := strings.TrimPrefix(path, module+"/")
				adapter := false
				for _, a := range adapters {
					if rel == a || strings.HasPrefix(rel, a+"/") {
						adapter = true
						t.Errorf("%s: imports the adapter %s", p, rel)
					}
				}
				if !adapter && !isPure[path] {
					t.Errorf("%s: imports %s, which is not in the pure list", p, rel)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: starts a goroutine", p)
			case *ast.SelectorExpr:
				id, ok := n.X.(*ast.Ident)
				if !ok {
					break
				}
				if randName != "" && id.Name == randName && !randAllowed[n.Sel.Name] {
					t.Errorf("%s: uses the global random source %s.%s", p, id.Name, n.Sel.Name)
				}
				if timeName != "" && id.Name == timeName && clockFuncs[n.Sel.Name] {
					t.Errorf("%s: reads the clock with time.%s", p, n.Sel.Name)
				}
			}
			return true
		})
	}
}

// TestPureListIsComplete fails when a package directory that DESIGN.md calls
// pure exists but is missing from the list above, so that new pure packages
// are checked from the day they land.
func TestPureListIsComplete(t *testing.T) {
	r := root(t)
	designPure := []string{"geom", "world", "sim", "sim/quad", "sim/rover", "control", "autopilot", "avoid",
		"traj", "track", "mission", "score", "gen", "gen/surrogate"}
	listed := map[string]bool{}
	for _, p := range pure {
		listed[p] = true
	}
	var missing []string
	for _, p := range designPure {
		if _, err := os.Stat(filepath.Join(r, p)); err == nil && !listed[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("pure packages not checked: %v", missing)
	}
}

// TestDetectsViolations feeds the checker a package that breaks every rule,
// so that a checker that silently passes everything fails here.
func TestDetectsViolations(t *testing.T) {
	dir := t.TempDir()
	src := `package bad
import (
	"os"
	"math/rand/v2"
	"time"
	"github.com/shakedown-robotics/shakedown/vehicle"
)
var _ = os.Args
var _ vehicle.Vehicle
func f() float64 { go func() {}(); _ = time.Now(); return rand.Float64() }
`
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	files := parsePkg(t, dir)
	if len(files) != 1 {
		t.Fatalf("parsed %d files; want 1", len(files))
	}
	rec := &recorder{}
	checkFiles(rec, "bad", files)
	want := []string{"imports \"os\"", "adapter vehicle", "goroutine", "global random source", "time.Now"}
	for _, w := range want {
		found := false
		for _, m := range rec.msgs {
			if strings.Contains(m, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("checker missed %q; reported %q", w, rec.msgs)
		}
	}
}
