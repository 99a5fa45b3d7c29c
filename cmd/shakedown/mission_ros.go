package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shakedown-robotics/shakedown/mission/server"
	"github.com/shakedown-robotics/shakedown/rosbridge"
)

// checkMissionROS checks --rosbridge and --ros-namespace before anything
// starts.
func checkMissionROS(url, ns string) error {
	if url == "" {
		return nil
	}
	if !isRosbridgeURL(url) {
		return fmt.Errorf("--rosbridge %q: want the robot's rosbridge server as ws://host:9090", url)
	}
	if ns == "" || ns[0] != '/' {
		return fmt.Errorf("--ros-namespace %q: want an absolute ROS name such as %s", ns, server.DefaultROSNamespace)
	}
	return nil
}

// missionJoinROS dials the rosbridge server at url and puts the daemon on
// its graph under ns until the returned stop is called.
func missionJoinROS(ctx context.Context, srv *server.Server, url, ns string, logf func(string, ...any)) (stop func(), err error) {
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
		done <- srv.ServeROS(rctx, c, server.ROSConfig{Namespace: ns, Ready: func() { close(ready) }})
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
