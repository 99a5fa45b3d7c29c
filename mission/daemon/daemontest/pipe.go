// Package daemontest helps test code that runs a mission daemon: an
// in-memory listener whose connections are net.Pipe pairs, so that a
// daemon and its clients run inside a testing/synctest bubble on the
// bubble's fake clock (a real socket's accept and read are not durably
// blocking, and would keep the bubble's time from moving).
package daemontest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// PipeListener is an in-memory net.Listener: every dial of its Client is a
// net.Pipe, whose deadlines follow the bubble's clock.
type PipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

var _ net.Listener = (*PipeListener)(nil)

// NewPipeListener returns a listener nobody has dialled yet.
func NewPipeListener() *PipeListener {
	return &PipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next dial.
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and further dials.
func (l *PipeListener) Close() error { l.once.Do(func() { close(l.done) }); return nil }

// Addr is a loopback address, so that the daemon's Host check and URL read
// as a local daemon's.
func (l *PipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7350} }

// DialContext connects to the listener, whatever the address.
func (l *PipeListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	s, c := net.Pipe()
	select {
	case l.conns <- s:
		return c, nil
	case <-l.done:
		s.Close()
		c.Close()
		return nil, errors.New("daemontest: listener closed")
	case <-ctx.Done():
		s.Close()
		c.Close()
		return nil, ctx.Err()
	}
}

// Client returns an HTTP client whose every connection dials l. Create it
// inside the bubble that runs the daemon.
func (l *PipeListener) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: l.DialContext}}
}
