package doctest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = "# Title\n\n" +
	"<!-- doctest: small \"--n 2716\" \"--n 20\" -->\n" +
	"```sh\n" +
	"shakedown dataset canonical --n 2716 --out c.csv   # the dataset\n" +
	"shakedown fly mission2 --obstacle 1,2,3 \\\n" +
	"    --json   # crashes: exit 1\n" +
	"shakedown bench -k \"not rob#3\"\n" +
	"cat > f.yaml <<'EOF'\n" +
	"a: 1   # not a comment of the shell\n" +
	"EOF\n" +
	"```\n\n" +
	"<!-- doctest: skip needs two terminals -->\n" +
	"<!-- doctest: long -->\n" +
	"```sh\nshakedown sitl\n```\n\n" +
	"It prints\n\n" +
	"<!-- doctest: output-loose \"shakedown fly mission2\" -->\n" +
	"```\nmission2: completed at 12.5\n...\n  collisions none\n```\n\n" +
	"```\nnot a quote\n```\n"

func TestParse(t *testing.T) {
	doc, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := Doc{
		Blocks: []Block{
			{Line: 4, Small: []Subst{{"--n 2716", "--n 20"}}, Commands: []Command{
				{Line: 5, Text: "shakedown dataset canonical --n 2716 --out c.csv"},
				{Line: 6, Text: "shakedown fly mission2 --obstacle 1,2,3 \\\n    --json", Exit: 1},
				{Line: 8, Text: `shakedown bench -k "not rob#3"`},
				{Line: 9, Text: "cat > f.yaml <<'EOF'\na: 1   # not a comment of the shell\nEOF"},
			}},
			{Line: 16, Skip: "needs two terminals", Long: true, Commands: []Command{{Line: 17, Text: "shakedown sitl"}}},
		},
		Quotes: []Quote{{Line: 23, Command: "shakedown fly mission2", Loose: true,
			Lines: []string{"mission2: completed at 12.5", "...", "  collisions none"}}},
	}
	if d := cmp.Diff(want, doc); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		line     int
		msg      string
	}{
		{"unclosed", "x\n```sh\nshakedown fly\n", 2, "unclosed"},
		{"unknown directive", "<!-- doctest: sometimes -->\n```sh\nx\n```\n", 1, "unknown directive"},
		{"skip without reason", "<!-- doctest: skip -->\n```sh\nx\n```\n", 1, "reason"},
		{"odd small", "<!-- doctest: small \"a\" -->\n```sh\nx\n```\n", 1, "pairs"},
		{"unquoted", "<!-- doctest: output fly -->\n```\nx\n```\n", 1, "quoted"},
		{"dangling", "<!-- doctest: long -->\ntext\n```sh\nx\n```\n", 1, "not followed"},
		{"at the end", "x\n<!-- doctest: long -->\n", 2, "not followed"},
		{"output on sh", "<!-- doctest: output \"a\" -->\n```sh\nx\n```\n", 1, "does not apply"},
		{"skip on a quote", "<!-- doctest: skip why -->\n```\nx\n```\n", 1, "applies to a sh block"},
		{"open continuation", "```sh\nshakedown fly \\\n```\n", 2, "continues"},
		{"open heredoc", "```sh\ncat <<EOF\nx\n```\n", 2, "not closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.md)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v; want a *ParseError", err)
			}
			if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("got line %d %q; want line %d containing %q", pe.Line, pe.Msg, tc.line, tc.msg)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	out := "head\nmission2: completed at 12.38\n  path 130 m\n  collisions none  \n"
	for _, tc := range []struct {
		name   string
		quoted []string
		loose  bool
		ok     bool
	}{
		{"exact in order", []string{"mission2: completed at 12.38", "  collisions none"}, false, true},
		{"ellipsis", []string{"head", "...", "  collisions none"}, false, true},
		{"out of order", []string{"  collisions none", "head"}, false, false},
		{"differs", []string{"mission2: completed at 12.40"}, false, false},
		{"loose digits", []string{"mission2: completed at 1.5", "  path 7 m"}, true, true},
		{"loose keeps words", []string{"mission2: done at 1.5"}, true, false},
		{"loose keeps punctuation", []string{"mission2: completed at 12,38"}, true, false},
		{"loose ids", []string{"mission7: completed at 1e3.0x5"}, true, true},
		{"partial line", []string{"completed at 12.38"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Match(tc.quoted, out, tc.loose)
			if (err == nil) != tc.ok {
				t.Errorf("Match: got %v; want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestApply(t *testing.T) {
	got := Apply("generate mission2 100 --n 2716", []Subst{{"mission2 100", "mission2 10"}, {"--n 2716", "--n 20"}})
	if want := "generate mission2 10 --n 20"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

// FuzzParse: Parse never panics, and what it returns is consistent: commands
// are non-empty and lie inside their block, lines increase.
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("<!-- doctest: small \"\\\"\" \"x\" -->\n```sh\na \\\nb\n```\n")
	f.Add("```sh\ncat <<-'X'\nX\n```")
	f.Fuzz(func(t *testing.T, md string) {
		doc, err := Parse(md)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v is not a ParseError with a line", err)
			}
			return
		}
		n := strings.Count(md, "\n") + 1
		last := 0
		for _, b := range doc.Blocks {
			if b.Line <= last || b.Line > n {
				t.Fatalf("block at line %d after %d (of %d)", b.Line, last, n)
			}
			last = b.Line
			for _, c := range b.Commands {
				if strings.TrimSpace(c.Text) == "" || c.Line <= b.Line || c.Line > n {
					t.Fatalf("command %+v in block at %d", c, b.Line)
				}
			}
		}
		for _, q := range doc.Quotes {
			_ = Match(q.Lines, md, q.Loose)
			_ = Match(q.Lines, md, !q.Loose)
		}
	})
}
