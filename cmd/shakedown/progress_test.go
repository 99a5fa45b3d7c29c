package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestSpin: a phase shorter than spinnerDelay prints nothing; a longer one
// shows its name while it runs and how long it took at the end.
func TestSpin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		stop := spin(&w, "training the surrogate")
		time.Sleep(900 * time.Millisecond)
		stop()
		if got := w.String(); got != "" {
			t.Errorf("a 0.9-s phase printed %q; want nothing", got)
		}
		stop = spin(&w, "training the surrogate")
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		if got := w.String(); !strings.Contains(got, "\r| training the surrogate 1 s") {
			t.Errorf("while running: %q; want the spinner with the phase name", got)
		}
		time.Sleep(1000 * time.Millisecond)
		stop()
		if got := w.String(); !strings.HasSuffix(got, "\r  training the surrogate: 2.5 s\n") {
			t.Errorf("at the end: %q; want the phase and its time", got)
		}
	})
}

// TestShowProgress: progress is drawn on a terminal only, unless --progress
// or --quiet says otherwise; a command's output to a buffer (a file, a pipe)
// has none.
func TestShowProgress(t *testing.T) {
	var b bytes.Buffer
	for _, tc := range []struct {
		mode progressMode
		want bool
	}{{progressAuto, false}, {progressAlways, true}, {progressNever, false}} {
		ctx := context.WithValue(context.Background(), progressKey{}, tc.mode)
		if got := showProgress(ctx, &b); got != tc.want {
			t.Errorf("mode %d on a buffer: got %v; want %v", tc.mode, got, tc.want)
		}
	}
	dir := t.TempDir()
	code, _, errOut := sh(t, "dataset", "mission2", "--n", "3", "--out", dir+"/d.csv")
	if code != 0 || strings.Contains(errOut, "simulating") || strings.Contains(errOut, "\r") {
		t.Errorf("dataset on a buffer: exit %d, stderr %q; want no progress", code, errOut)
	}
	code, _, errOut = sh(t, "dataset", "mission2", "--n", "3", "--out", dir+"/d.csv", "--progress")
	if code != 0 || !strings.Contains(errOut, "simulating 100%") {
		t.Errorf("dataset --progress: exit %d, stderr %q; want the bar", code, errOut)
	}
	if code, _, errOut = sh(t, "dataset", "mission2", "--n", "3", "--out", dir+"/d.csv", "--progress", "--quiet"); code != 2 || !strings.Contains(errOut, "choose one") {
		t.Errorf("--progress --quiet: exit %d, stderr %q; want exit 2", code, errOut)
	}
}
