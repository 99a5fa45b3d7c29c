package scenario

import (
	"regexp"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// yamlIndex maps the keys of a parsed YAML document to their lines, so that
// errors found after decoding can name a line, and maps the tokens of
// goccy/go-yaml's errors back to the key they belong to. Paths are written
// without goccy's leading "$.": "simulation.obstacles[1].size.w".
type yamlIndex struct {
	line  map[string]int          // path → line of its key or sequence entry
	kind  map[string]ast.NodeType // path → type of its value (anchors and tags removed)
	token map[[2]int]string       // (line, column) of a token → path of its node
}

func newYAMLIndex(f *ast.File) *yamlIndex {
	ix := &yamlIndex{line: map[string]int{}, kind: map[string]ast.NodeType{}, token: map[[2]int]string{}}
	if f != nil {
		for _, d := range f.Docs {
			ix.walk(d, 0)
		}
	}
	return ix
}

// maxYAMLDepth bounds the recursion over hostile input; case studies are
// five levels deep.
const maxYAMLDepth = 64

func (ix *yamlIndex) walk(n ast.Node, depth int) {
	if n == nil || depth > maxYAMLDepth {
		return
	}
	if d, ok := n.(*ast.DocumentNode); ok { // its GetToken fails on an empty document
		ix.walk(d.Body, depth+1)
		return
	}
	ix.mark(n)
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, v := range n.Values {
			ix.walk(v, depth+1)
		}
	case *ast.MappingValueNode:
		p := yamlPath(n)
		if n.Key != nil {
			ix.setLine(p, n.Key.GetToken())
			ix.mark(n.Key)
		}
		ix.setKind(p, n.Value)
		ix.walk(n.Value, depth+1)
	case *ast.SequenceNode:
		for _, v := range n.Values {
			if v == nil {
				continue
			}
			p := yamlPath(v)
			ix.setLine(p, v.GetToken())
			ix.setKind(p, v)
			ix.walk(v, depth+1)
		}
	case *ast.AnchorNode:
		ix.walk(n.Value, depth+1)
	case *ast.TagNode:
		ix.walk(n.Value, depth+1)
	}
}

func (ix *yamlIndex) mark(n ast.Node) {
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return
	}
	k := [2]int{tk.Position.Line, tk.Position.Column}
	if _, ok := ix.token[k]; !ok {
		ix.token[k] = yamlPath(n)
	}
}

func (ix *yamlIndex) setLine(p string, tk *token.Token) {
	if _, ok := ix.line[p]; ok || tk == nil || tk.Position == nil {
		return
	}
	ix.line[p] = tk.Position.Line
}

func (ix *yamlIndex) setKind(p string, v ast.Node) {
	for {
		switch w := v.(type) {
		case *ast.AnchorNode:
			v = w.Value
			continue
		case *ast.TagNode:
			if t := w.Start; t != nil && (t.Value == "!!str" || t.Value == "tag:yaml.org,2002:str" || t.Value == "!<tag:yaml.org,2002:str>") {
				ix.kind[p] = ast.StringType // !!str 10 is text, whatever it looks like
				return
			}
			v = w.Value
			continue
		}
		break
	}
	if v == nil {
		return
	}
	k := v.Type()
	// goccy/go-yaml reads a plain 1e308 (no decimal point) as a string;
	// YAML 1.2's core schema, and encoding/json, read it as a number.
	if s, ok := v.(*ast.StringNode); ok && s.Token != nil && s.Token.Type == token.StringType && yamlFloat.MatchString(s.Value) {
		k = ast.FloatType
	}
	ix.kind[p] = k
}

// yamlFloat is the core schema's float (YAML 1.2.2 §10.3.2), without the
// infinities and NaN.
var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// has reports whether the document has the key p (even with a null value).
func (ix *yamlIndex) has(p string) bool {
	_, ok := ix.line[p]
	return ok
}

// lineOf returns the line of p, or of its nearest ancestor that has one.
func (ix *yamlIndex) lineOf(p string) int {
	for p != "" {
		if l, ok := ix.line[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

// at returns the path of the node whose token is tk, "" if not known.
func (ix *yamlIndex) at(tk *token.Token) string {
	if tk == nil || tk.Position == nil {
		return ""
	}
	return ix.token[[2]int{tk.Position.Line, tk.Position.Column}]
}

// isText reports whether the value at p was written as a string (quoted or
// not) rather than a number, a boolean or null.
func (ix *yamlIndex) isText(p string) bool {
	switch ix.kind[p] {
	case ast.StringType, ast.LiteralType:
		return true
	}
	return false
}

func yamlPath(n ast.Node) string {
	p := n.GetPath()
	p = strings.TrimPrefix(p, "$")
	return strings.TrimPrefix(p, ".")
}
