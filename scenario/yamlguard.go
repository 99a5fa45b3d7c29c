package scenario

import (
	"fmt"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// Bounds on the shape of a case-study YAML, checked on its tokens before
// it is parsed: goccy/go-yaml's parser takes memory quadratic in the
// nesting depth (issue 21: depth 20000 took about 1 GB), and a case study
// is five levels deep.
const (
	maxYAMLFlowDepth = 64  // nested [ ] and { }
	maxYAMLIndent    = 256 // column of the first token of a line (block nesting needs one column a level)
	maxYAMLCompact   = 32  // block entries ("- - - x") opening one line
	maxYAMLAliases   = 100 // *alias references: Aerialist's files use none
	// maxYAMLTokens bounds the tokens parsed: MaxBoxes obstacles in flow
	// style take about 30 each; the parser then costs about 1 KB a token.
	maxYAMLTokens = 1 << 16
)

// checkYAMLShape refuses YAML nested deeper than the bounds above or with
// more than maxYAMLAliases aliases, naming the line. The lexer is linear in
// the input, so the check costs what reading it does.
func checkYAMLShape(name string, data []byte) error {
	perr := func(line int, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Err: fmt.Errorf(format, args...)}
	}
	flow, aliases, line, compact, leading := 0, 0, 0, 0, false
	tks := lexer.Tokenize(string(data))
	if len(tks) > maxYAMLTokens {
		return perr(0, "YAML of %d tokens, more than %d", len(tks), maxYAMLTokens)
	}
	for _, tk := range tks {
		if tk == nil || tk.Position == nil {
			continue
		}
		if p := tk.Position; p.Line != line {
			line, compact, leading = p.Line, 0, true
			if p.Column > maxYAMLIndent {
				return perr(line, "YAML indented %d columns, more than %d: nested too deeply", p.Column, maxYAMLIndent)
			}
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if flow++; flow > maxYAMLFlowDepth {
				return perr(line, "YAML nested more than %d levels deep in [ ] and { }", maxYAMLFlowDepth)
			}
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.AliasType:
			if aliases++; aliases > maxYAMLAliases {
				return perr(line, "more than %d YAML aliases", maxYAMLAliases)
			}
		}
		if leading && (tk.Type == token.SequenceEntryType || tk.Type == token.MappingKeyType) {
			if compact++; compact > maxYAMLCompact {
				return perr(line, "more than %d nested entries on one line: nested too deeply", maxYAMLCompact)
			}
		} else {
			leading = false
		}
	}
	return nil
}
