package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/mission/server"
)

// missionParams merges the parameter file and the flags that were given.
func missionParams(cmd *cobra.Command, f missionServeFlags) (server.Params, error) {
	p := server.DefaultParams()
	if f.params != "" {
		data, err := os.ReadFile(f.params)
		if err != nil {
			return p, err
		}
		if p, err = server.ParseParams(data, f.params); err != nil {
			return p, err
		}
	}
	set := cmd.Flags().Changed
	secs := func(name string, v float64, zeroOK bool) (time.Duration, error) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (!zeroOK && v == 0) || v > 3600 {
			return 0, fmt.Errorf("--%s %v: want seconds, finite, %s and at most 3600", name, v, map[bool]string{true: "≥ 0", false: "> 0"}[zeroOK])
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	var err error
	if set("max-altitude") {
		p.Machine.MaxAltitudeM = f.maxAltitude
	}
	if set("home-z") {
		p.HomeZ = f.homeZ
	}
	if set("takeoff-altitude") {
		p.Machine.TakeoffAltM = f.takeoffAltitude
	}
	if set("ground-margin") {
		p.Machine.GroundMarginM = f.groundMargin
	}
	if set("max-hor-dist") {
		p.Machine.MaxHorDistM = f.maxHorDist
	}
	if set("telemetry-timeout") {
		if p.Machine.TelemetryTimeout, err = secs("telemetry-timeout", f.telemetryTimeout, false); err != nil {
			return p, err
		}
	}
	if set("link-loss-timeout") {
		if p.Machine.LinkLoss, err = secs("link-loss-timeout", f.linkLoss, true); err != nil {
			return p, err
		}
	}
	if set("battery-min") {
		p.Machine.BatteryMin = f.batteryMin
	}
	if set("failsafe-action") {
		switch f.failsafeAction {
		case "hold", "land":
			p.Machine.FailsafeLand = f.failsafeAction == "land"
		default:
			return p, fmt.Errorf("--failsafe-action %q: want hold or land", f.failsafeAction)
		}
	}
	if set("record-events") {
		p.RecordEvents = f.recordEvents
	}
	if set("record-max-events") {
		p.RecordMaxEvents = f.recordMaxEvents
	}
	if set("dump-on-shutdown") {
		p.DumpOnShutdown = f.dumpOnShutdown
	}
	if set("record-dir") || p.RecordDir == "" {
		p.RecordDir = f.recordDir
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("parameters: %w", err)
	}
	if f.adapter == "mavlink" && (set("home-z") || p.HomeZSet) {
		return p, fmt.Errorf("home_z %v: --adapter mavlink takes home from the vehicle at connect; remove home_z (from --home-z or --params)", p.HomeZ)
	}
	return p, nil
}
