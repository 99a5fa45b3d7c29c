package campaign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/shakedown-robotics/shakedown/scenario"
)

// Key is a campaign's shared secret. The coordinator signs every job it
// publishes with it and accepts only results signed with it; a worker that
// has it runs only jobs signed with it and signs its results. The
// signature is an HMAC-SHA256 over the message's subject (which names the
// campaign and, for results, ok or dead), its bookkeeping headers (worker,
// attempt, elapsed time) and its body (which names the job), so a result
// is bound to the campaign and the job it answers, and anyone who can reach
// the NATS server but does not hold the key can neither plant a result nor
// have a worker run a job of their own.
//
// A Key never prints: its String and GoString say only that it is set.
type Key struct{ b []byte }

// MinKeyBytes is the shortest key accepted: 128 bits, as for any HMAC key
// meant to resist guessing.
const MinKeyBytes = 16

// maxKeyFile bounds a key file.
const maxKeyFile = 4096

// ErrBadKey marks a key that is too short or a key file that cannot be used.
var ErrBadKey = errors.New("campaign: bad campaign key")

// NewKey returns the key with secret b (at least MinKeyBytes bytes; the
// bytes are copied).
func NewKey(b []byte) (Key, error) {
	if len(b) < MinKeyBytes {
		return Key{}, fmt.Errorf("%w: %d bytes; want at least %d (e.g. openssl rand -hex 32 > campaign.key)", ErrBadKey, len(b), MinKeyBytes)
	}
	return Key{b: append([]byte(nil), b...)}, nil
}

// LoadKey reads a key from the file at path: its content without the
// surrounding white space (so `openssl rand -hex 32 > FILE` makes one).
// The file must be a regular file of at most 4 KiB that only its owner can
// read.
func LoadKey(path string) (Key, error) {
	data, err := scenario.ReadFile(path, maxKeyFile)
	if err != nil {
		return Key{}, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	if err := privateFile(path); err != nil {
		return Key{}, fmt.Errorf("%w: %s: %v", ErrBadKey, path, err)
	}
	k, err := NewKey([]byte(strings.TrimSpace(string(data))))
	if err != nil {
		return Key{}, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Set reports whether k holds a secret.
func (k Key) Set() bool { return len(k.b) > 0 }

// String implements fmt.Stringer without showing the secret.
func (k Key) String() string {
	if k.Set() {
		return "campaign.Key(set)"
	}
	return "campaign.Key(none)"
}

// GoString implements fmt.GoStringer without showing the secret.
func (k Key) GoString() string { return k.String() }

const hdrSignature = "Shakedown-Signature"

// signed headers, in the order they enter the MAC.
var signedHeaders = []string{hdrJob, hdrWorker, hdrAttempt, hdrElapsed}

// mac is the signature of a message on subject with header h and body data.
func (k Key) mac(subject string, h nats.Header, data []byte) string {
	m := hmac.New(sha256.New, k.b)
	m.Write([]byte("shakedown message v1\x00"))
	m.Write([]byte(subject))
	for _, name := range signedHeaders {
		m.Write([]byte{0})
		if h != nil {
			m.Write([]byte(h.Get(name)))
		}
	}
	m.Write([]byte{0})
	m.Write(data)
	return "hmac-sha256=" + hex.EncodeToString(m.Sum(nil))
}

// sign sets msg's signature header when k is set.
func (k Key) sign(msg *nats.Msg) {
	if !k.Set() {
		return
	}
	if msg.Header == nil {
		msg.Header = nats.Header{}
	}
	msg.Header.Set(hdrSignature, k.mac(msg.Subject, msg.Header, msg.Data))
}

// Errors of a message's signature.
var (
	// ErrUnsigned marks a message without a signature where one is
	// required.
	ErrUnsigned = errors.New("campaign: message not signed with the campaign key")
	// ErrForged marks a message whose signature is not the campaign key's.
	ErrForged = errors.New("campaign: message signature does not match the campaign key")
)

// verify checks the signature of a message; with no key every message
// passes.
func (k Key) verify(subject string, h nats.Header, data []byte) error {
	if !k.Set() {
		return nil
	}
	got := h.Get(hdrSignature)
	if got == "" {
		return ErrUnsigned
	}
	if !hmac.Equal([]byte(got), []byte(k.mac(subject, h, data))) {
		return ErrForged
	}
	return nil
}

// RedactURL returns the NATS server URL u (several separated by commas)
// with any password or token replaced by "xxxxx", for messages and logs:
// nats://alice:s3cret@host:4222 becomes nats://alice:xxxxx@host:4222 and
// nats://t0ken@host becomes nats://xxxxx@host.
func RedactURL(u string) string {
	parts := strings.Split(u, ",")
	for i, p := range parts {
		parts[i] = redactOne(p)
	}
	return strings.Join(parts, ",")
}

func redactOne(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	}
	at := strings.LastIndex(rest, "@")
	if slash := strings.IndexAny(rest, "/?#"); slash >= 0 && slash < at {
		at = strings.LastIndex(rest[:slash], "@")
	}
	if at < 0 {
		return s
	}
	info := rest[:at]
	if user, _, hasPass := strings.Cut(info, ":"); hasPass {
		if name, err := url.PathUnescape(user); err == nil && name != "" {
			info = user + ":xxxxx"
		} else {
			info = "xxxxx"
		}
	} else {
		info = "xxxxx" // a token
	}
	out := info + rest[at:]
	if ok {
		out = scheme + "://" + out
	}
	return out
}

// Secret returns the key's secret, for a server that must hold the same
// one (shakedown-nats's password file is read with LoadKey).
func (k Key) Secret() string { return string(k.b) }
