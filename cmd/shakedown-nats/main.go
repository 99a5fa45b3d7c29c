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
//	               [--user NAME --password-file FILE] [--tls-cert FILE --tls-key FILE]
//
// On loopback it may run open. To serve other hosts (--addr 0.0.0.0:4222)
// it needs both a user and password, so that only the campaign's
// coordinator and workers can publish, and a TLS certificate, so that the
// password and the results do not cross the network in clear; without them
// it refuses to start.
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
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/shakedown-robotics/shakedown/campaign"
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
	user := fs.String("user", "", "the `name` clients must authenticate with (with --password-file)")
	passFile := fs.String("password-file", "", "`FILE` holding the password of --user (mode 0600); clients give nats://user:password@host:port")
	cert := fs.String("tls-cert", "", "PEM `FILE` of the server's TLS certificate (with --tls-key); clients connect with tls://host:port")
	key := fs.String("tls-key", "", "PEM `FILE` of the certificate's private key")
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
	opts := &server.Options{Host: host, Port: port, JetStream: true, StoreDir: *store, NoSigs: true}
	if (*user == "") != (*passFile == "") {
		fmt.Fprintln(stderr, "shakedown-nats: --user and --password-file go together")
		return 2
	}
	if *user != "" {
		pw, err := campaign.LoadKey(*passFile)
		if err != nil {
			fmt.Fprintf(stderr, "shakedown-nats: --password-file: %v\n", err)
			return 2
		}
		opts.Username, opts.Password = *user, pw.Secret()
	}
	if (*cert == "") != (*key == "") {
		fmt.Fprintln(stderr, "shakedown-nats: --tls-cert and --tls-key go together")
		return 2
	}
	if *cert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: *cert, KeyFile: *key})
		if err != nil {
			fmt.Fprintf(stderr, "shakedown-nats: --tls-cert, --tls-key: %v\n", err)
			return 2
		}
		opts.TLSConfig, opts.TLS = tc, true
	}
	if !loopback(host) && (opts.Username == "" || opts.TLSConfig == nil) {
		fmt.Fprintf(stderr, "shakedown-nats: --addr %s serves other hosts: give --user and --password-file (who may publish jobs and results) and --tls-cert and --tls-key (so that neither crosses the network in clear), or listen on 127.0.0.1\n", *addr)
		return 2
	}
	s, err := server.NewServer(opts)
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
	fmt.Fprintf(stderr, "shakedown-nats: JetStream on %s, storing in %s\n", clientURL(s.ClientURL(), opts), *store)
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

// loopback reports whether host (from --addr) is this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clientURL is the URL clients use: tls:// with TLS, the user (never the
// password) named.
func clientURL(u string, opts *server.Options) string {
	if rest, ok := strings.CutPrefix(u, "nats://"); ok && opts.TLSConfig != nil {
		u = "tls://" + rest
	}
	if opts.Username != "" {
		scheme, rest, _ := strings.Cut(u, "://")
		u = scheme + "://" + opts.Username + ":PASSWORD@" + rest
	}
	return u
}
