package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shakedown-robotics/shakedown/internal/atomicfile"
)

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename, creating the directory if needed: readers see the
// old file or the new one, never a part.
func WriteAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// ErrTokenFile is returned for a token file that cannot be trusted.
var ErrTokenFile = errors.New("server: bad token file")

// maxTokenFile bounds the token file: a token is 64 hex digits.
const maxTokenFile = 4 << 10

// euid is the effective user ID the token file must belong to (a variable
// for tests that cannot chown).
var euid = os.Geteuid

// LoadToken reads the bearer token from path. The file must be a regular
// file of at most 4 KiB, hold one non-empty line, be owned by the user the
// daemon runs as (a root daemon does not trust another user's 0600 file:
// that user could change the token), and be readable by its owner only
// (mode 0600).
func LoadToken(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a regular file (%s)", ErrTokenFile, path, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%w: %s has mode %04o, readable by others; run chmod 600 %s", ErrTokenFile, path, fi.Mode().Perm(), path)
	}
	if uid, ok := fileOwner(fi); ok && uid != euid() {
		return "", fmt.Errorf("%w: %s is owned by uid %d, not by this user (uid %d), who could not trust its token; remove it or chown it", ErrTokenFile, path, uid, euid())
	}
	if fi.Size() > maxTokenFile {
		return "", fmt.Errorf("%w: %s holds %d bytes, more than a token (at most %d)", ErrTokenFile, path, fi.Size(), maxTokenFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%w: %s grew beyond %d bytes", ErrTokenFile, path, maxTokenFile)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("%w: %s must hold one token on one line", ErrTokenFile, path)
	}
	return tok, nil
}

// LoadOrCreateToken reads the token at path, or creates the file with a
// new random token (256 bits, hex) and mode 0600 when it does not exist.
// created reports which.
func LoadOrCreateToken(path string) (tok string, created bool, err error) {
	tok, err = LoadToken(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false, err
	}
	tok = hex.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) { // created meanwhile by another daemon
			tok, err = LoadToken(path)
			return tok, false, err
		}
		return "", false, err
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", false, err
	}
	if err := f.Close(); err != nil {
		return "", false, err
	}
	return tok, true, nil
}
