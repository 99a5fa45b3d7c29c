package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/shakedown-robotics/shakedown/campaign"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "shakedown-nats test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// Serving other hosts needs a user, a password and TLS; with them, a
// client needs the password and trusts the certificate, and an error never
// shows the password.
func TestServeAuthTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	pass := filepath.Join(dir, "password")
	if err := os.WriteFile(pass, []byte("correct horse battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "js")
	for name, args := range map[string][]string{
		"open":          {"--addr", "0.0.0.0:-1"},
		"no TLS":        {"--addr", "0.0.0.0:-1", "--user", "alice", "--password-file", pass},
		"no password":   {"--addr", "0.0.0.0:-1", "--tls-cert", cert, "--tls-key", key},
		"user alone":    {"--addr", "127.0.0.1:-1", "--user", "alice"},
		"cert alone":    {"--addr", "127.0.0.1:-1", "--tls-cert", cert},
		"short passwd":  {"--addr", "127.0.0.1:-1", "--user", "alice", "--password-file", cert + "x"},
		"all hosts, ''": {"--addr", ":-1"},
	} {
		var out strings.Builder
		if c := serve(append(args, "--store", store), &out, nil); c != 2 {
			t.Errorf("%s: exit %d; want 2", name, c)
		}
		if name == "open" && !strings.Contains(out.String(), "--tls-cert") {
			t.Errorf("%s: %q does not say what is missing", name, out.String())
		}
	}

	r, w := io.Pipe()
	stop := make(chan struct{})
	code := make(chan int, 1)
	go func() {
		code <- serve([]string{"--addr", "127.0.0.1:-1", "--store", store, "--user", "alice", "--password-file", pass, "--tls-cert", cert, "--tls-key", key}, w, stop)
		w.Close()
	}()
	lines := bufio.NewScanner(r)
	url := ""
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "shakedown-nats: JetStream on "); ok {
			url, _, _ = strings.Cut(rest, ",")
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	if !strings.HasPrefix(url, "tls://alice:PASSWORD@") {
		t.Fatalf("ready line names %q; want tls://alice:PASSWORD@…", url)
	}
	good := strings.Replace(url, "PASSWORD", "correct%20horse%20battery%20staple", 1)
	nc, err := campaign.Dial(context.Background(), good, "test", nats.RootCAs(cert))
	if err != nil {
		t.Fatal(err)
	}
	if err := campaign.Setup(context.Background(), nc, campaign.NATSConfig{}); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	wrong := strings.Replace(url, "PASSWORD", "s3cretguess", 1)
	_, err = campaign.Dial(context.Background(), wrong, "test", nats.RootCAs(cert))
	if err == nil || strings.Contains(err.Error(), "s3cretguess") || !strings.Contains(err.Error(), "alice:xxxxx@") {
		t.Errorf("wrong password: got %v; want a refusal naming alice:xxxxx@, not the password", err)
	}
	if _, err := campaign.Dial(context.Background(), good, "test"); err == nil {
		t.Error("a client that does not trust the certificate connected")
	}
	close(stop)
	if c := <-code; c != 0 {
		t.Errorf("exit %d; want 0", c)
	}
}
