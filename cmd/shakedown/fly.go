package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/plot"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

type flyFlags struct {
	obstacles []string
	seed      uint64
	out       string
	json      bool
	timeout   float64
	rules     string
	autopilot string
	gust      float64
	record    string
	connect   string    // fly a MAVLink vehicle at this URL instead of the simulator
	stderr    io.Writer // diagnostics of --connect
}

func newFlyCmd() *cobra.Command {
	var f flyFlags
	cmd := &cobra.Command{
		Use:   "fly <mission1..7 | case-study.yaml | file.plan>",
		Short: "Fly a mission on the embedded simulator and judge the flight",
		Long: `Fly a competition case study (a built-in mission1 … mission7, an Aerialist
case-study YAML, or a QGroundControl .plan) on the embedded quadrotor with the
PX4-like autopilot and its obstacle-avoidance planner (--autopilot plain flies
the legs straight), and print whether the mission completed, the flight
time, the path length, the minimum clearance to each obstacle (Aerialist's
rule) and any collision.

--obstacle replaces the case study's obstacles; give it up to the rules' limit
of times. Exit status: 0 completed, 1 not completed (crash, timeout), 2 bad
input.`,
		Example: `  shakedown fly mission2
  shakedown fly mission3 --obstacle 10,4,20,-8,24.5,0,30 --seed 7 --out out/m3
  shakedown fly scenario/competition/mission4.yaml --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.stderr = cmd.ErrOrStderr()
			return fly(cmd.Context(), cmd.OutOrStdout(), args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.obstacles, "obstacle", nil, "obstacle `l,w,h,x,y,z,r` (m, degrees; competition frame); repeatable")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the simulator's noise and gusts")
	fl.StringVar(&f.out, "out", "", "write trajectory.csv, result.json and flight.png into `DIR`")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.Float64Var(&f.timeout, "timeout", run.DefaultTimeoutS, "simulated `seconds` before the flight is stopped")
	fl.StringVar(&f.rules, "rules", "2025", "obstacle validity rules: 2024, 2025 or 2026")
	fl.StringVar(&f.autopilot, "autopilot", run.AutopilotAvoid, "avoid (PX4-like with the obstacle-avoidance planner) or plain")
	fl.Float64Var(&f.gust, "gust", 0, "wind gust standard deviation, m/s (0 = calm; run and dataset use 0.3)")
	fl.StringVar(&f.connect, "connect", "", "fly a MAVLink vehicle at `URL` (PX4, ArduPilot, shakedown sitl) instead of the simulator; --timeout is then in the vehicle's seconds")
	fl.StringVar(&f.record, "record", "", recordFileUsage)
	return cmd
}

func rulesFor(name string) (scenario.Rules, error) {
	switch name {
	case "2024":
		return scenario.Rules2024, nil
	case "2025", "2026":
		return scenario.DefaultRules, nil
	}
	return scenario.Rules{}, fmt.Errorf("--rules %q: want 2024, 2025 or 2026", name)
}

func fly(ctx context.Context, stdout io.Writer, arg string, f flyFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rules, err := rulesFor(f.rules)
	if err != nil {
		return err
	}
	if !(f.timeout > 0) || math.IsInf(f.timeout, 0) {
		return fmt.Errorf("--timeout %v: want a finite number of seconds > 0", f.timeout)
	}
	cs, err := scenario.Load(arg)
	if err != nil {
		return err
	}
	if len(f.obstacles) > 0 {
		cs.Obstacles = cs.Obstacles[:0]
		for i, s := range f.obstacles {
			b, err := scenario.ParseObstacle(s)
			if err != nil {
				return fmt.Errorf("--obstacle #%d %q: %w", i+1, s, err)
			}
			cs.Obstacles = append(cs.Obstacles, b)
		}
	}
	if len(f.obstacles) > 0 {
		if err := rules.Check(cs.Obstacles); err != nil {
			return fmt.Errorf("--obstacle: %w", err)
		}
	} else if err := rules.CheckCaseStudy(cs); err != nil {
		return err // names the file, the line and the field
	}
	if f.autopilot != run.AutopilotAvoid && f.autopilot != run.AutopilotPlain {
		return fmt.Errorf("--autopilot %q: want %s or %s", f.autopilot, run.AutopilotAvoid, run.AutopilotPlain)
	}
	wind, err := windFor(f.gust)
	if err != nil {
		return err
	}
	if err := checkOutFile("record", f.record); err != nil {
		return err
	}
	opt := run.Options{Seed: f.seed, TimeoutS: f.timeout, Autopilot: f.autopilot, Wind: wind}
	var mcap bytes.Buffer
	if f.record != "" {
		opt.Record = &mcap
	}
	var res *run.Result
	if f.connect != "" {
		res, err = flyOverMAVLink(ctx, f.stderr, cs, f)
	} else {
		res, _, err = run.FlySim(ctx, cs, opt)
	}
	if err != nil {
		return err
	}
	if f.record != "" {
		if err := writeAtomic(f.record, mcap.Bytes()); err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := writeOutputs(f.out, cs, res); err != nil {
			return err
		}
	}
	if f.json {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
		if f.record != "" {
			fmt.Fprintf(f.stderr, "wrote %s\n", f.record) // stdout is the JSON
		}
	} else {
		printResult(stdout, res, f.out)
		if f.record != "" {
			fmt.Fprintf(stdout, "  wrote          %s\n", f.record)
		}
	}
	if !res.Completed {
		return &failure{}
	}
	return nil
}

// flyOverMAVLink is fly --connect: the case study's mission flown by
// run.Fly on the vehicle at f.connect, judged on its own estimate.
func flyOverMAVLink(ctx context.Context, stderr io.Writer, cs *scenario.CaseStudy, f flyFlags) (*run.Result, error) {
	if f.record != "" {
		return nil, errors.New("--record needs the embedded simulator; it is not available with --connect")
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if f.gust != 0 || f.autopilot != run.AutopilotAvoid || f.seed != 1 {
		fmt.Fprintln(stderr, "shakedown: --gust, --autopilot and --seed act on the embedded simulator; ignored with --connect")
	}
	v, err := connectVehicle(ctx, f.connect, stderr)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	return run.Fly(ctx, v, cs, run.Options{TimeoutS: f.timeout})
}

func printResult(w io.Writer, r *run.Result, out string) {
	verdict := "completed"
	if !r.Completed {
		verdict = "NOT completed"
	}
	fmt.Fprintf(w, "%s: %s: %s\n", r.Mission, verdict, r.Reason)
	fmt.Fprintf(w, "  flight time    %.1f s (simulated)\n", r.FlightTimeS)
	fmt.Fprintf(w, "  path length    %.1f m\n", r.PathLengthM)
	if r.MinClearanceM == nil {
		fmt.Fprintf(w, "  clearance      no obstacles\n")
	} else {
		parts := make([]string, len(r.Clearances))
		for i, c := range r.Clearances {
			parts[i] = fmt.Sprintf("obstacle %d %.2f m", i+1, c)
		}
		fmt.Fprintf(w, "  clearance      %s\n", strings.Join(parts, ", "))
		fmt.Fprintf(w, "  min clearance  %.2f m (obstacle %d)\n", *r.MinClearanceM, r.MinObstacle)
	}
	if len(r.Collisions) == 0 {
		fmt.Fprintf(w, "  collisions     none\n")
	}
	for _, c := range r.Collisions {
		what := "the ground"
		if c.Obstacle > 0 {
			what = fmt.Sprintf("obstacle %d", c.Obstacle)
		}
		fmt.Fprintf(w, "  collision      %s at t=%.1f s, (%.2f, %.2f, %.2f) m, %.1f m/s\n", what, c.T, c.X, c.Y, c.Z, c.SpeedMS)
	}
	if out != "" {
		fmt.Fprintf(w, "  wrote          %s\n", filepath.Join(out, "{trajectory.csv,result.json,flight.png}"))
	}
}

// writeOutputs renders every file in memory first and only then writes
// them, each through a temporary file renamed into place, so that bad data
// leaves nothing half-written.
func writeOutputs(dir string, cs *scenario.CaseStudy, r *run.Result) error {
	var csv, js, png bytes.Buffer
	if err := trace.WriteCSV(&csv, r.Trace); err != nil {
		return fmt.Errorf("trajectory.csv: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("result.json: %w", err)
	}
	js.Write(b)
	js.WriteByte('\n')
	area := world.DefaultArea
	title := fmt.Sprintf("%s: completed in %.1f s", r.Mission, r.FlightTimeS)
	if !r.Completed {
		title = fmt.Sprintf("%s: NOT completed (%s)", r.Mission, r.Reason)
	}
	note := "no obstacles"
	if r.MinClearanceM != nil {
		note = fmt.Sprintf("min clearance %.2f m (obstacle %d); path %.1f m; seed %d", *r.MinClearanceM, r.MinObstacle, r.PathLengthM, r.Seed)
	}
	fl := plot.Flight{Title: title, Area: &area, Obstacles: cs.Obstacles, Planned: cs.Mission.Path(),
		Flown: trace.Positions(r.Trace), Start: true, End: true, Note: note}
	if err := plot.WritePNG(&png, fl, 1200, 800); err != nil {
		return fmt.Errorf("flight.png: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{{"trajectory.csv", csv.Bytes()}, {"result.json", js.Bytes()}, {"flight.png", png.Bytes()}}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}
