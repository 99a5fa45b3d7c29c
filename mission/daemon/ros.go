package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/rosbridge"
)

// JoinROS dials the rosbridge server at url and puts the daemon on its
// graph under the namespace ns until the returned stop is called.
func (d *Daemon) JoinROS(ctx context.Context, url, ns string, logf func(string, ...any)) (stop func(), err error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := rosbridge.Dial(dctx, rosbridge.ClientConfig{URL: url, Logf: logf,
		OnReconnect: func() { logf("ros: reconnected to %s", url) }})
	if err != nil {
		return nil, fmt.Errorf("--rosbridge: %w", err)
	}
	rctx, rcancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- d.srv.ServeROS(rctx, c, server.ROSConfig{Namespace: ns, Ready: func() { close(ready) }})
	}()
	select {
	case err := <-done:
		rcancel()
		c.Close()
		if err == nil {
			err = errors.New("the daemon stopped")
		}
		return nil, fmt.Errorf("--rosbridge %s: %w", url, err)
	case <-ready:
	}
	return func() {
		rcancel()
		if err := <-done; err != nil {
			logf("ros: %v", err)
		}
		c.Close()
	}, nil
}
