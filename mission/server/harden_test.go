package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/mission"
	"github.com/shakedown-robotics/shakedown/mission/adapter"
	"github.com/shakedown-robotics/shakedown/mission/server"
)

// pipeListener is an in-memory listener: every Dial is a net.Pipe, whose
// deadlines run on the synctest bubble's fake clock.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error { l.once.Do(func() { close(l.done) }); return nil }

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

func (l *pipeListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	s, c := net.Pipe()
	select {
	case l.conns <- s:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// daemon is a server with the hardened HTTP server on a pipe listener.
type daemon struct {
	s      *server.Server
	ln     *pipeListener
	http   *http.Server
	client *http.Client
	stop   func() error
}

func startDaemon(t *testing.T, cfg server.HTTPConfig, lim server.HTTPLimits) *daemon {
	t.Helper()
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{})})
	ln := newPipeListener()
	cfg.Token = token
	cfg.Addr = "127.0.0.1:8080"
	hs, l := server.NewHTTPServer(ln, s.NewHandler(cfg), lim)
	go hs.Serve(l)
	tr := &http.Transport{DialContext: ln.DialContext, MaxConnsPerHost: 0, DisableKeepAlives: true}
	return &daemon{s: s, ln: ln, http: hs, client: &http.Client{Transport: tr}, stop: stop}
}

func (d *daemon) close() {
	d.client.CloseIdleConnections()
	d.stop()
	d.http.Close()
}

// openStream opens a status stream and reads its first event.
func (d *daemon) openStream(t *testing.T, ctx context.Context, auth bool) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:8080/v1/status/stream", nil)
	if auth {
		req.Header.Set("Authorization", bearer)
	}
	return d.client.Do(req)
}

// TestStreamLimit is issue 21 item 9: MaxStreams streams may be open,
// authenticated or not; one more is refused with 429, never a 5xx, and a
// closed stream frees its place.
func TestStreamLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startDaemon(t, server.HTTPConfig{MaxStreams: 2}, server.HTTPLimits{})
		defer d.close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var open []*http.Response
		for i, auth := range []bool{false, true} {
			resp, err := d.openStream(t, ctx, auth)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("stream %d: %v %v", i, resp, err)
			}
			open = append(open, resp)
		}
		for _, auth := range []bool{false, true} {
			resp, err := d.openStream(t, ctx, auth)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), server.CodeTooManyStreams) {
				t.Fatalf("third stream (auth %v): got %d %s; want 429 %s", auth, resp.StatusCode, body, server.CodeTooManyStreams)
			}
		}
		open[0].Body.Close()
		synctest.Wait()
		resp, err := d.openStream(t, ctx, false)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stream after one closed: %v %v", resp, err)
		}
		resp.Body.Close()
		open[1].Body.Close()
	})
}

// TestServerTimeouts is issue 21 item 9: a body trickled forever (with the
// token) is cut at the read timeout, a header never finished at the header
// timeout; a status stream outlives the read timeout.
func TestServerTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := startDaemon(t, server.HTTPConfig{}, server.HTTPLimits{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second})
		defer d.close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		// raw dials a connection whose replies are read and dropped (a pipe
		// has no buffer: an unread reply would block the server).
		raw := func() net.Conn {
			c, err := d.ln.DialContext(ctx, "", "")
			if err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, c)
			return c
		}
		// The trickled body: one byte a second of a 1000-byte body.
		c := raw()
		fmt.Fprintf(c, "POST /v1/command HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: %s\r\nContent-Length: 1000\r\n\r\n", bearer)
		start := time.Now()
		var werr error
		for werr == nil && time.Since(start) < 10*time.Minute {
			_, werr = c.Write([]byte(" "))
			time.Sleep(time.Second)
		}
		if took := time.Since(start); werr == nil || took > 32*time.Second {
			t.Errorf("trickled body: connection open after %v (write error %v); want it closed at the 30 s read timeout", took, werr)
		}
		c.Close()

		// Headers that never end.
		c = raw()
		start = time.Now()
		fmt.Fprintf(c, "GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n")
		for werr = nil; werr == nil && time.Since(start) < 10*time.Minute; time.Sleep(time.Second) {
			_, werr = c.Write([]byte("X-A: b\r\n"))
		}
		if took := time.Since(start); took > 7*time.Second {
			t.Errorf("unfinished headers: connection open after %v; want it closed at the 5 s header timeout", took)
		}
		c.Close()

		// A stream is still delivering after twice the read timeout.
		resp, err := d.openStream(t, ctx, false)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stream: %v %v", resp, err)
		}
		defer resp.Body.Close()
		events := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if l := sc.Text(); strings.HasPrefix(l, "data: ") {
					events <- l
				}
			}
			close(events)
		}()
		<-events
		time.Sleep(time.Minute)
		if _, err := d.s.Do(ctx, mission.Connect{}); err != nil {
			t.Fatal(err)
		}
		select {
		case l, ok := <-events:
			if !ok || !strings.Contains(l, "CONNECTING") && !strings.Contains(l, "connect") {
				t.Fatalf("after a minute: got %q (open %v); want the connect on the stream", l, ok)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the stream delivered nothing after the read timeout")
		}
		cancel()
	})
}

// TestHostCheck is issue 21 item 8: a DNS-rebinding page (Host: its own
// name) cannot read the status, the events, the queue or the stream; the
// daemon's own addresses can.
func TestHostCheck(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{})})
	defer stop()
	h := s.NewHandler(server.HTTPConfig{Token: token, Addr: "127.0.0.1:8080", Hosts: []string{"drone.lan"}})
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:8080", true}, {"localhost:8080", true}, {"LOCALHOST", true}, {"[::1]:8080", true},
		{"127.0.0.1", true}, {"drone.lan:8080", true}, {"10.1.2.3:8080", true},
		{"rebind.attacker.example:8080", false}, {"localhost.attacker.example", false}, {"", false},
		{"127.0.0.1.nip.io:8080", false},
	} {
		for _, path := range []string{"/v1/status", "/v1/events", "/v1/queue", "/", "/v1/goals"} {
			req := httptest.NewRequest("GET", path, nil)
			req.Host = c.host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if got := rec.Code == 200; got != c.ok {
				t.Errorf("Host %q GET %s: got %d %s; want ok %v", c.host, path, rec.Code, rec.Body, c.ok)
			}
			if !c.ok && (rec.Code != http.StatusMisdirectedRequest || !strings.Contains(rec.Body.String(), server.CodeBadHost)) {
				t.Errorf("Host %q GET %s: got %d %s; want 421 %s", c.host, path, rec.Code, rec.Body, server.CodeBadHost)
			}
		}
	}
	// Without Addr (Handler), nothing is checked.
	req := httptest.NewRequest("GET", "/v1/status", nil)
	req.Host = "rebind.attacker.example"
	rec := httptest.NewRecorder()
	s.Handler(token, 0).ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("Handler without Addr: got %d", rec.Code)
	}
}

// TestNoFraming is issue 21 item 7: the live page (and every other
// response) forbids framing, and the page's policy allows nothing from
// elsewhere.
func TestNoFraming(t *testing.T) {
	s, stop := start(t, server.Config{Machine: mission.DefaultConfig(), Adapter: adapter.NewStateOnly(adapter.KinematicConfig{})})
	defer stop()
	h := s.NewHandler(server.HTTPConfig{Token: token})
	for _, path := range []string{"/", "/v1/status", "/v1/events", "/v1/nope"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		csp := rec.Header().Get("Content-Security-Policy")
		if rec.Header().Get("X-Frame-Options") != "DENY" || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: X-Frame-Options %q, CSP %q; want DENY and frame-ancestors 'none'", path, rec.Header().Get("X-Frame-Options"), csp)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no X-Content-Type-Options nosniff", path)
		}
		if path == "/" {
			for _, want := range []string{"default-src 'none'", "connect-src 'self'", "form-action 'none'", "base-uri 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("live page CSP %q lacks %q", csp, want)
				}
			}
		}
	}
}

// TestTokenFileChecks is issue 21 item 10: a 0600 token file owned by
// another user is refused (a root daemon trusted it), and so are files
// that are not regular and oversized ones.
func TestTokenFileChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mission.token")
	if err := os.WriteFile(path, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := server.LoadToken(path); err != nil || tok != "abc" {
		t.Fatalf("own token file: got %q, %v", tok, err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	} else {
		defer server.SetEUID(os.Geteuid() + 1)()
	}
	_, err := server.LoadToken(path)
	if !errors.Is(err, server.ErrTokenFile) || !strings.Contains(err.Error(), "owned by uid") {
		t.Errorf("token file of another user: got %v; want ErrTokenFile naming the owner", err)
	}
	if _, _, err := server.LoadOrCreateToken(path); !errors.Is(err, server.ErrTokenFile) {
		t.Errorf("LoadOrCreateToken on another user's file: got %v; want ErrTokenFile", err)
	}
	for _, bad := range []string{"/dev/null", dir} {
		if _, err := server.LoadToken(bad); !errors.Is(err, server.ErrTokenFile) {
			t.Errorf("LoadToken(%s): got %v; want ErrTokenFile", bad, err)
		}
	}
	big := filepath.Join(dir, "big.token")
	if err := os.WriteFile(big, []byte(strings.Repeat("a", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := server.LoadToken(big); !errors.Is(err, server.ErrTokenFile) {
		t.Errorf("LoadToken(5000 bytes): got %v; want ErrTokenFile", err)
	}
}
