package server

import (
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of HTTPLimits (issue 21 item 9: without them a body trickled
// forever held its connection, and 3000 idle streams held 3000 descriptors).
const (
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 5 * time.Second
	// DefaultReadTimeout bounds reading a whole request, body included: a
	// body is at most DefaultMaxBody (64 KiB). Status streams lift it once
	// their request is read.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection idle this long.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConns bounds the open connections: beyond it the server
	// stops accepting (the kernel queues the rest) until one closes.
	DefaultMaxConns = 256
	// maxHeaderBytes bounds a request's headers (net/http's default is 1 MB).
	maxHeaderBytes = 16 << 10
)

// HTTPLimits are the connection limits and timeouts of the API server.
// Zero values mean the defaults named.
type HTTPLimits struct {
	MaxConns          int           // 0 = DefaultMaxConns
	ReadHeaderTimeout time.Duration // 0 = DefaultReadHeaderTimeout
	ReadTimeout       time.Duration // 0 = DefaultReadTimeout
	IdleTimeout       time.Duration // 0 = DefaultIdleTimeout
}

// NewHTTPServer returns an http.Server for h with lim's timeouts, and ln
// wrapped to keep at most lim.MaxConns connections open: serve the server
// on the returned listener. Once more than three quarters of them are open,
// responses close their connection instead of keeping it idle, so that a
// burst of clients is served in turn rather than waiting for idle ones to
// time out.
func NewHTTPServer(ln net.Listener, h http.Handler, lim HTTPLimits) (*http.Server, net.Listener) {
	if lim.MaxConns <= 0 {
		lim.MaxConns = DefaultMaxConns
	}
	if lim.ReadHeaderTimeout <= 0 {
		lim.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if lim.ReadTimeout <= 0 {
		lim.ReadTimeout = DefaultReadTimeout
	}
	if lim.IdleTimeout <= 0 {
		lim.IdleTimeout = DefaultIdleTimeout
	}
	l := &limitListener{Listener: ln, sem: make(chan struct{}, lim.MaxConns), done: make(chan struct{})}
	busy := lim.MaxConns * 3 / 4
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if int(l.open.Load()) > busy {
				w.Header().Set("Connection", "close")
			}
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// Hostile clients make net/http log (TLS noise, bad requests);
		// those lines say nothing an operator can act on.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	return srv, l
}

// limitListener accepts a connection only while fewer than cap(sem) are
// open.
type limitListener struct {
	net.Listener
	sem       chan struct{}
	open      atomic.Int32
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	l.open.Add(1)
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { l.open.Add(-1); <-l.sem })}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
