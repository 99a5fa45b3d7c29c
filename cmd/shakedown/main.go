// Command shakedown shakes down autonomous robots in simulation and on the
// real vehicle. See the README for every subcommand.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Exit codes: 0 ran and passed, 1 ran and found a failure, 2 could not run
// (bad input, bad usage).
const (
	exitOK      = 0
	exitFailure = 1
	exitBadRun  = 2
)

// failure is a finding, not an error: the command ran and the thing under
// test failed. It maps to exit code 1.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// version is the module version and the commit the binary was built from,
// as the Go toolchain records them ("(devel)" for a build from a checkout).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, modified, goVersion string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	goVersion = bi.GoVersion
	if rev != "" {
		v += " " + rev[:min(12, len(rev))] + modified
	}
	return v + " (" + goVersion + ")"
}

// execute runs the CLI with args and returns the exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var f *failure
	if errors.As(err, &f) {
		if f.msg != "" {
			fmt.Fprintln(stderr, "shakedown:", f.msg)
		}
		return exitFailure
	}
	fmt.Fprintln(stderr, "shakedown:", err)
	return exitBadRun
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "shakedown",
		Short: "Shake down autonomous robots before you trust them",
		Long: `Shakedown flies robots in a fast deterministic embedded simulator (or on a real
autopilot), judges their missions, and tests them the way the UAV Testing
Competition does.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetFlagErrorFunc(flagErrorFunc)
	addProgressFlags(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newFlyCmd(), newMissionsCmd(), newDatasetCmd(), newRunCmd(), newScoreCmd(), newBenchCmd(), newMissionCmd(stdout, stderr), newEOLCmd(), newReportCmd(), newGenerateCmd(), newSurrogateCmd(), newSITLCmd(), newCampaignCmd(), newWorkerCmd(), newFidelityCmd(), newLintCmd())
	return root
}
