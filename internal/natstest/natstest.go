// Package natstest starts an embedded NATS server with JetStream for
// tests. Only test files import it, so the server stays out of the
// shakedown binary.
package natstest

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start starts a JetStream-enabled server on 127.0.0.1 at a random port,
// storing into a temporary folder, and shuts it down when the test ends.
func Start(t testing.TB) *server.Server {
	t.Helper()
	s, err := New(t.TempDir(), -1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Stop(s) })
	return s
}

// New starts a server on 127.0.0.1:port (-1: a random port) storing into
// dir. Starting a new server on the same dir and port after Stop restarts
// it with its streams and their messages. The caller stops it.
func New(dir string, port int) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoSigs: true, NoLog: true})
	if err != nil {
		return nil, err
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("natstest: server not ready after 10 s")
	}
	return s, nil
}

// Stop shuts s down and waits until it is down.
func Stop(s *server.Server) {
	s.Shutdown()
	s.WaitForShutdown()
}
