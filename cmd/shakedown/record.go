package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// --record is where MCAP flight logs for Foxglove go. The commands that fly
// one flight (fly, mission serve) take a FILE; those that fly many (run,
// bench) take a folder, --record=DIR, and a bare --record puts the logs in
// the flightlogs folder of their output (bare stands for what was, before,
// a boolean switch).

// recordFileUsage and recordDirUsage are the help of --record, in the
// same words on every command.
const (
	recordFileUsage = "write the flight as an MCAP log for Foxglove into `FILE`"
	recordDirUsage  = "write each flight as an MCAP log for Foxglove into DIR (one file per flight); a bare --record: %s"
)

// recordBare is the value a bare --record sets: the placeholder of the
// help's --record[=DIR], so that a copied --record=DIR is the default too.
const recordBare = "DIR"

// recordDirValue is --record[=DIR]'s value. Its type has no name, so that
// the help shows --record[=DIR] rather than --record string[="DIR"].
type recordDirValue struct{ p *string }

func (v recordDirValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v recordDirValue) Set(s string) error { *v.p = s; return nil }
func (v recordDirValue) Type() string       { return "" }

// addRecordDirFlag adds --record[=DIR] to a command that writes many logs;
// def says in the help where a bare --record puts them.
func addRecordDirFlag(fl *pflag.FlagSet, p *string, def string) {
	fl.Var(recordDirValue{p}, "record", fmt.Sprintf(recordDirUsage, def))
	fl.Lookup("record").NoOptDefVal = recordBare
}

// recordDir resolves a --record[=DIR] value: "" is off; a bare --record is
// def, an error when def is "" (the command has no output folder to put it
// in). The boolean spellings of the old switch (--record=true,
// --record=false) still work for a release, with a note on stderr.
func recordDir(val, def string, stderr io.Writer) (string, error) {
	if val == "" {
		return "", nil
	}
	if b, err := strconv.ParseBool(val); err == nil {
		if stderr != nil {
			fmt.Fprintf(stderr, "shakedown: --record=%s is now --record (or --record=DIR, or nothing); the old form goes in a later release (a folder of that name: --record=./%s)\n", val, val)
		}
		if !b {
			return "", nil
		}
		val = recordBare
	}
	if val != recordBare {
		return val, checkOutDir("record", val)
	}
	if def == "" {
		return "", errors.New("a bare --record writes into <out>/flightlogs: give --out DIR, or the folder as --record=DIR")
	}
	return def, nil
}

// checkOutDir refuses, before any work is done, an output folder that could
// not be made or written in: a file, or a path under a file or an
// unwritable folder. A missing folder is made at the end, as are its
// missing parents (the nearest that exists must be a writable folder).
func checkOutDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	probeIn := dir
	for {
		st, err := os.Stat(probeIn)
		if err == nil {
			if !st.IsDir() {
				if probeIn == dir {
					return fmt.Errorf("--%s %s: is a file; want a folder", flag, dir)
				}
				return fmt.Errorf("--%s %s: %s is not a folder", flag, dir, probeIn)
			}
			break
		}
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("--%s %s: %w", flag, dir, err)
		}
		up := filepath.Dir(probeIn)
		if up == probeIn {
			return fmt.Errorf("--%s %s: no folder of it exists", flag, dir)
		}
		probeIn = up
	}
	probe, err := os.CreateTemp(probeIn, ".shakedown-probe-*")
	if err != nil {
		return fmt.Errorf("--%s %s: cannot write in %s: %w", flag, dir, probeIn, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// writeLogs writes the named logs into dir (made when missing), in name
// order, and prints "wrote FILE" for each on w.
func writeLogs(w io.Writer, dir string, logs map[string][]byte) error {
	if len(logs) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(logs))
	for n := range logs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := writeAtomic(p, logs[n]); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", p)
	}
	return nil
}

// noArgsRecord is cobra.NoArgs for a command with --record[=DIR]: a stray
// argument right after a bare --record is most likely its folder, written
// with a space.
func noArgsRecord(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if fl := cmd.Flags().Lookup("record"); fl != nil && fl.Changed && fl.Value.String() == recordBare {
		return fmt.Errorf("unexpected argument %q: %s takes none (a folder for --record is written --record=%s)", args[0], cmd.CommandPath(), args[0])
	}
	return fmt.Errorf("unexpected argument %q: %s takes none", args[0], cmd.CommandPath())
}

// strayRecordArg refuses a test file argument that is a folder or missing
// when --record was given bare: it is most likely --record's folder,
// written with a space (the folder is written --record=DIR).
func strayRecordArg(record string, files []string) error {
	if record != recordBare {
		return nil
	}
	for _, file := range files {
		if st, err := os.Stat(file); err != nil || st.IsDir() {
			return fmt.Errorf("%s: not a test file (a folder for --record is written --record=%s)", file, file)
		}
	}
	return nil
}

// count is "1 plot", "2 plots".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
