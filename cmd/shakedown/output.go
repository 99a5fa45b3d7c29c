package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"

	"github.com/shakedown-robotics/shakedown/gen/harness"
	"github.com/shakedown-robotics/shakedown/internal/atomicfile"
	"github.com/shakedown-robotics/shakedown/sim"
)

// writeAtomic writes data to path through a temporary file in the same
// directory, so that readers never see a partial file.
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }

// writeJSON writes v as indented JSON and a newline: the --json output.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// newProgress returns a progress bar of n jobs on w.
func newProgress(w io.Writer, n int, what string) *progressbar.ProgressBar {
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200_000_000),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
}

// progressOn is the harnesses' Progress: a bar on w for each batch, or
// nil (no progress) when quiet.
func progressOn(w io.Writer, quiet bool) func(what string, total int) func(done int) {
	if quiet {
		return nil
	}
	return func(what string, total int) func(int) {
		bar := newProgress(w, total, what)
		return func(done int) { _ = bar.Set(done) }
	}
}

// flagError names the flag of a harness configuration error: "--gust 11:
// want …" instead of "harness: gust 11: want …". Other errors pass.
func flagError(err error) error {
	var ce *harness.ConfigError
	if errors.As(err, &ce) {
		if ce.Field == "budget" {
			return fmt.Errorf("budget %v: want %s", ce.Value, ce.Want)
		}
		return fmt.Errorf("--%s %v: want %s", ce.Field, ce.Value, ce.Want)
	}
	return err
}

// defaultGust is --gust's default for test runs (harness.DefaultGustMS).
const defaultGust = harness.DefaultGustMS

// windFor is the wind of test runs with --gust gust.
func windFor(gust float64) (sim.WindConfig, error) {
	w, err := harness.Wind(gust)
	return w, flagError(err)
}
