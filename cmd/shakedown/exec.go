package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/store"
)

// execFlags choose where a command's simulations run (the executor), on
// which rung (the engine) and where their results are recorded. The zero
// value runs them on this machine's embedded simulator and records
// nothing.
type execFlags struct {
	executor string // "local" ("" too) or "nats"
	natsFlags
	db string
	engineFlags
}

// natsFlags say how to reach and trust a NATS server and the campaign's
// workers.
type natsFlags struct {
	natsURL string
	keyFile string // the campaign key (campaign.LoadKey); "" = none
	caFile  string // the authority that signed the server's TLS certificate
}

// engineFlags configure the engines of an executor (a local pool, or a
// NATS worker).
type engineFlags struct {
	engine         string // campaign.EngineEmbedded ("" too), EngineMAVLink or EngineAerialist
	connect        string // the MAVLink vehicle's URL, for --engine mavlink
	aerialistCmd   string // the command that starts Aerialist's CLI
	aerialistAgent string // its --agent
}

// defaultNATSURL is --nats's default: $SHAKEDOWN_NATS, else the standard
// local server.
func defaultNATSURL() string {
	if u := os.Getenv("SHAKEDOWN_NATS"); u != "" {
		return u
	}
	return nats.DefaultURL
}

func addExecFlags(fl *pflag.FlagSet, f *execFlags) {
	fl.StringVar(&f.executor, "executor", "local", "where the simulations run: local (this machine, one per core) or nats (workers pulling from a NATS JetStream queue)")
	addNATSFlags(fl, &f.natsFlags, "for --executor nats ")
	fl.StringVar(&f.db, "db", "", "record jobs and results in the SQLite database `FILE`; running the same jobs again skips those already done")
	addEngineFlags(fl, &f.engineFlags)
}

func addNATSFlags(fl *pflag.FlagSet, f *natsFlags, what string) {
	fl.StringVar(&f.natsURL, "nats", defaultNATSURL(), "NATS server `URL` "+what+"(default from $SHAKEDOWN_NATS); nats://user:password@host:4222 or tls://… to authenticate")
	fl.Lookup("nats").DefValue = campaign.RedactURL(fl.Lookup("nats").DefValue) // --help shows no password
	fl.StringVar(&f.keyFile, "nats-key", "", "the campaign key `FILE` (at least 16 bytes, mode 0600) shared by the coordinator and its workers: jobs and results are signed with it, and unsigned or forged results are rejected")
	fl.StringVar(&f.caFile, "nats-ca", "", "PEM `FILE` of the authority that signed the NATS server's TLS certificate")
}

// check checks the URL; it names it without its password.
func (f natsFlags) check() error {
	for _, u := range strings.Split(f.natsURL, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" || !slices.Contains([]string{"nats", "tls", "ws", "wss"}, p.Scheme) {
			return fmt.Errorf("--nats %q: want a URL like nats://host:4222", campaign.RedactURL(f.natsURL))
		}
	}
	return nil
}

// dial loads the key and connects. stderr hears a warning when the server
// is not on this machine and the campaign is not signed.
func (f natsFlags) dial(ctx context.Context, stderr io.Writer, name string) (*nats.Conn, campaign.Key, error) {
	var key campaign.Key
	if f.keyFile != "" {
		var err error
		if key, err = campaign.LoadKey(f.keyFile); err != nil {
			return nil, key, fmt.Errorf("--nats-key: %w", err)
		}
	}
	var opts []nats.Option
	if f.caFile != "" {
		opts = append(opts, nats.RootCAs(f.caFile))
	}
	nc, err := campaign.Dial(ctx, f.natsURL, name, opts...)
	if err != nil {
		if errors.Is(err, campaign.ErrUnreachable) {
			err = fmt.Errorf("--nats: %w (is `nats-server -js` running there?)", err)
		}
		return nil, key, err
	}
	if !key.Set() && !loopbackURL(f.natsURL) {
		fmt.Fprintf(stderr, "shakedown: warning: no --nats-key: anyone who can publish on %s can plant results\n", nc.ConnectedUrlRedacted())
	}
	return nc, key, nil
}

// loopbackURL reports whether every server of the URL list is on this
// machine.
func loopbackURL(list string) bool {
	for _, u := range strings.Split(list, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil {
			return false
		}
		h := p.Hostname()
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return true
}

func addEngineFlags(fl *pflag.FlagSet, f *engineFlags) {
	fl.StringVar(&f.engine, "engine", campaign.EngineEmbedded, "what flies each test: embedded (the built-in simulator), mavlink (the PX4 or ArduPilot vehicle at --connect) or aerialist (Aerialist's CLI, scored from its ULog)")
	fl.StringVar(&f.connect, "connect", "", "MAVLink vehicle `URL` for --engine mavlink (udp://127.0.0.1:14540 for PX4 SITL or shakedown sitl)")
	fl.StringVar(&f.aerialistCmd, "aerialist-cmd", "python3 aerialist", "the `command` that starts Aerialist's CLI, for --engine aerialist (run as <command> exec --test … --agent … --path … --id …)")
	fl.StringVar(&f.aerialistAgent, "aerialist-agent", "local", "Aerialist's --agent: local or docker")
}

func (f engineFlags) check() error {
	switch f.engine {
	case "", campaign.EngineEmbedded, campaign.EngineAerialist:
		if f.connect != "" {
			return fmt.Errorf("--connect is for --engine mavlink, not %s", f.engine)
		}
	case campaign.EngineMAVLink:
		if f.connect == "" {
			return errors.New("--engine mavlink needs --connect URL (e.g. udp://127.0.0.1:14540)")
		}
		if _, err := mavlink.ParseURL(f.connect, mavlink.Outgoing); err != nil {
			return fmt.Errorf("--connect: %w", err)
		}
	default:
		return fmt.Errorf("--engine %q: want embedded, mavlink or aerialist", f.engine)
	}
	if f.engine == campaign.EngineAerialist {
		if len(strings.Fields(f.aerialistCmd)) == 0 {
			return errors.New("--aerialist-cmd: want a command")
		}
		if f.aerialistAgent != "local" && f.aerialistAgent != "docker" {
			return fmt.Errorf("--aerialist-agent %q: want local or docker", f.aerialistAgent)
		}
	}
	return nil
}

// engines returns the engines the flags configure: the embedded simulator
// always, and the one --engine names.
func (f engineFlags) engines(stderr io.Writer) campaign.Engines {
	e := campaign.Engines{campaign.EngineEmbedded: campaign.Embedded{}}
	switch f.engine {
	case campaign.EngineMAVLink:
		e[campaign.EngineMAVLink] = &campaign.MAVLink{URL: f.connect,
			Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "shakedown: mavlink: "+format+"\n", args...) }}
	case campaign.EngineAerialist:
		e[campaign.EngineAerialist] = &campaign.Aerialist{Command: strings.Fields(f.aerialistCmd), Agent: f.aerialistAgent}
	}
	return e
}

func (f execFlags) check() error {
	switch f.executor {
	case "", "local":
	case "nats":
		if err := f.natsFlags.check(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("--executor %q: want local or nats", f.executor)
	}
	return f.engineFlags.check()
}

// runner checks the flags, connects to the NATS server (first, so that an
// unreachable server creates no database file) and opens the database. The
// returned close releases both. The jobs the runner's Batch builds name
// --engine; a local pool has the engine, NATS workers need their own.
func (f execFlags) runner(ctx context.Context, stderr io.Writer, workers int) (*campaign.Runner, func(), error) {
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	if f.engine == campaign.EngineMAVLink {
		workers = 1 // one vehicle flies one test at a time
	}
	r := &campaign.Runner{Exec: &campaign.Local{Workers: workers, Engines: f.engines(stderr)}, Engine: f.engine}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if f.executor == "nats" {
		nc, key, err := f.dial(ctx, stderr, "shakedown coordinator")
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, nc.Close)
		r.Exec = &campaign.NATS{Conn: nc, Config: campaign.NATSConfig{Key: key}, Log: stderr}
	}
	if f.db != "" {
		db, err := store.Open(ctx, f.db, store.Options{})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--db: %w", err)
		}
		closers = append(closers, func() { db.Close() })
		r.Store = db
	}
	return r, closeAll, nil
}
