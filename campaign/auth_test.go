package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nats://alice:s3cretpw@host:4222", "nats://alice:xxxxx@host:4222"},
		{"nats://t0ken@host", "nats://xxxxx@host"},
		{"tls://a:b@h1:1,nats://c:d@h2:2", "tls://a:xxxxx@h1:1,nats://c:xxxxx@h2:2"},
		{"nats://host:4222", "nats://host:4222"},
		{"nats://al%40ce:p@ss:w@rd@host", "nats://al%40ce:xxxxx@host"},
		{"alice:pw@host:4222", "alice:xxxxx@host:4222"},
		{"nats://:pw@host", "nats://xxxxx@host"},
		{"nats://host/path@x", "nats://host/path@x"},
		{"", ""},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// FuzzRedactURL: whatever the URL, a password in it never survives.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"nats://alice:s3cretpw@host:4222", "nats://t@h", "a:b@c,d:e@f", "nats://x:y@z/p?q@r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		got := RedactURL(u)
		for _, part := range strings.Split(u, ",") {
			rest := part
			if _, r, ok := strings.Cut(part, "://"); ok {
				rest = r
			}
			if i := strings.IndexAny(rest, "/?#"); i >= 0 {
				rest = rest[:i]
			}
			at := strings.LastIndex(rest, "@")
			if at < 0 {
				continue
			}
			_, pw, _ := strings.Cut(rest[:at], ":")
			if len(pw) >= 3 && pw != "xxxxx" && strings.Contains(got, pw+"@") {
				t.Errorf("RedactURL(%q) = %q keeps the password %q", u, got, pw)
			}
		}
		if RedactURL(got) != got {
			t.Errorf("RedactURL is not idempotent on %q: %q then %q", u, got, RedactURL(got))
		}
	})
}

func TestKey(t *testing.T) {
	if _, err := NewKey([]byte("short")); !errors.Is(err, ErrBadKey) {
		t.Errorf("a 5-byte key: got %v; want ErrBadKey", err)
	}
	k, err := NewKey([]byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := NATSConfig{Key: k}
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg)} {
		if strings.Contains(s, "0123456789") || strings.Contains(s, "48 49 50") {
			t.Errorf("the key shows in %q", s)
		}
	}
	m := nats.NewMsg("p.results.c.ok")
	m.Data = []byte(`{"job":"x"}`)
	m.Header.Set(hdrWorker, "w1")
	k.sign(m)
	if err := k.verify(m.Subject, m.Header, m.Data); err != nil {
		t.Fatalf("a signed message: %v", err)
	}
	other, _ := NewKey([]byte("0123456789abcdeF"))
	for name, c := range map[string]struct {
		k       Key
		subject string
		hdr     func(nats.Header)
		data    string
		want    error
	}{
		"other key":     {other, m.Subject, nil, string(m.Data), ErrForged},
		"other subject": {k, "p.results.d.ok", nil, string(m.Data), ErrForged},
		"dead for ok":   {k, "p.results.c.dead", nil, string(m.Data), ErrForged},
		"other worker":  {k, m.Subject, func(h nats.Header) { h.Set(hdrWorker, "w2") }, string(m.Data), ErrForged},
		"other body":    {k, m.Subject, nil, `{"job":"y"}`, ErrForged},
		"unsigned":      {k, m.Subject, func(h nats.Header) { h.Del(hdrSignature) }, string(m.Data), ErrUnsigned},
	} {
		h := nats.Header{}
		for n, v := range m.Header {
			h[n] = append([]string(nil), v...)
		}
		if c.hdr != nil {
			c.hdr(h)
		}
		if err := c.k.verify(c.subject, h, []byte(c.data)); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v; want %v", name, err, c.want)
		}
	}
	if err := (Key{}).verify(m.Subject, nats.Header{}, nil); err != nil {
		t.Errorf("no key: got %v; want every message to pass", err)
	}
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("  0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := LoadKey(good); err != nil || k.Secret() != "0123456789abcdef0123" {
		t.Errorf("LoadKey: %v, %q", err, k.Secret())
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("0123456789abcdef0123"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{open, short, dir, "/dev/zero", filepath.Join(dir, "none")} {
		if _, err := LoadKey(p); !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), p) {
			t.Errorf("LoadKey(%s): got %v; want ErrBadKey naming the file", p, err)
		}
	}
}

// BenchmarkSignVerify is the cost of the campaign key per result: signing
// and verifying a 40-KB message (a 500-s flight's 0.5-s trajectory and
// verdict).
func BenchmarkSignVerify(b *testing.B) {
	k, _ := NewKey([]byte("0123456789abcdef0123456789abcdef"))
	m := nats.NewMsg("shakedown.results.0123456789abcdef0123456789abcdef.ok")
	m.Data = make([]byte, 40<<10)
	m.Header.Set(hdrJob, "0123456789abcdef0123456789abcdef")
	m.Header.Set(hdrWorker, "rack3-node2")
	b.ReportAllocs()
	b.SetBytes(int64(len(m.Data)))
	for b.Loop() {
		k.sign(m)
		if err := k.verify(m.Subject, m.Header, m.Data); err != nil {
			b.Fatal(err)
		}
	}
}
