package bench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shakedown-robotics/shakedown/bench/metric"
	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/traj"
)

// PhaseInfo names the phase about to run, for Config.Inject.
type PhaseInfo struct {
	Module, Test, Param string
	Type                string // trajectory type; "" in the hover suite
}

// env runs the phases of one environment (suite, robot count, iteration,
// and for the hover suite the velocity) and records their outcomes.
type env struct {
	cfg   *Config
	attrs map[string]map[string]float64
	w     *world
	res   *envResult
	sel   func(id string) bool // selected for the report
	start time.Time
	// poisoned is the id of the phase that poisoned the environment.
	poisoned string
}

// envResult is what one environment contributes to the Result.
type envResult struct {
	cases   []Case
	metrics map[string]map[string]Metric
	flights []Flight
}

func (e *env) record(id, key string, m Metric) {
	if e.res.metrics[id] == nil {
		e.res.metrics[id] = map[string]Metric{}
	}
	e.res.metrics[id][key] = m
}

func (e *env) num(id string, robot int, key string, v float64, unit string, dir Direction) {
	e.record(id, robotKey(robot, key), Metric{Value: metric.Round3(v), Unit: unit, Direction: dir})
}

// phase runs fn as test c unless the environment is poisoned, timing it,
// and adds the case if it is selected.
func (e *env) phase(c Case, typ string, fn func(c *Case) error) (Case, error) {
	id := c.ID()
	if e.poisoned != "" {
		c.Status, c.Message = Skipped, "environment poisoned by "+e.poisoned
		e.add(c)
		return c, nil
	}
	if e.cfg.Inject != nil {
		e.cfg.Inject(PhaseInfo{Module: c.Module, Test: c.Test, Param: c.Param, Type: typ}, e.w.sims())
	}
	w0, t0 := e.cfg.Now(), e.w.t()
	c.Status = Passed
	if err := fn(&c); err != nil {
		return c, err
	}
	c.WallS = e.cfg.Now().Sub(w0).Seconds()
	c.SimS = e.w.t() - t0
	if !e.sel(id) {
		// Flown for the chain, not reported.
		delete(e.res.metrics, id)
		kept := e.res.flights[:0]
		for _, f := range e.res.flights {
			if f.Case != id {
				kept = append(kept, f)
			}
		}
		e.res.flights = kept
	}
	e.add(c)
	return c, nil
}

func (e *env) add(c Case) {
	if e.sel(c.ID()) {
		e.res.cases = append(e.res.cases, c)
	}
}

// fail marks c failed with a message per robot.
func fail(c *Case, msgs []string) {
	if len(msgs) > 0 {
		c.Status = Failed
		c.Message = strings.Join(msgs, "; ")
	}
}

// ready is test_px4_ready: every robot connected and publishing odometry
// (a 3-D GNSS fix) within ReadyTimeoutS, after the estimator has run for
// ReadyMinS.
func (e *env) ready(c *Case) error {
	id := c.ID()
	ok := func() bool {
		for _, r := range e.w.robots {
			if r.sim.Telemetry().GNSS.Fix < 3 {
				return false
			}
		}
		return true
	}
	t0 := e.w.t()
	for (!ok() || e.w.t()-t0 < ReadyMinS) && e.w.t()-t0 < ReadyTimeoutS {
		e.w.step()
	}
	wall := e.cfg.Now().Sub(e.start).Seconds()
	for _, r := range e.w.robots {
		e.num(id, r.n, "ready_duration_sys_s", wall, "s", LowerIsBetter)
	}
	if !ok() {
		fail(c, []string{fmt.Sprintf("robots not publishing odometry within %g s", ReadyTimeoutS)})
	}
	return nil
}

// takeoff is test_takeoff: TakeoffTask to TargetAltM at speed v; success
// when the altitude stays within TakeoffAcceptM of the target for
// TakeoffAcceptS (checked at 10 Hz), then |altitude error| ≤ 10 %.
func (e *env) takeoff(c *Case, v float64, hover bool) error {
	id := c.ID()
	type st struct {
		done, ok bool
		since    float64 // start of the current run inside the band; NaN outside
		msg      string
	}
	sts := make([]st, len(e.w.robots))
	for i, r := range e.w.robots {
		sts[i].since = math.NaN()
		r.startCapture()
		tel := r.sim.Telemetry()
		err := error(nil)
		if !tel.Armed {
			err = r.sim.Arm(e.w.ctx)
		}
		if err == nil {
			err = r.sim.Takeoff(e.w.ctx, TargetAltM) // home is on the ground: altitude = odometry z
		}
		if err != nil {
			sts[i] = st{done: true, msg: fmt.Sprintf("robot_%d: takeoff refused: %v", r.n, err)}
		}
	}
	t0 := e.w.t()
	timeout := PhaseTimeoutS(v)
	nextCheck := t0
	for {
		all := true
		for i := range sts {
			all = all && sts[i].done
		}
		if all || e.w.t()-t0 >= timeout {
			break
		}
		e.w.step()
		t := e.w.t()
		if t+1e-9 < nextCheck {
			continue
		}
		nextCheck += 1 / TakeoffCheckHz
		for i, r := range e.w.robots {
			s := &sts[i]
			if s.done {
				continue
			}
			if cr, bad := r.crashed(); bad {
				*s = st{done: true, msg: fmt.Sprintf("robot_%d: crashed at %.1f s", r.n, cr.T)}
				r.stopCapture()
				continue
			}
			tel := r.sim.Telemetry()
			if math.Abs(tel.AltM()-TargetAltM) <= TakeoffAcceptM {
				if math.IsNaN(s.since) {
					s.since = t
				}
				if t-s.since >= TakeoffAcceptS-1e-9 {
					s.done, s.ok = true, true
					r.stopCapture()
				}
			} else {
				s.since = math.NaN()
			}
		}
	}
	var msgs []string
	for i, r := range e.w.robots {
		s := sts[i]
		samples := r.stopCapture()
		if !s.done {
			s.msg = fmt.Sprintf("robot_%d: takeoff not accepted within %g s", r.n, timeout)
		}
		m := metric.TakeoffMetrics(samples, TargetAltM, v)
		if len(samples) > 0 {
			e.num(id, r.n, "altitude_error_m", m.AltErr, "m", LowerIsBetter)
			e.num(id, r.n, "overshoot_m", m.Overshoot, "m", LowerIsBetter)
			if m.HasDuration {
				e.num(id, r.n, "takeoff_duration_sim_s", m.Duration, "s", LowerIsBetter)
			}
			if hover && !math.IsNaN(m.VelRMSE) {
				e.num(id, r.n, "velocity_rmse_m_sim_s", m.VelRMSE, "m/s", LowerIsBetter)
			}
		}
		switch {
		case s.msg != "":
			msgs = append(msgs, s.msg)
		case math.Abs(m.AltErr) > AltTolFrac*TargetAltM:
			msgs = append(msgs, fmt.Sprintf("robot_%d: altitude error %.3f m exceeds %g m", r.n, m.AltErr, AltTolFrac*TargetAltM))
		}
	}
	fail(c, msgs)
	return nil
}

// trajectory is test_fixed_trajectory: snapshot each robot's pose, dispatch
// the trajectory in its body frame, track it until the tracker is done
// (polled at 5 Hz, as FixedTrajectoryTask polls) or TrajTimeoutS, then
// hold (ROBOT_POSE). Fails when a robot's action did not succeed or its
// mean cross-track error (AirStack's rule) is not below CrossTrackTolM.
func (e *env) trajectory(c *Case, typ string) error {
	id := c.ID()
	body, err := traj.Generate(typ, e.attrs[typ])
	if err != nil {
		return err
	}
	type st struct {
		done, ok bool
		sentinel string
		err      error // the tracker's own failure
		world    traj.Path
		timed    *traj.Timed
		t0, t1   float64
	}
	sts := make([]st, len(e.w.robots))
	for i, r := range e.w.robots {
		tel := r.sim.Telemetry()
		pose := traj.Pose{Pos: tel.Pos, Yaw: tel.Heading()}
		wp := body.World(pose)
		tm, err := traj.NewTimed(wp.Waypoints)
		if err != nil {
			return err
		}
		var tr track.Tracker
		if e.cfg.NewTracker != nil {
			tr, err = e.cfg.NewTracker(r.n)
		} else {
			tr, err = track.New(e.cfg.Tracker)
		}
		if err != nil {
			return err
		}
		if c, ok := tr.(interface{ Close() error }); ok {
			defer c.Close()
		}
		if err := tr.Start(wp, odom(tel)); err != nil {
			return err
		}
		r.tracker = tr
		r.startCapture()
		sts[i] = st{world: wp, timed: tm, t0: tel.T}
	}
	t0 := e.w.t()
	nextPoll := t0 + 1/TaskPollHz
	for {
		all := true
		for i := range sts {
			all = all && sts[i].done
		}
		if all || e.w.t()-t0 >= TrajTimeoutS {
			break
		}
		e.w.step()
		t := e.w.t()
		for i, r := range e.w.robots {
			if _, bad := r.crashed(); bad && !sts[i].done {
				sts[i].done, sts[i].sentinel, sts[i].t1 = true, "aborted", t
				r.tracker = nil
				r.stopCapture()
			}
		}
		if t+1e-9 < nextPoll {
			continue
		}
		nextPoll += 1 / TaskPollHz
		for i, r := range e.w.robots {
			s := &sts[i]
			if s.done || !r.tracker.Done() {
				continue
			}
			if f, ok := r.tracker.(interface{ Err() error }); ok && f.Err() != nil {
				s.done, s.sentinel, s.t1, s.err = true, "aborted", t, f.Err()
				r.tracker = nil
				r.stopCapture()
				_ = r.sim.Hold(e.w.ctx)
				continue
			}
			s.done, s.ok, s.t1 = true, true, t
			r.tracker = nil
			r.stopCapture()
			// ROBOT_POSE: brake and hold where it is.
			_ = r.sim.Hold(e.w.ctx)
		}
	}
	var msgs []string
	for i, r := range e.w.robots {
		s := &sts[i]
		if !s.done {
			s.sentinel = "timeout"
			r.tracker = nil
			_ = r.sim.Hold(e.w.ctx)
		}
		samples := r.stopCapture()
		success := 0.0
		if s.ok {
			success = 1
		}
		e.num(id, r.n, "trajectory_success", success, "", HigherIsBetter)
		switch {
		case s.sentinel != "":
			e.record(id, robotKey(r.n, "trajectory_execution_time_sim_s"), Metric{Sentinel: s.sentinel, Unit: "s", Direction: LowerIsBetter})
		case len(samples) >= 2:
			e.num(id, r.n, "trajectory_execution_time_sim_s", samples[len(samples)-1].T-samples[0].T, "s", LowerIsBetter)
		}
		ct := metric.VertexError(samples, s.world.Positions())
		pm := metric.Path(samples, s.timed, s.t0)
		if ct.N > 0 {
			e.num(id, r.n, "cross_track_error_mean_m", ct.Mean, "m", LowerIsBetter)
			e.num(id, r.n, "cross_track_error_max_m", ct.Max, "m", LowerIsBetter)
			e.num(id, r.n, "path_rmse_m", ct.RMSE, "m", LowerIsBetter)
			e.num(id, r.n, "segment_cross_track_error_mean_m", pm.SegMean, "m", LowerIsBetter)
			e.num(id, r.n, "segment_cross_track_error_max_m", pm.SegMax, "m", LowerIsBetter)
			e.num(id, r.n, "segment_path_rmse_m", pm.SegRMSE, "m", LowerIsBetter)
			e.num(id, r.n, "lateral_error_mean_m", pm.LateralMean, "m", Informational)
			e.num(id, r.n, "along_track_lag_mean_m", pm.LagMean, "m", LowerIsBetter)
			e.num(id, r.n, "along_track_lag_max_m", pm.LagMax, "m", LowerIsBetter)
			e.num(id, r.n, "arrival_error_m", pm.ArrivalErr, "m", LowerIsBetter)
		}
		e.res.flights = append(e.res.flights, Flight{Case: id, Param: c.Param, Type: typ, Robot: r.n,
			Ideal: s.world.Positions(), Flown: samples, Series: pm.Series})
		switch {
		case s.sentinel == "timeout":
			msgs = append(msgs, fmt.Sprintf("robot_%d: trajectory not complete after %g s", r.n, TrajTimeoutS))
		case s.err != nil:
			msgs = append(msgs, fmt.Sprintf("robot_%d: the tracker failed: %v", r.n, s.err))
		case s.sentinel == "aborted":
			msgs = append(msgs, fmt.Sprintf("robot_%d: crashed at %.1f s", r.n, s.t1))
		case ct.N > 0 && !(ct.Mean < CrossTrackTolM):
			msgs = append(msgs, fmt.Sprintf("robot_%d: mean cross-track error %.3f m not below %g m", r.n, ct.Mean, CrossTrackTolM))
		}
	}
	fail(c, msgs)
	return nil
}

// hover is test_hover: HoverDurationS of passive capture; fails when the
// mean altitude drifts HoverTolM or more from its first second's.
func (e *env) hover(c *Case) error {
	id := c.ID()
	for _, r := range e.w.robots {
		r.startCapture()
	}
	t0 := e.w.t()
	for e.w.t()-t0 < HoverDurationS-1e-9 {
		e.w.step()
	}
	var msgs []string
	for _, r := range e.w.robots {
		h := metric.HoverMetrics(r.stopCapture())
		e.num(id, r.n, "hover_altitude_mean_error_m", h.AltMeanErr, "m", LowerIsBetter)
		e.num(id, r.n, "hover_position_stddev_m", h.PosStd, "m", LowerIsBetter)
		if cr, bad := r.crashed(); bad {
			msgs = append(msgs, fmt.Sprintf("robot_%d: crashed at %.1f s", r.n, cr.T))
		} else if !(h.AltMeanErr < HoverTolM) {
			msgs = append(msgs, fmt.Sprintf("robot_%d: hover altitude drift %.3f m not below %g m", r.n, h.AltMeanErr, HoverTolM))
		}
	}
	fail(c, msgs)
	return nil
}

// landing is test_landing: LandTask at speed v; success when the vehicle
// reports it has landed, then final altitude < 0.5 m.
func (e *env) landing(c *Case, v float64, hover bool) error {
	id := c.ID()
	refused := make([]string, len(e.w.robots))
	for i, r := range e.w.robots {
		r.startCapture()
		// Refused only when disarmed, which counts as landed below.
		if err := r.sim.Land(e.w.ctx); err != nil && r.sim.Telemetry().Armed {
			refused[i] = fmt.Sprintf("robot_%d: land refused: %v", r.n, err)
		}
	}
	landed := func(r *robot) bool { t := r.sim.Telemetry(); return t.Landed || !t.Armed }
	t0 := e.w.t()
	timeout := PhaseTimeoutS(v)
	done := make([]bool, len(e.w.robots))
	for {
		all := true
		for i, r := range e.w.robots {
			if !done[i] && (refused[i] != "" || landed(r)) {
				done[i] = true
				r.stopCapture()
			}
			all = all && done[i]
		}
		if all || e.w.t()-t0 >= timeout {
			break
		}
		e.w.step()
	}
	var msgs []string
	for i, r := range e.w.robots {
		samples := r.stopCapture()
		m := metric.LandingMetrics(samples, v)
		if len(samples) > 0 {
			e.num(id, r.n, "final_altitude_m", m.FinalAlt, "m", LowerIsBetter)
			if m.HasDuration {
				e.num(id, r.n, "land_duration_sim_s", m.Duration, "s", LowerIsBetter)
			}
			if hover && !math.IsNaN(m.VelRMSE) {
				e.num(id, r.n, "velocity_rmse_m_sim_s", m.VelRMSE, "m/s", LowerIsBetter)
			}
		}
		cr, crashed := r.crashed()
		switch {
		case refused[i] != "":
			msgs = append(msgs, refused[i])
		case crashed:
			msgs = append(msgs, fmt.Sprintf("robot_%d: crashed at %.1f s", r.n, cr.T))
		case !done[i]:
			msgs = append(msgs, fmt.Sprintf("robot_%d: not landed within %g s", r.n, timeout))
		case !(m.FinalAlt < metric.LandedAltM):
			msgs = append(msgs, fmt.Sprintf("robot_%d: final altitude %.3f m not below %g m", r.n, m.FinalAlt, metric.LandedAltM))
		}
	}
	fail(c, msgs)
	return nil
}
