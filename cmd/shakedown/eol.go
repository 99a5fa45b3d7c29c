package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/vehicle"
	"github.com/shakedown-robotics/shakedown/world"
)

type eolFlags struct {
	vehicle string
	serial  string
	blade   bool
	lidar   bool
	connect string
	runID   string
	out     string
	seed    uint64
	json    bool
	variant string
	profile string // robot profile YAML for --connect ws:// (rosbridge.go)
	yes     bool   // the pre-run checklist is confirmed (unattended runs)
	halt    bool   // stop commanding motion after a failed safety check (always with --connect)
	data    string // the bag under DIR/runs/<run_id>/ and the store DIR/shakedown.db; "" = neither
	db      string // the store's file; "" = DIR/shakedown.db
	events  string // an OpenSearch/Elasticsearch cluster the eol_check events go to
}

// eolIO is where runEOL talks to the operator.
type eolIO struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	terminal       bool // stdin is a terminal someone can answer on
}

// eolNow is the clock the report's time comes from; tests replace it.
var eolNow = time.Now

// defaultSimSerial is the serial of the simulated robot when none is given.
const defaultSimSerial = "SIM-0001"

func newEOLCmd() *cobra.Command {
	var f eolFlags
	cmd := &cobra.Command{
		Use:   "eol",
		Short: "Run the end-of-line test of a finished robot and write its report",
		Long: `Run the end-of-line test: every sensor, every actuator and the safety chain,
through the robot's own sensors only, then write reports/<run-id>-eol.md (the
table with every measured value) and reports/<run-id>-eol.json (the build
record's end_of_line block).

The mower's steps: 1 sensors, 2 wheels, 3 blade, 4 STOP, 5 watchdog,
6 obstacle (a box 3.5 m ahead in the simulator), 7 the manual list. The
quadrotor's: 1 sensors, 2 motor test, 3 kill switch, 4 offboard-setpoint loss,
5 collision prevention in front of a box, 6 the manual list.

Without --connect it runs on the embedded simulator. --blade=false (blade
disconnected) and --lidar=false (no lidar fitted) make those rows SKIP.

With --connect the robot is real as far as the test knows: before anything
moves it shows the pre-run checklist (clear lawn, the box, a hand on STOP,
the blade) on stderr and waits for "yes" on the terminal; --yes confirms it
for unattended runs (CI against shakedown sitl). Without a terminal and
without --yes it refuses to start (exit 2). On such a link the mower's
runner stops commanding motion and the blade as soon as a safety check
fails, and the later motion rows report SKIP (--halt does the same in the
simulator).
Exit status: 0 PASS, 1 FAIL, 2 could not run (bad flags, unreachable robot);
nothing is written when it cannot run.`,
		Example: `  shakedown eol
  shakedown eol --serial MB-0001 --run-id eol-3
  shakedown eol --serial MB-0002 --blade=false --lidar=false
  shakedown eol --sim-variant eol-2 --run-id eol-2       # the seed's second run: FAIL
  shakedown eol --vehicle quad --serial QD-0001 --out /tmp/reports --json
  shakedown eol --connect ws://mower-7:9090 --serial MB-0007 --blade=false`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in := cmd.InOrStdin()
			file, ok := in.(*os.File)
			sio := eolIO{stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(), stdin: in, terminal: ok && term.IsTerminal(int(file.Fd()))}
			return runEOL(cmd.Context(), sio, f, cmd.Flags().Changed("serial"), cmd.Flags().Changed("blade"))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.vehicle, "vehicle", "mower", "the robot: `mower` or quad")
	fl.StringVar(&f.serial, "serial", "", "the robot's serial number, for the report and the build record (default "+defaultSimSerial+" in the simulator; required with --connect)")
	fl.BoolVar(&f.blade, "blade", true, "the blade is connected (mower); false makes the blade rows SKIP")
	fl.BoolVar(&f.lidar, "lidar", true, "a lidar (range sensor) is fitted; false makes its rows SKIP")
	fl.StringVar(&f.connect, "connect", "", "test a real robot at `URL` instead of the simulator: a quadrotor over MAVLink (PX4, ArduPilot or shakedown sitl), a mower over rosbridge (ws://host:9090)")
	fl.StringVar(&f.runID, "run-id", "", "the run's id, which names the reports (default <serial>-<UTC time>)")
	fl.StringVar(&f.out, "out", "reports", "write the reports into `DIR`")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the simulator's noise")
	fl.BoolVar(&f.json, "json", false, "print the end_of_line block as JSON instead of the summary")
	fl.StringVar(&f.profile, "profile", "", "robot profile `YAML` (topics, rates, geometry) of the mower reached with --connect ws://; default the built-in mower profile")
	fl.StringVar(&f.data, "data", "data", "record the mower's bag in `DIR`/runs/<run-id>/eol.mcap and each check's eol_check event in DIR/shakedown.db; \"\" records neither")
	fl.StringVar(&f.db, "db", "", "the SQLite store the eol_check events go into (default DIR/shakedown.db of --data)")
	fl.StringVar(&f.events, "events", "", "also send the eol_check events to OpenSearch or Elasticsearch at `URL` (http://host:9200[/index], _bulk API)")
	fl.BoolVar(&f.yes, "yes", false, "confirm the pre-run checklist without asking (unattended runs, e.g. against shakedown sitl)")
	fl.BoolVar(&f.halt, "halt", false, "stop commanding motion and the blade as soon as a safety check fails; later motion rows SKIP (always on with --connect)")
	fl.StringVar(&f.variant, "sim-variant", "", "simulate the mower of one of the seed's earlier runs: `eol-1` (gate without watchdog, blade torque unlimited) or eol-2 (blade torque unlimited)")
	return cmd
}

func runEOL(ctx context.Context, sio eolIO, f eolFlags, serialSet, bladeSet bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.vehicle != "mower" && f.vehicle != "quad" {
		return fmt.Errorf("--vehicle %q: want mower or quad", f.vehicle)
	}
	if f.vehicle == "quad" && bladeSet {
		return fmt.Errorf("--blade is for the mower; a quadrotor has no blade")
	}
	rc, gc := rover.Config{NoBlade: !f.blade, NoLidar: !f.lidar}, gate.Config{}
	switch f.variant {
	case "":
	case "eol-1", "eol-2":
		if f.vehicle != "mower" || f.connect != "" {
			return fmt.Errorf("--sim-variant is for the simulated mower")
		}
		rc.Params = rover.DefaultParams()
		rc.Params.BladeTorqueNm = rover.Unlimited
		gc.NoWatchdog = f.variant == "eol-1"
	default:
		return fmt.Errorf("--sim-variant %q: want eol-1 or eol-2", f.variant)
	}
	switch {
	case !serialSet && f.connect != "":
		return fmt.Errorf("--serial is required with --connect: the report goes into that robot's build record")
	case !serialSet:
		f.serial = defaultSimSerial
	}
	if err := eol.ValidateSerial(f.serial); err != nil {
		return fmt.Errorf("--serial: %w", err)
	}
	now := eolNow().UTC()
	if f.runID == "" {
		f.runID = f.serial + "-" + now.Format("20060102T150405Z")
	}
	if err := eol.ValidateRunID(f.runID); err != nil {
		return fmt.Errorf("--run-id: %w", err)
	}
	if f.out == "" {
		return fmt.Errorf("--out: empty directory")
	}
	if f.connect != "" && f.vehicle != "quad" && !isRosbridgeURL(f.connect) {
		return fmt.Errorf("--connect: the mower is reached over rosbridge (ws://host:9090); only the quadrotor speaks MAVLink; no report written")
	}
	opt := eol.Options{Serial: f.serial, RunID: f.runID, Time: now, Source: "simulator", NoBlade: !f.blade, NoLidar: !f.lidar,
		Halt: f.halt || f.connect != ""}
	rec, err := newEOLRecord(f)
	if err != nil {
		return err
	}
	if f.connect != "" {
		if err := confirmChecklist(sio, f); err != nil {
			return err
		}
	}
	defer rec.abort()
	var rep *eol.Report
	switch {
	case f.connect != "" && f.vehicle == "mower":
		rep, err = runEOLRosbridge(ctx, f, opt, rec)
	case f.connect != "":
		v, cerr := connectVehicle(ctx, f.connect, io.Discard)
		if cerr != nil {
			return cerr
		}
		defer v.Close()
		opt.Source = "mavlink " + f.connect
		// The sensors as a MAVLink link shows them (PX4's stream rates:
		// HIGHRES_IMU 50 Hz, GPS_RAW_INT 5 Hz, BATTERY_STATUS 1 Hz); the
		// range sensor's rows need a forward DISTANCE_SENSOR stream.
		spec := eol.DefaultQuadSpec()
		spec.IMUHz, spec.GNSSHz, spec.BatteryHz = 50, 5, 1
		if !f.lidar {
			spec.RangeHz = 0
		}
		rep, err = eol.RunQuad(ctx, v, eol.QuadOptions{Options: opt, Quad: spec})
	case f.vehicle == "mower":
		var s *vehicle.MowerSim
		s, err = vehicle.NewMowerSim(vehicle.MowerSimConfig{
			Rover: rc,
			Gate:  gc,
			Scene: world.Scene{Boxes: []world.Box{vehicle.MowerTestBox()}},
			Seed:  f.seed,
		})
		if err != nil {
			return err
		}
		var m vehicle.Mower
		if m, err = rec.wrap(s); err != nil {
			return err
		}
		rep, err = eol.RunMower(ctx, m, opt)
	case f.vehicle == "quad":
		var s *vehicle.Sim
		if f.lidar {
			s, err = vehicle.NewQuadTestSim(f.seed)
		} else {
			s, err = vehicle.NewSim(vehicle.SimConfig{Seed: f.seed})
		}
		if err != nil {
			return err
		}
		rep, err = eol.RunQuad(ctx, s, eol.QuadOptions{Options: opt})
	}
	if err != nil {
		return err
	}
	md, js := rep.Markdown(), rep.JSON()
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	mdPath := filepath.Join(f.out, f.runID+"-eol.md")
	jsPath := filepath.Join(f.out, f.runID+"-eol.json")
	if err := writeAtomic(mdPath, md); err != nil {
		return err
	}
	if err := writeAtomic(jsPath, js); err != nil {
		return err
	}
	if f.json {
		if _, err := sio.stdout.Write(js); err != nil {
			return err
		}
	} else {
		fmt.Fprint(sio.stdout, rep.Summary())
		fmt.Fprintf(sio.stdout, "wrote %s and %s\n", mdPath, jsPath)
	}
	wrote, rerr := rec.finish(ctx, rep)
	if f.json {
		wrote = nil // stdout is the JSON
	}
	if err := reportRecord(sio.stdout, wrote, rerr); err != nil {
		return err
	}
	if rep.Result == eol.Fail {
		n := len(rep.Failed())
		plural := "s"
		if n == 1 {
			plural = ""
		}
		return &failure{msg: fmt.Sprintf("end-of-line test of %s FAILED: %d check%s failed", f.serial, n, plural)}
	}
	return nil
}

// confirmChecklist shows the pre-run checklist of a real link and has it
// confirmed: by --yes, or by "yes" typed at the terminal.
func confirmChecklist(sio eolIO, f eolFlags) error {
	items := eol.Checklist(f.vehicle, !f.blade, !f.lidar)
	switch {
	case f.yes:
		eol.WriteChecklist(sio.stderr, items)
		fmt.Fprintln(sio.stderr, "confirmed by --yes")
		return nil
	case !sio.terminal:
		return fmt.Errorf("--connect: the pre-run checklist must be confirmed before the robot moves, and stdin is not a terminal: run it at a terminal, or pass --yes for an unattended run; nothing moved")
	}
	return eol.Confirm(sio.stdin, sio.stderr, items)
}
