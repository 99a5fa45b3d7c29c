package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
