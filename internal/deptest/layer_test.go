package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is DESIGN.md's package table, top to bottom: a package imports only
// packages listed above it. Where the code taught a better order than the
// first table (scenario, score and mission/adapter lower in the stack than
// first drawn; gen/harness below campaign, which it spends its budget
// through), the table follows the code.
var layers = []string{
	"internal/atomicfile", "internal/browsertest", "internal/doctest", "internal/nodetest", "internal/testcheck", // leaf helpers
	"geom", "world",
	"sim", "sim/quad", "sim/rover",
	"control", "autopilot", "avoid", "gate",
	"traj", "track",
	"mission", "mission/blackbox", "mission/statelog",
	"trace", "plot",
	"vehicle",
	"track/extern", "track/extern/externtest",
	"scenario",
	"flightlog",
	"mission/adapter",
	"mavlink",
	"rosbridge", "rosbridge/ros", "rosbridge/robot",
	"mission/server", "mission/client", "mission/daemon", "mission/daemon/daemontest", "mission/smoke",
	"ulog",
	"score/dtw", "score",
	"run",
	"gen/surrogate", "gen",
	"telemetry", "telemetry/telemetrytest",
	"campaign", "store", "campaign/campaigntest", "internal/natstest",
	"score/suite",
	"gen/harness",
	"fidelity",
	"bench/metric", "bench", "bench/results", "bench/compare",
	"eol",
	"report",
	"cmd/shakedown", "cmd/shakedown-nats",
}

// testOnly are packages of tests alone (no non-test Go files).
var testOnly = []string{"internal/deptest", "internal/exp", "interop"}

// TestLayers lists every package of the module with `go list` and fails
// when one imports a package of the module listed below it in layers, or is
// not listed at all. go test -v prints the table.
func TestLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, msg := range checkLayers(string(out), layers) {
		t.Error(msg)
	}
	for i, p := range layers {
		t.Logf("%2d %s", i, p)
	}
}

// checkLayers returns a message for each layering rule the `go list` output
// (one package per line, then its imports) breaks.
func checkLayers(goList string, order []string) []string {
	index := map[string]int{}
	for i, p := range order {
		index[p] = i
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(goList), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		p := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		i, ok := index[p]
		if !ok {
			if !slices.Contains(testOnly, p) {
				msgs = append(msgs, p+": not in the layer list (add it where it belongs, and to DESIGN.md's package table)")
			}
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			q := strings.TrimPrefix(imp, module+"/")
			if j, ok := index[q]; !ok || j >= i {
				msgs = append(msgs, p+" imports "+q+", which is not listed above it")
			}
		}
	}
	return msgs
}

func TestCheckLayersDetects(t *testing.T) {
	out := module + "/geom\n" + module + "/world " + module + "/geom\n" + module + "/geom2 " + module + "/world\n" +
		module + "/plot " + module + "/run fmt\n"
	msgs := checkLayers(out, []string{"geom", "world", "plot", "run"})
	want := []string{"geom2: not in the layer list", "plot imports run"}
	if len(msgs) != len(want) {
		t.Fatalf("got %q; want messages starting %q", msgs, want)
	}
	for i, m := range msgs {
		if !strings.HasPrefix(m, want[i]) {
			t.Errorf("message %d: got %q; want it to start with %q", i, m, want[i])
		}
	}
}

// thirdPartyAllowed are the outside modules a pure package may import, with
// why: pure computation, no I/O, no goroutines.
var thirdPartyAllowed = map[string]string{
	"github.com/peterstace/simplefeatures/geom": "score: exact polygon unions of Eq. 9 (pure computational geometry)",
	// gonum's BLAS may split a large product over goroutines, but each
	// output block is computed by one of them in a fixed order, so the
	// results do not depend on the scheduling.
	"gonum.org/v1/gonum/mat": "gen: the Cholesky factor of the flight model's Gaussian process (pure linear algebra, no I/O)",
}

// TestPureRulesMore holds the rules of purity beyond pure_test.go's: no
// crypto/rand, no outside module but those allowed, and no package-level
// variable written after initialisation (mutable global state).
func TestPureRulesMore(t *testing.T) {
	r := root(t)
	for _, p := range pure {
		for _, msg := range checkMore(p, parsePkg(t, filepath.Join(r, p))) {
			t.Error(msg)
		}
	}
}

func checkMore(p string, files []*ast.File) []string {
	var msgs []string
	globals := map[string]bool{}
	for _, f := range files {
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			first := strings.Split(path, "/")[0]
			switch {
			case path == "crypto/rand":
				msgs = append(msgs, p+": imports crypto/rand (randomness comes in as a seeded *rand.Rand)")
			case strings.Contains(first, ".") && !strings.HasPrefix(path, module+"/") && thirdPartyAllowed[path] == "":
				msgs = append(msgs, p+": imports the outside module "+path)
			}
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.Name != "_" {
							globals[n.Name] = true
						}
					}
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Recv == nil && fn.Name.Name == "init" {
				continue // init functions are the initialisation
			}
			local := map[string]bool{}
			if fn.Recv != nil {
				for _, fl := range fn.Recv.List {
					for _, n := range fl.Names {
						local[n.Name] = true
					}
				}
			}
			for _, fl := range fn.Type.Params.List {
				for _, n := range fl.Names {
					local[n.Name] = true
				}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for _, lhs := range n.Lhs {
						if id := rootIdent(lhs); id != nil {
							if n.Tok == token.DEFINE {
								local[id.Name] = true
							} else if globals[id.Name] && !local[id.Name] {
								msgs = append(msgs, p+": "+fn.Name.Name+" writes the package-level variable "+id.Name)
							}
						}
					}
				case *ast.IncDecStmt:
					if id := rootIdent(n.X); id != nil && globals[id.Name] && !local[id.Name] {
						msgs = append(msgs, p+": "+fn.Name.Name+" writes the package-level variable "+id.Name)
					}
				case *ast.ValueSpec:
					for _, id := range n.Names {
						local[id.Name] = true
					}
				case *ast.RangeStmt:
					for _, e := range []ast.Expr{n.Key, n.Value} {
						if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE {
							local[id.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	return msgs
}

// rootIdent is the variable an assignment to e writes: v in v, v[i], v.f,
// *v.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func TestPureRulesMoreDetects(t *testing.T) {
	src := `package bad
import (
	"crypto/rand"
	"github.com/other/lib"
)
var count int
var table = map[string]int{}
var limit = 3
func Bump() { count++ }
func Put(k string) { table[k] = limit }
func Shadow() { limit := 4; limit = 5; _ = limit }
func Read() int { return limit + lib.X + int(rand.Reader == nil) }
func init() { limit = 2 }
`
	f, err := parser.ParseFile(token.NewFileSet(), "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	msgs := checkMore("bad", []*ast.File{f})
	want := []string{"imports crypto/rand", "outside module github.com/other/lib", "Bump writes the package-level variable count", "Put writes the package-level variable table"}
	if len(msgs) != len(want) {
		t.Fatalf("got %q; want %d messages (%q)", msgs, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(msgs[i], w) {
			t.Errorf("message %d: %q; want it to contain %q", i, msgs[i], w)
		}
	}
}
