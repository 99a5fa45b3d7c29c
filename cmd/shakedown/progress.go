package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Progress goes to stderr only when stderr is a terminal, unless --progress
// (always: a log, CI) or --quiet (never) says otherwise, so that what a
// command writes to a file or a pipe is the same on every run.
type progressMode int

const (
	progressAuto progressMode = iota
	progressAlways
	progressNever
)

type progressKey struct{}

// addProgressFlags adds --progress and --quiet to root and puts the choice
// into every command's context.
func addProgressFlags(root *cobra.Command) {
	var always, never bool
	root.PersistentFlags().BoolVar(&always, "progress", false, "show progress on stderr even when it is not a terminal")
	root.PersistentFlags().BoolVarP(&never, "quiet", "q", false, "no progress on stderr")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		m := progressAuto
		switch {
		case always && never:
			return fmt.Errorf("--progress and --quiet: choose one")
		case always:
			m = progressAlways
		case never:
			m = progressNever
		}
		cmd.SetContext(context.WithValue(cmd.Context(), progressKey{}, m))
		return nil
	}
}

// showProgress reports whether progress should be drawn on w.
func showProgress(ctx context.Context, w io.Writer) bool {
	m := progressAuto
	if ctx != nil {
		m, _ = ctx.Value(progressKey{}).(progressMode)
	}
	switch m {
	case progressAlways:
		return true
	case progressNever:
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a progress bar of n jobs on w, drawn only when
// showProgress says so.
func newProgress(ctx context.Context, w io.Writer, n int, what string) *progressbar.ProgressBar {
	show := showProgress(ctx, w)
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetVisibility(show),
		progressbar.OptionOnCompletion(func() {
			if show {
				fmt.Fprintln(w)
			}
		}))
}

// progressOn is the harnesses' Progress: a bar on w for each batch, or
// nil (no progress) when quiet or not shown.
func progressOn(ctx context.Context, w io.Writer, quiet bool) func(what string, total int) func(done int) {
	if quiet || !showProgress(ctx, w) {
		return nil
	}
	return func(what string, total int) func(int) {
		bar := newProgress(ctx, w, total, what)
		return func(done int) { _ = bar.Set(done) }
	}
}

// spinnerDelay is how long a phase runs before its spinner shows: phases
// shorter than that stay silent.
const spinnerDelay = time.Second

// phaseOn returns the harnesses' Phase: a spinner with the phase's name and
// its elapsed time on w while it runs longer than spinnerDelay, then one
// line saying how long it took; nil when quiet or not shown.
func phaseOn(ctx context.Context, w io.Writer, quiet bool) func(name string) func() {
	if quiet || !showProgress(ctx, w) {
		return nil
	}
	return func(name string) func() { return spin(w, name) }
}

// spin draws a spinner for name on w until the returned function is called.
func spin(w io.Writer, name string) func() {
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(spinnerDelay)
		defer t.Stop()
		select {
		case <-stop:
			return
		case <-t.C:
		}
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		frames := `|/-\`
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%c %s %.0f s ", frames[i%len(frames)], name, time.Since(start).Seconds())
			select {
			case <-stop:
				fmt.Fprintf(w, "\r  %s: %.1f s\n", name, time.Since(start).Seconds())
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(stop); wg.Wait() })
	}
}

// phase starts a spinner for a phase of the command itself (rendering
// plots); call what it returns at the end.
func phase(ctx context.Context, w io.Writer, name string) func() {
	if p := phaseOn(ctx, w, false); p != nil {
		return p(name)
	}
	return func() {}
}
