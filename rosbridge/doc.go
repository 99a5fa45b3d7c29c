// Package rosbridge speaks the rosbridge v2 protocol (ROSBRIDGE_PROTOCOL.md
// of rosbridge_suite, ROS 2 branch): JSON messages over a WebSocket that let
// programs outside ROS join a ROS 2 graph. roslibjs, roslibpy and Foxglove
// are its usual clients; rosbridge_server, started with
//
//	ros2 launch rosbridge_server rosbridge_websocket_launch.xml
//
// on a robot, its usual server (port 9090).
//
// Op and its concrete types are the protocol's messages, with Decode and
// Encode. Client is a node on a remote graph (publish, subscribe with
// throttle and queue, services, actions with feedback, result and cancel,
// fragments, status, reconnect with back-off). Server is a graph of its own
// that routes between its WebSocket clients and its local node, and answers
// the rosapi services roslib's getTopics, getTopicType, getServices and
// getNodes call. Both implement Node.
//
// The standard message types are in package ros; the bridges between
// Shakedown's vehicles and a graph (robot profiles, ENU/FLU ↔ NED) in
// package robot. This package owns sockets and goroutines.
package rosbridge
