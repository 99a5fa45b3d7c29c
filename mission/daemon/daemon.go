// Package daemon assembles a running mission daemon, as "shakedown mission
// serve" and "mission smoke" start it: the vehicle adapter chosen by name
// (demo, sim, state_only, or a MAVLink vehicle), scheduled faults, the
// state log, the black box, the daemon's clock (real time or sped up), the
// mission server and its hardened HTTP server on a listener, and on demand
// the ROS 2 graph (rosbridge) and an MCAP recording.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/blackbox"
	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// Config is what a daemon is made of. Zero values mean what each field
// says.
type Config struct {
	Params  server.Params
	Adapter string  // demo, sim, state_only or mavlink
	Connect string  // Adapter mavlink: the vehicle's URL
	Speed   float64 // clock speed-up over real time (1: real time; 0 is refused)
	Seed    uint64  // seed of the sim adapter's noise
	Tick    time.Duration

	// Listen is the HTTP address (host:port, port 0 for a free one), used
	// when Listener is nil. Listener, if set, is served instead (an
	// in-memory listener in tests); the daemon closes it when it stops.
	Listen   string
	Listener net.Listener
	Token    string
	Logf     func(string, ...any) // nil = discard

	StateLog      string        // "" = no state log
	SampleEvery   time.Duration // state log sample period; < 0 = none
	StateLogBytes int64
	Faults        []adapter.Fault
	AllowHosts    []string // Host header names accepted besides IP addresses and localhost
}

// CheckAdapter checks the adapter name and the clock speed-up.
func CheckAdapter(name string, speed float64) error {
	switch name {
	case "demo", "sim", "state_only", "mavlink":
	default:
		return fmt.Errorf("--adapter %q: want demo, sim, state_only or mavlink", name)
	}
	if !(speed > 0) || speed > 100 {
		return fmt.Errorf("--speed %v: want a number > 0 and at most 100", speed)
	}
	return nil
}

// CheckListen checks that addr is host:port on loopback unless remote
// access is allowed.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port: %v", addr, err)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %q is not a loopback address; the API would be reachable from the network: add --allow-remote to mean it", addr)
	}
	return nil
}

// IsDir reports whether path is a directory.
func IsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Daemon is a running daemon: the server loop and the HTTP server.
type Daemon struct {
	srv    *server.Server
	http   *http.Server
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
	runErr error
}

// URL returns the API's base URL.
func (d *Daemon) URL() string { return "http://" + d.ln.Addr().String() }

// Server returns the mission server.
func (d *Daemon) Server() *server.Server { return d.srv }

// Stop stops the daemon: the server loop first (it closes the event
// streams), then the HTTP server.
func (d *Daemon) Stop() error {
	d.cancel()
	<-d.srv.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	herr := d.http.Shutdown(ctx)
	d.wg.Wait()
	if d.runErr != nil {
		return d.runErr
	}
	return herr
}

// newAdapter builds the adapter cfg names.
func newAdapter(cfg Config, logf func(string, ...any)) (server.Adapter, error) {
	p := cfg.Params
	switch cfg.Adapter {
	case "demo":
		return adapter.NewDemo(adapter.KinematicConfig{Start: geom.Vec3{Z: p.HomeZ}}), nil
	case "state_only":
		return adapter.NewStateOnly(adapter.KinematicConfig{Start: geom.Vec3{Z: p.HomeZ}}), nil
	case "sim":
		if p.HomeZ != 0 {
			return nil, fmt.Errorf("home_z %v: the sim adapter starts at its origin (home_z 0)", p.HomeZ)
		}
		return adapter.NewSim(vehicle.SimConfig{Seed: cfg.Seed})
	}
	// mavlink: the link opens now, the vehicle is awaited on the connect
	// command.
	if cfg.Connect == "" {
		return nil, errors.New("--adapter mavlink needs --connect URL (e.g. udp://127.0.0.1:14540)")
	}
	if _, err := mavlink.ParseURL(cfg.Connect, mavlink.Outgoing); err != nil {
		return nil, fmt.Errorf("--connect: %w", err)
	}
	v, err := mavlink.New(mavlink.Config{URL: cfg.Connect, Logf: logf})
	if err != nil {
		return nil, err
	}
	return mavlink.NewMissionAdapter(v), nil
}

// Start builds the adapter, the server and the listener and starts them.
// Nothing is left behind when it fails: the adapter is closed, and the
// state log it created is closed and, if still empty, removed.
func Start(cfg Config) (d *Daemon, err error) {
	if err := CheckAdapter(cfg.Adapter, cfg.Speed); err != nil {
		return nil, err
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	p := cfg.Params
	ad, err := newAdapter(cfg, logf)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ad.Close()
		}
	}()
	if len(cfg.Faults) > 0 {
		sch, ok := ad.(interface {
			SetSchedule([]adapter.Fault, float64) error
		})
		if !ok {
			return nil, fmt.Errorf("--fault: the %s adapter takes no faults", cfg.Adapter)
		}
		if err := sch.SetSchedule(cfg.Faults, p.HomeZ-p.Machine.MaxAltitudeM); err != nil {
			return nil, fmt.Errorf("--fault: %w", err)
		}
	}
	var slog *server.StateLog
	if cfg.StateLog != "" {
		existed := isFile(cfg.StateLog)
		// err is Start's own, so that the deferred clean-up sees every
		// later failure (a shadowing err here once kept it from running).
		if slog, err = server.OpenStateLog(server.StateLogConfig{Path: cfg.StateLog, MaxBytes: cfg.StateLogBytes}); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				slog.Close()
				if fi, serr := os.Stat(cfg.StateLog); !existed && serr == nil && fi.Size() == 0 {
					os.Remove(cfg.StateLog)
				}
			}
		}()
	}
	var rec *blackbox.Recorder
	if p.RecordEvents {
		if rec, err = blackbox.New(p.RecordMaxEvents); err != nil {
			return nil, err
		}
	}
	var clock server.Clock = server.RealClock{}
	if cfg.Speed != 1 {
		clock = server.NewScaled(nil, cfg.Speed)
	}
	srv, err := server.New(server.Config{Machine: p.Machine, Adapter: ad, Clock: clock, Tick: cfg.Tick, Recorder: rec,
		RecordDir: p.RecordDir, DumpOnShutdown: p.DumpOnShutdown, Logf: logf, StateLog: slog, SampleEvery: cfg.SampleEvery})
	if err != nil {
		return nil, err
	}
	ln := cfg.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := srv.NewHandler(server.HTTPConfig{Token: cfg.Token, Addr: ln.Addr().String(), Hosts: cfg.AllowHosts})
	hs, lln := server.NewHTTPServer(ln, h, server.HTTPLimits{})
	d = &Daemon{srv: srv, ln: lln, cancel: cancel, http: hs}
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		d.runErr = srv.Run(ctx)
	}()
	go func() {
		defer d.wg.Done()
		if err := d.http.Serve(d.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("http: %v", err)
		}
	}()
	return d, nil
}
