package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shakedown-robotics/shakedown/flightlog"
)

// Recording is the daemon's mission as an MCAP file, written to a
// temporary file beside its destination and renamed into place by Commit,
// so that a crash leaves no half-written recording under the name asked
// for.
type Recording struct {
	path string
	f    *os.File
	w    *flightlog.Writer
	done bool
	stop context.CancelFunc
	ran  chan struct{}
}

// NewRecording creates the temporary file of a recording to path.
func NewRecording(path string) (*Recording, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	w, err := flightlog.New(f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &Recording{path: path, f: f, w: w}, nil
}

// Start records d until Finish.
func (m *Recording) Start(d *Daemon) {
	ctx, stop := context.WithCancel(context.Background())
	m.stop, m.ran = stop, make(chan struct{})
	go func() { defer close(m.ran); d.srv.Record(ctx, m.w) }()
}

// Finish stops recording (after the daemon stopped) and commits the file.
func (m *Recording) Finish() error {
	if m.stop != nil {
		m.stop()
		<-m.ran
	}
	return m.commit()
}

func (m *Recording) commit() error {
	m.done = true
	if err := m.w.Close(); err != nil {
		m.f.Close()
		os.Remove(m.f.Name())
		return err
	}
	if err := m.f.Close(); err != nil {
		os.Remove(m.f.Name())
		return err
	}
	if err := os.Chmod(m.f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(m.f.Name(), m.path)
}

// Abort removes the temporary file unless the recording was committed.
func (m *Recording) Abort() {
	if !m.done {
		if m.stop != nil {
			m.stop()
			<-m.ran
		}
		m.f.Close()
		os.Remove(m.f.Name())
	}
}
