// Package interop checks Shakedown against independent implementations of
// the formats it speaks, run as small Node scripts: node-mavlink as a
// ground station flying the served simulator (the server of `shakedown
// sitl`) over loopback UDP, and Foxglove's @mcap/core reader with the
// @foxglove/schemas JSON Schemas on recorded flight logs. The libraries are
// pinned in package.json and package-lock.json and installed with `npm ci`
// (.ci/run does it). Without Node or node_modules the tests skip, except
// under CI=true, where they fail.
package interop

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"

	"github.com/shakedown-robotics/shakedown/flightlog"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/internal/nodetest"
	"github.com/shakedown-robotics/shakedown/mavlink"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

// node returns the node binary with interop's pinned packages, or fails
// (CI) or skips (elsewhere) when they are missing.
func node(t *testing.T) string {
	t.Helper()
	return nodetest.Need(t, ".", "node-mavlink", "@mcap/core", "@foxglove/schemas", "ajv")
}

// runNode runs a script and returns its output, logging it.
func runNode(t *testing.T, limit time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("node %s:\n%s", strings.Join(args, " "), out.String())
	return out.String(), err
}

func freePort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// TestGroundStation flies the served simulator at ×10 with node-mavlink as
// the ground station: heartbeat, protocol version, parameters, mission
// upload and download, a command to system 0 refused, arm, the mission,
// pause, resume from the current item, RTL to touchdown, and every frame's
// CRC. The script prints each step; each must be ok.
func TestGroundStation(t *testing.T) {
	node(t)
	const speed = 10
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	srv, err := mavlink.NewServer(mavlink.ServerConfig{Sim: sim, Speed: speed,
		Endpoints: []gomavlib.EndpointConf{gomavlib.EndpointUDPServer{Address: "127.0.0.1:" + strconv.Itoa(port)}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done }()
	out, err := runNode(t, 3*time.Minute, "gcs.mjs", strconv.Itoa(port), strconv.Itoa(speed))
	want := []string{"heartbeat", "protocol version", "parameters", "mission upload", "mission download",
		"command to system 0 refused", "arm", "mission", "pause", "resume from the current item", "RTL", "framing"}
	for _, s := range want {
		if !regexp.MustCompile(`(?m)^step ` + regexp.QuoteMeta(s) + `: ok`).MatchString(out) {
			t.Errorf("step %q did not pass", s)
		}
	}
	if err != nil {
		t.Errorf("gcs.mjs: %v", err)
	}
}

// flight records a flight of the embedded simulator into path: the scene
// with two obstacles, the ideal path, a take-off and a mission leg, and a
// crash into the ground after a kill, with every telemetry channel; ns
// namespaces it as one of several robots.
func flight(t *testing.T, path, ns string) {
	t.Helper()
	var b bytes.Buffer
	w, err := flightlog.NewWithOptions(&b, flightlog.Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	area := world.DefaultArea
	boxes := []world.Box{{L: 10, W: 4, H: 20, X: 0, Y: 20, R: 30}, {L: 5, W: 5, H: 10, X: 10, Y: -10}}
	w.Scene(0, &area, boxes)
	ideal := []geom.Vec3{{}, {Z: -5}, {X: 15, Z: -5}}
	w.IdealPath(0, ideal)
	w.Event(0, flightlog.LevelInfo, "interop", "start")
	rec := &flightlog.SimRecorder{W: w}
	sim, err := vehicle.NewSim(vehicle.SimConfig{Seed: 2, OnRecord: rec.Sample})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sim.Arm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sim.Takeoff(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Wait(ctx, 20*time.Second, func(t vehicle.Telemetry) bool { return t.AltM() > 4.8 }); err != nil {
		t.Fatal(err)
	}
	if err := sim.Goto(ctx, ideal[2], 3); err != nil {
		t.Fatal(err)
	}
	_, _ = sim.Wait(ctx, 8*time.Second, nil)
	_ = sim.Kill(ctx)
	_, _ = sim.Wait(ctx, 4*time.Second, nil)
	if _, ok := sim.Crash(); !ok {
		t.Fatal("no crash")
	}
	w.Finish(sim.Time())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMCAPFoxglove reads recorded flight logs (one robot, and a robot of
// several under its namespace) with @mcap/core and validates every message
// of every foxglove.* channel against @foxglove/schemas.
func TestMCAPFoxglove(t *testing.T) {
	node(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "flight.mcap"), filepath.Join(dir, "uav2.mcap")
	flight(t, a, "")
	flight(t, b, "uav2")
	out, err := runNode(t, time.Minute, "validate-mcap.mjs", a, b)
	if err != nil {
		t.Errorf("validate-mcap.mjs: %v", err)
	}
	m := regexp.MustCompile(`foxglove messages validated: (\d+), invalid: (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no total in the output")
	}
	if n, _ := strconv.Atoi(m[1]); n < 500 || m[2] != "0" {
		t.Errorf("validated %s foxglove messages, %s invalid; want hundreds, none invalid", m[1], m[2])
	}
	for _, topic := range []string{"/scene", "/telemetry/gnss_fix", "/events", "/uav2/vehicle/pose", "/uav2/scene"} {
		if !strings.Contains(out, "channel "+topic+" ") {
			t.Errorf("no channel %s", topic)
		}
	}
}

// TestSchemasUpToDate: the foxglove.* schemas flightlog embeds are those of
// the pinned @foxglove/schemas (interop/gen-schemas.mjs writes them).
func TestSchemasUpToDate(t *testing.T) {
	node(t)
	script := `import { foxgloveSchemas, usedSchemas } from './schemas.mjs'
process.stdout.write(JSON.stringify(foxgloveSchemas(usedSchemas), null, 1) + '\n')`
	tmp := filepath.Join(t.TempDir(), "dump.mjs")
	wd, _ := os.Getwd()
	if err := os.WriteFile(tmp, []byte(strings.Replace(script, "./schemas.mjs", "file://"+filepath.Join(wd, "schemas.mjs"), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := exec.CommandContext(ctx, node(t), tmp).Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "flightlog", "foxglove_schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("flightlog/foxglove_schemas.json differs from @foxglove/schemas: run node gen-schemas.mjs in interop/")
	}
}
