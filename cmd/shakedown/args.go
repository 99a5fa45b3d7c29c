package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholder is a <name> of a command's Use line; optional parts ([…])
// and flag values (--mission <case-study>) are cut out first.
var (
	placeholder = regexp.MustCompile(`<[^>]+>`)
	optional    = regexp.MustCompile(`(^|\s)\[[^\]]*\]`)
	alternative = regexp.MustCompile(`>(\.\.\.)? \| <`)
	flagValue   = regexp.MustCompile(`--[\w-]+[ =]<[^>]+>`)
)

// exactArgs is cobra.ExactArgs with messages that name what is missing
// ("missing <budget>") instead of counting ("accepts 2 arg(s), received 1").
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return missingArgs(cmd, len(args))
		}
		if len(args) > n {
			return fmt.Errorf("%d arguments (%s); want %d: usage: %s", len(args), strings.Join(args, " "), n, cmd.UseLine())
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with the same messages as exactArgs.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return missingArgs(cmd, len(args))
		}
		return nil
	}
}

func missingArgs(cmd *cobra.Command, have int) error {
	use := flagValue.ReplaceAllString(optional.ReplaceAllString(cmd.Use, ""), "")
	names := placeholder.FindAllString(use, -1)
	if alternative.MatchString(use) { // <a>... | <b>: one of them
		return fmt.Errorf("missing %s: usage: %s", strings.Join(names, " or "), cmd.UseLine())
	}
	if have < len(names) {
		return fmt.Errorf("missing %s: usage: %s", strings.Join(names[have:], " "), cmd.UseLine())
	}
	return fmt.Errorf("missing an argument: usage: %s", cmd.UseLine())
}

// flagError is every command's FlagErrorFunc: a negative number where an
// argument was expected (generate mission2 -5) reads as an unknown flag to
// the parser; say so.
func flagErrorFunc(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, " in -"); strings.HasPrefix(msg, "unknown shorthand flag") && i >= 0 {
		tok := msg[i+len(" in "):]
		if _, perr := strconv.ParseFloat(tok, 64); perr == nil {
			return fmt.Errorf("%s: a negative number is not a valid argument here (it reads as a flag): usage: %s", tok, cmd.UseLine())
		}
	}
	return err
}

// checkOutFile refuses, before any work is done, an output file that could
// not be written at the end: a directory, or a path whose folder is missing,
// is not a folder or cannot be written in.
func checkOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--%s %s: is a directory; want a file name", flag, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("--%s %s: folder %s does not exist", flag, path, dir)
	case !st.IsDir():
		return fmt.Errorf("--%s %s: %s is not a folder", flag, path, dir)
	}
	probe, err := os.CreateTemp(dir, ".shakedown-probe-*")
	if err != nil {
		return fmt.Errorf("--%s %s: cannot write in %s: %w", flag, path, dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// aliasFlags keeps old flag names working after a rename: --old is read as
// --new, with a note on stderr the first time. The old names are not listed
// in --help.
func aliasFlags(cmd *cobra.Command, oldToNew map[string]string) {
	warned := map[string]bool{}
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if n, ok := oldToNew[name]; ok {
			if !warned[name] {
				warned[name] = true
				fmt.Fprintf(cmd.ErrOrStderr(), "shakedown: --%s is now --%s; the old name goes in a later release\n", name, n)
			}
			return pflag.NormalizedName(n)
		}
		return pflag.NormalizedName(name)
	})
}
