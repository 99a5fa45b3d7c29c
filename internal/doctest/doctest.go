// Package doctest reads the runnable examples of a Markdown file: its fenced
// `sh` blocks, split into commands, with the directives an HTML comment
// before a block gives, and the output blocks that quote what a command
// prints. cmd/shakedown's README test runs them; this package only parses
// and compares (it runs nothing).
//
// Directives, each in an HTML comment on the line (or lines) right before a
// fence, invisible when the Markdown is rendered:
//
//	<!-- doctest: skip REASON -->           the block is not run; REASON says why
//	<!-- doctest: long -->                  run only in the long tests (-tags long)
//	<!-- doctest: small "OLD" "NEW" ... --> in the short tests, OLD is replaced by
//	                                        NEW in every command of the block
//	<!-- doctest: output "CMD" -->          the next (plain) fence quotes what CMD
//	                                        prints: each of its lines must be a line
//	                                        of CMD's output, in order
//	<!-- doctest: output-loose "CMD" -->    the same, a word with a digit in it
//	                                        matching any such word (times, ids,
//	                                        counts)
//
// A line `...` in a quoted output stands for any lines. A command's expected
// exit status is 0 unless its trailing comment says `exit N`.
package doctest

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Block is one fenced `sh` block.
type Block struct {
	Line     int       // 1-based line of the opening fence
	Commands []Command // in order
	Skip     string    // why the block is not run; "" to run it
	Long     bool      // run only in the long tests
	Small    []Subst   // replacements for the short tests
}

// Command is one shell command of a block: a line, with its `\`
// continuations and its here-document.
type Command struct {
	Line int    // 1-based line where it starts
	Text string // as written, without the trailing comment
	Exit int    // expected exit status
}

// Subst is one replacement of a small directive.
type Subst struct{ Old, New string }

// Quote is a fenced block (no language) quoting a command's output.
type Quote struct {
	Line    int    // 1-based line of the opening fence
	Command string // the command whose output it quotes
	Loose   bool   // digits match any digits
	Lines   []string
}

// Doc is what Parse found.
type Doc struct {
	Blocks []Block
	Quotes []Quote
}

// ParseError is a malformed directive or fence, with the line it is on.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ErrUnclosed is returned (wrapped in a ParseError) for a fence that is
// never closed.
var ErrUnclosed = errors.New("doctest: unclosed fence")

const prefix = "<!-- doctest:"

// Parse reads a Markdown document.
func Parse(md string) (Doc, error) {
	var doc Doc
	lines := strings.Split(md, "\n")
	var pending []directive // directives waiting for the next fence
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case strings.HasPrefix(line, prefix):
			d, err := parseDirective(i+1, line)
			if err != nil {
				return Doc{}, err
			}
			pending = append(pending, d)
		case strings.HasPrefix(line, "```"):
			info := strings.TrimSpace(strings.TrimPrefix(line, "```"))
			start := i
			var body []string
			for i++; i < len(lines) && strings.TrimRight(lines[i], " \t\r") != "```"; i++ {
				body = append(body, strings.TrimRight(lines[i], " \t\r"))
			}
			if i == len(lines) {
				return Doc{}, &ParseError{start + 1, ErrUnclosed.Error()}
			}
			if err := doc.add(start+1, info, body, pending); err != nil {
				return Doc{}, err
			}
			pending = nil
		case line == "":
		default:
			if len(pending) > 0 {
				return Doc{}, &ParseError{pending[0].line, "directive not followed by a fence"}
			}
		}
	}
	if len(pending) > 0 {
		return Doc{}, &ParseError{pending[0].line, "directive not followed by a fence"}
	}
	return doc, nil
}

func (doc *Doc) add(line int, info string, body []string, ds []directive) error {
	if info == "sh" {
		b := Block{Line: line}
		for _, d := range ds {
			switch d.verb {
			case "skip":
				b.Skip = d.rest
			case "long":
				b.Long = true
			case "small":
				for k := 0; k+1 < len(d.args); k += 2 {
					b.Small = append(b.Small, Subst{d.args[k], d.args[k+1]})
				}
			default:
				return &ParseError{d.line, fmt.Sprintf("%q does not apply to a sh block", d.verb)}
			}
		}
		cmds, err := splitCommands(line+1, body)
		if err != nil {
			return err
		}
		b.Commands = cmds
		doc.Blocks = append(doc.Blocks, b)
		return nil
	}
	for _, d := range ds {
		if d.verb != "output" && d.verb != "output-loose" {
			return &ParseError{d.line, fmt.Sprintf("%q applies to a sh block, not a %q fence", d.verb, info)}
		}
		if info != "" {
			return &ParseError{d.line, "an output quote is a fence without a language"}
		}
		doc.Quotes = append(doc.Quotes, Quote{Line: line, Command: d.args[0], Loose: d.verb == "output-loose", Lines: body})
	}
	return nil
}

type directive struct {
	line int
	verb string
	rest string   // the text after the verb
	args []string // rest as quoted strings, for small and output
}

func parseDirective(line int, s string) (directive, error) {
	body, ok := strings.CutSuffix(strings.TrimPrefix(s, prefix), "-->")
	if !ok {
		return directive{}, &ParseError{line, "a directive is one line ending in -->"}
	}
	body = strings.TrimSpace(body)
	verb, rest, _ := strings.Cut(body, " ")
	d := directive{line: line, verb: verb, rest: strings.TrimSpace(rest)}
	switch verb {
	case "long":
		if d.rest != "" {
			return d, &ParseError{line, "long takes nothing"}
		}
	case "skip":
		if d.rest == "" {
			return d, &ParseError{line, "skip needs a reason"}
		}
	case "small", "output", "output-loose":
		args, err := quoted(d.rest)
		if err != nil {
			return d, &ParseError{line, verb + ": " + err.Error()}
		}
		if verb == "small" && (len(args) == 0 || len(args)%2 != 0) {
			return d, &ParseError{line, `small takes pairs "OLD" "NEW"`}
		}
		if verb != "small" && len(args) != 1 {
			return d, &ParseError{line, verb + ` takes one "COMMAND"`}
		}
		d.args = args
	default:
		return d, &ParseError{line, fmt.Sprintf("unknown directive %q (skip, long, small, output, output-loose)", verb)}
	}
	return d, nil
}

// quoted splits `"a" "b c"` into its Go-quoted strings.
func quoted(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] != '"' {
			return nil, fmt.Errorf("want a quoted string at %q", s)
		}
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return nil, fmt.Errorf("bad quoted string at %q", s)
		}
		u, _ := strconv.Unquote(q)
		out = append(out, u)
		s = s[len(q):]
	}
	return out, nil
}

var (
	heredoc  = regexp.MustCompile(`<<-?\s*'?"?([A-Za-z_]+)'?"?`)
	exitWant = regexp.MustCompile(`\bexit (\d+)\b`)
)

// splitCommands cuts a block's lines into commands.
func splitCommands(first int, body []string) ([]Command, error) {
	var cmds []Command
	for i := 0; i < len(body); i++ {
		start := i
		code, comment := cutComment(body[i])
		text := code
		for strings.HasSuffix(strings.TrimRight(text, " "), `\`) {
			if i+1 == len(body) {
				return nil, &ParseError{first + i, `a \ continues past the end of the block`}
			}
			i++
			c, com := cutComment(body[i])
			text = strings.TrimRight(text, " ") + "\n" + c
			if com != "" {
				comment = com
			}
		}
		if m := heredoc.FindStringSubmatch(text); m != nil {
			end := -1
			for j := i + 1; j < len(body); j++ {
				if strings.TrimSpace(body[j]) == m[1] {
					end = j
					break
				}
			}
			if end < 0 {
				return nil, &ParseError{first + start, "here-document " + m[1] + " is not closed"}
			}
			text += "\n" + strings.Join(body[i+1:end+1], "\n")
			i = end
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		c := Command{Line: first + start, Text: text}
		if m := exitWant.FindStringSubmatch(comment); m != nil {
			c.Exit, _ = strconv.Atoi(m[1])
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// cutComment splits a shell line at a `#` that starts a comment: outside
// quotes and after a blank (or at the start).
func cutComment(s string) (code, comment string) {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimRight(s[:i], " \t"), strings.TrimSpace(s[i+1:])
		}
	}
	return s, ""
}

// Apply returns text with the substitutions made.
func Apply(text string, subs []Subst) string {
	for _, s := range subs {
		text = strings.ReplaceAll(text, s.Old, s.New)
	}
	return text
}

// Match reports the first quoted line that got (a command's output) lacks:
// the quoted lines must appear as whole lines of got, in order, a `...` line
// standing for any lines; trailing blanks are ignored. With loose, a word
// with a digit in it (1.5, 2026, d6a5a449dcb7) matches any such word.
func Match(quoted []string, got string, loose bool) error {
	have := strings.Split(got, "\n")
	for i := range have {
		have[i] = strings.TrimRight(have[i], " \t\r")
	}
	j := 0
	for _, q := range quoted {
		q = strings.TrimRight(q, " \t")
		if q == "..." || q == "" {
			continue
		}
		eq := func(s string) bool { return s == q }
		if loose {
			lq := numbery.ReplaceAllString(q, "0")
			eq = func(s string) bool { return numbery.ReplaceAllString(s, "0") == lq }
		}
		found := false
		for ; j < len(have); j++ {
			if eq(have[j]) {
				found = true
				j++
				break
			}
		}
		if !found {
			return fmt.Errorf("doctest: output lacks the line %q (or it is out of order)", q)
		}
	}
	return nil
}

// numbery is a word with a digit in it: a number, an id, a time stamp's
// part, a name like mission2.
var numbery = regexp.MustCompile(`[A-Za-z_]*[0-9][A-Za-z0-9_]*`)
