package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/bench/results"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/traj"
)

type benchFlags struct {
	types      string
	robots     string
	iterations int
	tracker    string
	seed       uint64
	out        string
	keyword    string
	marks      string
	params     []string
	velocities string
	wind       float64
	gust       float64
	json       bool
	quiet      bool
	sim        string
	record     string // --record[=DIR]
	trackerPar []string
}

func newBenchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark a path tracker: takeoff, fixed trajectory, land, with AirStack's metrics",
		Long: `Fly AirStack's fixed-trajectory path-tracker benchmark on the embedded
simulator: for every (robot count, iteration, trajectory type) the four-phase
chain ready → takeoff to 10 m at 1 m/s → trajectory → land at 1 m/s, and with
-m takeoff_hover_land the takeoff / hover / land suite. Robots of one count fly
together in one world from start points 40 m apart.

Every metric is recorded per robot (robot_N.<key>) as AirStack computes it
(cross-track error to the nearest ideal vertex, rounded to 3 decimals), with
the metrics that mean what they say beside it (distance to the nearest ideal
segment, signed lateral error, lag behind the nominal schedule, arrival
error). Results go to a new <out>/<YYYY-MM-DD_HH-MM-SS>/ directory:
metrics.json, summary.txt, results.xml (JUnit), run_meta.json, plots/ and
tracks/; summary.txt is also printed. --record=DIR writes every robot's
flight as an MCAP log into DIR (<test id>-robot1.mcap, …); a bare --record into
the run's directory, <out>/<YYYY-MM-DD_HH-MM-SS>/flightlogs.

Exit status: 0 every test passed, 1 a test failed, 2 bad input.`,
		Example: `  shakedown bench --num-robots 1 --trajectory-types Circle
  shakedown bench --tracker airstack --stress-iterations 10 --num-robots 1 --out results/airstack
  shakedown bench --trajectory-param radius=15 --trajectory-param Line.velocity=3 -k "not Figure8"
  shakedown bench -m takeoff_hover_land --takeoff-velocities 0.5,1,2
  shakedown bench --num-robots 1 --trajectory-types Line --record`,
		Args: noArgsRecord,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, time.Now)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.types, "trajectory-types", strings.Join(traj.Types(), ","), "comma-separated trajectory `types`")
	fl.StringVar(&f.robots, "num-robots", "1,3", "comma-separated robot `counts`; each count flies together in one world")
	fl.IntVar(&f.iterations, "stress-iterations", 1, "repeat `count` per robot count (metrics report mean ± sd)")
	fl.StringVar(&f.tracker, "tracker", track.Default, "path `tracker`: "+strings.Join(track.Names(), ", ")+"; exec:CMD (JSON lines on its stdin and stdout); ros:ws://host:9090 (a ROS 2 tracker node behind rosbridge)")
	fl.StringArrayVar(&f.trackerPar, "tracker-param", nil, "set a tracker parameter, `name=value` (airstack: sphere_radius, look_ahead_time, …; exec: and ros:: rate_hz, timeout_s); repeatable")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of sensor noise, gusts and the wind's direction")
	fl.StringVar(&f.out, "out", "tests/results", "results `root`; each run writes a new timestamped directory in it")
	fl.StringVarP(&f.keyword, "keyword", "k", "", "select tests by `expression` over their ids (pytest -k)")
	fl.StringVarP(&f.marks, "marks", "m", bench.MarkAutonomy, "select suites by mark `expression`: autonomy, takeoff_hover_land")
	fl.StringArrayVar(&f.params, "trajectory-param", nil, "override a generator attribute, `name=value` or Type.name=value; repeatable")
	fl.StringVar(&f.velocities, "takeoff-velocities", "0.5", "takeoff_hover_land suite: comma-separated takeoff and landing `speeds`, m/s")
	fl.Float64Var(&f.wind, "wind", 1, "steady wind `m/s` (its direction is drawn from the seed); 0 for calm air")
	fl.Float64Var(&f.gust, "gust", 0.5, "gusts' standard deviation, `m/s`")
	fl.BoolVar(&f.json, "json", false, "print the run's directory, counts and fingerprint as JSON instead of the summary")
	addRecordDirFlag(fl, &f.record, "<out>/<YYYY-MM-DD_HH-MM-SS>/flightlogs")
	fl.StringVar(&f.sim, "sim", bench.SimName, "simulator: only the embedded `shakedown` (AirStack's isaacsim and msairsim are not available here)")
	cmd.AddCommand(newBenchCompareCmd())
	return cmd
}

// benchConfig turns the flags into a campaign; every error names the flag.
func benchConfig(f benchFlags) (bench.Config, error) {
	if f.sim != bench.SimName {
		return bench.Config{}, fmt.Errorf("--sim %q: only the embedded simulator %q is available", f.sim, bench.SimName)
	}
	cfg := bench.Config{Tracker: f.tracker, Seed: f.seed, Iterations: f.iterations, Keyword: f.keyword, Marks: f.marks,
		WindMS: f.wind, GustMS: f.gust, Workers: runtime.NumCPU()}
	for _, t := range splitList(f.types) {
		if _, err := traj.Defaults(t); err != nil {
			return cfg, fmt.Errorf("--trajectory-types: %w", err)
		}
		cfg.Types = append(cfg.Types, t)
	}
	if len(cfg.Types) == 0 {
		return cfg, errors.New("--trajectory-types: no trajectory type given")
	}
	for _, s := range splitList(f.robots) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 64 {
			return cfg, fmt.Errorf("--num-robots: %q is not a robot count in 1..64", s)
		}
		cfg.NumRobots = append(cfg.NumRobots, n)
	}
	if len(cfg.NumRobots) == 0 {
		return cfg, errors.New("--num-robots: no robot count given")
	}
	if f.iterations < 1 || f.iterations > 10000 {
		return cfg, fmt.Errorf("--stress-iterations: %d is not in 1..10000", f.iterations)
	}
	if _, err := parseTracker(f.tracker, f.trackerPar); err != nil {
		return cfg, fmt.Errorf("--tracker: %w", err)
	}
	for _, s := range splitList(f.velocities) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || v > 5 {
			return cfg, fmt.Errorf("--takeoff-velocities: %q is not a speed in (0, 5] m/s", s)
		}
		cfg.TakeoffVelocities = append(cfg.TakeoffVelocities, v)
	}
	if len(cfg.TakeoffVelocities) == 0 {
		return cfg, errors.New("--takeoff-velocities: no speed given")
	}
	for name, v := range map[string]float64{"--wind": f.wind, "--gust": f.gust} {
		if !(v >= 0) || v > 15 {
			return cfg, fmt.Errorf("%s: %v m/s is not in [0, 15]", name, v)
		}
	}
	// --trajectory-param: a Type.name override applies to that type; a bare
	// name to every swept type that has it, and must fit at least one.
	for _, p := range f.params {
		typ, name, v, err := traj.ParseParam(p)
		if err != nil {
			return cfg, fmt.Errorf("--trajectory-param: %w", err)
		}
		targets := cfg.Types
		if typ != "" {
			targets = []string{typ}
			if !contains(cfg.Types, typ) {
				return cfg, fmt.Errorf("--trajectory-param %s: %s is not among --trajectory-types", p, typ)
			}
		}
		applied := false
		for _, t := range targets {
			if !contains(traj.Params(t), name) {
				if typ != "" {
					return cfg, fmt.Errorf("--trajectory-param %s: %w", p, &traj.ParamError{Type: t, Param: name, Reason: "not an attribute of " + t + " (want " + strings.Join(traj.Params(t), ", ") + ")", Err: traj.ErrUnknownParam})
				}
				continue
			}
			if cfg.Params == nil {
				cfg.Params = map[string]map[string]float64{}
			}
			if cfg.Params[t] == nil {
				cfg.Params[t] = map[string]float64{}
			}
			cfg.Params[t][name] = v
			applied = true
		}
		if !applied {
			return cfg, fmt.Errorf("--trajectory-param %s: %w", p, &traj.ParamError{Param: name, Reason: "no swept trajectory type has it", Err: traj.ErrUnknownParam})
		}
	}
	for _, t := range cfg.Types {
		if _, err := traj.Resolve(t, cfg.Params[t]); err != nil {
			return cfg, fmt.Errorf("--trajectory-param: %w", err)
		}
	}
	for name, e := range map[string]string{"-k": f.keyword, "-m": f.marks} {
		if _, err := bench.ParseExpr(e); err != nil {
			return cfg, fmt.Errorf("%s: %w", name, err)
		}
	}
	return cfg, nil
}

func runBench(ctx context.Context, stdout, stderr io.Writer, f benchFlags, now func() time.Time) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := benchConfig(f)
	if err != nil {
		return err
	}
	cfg.Now = now
	logDir, err := recordDir(f.record, recordBare, stderr) // the run's directory is known at the end
	if err != nil {
		return err
	}
	spec, _ := parseTracker(f.tracker, f.trackerPar)
	release, err := setTracker(ctx, spec, &cfg, stderr)
	if err != nil {
		return err
	}
	defer release()
	var bar *progressbar.ProgressBar
	if !f.quiet && showProgress(ctx, stderr) {
		cfg.Progress = func(p bench.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions(p.Total, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("bench"),
					progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }))
			}
			_ = bar.Set(p.Done)
		}
	}
	var (
		logMu sync.Mutex
		logs  = map[string]*bytes.Buffer{}
	)
	if logDir != "" {
		cfg.Record = func(env string, robot int) (io.Writer, error) {
			logMu.Lock()
			defer logMu.Unlock()
			b := new(bytes.Buffer)
			logs[fmt.Sprintf("%s-robot%d.mcap", strings.ReplaceAll(env, "#", ""), robot)] = b
			return b, nil
		}
	}
	res, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	end := phase(ctx, stderr, "writing results and plots")
	dir, err := results.Write(f.out, res)
	end()
	if err != nil {
		return err
	}
	if logDir == recordBare {
		logDir = filepath.Join(dir, "flightlogs")
	}
	byName := make(map[string][]byte, len(logs))
	for name, b := range logs {
		byName[name] = b.Bytes()
	}
	wrote := stdout
	if f.json {
		wrote = stderr // stdout is the JSON
	}
	if f.json {
		out := struct {
			Dir         string       `json:"dir"`
			Tracker     string       `json:"tracker"`
			Seed        uint64       `json:"seed"`
			Counts      bench.Counts `json:"counts"`
			Fingerprint string       `json:"campaign_fingerprint"`
		}{dir, res.Meta.Tracker, res.Meta.Seed, res.Meta.Counts, res.Meta.Fingerprint}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		name := dir[strings.LastIndexAny(dir, `/\`)+1:]
		stdout.Write(results.Summary(results.FromResult(name, res)))
		fmt.Fprintf(stdout, "\nResults: %s\n", dir)
	}
	if err := writeLogs(wrote, logDir, byName); err != nil {
		return err
	}
	if c := res.Meta.Counts; c.Failed > 0 {
		return &failure{msg: fmt.Sprintf("%d of %d tests failed (see %s)", c.Failed, c.Total, dir)}
	}
	return nil
}
