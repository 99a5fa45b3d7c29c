package main

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/campaign"
)

// The server starts on a random port, serves JetStream to a campaign
// client, and shuts down cleanly.
func TestServe(t *testing.T) {
	r, w := io.Pipe()
	stop := make(chan struct{})
	code := make(chan int, 1)
	go func() {
		code <- serve([]string{"--addr", "127.0.0.1:-1", "--store", filepath.Join(t.TempDir(), "js")}, w, stop)
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
	if url == "" {
		t.Fatal("no ready line")
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	nc, err := campaign.Dial(context.Background(), url, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := campaign.Setup(context.Background(), nc, campaign.NATSConfig{}); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	close(stop)
	if c := <-code; c != 0 {
		t.Errorf("exit %d; want 0", c)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--addr", "nowhere"}, {"extra"}, {"--bogus"}} {
		if c := serve(args, io.Discard, nil); c != 2 {
			t.Errorf("%q: exit %d; want 2", args, c)
		}
	}
}
