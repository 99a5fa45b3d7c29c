package mavlink

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/bluenviron/gomavlib/v3"
)

// memEnd is one end of an in-memory datagram link for gomavlib's
// EndpointCustom: each Write is a packet, dropped when the peer's queue is
// full or the link is cut (like UDP); Read blocks until a packet comes or
// this end is closed.
type memEnd struct {
	in, out chan []byte
	buf     []byte
	closed  chan struct{}
	once    sync.Once
	cut     *atomic.Bool
}

// memPipe returns the two ends of a link and its cut switch.
func memPipe() (*memEnd, *memEnd, *atomic.Bool) {
	ab, ba := make(chan []byte, 4096), make(chan []byte, 4096)
	cut := new(atomic.Bool)
	return &memEnd{in: ba, out: ab, closed: make(chan struct{}), cut: cut},
		&memEnd{in: ab, out: ba, closed: make(chan struct{}), cut: cut}, cut
}

func (e *memEnd) Read(p []byte) (int, error) {
	for len(e.buf) == 0 {
		select {
		case b := <-e.in:
			e.buf = b
		case <-e.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

func (e *memEnd) Write(p []byte) (int, error) {
	select {
	case <-e.closed:
		return 0, io.ErrClosedPipe
	default:
	}
	if e.cut.Load() {
		return len(p), nil
	}
	select {
	case e.out <- append([]byte(nil), p...):
	default:
	}
	return len(p), nil
}

func (e *memEnd) Close() error {
	e.once.Do(func() { close(e.closed) })
	return nil
}

// endpoints returns e as a gomavlib endpoint. EndpointCustom is the
// in-memory transport the issue asks for; its replacement,
// EndpointCustomClient, wants a net.Conn with deadlines.
func (e *memEnd) endpoints() []gomavlib.EndpointConf {
	//lint:ignore SA1019 see above
	return []gomavlib.EndpointConf{gomavlib.EndpointCustom{ReadWriteCloser: e}}
}
