// Command shakedown-nats is a NATS server with JetStream, for trying
// Shakedown's campaigns on one machine or a small lab without installing
// nats-server: it is nats-server v2.15.2 built in, with the two settings
// campaigns need (JetStream on, a storage folder). In production run the
// real nats-server -js (see the README, "Campaigns at scale").
//
// It lives in its own command so that the server (about 15 MB) stays out of
// the shakedown binary.
//
//	shakedown-nats [--addr 127.0.0.1:4222] [--store DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	os.Exit(serve(os.Args[1:], os.Stderr, nil))
}

// serve runs the server until SIGINT or SIGTERM (or until stop is closed)
// and returns the exit code: 0 after a clean shutdown, 2 when it cannot
// start.
func serve(args []string, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("shakedown-nats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:4222", "`host:port` to listen on (0.0.0.0:4222 to serve other hosts)")
	store := fs.String("store", filepath.Join(os.TempDir(), "shakedown-nats"), "JetStream storage `folder`: queued jobs and results survive restarts there")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shakedown-nats: unexpected arguments %q\n", fs.Args())
		return 2
	}
	host, portText, err := net.SplitHostPort(*addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || port < -1 || port > 65535 {
		fmt.Fprintf(stderr, "shakedown-nats: --addr %q: want host:port\n", *addr)
		return 2
	}
	s, err := server.NewServer(&server.Options{Host: host, Port: port, JetStream: true, StoreDir: *store, NoSigs: true})
	if err != nil {
		fmt.Fprintf(stderr, "shakedown-nats: %v\n", err)
		return 2
	}
	s.ConfigureLogger()
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		fmt.Fprintf(stderr, "shakedown-nats: not ready after 10 s (is %s in use?)\n", *addr)
		return 2
	}
	fmt.Fprintf(stderr, "shakedown-nats: JetStream on %s, storing in %s\n", s.ClientURL(), *store)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case <-sig:
	case <-stop:
	}
	s.Shutdown()
	s.WaitForShutdown()
	return 0
}
