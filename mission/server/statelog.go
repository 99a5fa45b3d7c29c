package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shakedown-robotics/shakedown/mission/statelog"
)

// StateLogConfig configures the JSONL state log. Zero values mean the
// defaults named.
type StateLogConfig struct {
	Path string // the log; rotated parts are Path.1 (newest) … Path.Keep
	// MaxBytes is the size at which the log is rotated; 0 = 10 MiB.
	MaxBytes int64
	// Keep is how many rotated parts are kept; 0 = 3.
	Keep int
}

// StateLog is the state log file (package statelog's format): every line
// written whole with one write, so readers never see half a line but the
// one being written; fsynced on state transitions and before a rotation.
// Its methods must not be called concurrently (the daemon's loop owns it).
type StateLog struct {
	cfg  StateLogConfig
	f    *os.File
	size int64
	buf  []byte
	err  error // the first write error, kept
}

// ErrStateLogDir is returned by OpenStateLog when the log's folder does not
// exist (it is not created: a typo should not scatter logs).
var ErrStateLogDir = errors.New("server: the state log's folder does not exist")

// OpenStateLog opens (appending to) or creates the state log.
func OpenStateLog(cfg StateLogConfig) (*StateLog, error) {
	if cfg.Path == "" {
		return nil, errors.New("server: state log: no path")
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = 10 << 20
	}
	if cfg.Keep == 0 {
		cfg.Keep = 3
	}
	if cfg.MaxBytes < 4096 || cfg.Keep < 1 || cfg.Keep > 100 {
		return nil, fmt.Errorf("server: state log: rotation size %d must be ≥ 4096 bytes and parts kept %d from 1 to 100", cfg.MaxBytes, cfg.Keep)
	}
	dir := filepath.Dir(cfg.Path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s (for --state-log %s)", ErrStateLogDir, dir, cfg.Path)
	}
	l := &StateLog{cfg: cfg}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *StateLog) open() error {
	f, err := os.OpenFile(l.cfg.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("server: state log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("server: state log: %w", err)
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// Write appends e as one line, rotating first if the line would take the
// log past MaxBytes, and fsyncs when sync is set.
func (l *StateLog) Write(e statelog.Entry, sync bool) error {
	if l.err != nil {
		return l.err
	}
	var err error
	if l.buf, err = statelog.Append(l.buf[:0], e); err != nil {
		return err
	}
	if l.size > 0 && l.size+int64(len(l.buf)) > l.cfg.MaxBytes {
		if err := l.rotate(); err != nil {
			l.err = err
			return err
		}
	}
	n, err := l.f.Write(l.buf)
	l.size += int64(n)
	if err == nil && sync {
		err = l.f.Sync()
	}
	if err != nil {
		l.err = fmt.Errorf("server: state log: %w", err)
	}
	return l.err
}

// rotate closes the log and shifts it to Path.1, Path.1 to Path.2, …,
// dropping the oldest part, then starts a new log.
func (l *StateLog) rotate() error {
	if err := l.f.Sync(); err != nil {
		return err
	}
	if err := l.f.Close(); err != nil {
		return err
	}
	part := func(i int) string { return fmt.Sprintf("%s.%d", l.cfg.Path, i) }
	for i := l.cfg.Keep - 1; i >= 1; i-- {
		if err := os.Rename(part(i), part(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(l.cfg.Path, part(1)); err != nil {
		return err
	}
	return l.open()
}

// Path returns the log's path.
func (l *StateLog) Path() string { return l.cfg.Path }

// Close fsyncs and closes the log.
func (l *StateLog) Close() error {
	serr := l.f.Sync()
	if err := l.f.Close(); err != nil {
		return err
	}
	return serr
}
