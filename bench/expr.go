package bench

import (
	"fmt"
	"strings"
	"unicode"
)

// Expr is a parsed selection expression, pytest's -k and -m grammar:
//
//	expr := and ("or" and)*
//	and  := not ("and" not)*
//	not  := "not" not | "(" expr ")" | ident
//
// An identifier is a run of characters other than white space and
// parentheses. The empty expression matches everything.
type Expr struct {
	src  string
	root node
}

// ExprError is a syntax error in an expression, at byte offset Pos.
type ExprError struct {
	Expr string
	Pos  int
	Msg  string
}

func (e *ExprError) Error() string {
	return fmt.Sprintf("bench: expression %q: column %d: %s", e.Expr, e.Pos+1, e.Msg)
}

type node struct {
	op    byte // 'i' ident, '!' not, '&' and, '|' or, 't' true
	ident string
	kids  []node
}

// ParseExpr parses s.
func ParseExpr(s string) (*Expr, error) {
	p := &exprParser{src: s}
	p.lex()
	if len(p.toks) == 0 {
		return &Expr{src: s, root: node{op: 't'}}, nil
	}
	n, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, p.errAt(p.toks[p.i].pos, fmt.Sprintf("unexpected %q", p.toks[p.i].s))
	}
	return &Expr{src: s, root: n}, nil
}

// String returns the expression as given.
func (e *Expr) String() string { return e.src }

// Match evaluates the expression, with has deciding each identifier.
func (e *Expr) Match(has func(ident string) bool) bool { return e.root.eval(has) }

// MatchKeyword is -k's rule: an identifier matches when it is a
// case-insensitive substring of any of the names.
func (e *Expr) MatchKeyword(names ...string) bool {
	return e.Match(func(id string) bool {
		id = strings.ToLower(id)
		for _, n := range names {
			if strings.Contains(strings.ToLower(n), id) {
				return true
			}
		}
		return false
	})
}

// MatchMarks is -m's rule: an identifier matches when it equals one of the
// marks.
func (e *Expr) MatchMarks(marks ...string) bool {
	return e.Match(func(id string) bool {
		for _, m := range marks {
			if m == id {
				return true
			}
		}
		return false
	})
}

func (n *node) eval(has func(string) bool) bool {
	switch n.op {
	case 't':
		return true
	case 'i':
		return has(n.ident)
	case '!':
		return !n.kids[0].eval(has)
	case '&':
		for i := range n.kids {
			if !n.kids[i].eval(has) {
				return false
			}
		}
		return true
	case '|':
		for i := range n.kids {
			if n.kids[i].eval(has) {
				return true
			}
		}
		return false
	}
	return false
}

type token struct {
	s   string
	pos int
}

type exprParser struct {
	src  string
	toks []token
	i    int
}

func (p *exprParser) lex() {
	i := 0
	for i < len(p.src) {
		r := rune(p.src[i])
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')':
			p.toks = append(p.toks, token{s: string(r), pos: i})
			i++
		default:
			j := i
			for j < len(p.src) && !unicode.IsSpace(rune(p.src[j])) && p.src[j] != '(' && p.src[j] != ')' {
				j++
			}
			p.toks = append(p.toks, token{s: p.src[i:j], pos: i})
			i = j
		}
	}
}

func (p *exprParser) errAt(pos int, msg string) error {
	return &ExprError{Expr: p.src, Pos: pos, Msg: msg}
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].s
	}
	return ""
}

// maxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const maxDepth = 100

func (p *exprParser) or(depth int) (node, error) {
	n, err := p.and(depth)
	if err != nil || p.peek() != "or" {
		return n, err
	}
	out := node{op: '|', kids: []node{n}}
	for p.peek() == "or" {
		p.i++
		k, err := p.and(depth)
		if err != nil {
			return node{}, err
		}
		out.kids = append(out.kids, k)
	}
	return out, nil
}

func (p *exprParser) and(depth int) (node, error) {
	n, err := p.not(depth)
	if err != nil || p.peek() != "and" {
		return n, err
	}
	out := node{op: '&', kids: []node{n}}
	for p.peek() == "and" {
		p.i++
		k, err := p.not(depth)
		if err != nil {
			return node{}, err
		}
		out.kids = append(out.kids, k)
	}
	return out, nil
}

func (p *exprParser) not(depth int) (node, error) {
	if depth > maxDepth {
		return node{}, p.errAt(p.pos(), "nested too deeply")
	}
	if p.i >= len(p.toks) {
		return node{}, p.errAt(len(p.src), "expected an identifier, \"not\" or \"(\"")
	}
	t := p.toks[p.i]
	switch t.s {
	case "not":
		p.i++
		k, err := p.not(depth + 1)
		if err != nil {
			return node{}, err
		}
		return node{op: '!', kids: []node{k}}, nil
	case "(":
		p.i++
		n, err := p.or(depth + 1)
		if err != nil {
			return node{}, err
		}
		if p.peek() != ")" {
			return node{}, p.errAt(p.pos(), "expected \")\"")
		}
		p.i++
		return n, nil
	case ")", "and", "or":
		return node{}, p.errAt(t.pos, fmt.Sprintf("unexpected %q", t.s))
	}
	p.i++
	return node{op: 'i', ident: t.s}, nil
}

func (p *exprParser) pos() int {
	if p.i < len(p.toks) {
		return p.toks[p.i].pos
	}
	return len(p.src)
}
