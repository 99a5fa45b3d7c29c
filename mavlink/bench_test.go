package mavlink

import (
	"context"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"

	"github.com/shakedown-robotics/shakedown/vehicle"
)

// freeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func freeUDPPort(tb testing.TB) int {
	tb.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// loopback serves a new simulator on a free loopback UDP port and dials it.
func loopback(tb testing.TB, speed float64) (*Server, *Vehicle, func()) {
	tb.Helper()
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(freeUDPPort(tb))
	srv, err := NewServer(ServerConfig{Sim: sim, Speed: speed, Endpoints: []gomavlib.EndpointConf{gomavlib.EndpointUDPServer{Address: addr}}})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Run(ctx)
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	v, err := Dial(dctx, Config{URL: "udp://" + addr})
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	return srv, v, func() { v.Close(); cancel(); <-srv.done }
}

// BenchmarkCommandAck measures COMMAND_LONG → COMMAND_ACK round trips
// over loopback UDP against the served simulator (a disarm of a disarmed
// vehicle: accepted, nothing changes), with the server's telemetry
// streaming meanwhile. It reports the median and the 99th percentile.
func BenchmarkCommandAck(b *testing.B) {
	_, v, stop := loopback(b, 1)
	defer stop()
	ctx := context.Background()
	var d []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if err := v.Command(ctx, cmdArmDisarm, [7]float32{0}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(t0))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}
