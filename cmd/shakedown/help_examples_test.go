package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// exampleWords splits an Example line as a shell would for what matters
// here: words, single and double quotes, a comment after " #", and a
// redirection (> file) left out.
func exampleWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quote, redirect := false, rune(0), false
	flush := func() {
		if in {
			if !redirect {
				words = append(words, w.String())
			}
			redirect = false
		}
		w.Reset()
		in = false
	}
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !in && (i == 0 || line[i-1] == ' '):
			flush()
			return words
		case r == '>' && !in:
			redirect = true
		default:
			w.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}

func TestExampleWords(t *testing.T) {
	for line, want := range map[string]string{
		`shakedown bench -k "not Figure8" --out x   # a comment`: "shakedown|bench|-k|not Figure8|--out|x",
		`shakedown mission send '{"event":"goto","x":4}'`:        `shakedown|mission|send|{"event":"goto","x":4}`,
		`shakedown campaign export --db runs.db > runs.csv`:      "shakedown|campaign|export|--db|runs.db",
		`shakedown sitl --gcs "" --obstacle 1,2`:                 "shakedown|sitl|--gcs||--obstacle|1,2",
	} {
		if got := strings.Join(exampleWords(line), "|"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", line, got, want)
		}
	}
}

// TestHelpExamples: every --help example names a command that exists,
// flags it takes, values they accept as flags and the arguments it wants,
// and every file of the repository it names exists (issue 22: examples
// that fail as written). Nothing runs; the README test runs the README's.
func TestHelpExamples(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		top[e.Name()] = true
	}
	var examples []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for l := range strings.SplitSeq(c.Example, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				examples = append(examples, c.CommandPath()+"\x00"+l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(io.Discard, io.Discard))
	if len(examples) < 50 {
		t.Fatalf("%d examples; want the CLI's (more than 50)", len(examples))
	}
	for _, ex := range examples {
		owner, line, _ := strings.Cut(ex, "\x00")
		words := exampleWords(line)
		if len(words) < 1 || words[0] != "shakedown" {
			t.Errorf("%s: example %q does not start with shakedown", owner, line)
			continue
		}
		root := newRoot(io.Discard, io.Discard) // fresh flags for every line
		c, rest, err := root.Find(words[1:])
		if err != nil {
			t.Errorf("%s: %q: %v", owner, line, err)
			continue
		}
		if err := c.ParseFlags(rest); err != nil {
			t.Errorf("%s: %q: flags: %v", owner, line, err)
			continue
		}
		args := c.Flags().Args()
		if err := c.ValidateArgs(args); err != nil {
			t.Errorf("%s: %q: arguments: %v", owner, line, err)
		}
		for _, a := range args {
			first, _, nested := strings.Cut(a, "/")
			if !nested || !top[first] {
				continue // not a path into the repository
			}
			if m, _ := filepath.Glob(filepath.Join(repo, a)); len(m) == 0 {
				t.Errorf("%s: %q: %s is not in the repository", owner, line, a)
			}
		}
	}
}
