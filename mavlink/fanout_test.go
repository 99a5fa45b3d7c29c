package mavlink

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/shakedown-robotics/shakedown/vehicle"
)

// pipeListener is a net.Listener whose connections are in-memory pipes
// handed out by dial: a server endpoint with many peers, inside a
// synctest bubble.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// peer is the remote end of one connection: it counts the bytes the
// server sends it.
type peer struct {
	conn net.Conn
	got  atomic.Int64
}

func (l *pipeListener) dial(t *testing.T) *peer {
	a, b := net.Pipe()
	l.conns <- a
	p := &peer{conn: b}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := b.Read(buf)
			p.got.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { b.Close() })
	return p
}

// The reproduction, bounded: many sources on a server endpoint.
// Sources that send only garbage receive nothing; of those that speak
// MAVLink, at most MaxPeers receive the streams; one that goes silent
// stops receiving them after PeerTimeout, and its slot goes to another.
func TestServerPeerFanOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newPipeListener()
		sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(ServerConfig{Sim: sim, MaxPeers: 3, PeerTimeout: 3 * time.Second,
			Endpoints: []gomavlib.EndpointConf{gomavlib.EndpointCustomServer{Listen: func() (net.Listener, error) { return l, nil }, Label: "pipe"}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx) }()
		defer func() { cancel(); <-done }()

		hb := encode(t, 255, 190, &common.MessageHeartbeat{Type: 6, Autopilot: 8})
		var garbage, speakers []*peer
		for range 5 {
			p := l.dial(t)
			if _, err := p.conn.Write([]byte("\xfd\x09not mavlink at all, just noise")); err != nil {
				t.Fatal(err)
			}
			garbage = append(garbage, p)
		}
		for range 5 {
			p := l.dial(t)
			if _, err := p.conn.Write(hb); err != nil {
				t.Fatal(err)
			}
			speakers = append(speakers, p)
			synctest.Wait()
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		for i, p := range garbage {
			if n := p.got.Load(); n != 0 {
				t.Errorf("garbage source %d received %d bytes; want none", i, n)
			}
		}
		streamed := 0
		for _, p := range speakers {
			if p.got.Load() > 1000 {
				streamed++
			}
		}
		if streamed != 3 {
			t.Errorf("%d peers receive the streams; want MaxPeers = 3", streamed)
		}

		// The first three go silent; the last two keep speaking.
		before := make([]int64, len(speakers))
		for k := range 5 {
			for _, p := range speakers[3:] {
				if _, err := p.conn.Write(hb); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(time.Second)
			synctest.Wait()
			if k == 3 {
				for i, p := range speakers {
					before[i] = p.got.Load()
				}
			}
		}
		for i, p := range speakers {
			grew := p.got.Load() > before[i]
			if want := i >= 3; grew != want {
				t.Errorf("peer %d: received in the last second: %v; want %v (silent peers stop, speaking ones start once there is room)", i, grew, want)
			}
		}
	})
}
