package main

import (
	"fmt"

	"github.com/shakedown-robotics/shakedown/mission/server"
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
