package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/shakedown-robotics/shakedown/flightlog"
)

// ErrNoTests is returned when the marks and keyword select no test.
var ErrNoTests = errors.New("bench: no test selected")

// envPlan is one environment to fly.
type envPlan struct {
	suite  string // MarkAutonomy or MarkTakeoffHoverLand
	robots int
	iter   int
	vel    float64 // takeoff_hover_land only
	types  []string
	// readyParam is the parameter id the ready phase is reported under.
	readyParam string
	phases     int
}

// Run flies the campaign cfg and returns its result. An error means the
// campaign could not run (bad configuration, nothing selected, a cancelled
// context); failed tests are in the result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	attrs, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	marks, _ := ParseExpr(cfg.Marks)
	kw, _ := ParseExpr(cfg.Keyword)
	sel := func(id string) bool { return kw.MatchKeyword(id) }

	res := &Result{Started: cfg.Now(), Metrics: map[string]map[string]Metric{}}
	var plans []envPlan
	var selected []string
	if marks.MatchMarks(MarkTakeoffHoverLand) {
		for _, n := range cfg.NumRobots {
			for it := range cfg.Iterations {
				for _, v := range cfg.TakeoffVelocities {
					p := envPlan{suite: MarkTakeoffHoverLand, robots: n, iter: it, vel: v, readyParam: hoverParam(n, v, it), phases: 4}
					any := false
					for _, t := range []string{TestReady, TestTakeoff, TestHover, TestLanding} {
						id := Case{Module: ModuleHover, Class: ClassHover, Test: t, Param: p.readyParam}.ID()
						if sel(id) {
							selected = append(selected, id)
							any = true
						}
					}
					if any {
						plans = append(plans, p)
					}
				}
			}
		}
	}
	if marks.MatchMarks(MarkAutonomy) {
		for _, n := range cfg.NumRobots {
			for it := range cfg.Iterations {
				p := envPlan{suite: MarkAutonomy, robots: n, iter: it, readyParam: trajParam(n, cfg.Types[0], it), phases: 1}
				readyID := Case{Module: ModuleTrajectory, Class: ClassTrajectory, Test: TestReady, Param: p.readyParam}.ID()
				any := sel(readyID)
				if any {
					selected = append(selected, readyID)
				}
				for _, typ := range cfg.Types {
					fly := false
					for _, t := range []string{TestTakeoff, TestTrajectory, TestLanding} {
						id := Case{Module: ModuleTrajectory, Class: ClassTrajectory, Test: t, Param: trajParam(n, typ, it)}.ID()
						if sel(id) {
							selected = append(selected, id)
							fly = true
						}
					}
					if fly {
						p.types = append(p.types, typ)
						p.phases += 3
					}
				}
				if any || len(p.types) > 0 {
					plans = append(plans, p)
				}
			}
		}
	}
	if len(plans) == 0 {
		return nil, ErrNoTests
	}
	total := 0
	for _, p := range plans {
		total += p.phases
	}

	var mu sync.Mutex
	done := 0
	progress := func(id string) {
		if cfg.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		cfg.Progress(Progress{Done: done, Total: total, Case: id})
	}
	results := make([]*envResult, len(plans))
	errs := make([]error, len(plans))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(cfg.Workers, len(plans)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i], errs[i] = runEnv(ctx, &cfg, attrs, plans[i], sel, progress)
			}
		}()
	}
	for i := range plans {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, r := range results {
		res.Cases = append(res.Cases, r.cases...)
		for id, m := range r.metrics {
			res.Metrics[id] = m
		}
		res.Flights = append(res.Flights, r.flights...)
	}
	res.Meta = meta(&cfg, attrs, res, selected)
	return res, nil
}

// runEnv flies one environment.
func runEnv(ctx context.Context, cfg *Config, attrs map[string]map[string]float64, p envPlan, sel func(string) bool, progress func(string)) (res *envResult, err error) {
	suite := uint64(1)
	speed := TrajSpeedMS
	if p.suite == MarkTakeoffHoverLand {
		suite, speed = 2, p.vel
	}
	start := cfg.Now()
	seed := mix(cfg.Seed, suite, uint64(p.robots), uint64(p.iter), math.Float64bits(p.vel))
	spec := worldSpec{n: p.robots, seed: seed, speedMS: speed, windMS: cfg.WindMS, gustMS: cfg.GustMS, separationM: cfg.SeparationM}
	var recs []*flightlog.SimRecorder
	if cfg.Record != nil {
		for k := range p.robots {
			out, err := cfg.Record(p.readyParam, k+1)
			if err != nil {
				return nil, err
			}
			// Each robot's log under its own namespace, so that the logs of
			// a multi-robot run overlay without mixing (issue 17 item 16).
			var opt flightlog.Options
			if p.robots > 1 {
				opt.Namespace = fmt.Sprintf("uav%d", k+1)
			}
			fw, err := flightlog.NewWithOptions(out, opt)
			if err != nil {
				return nil, err
			}
			r := &flightlog.SimRecorder{W: fw}
			recs = append(recs, r)
			spec.onRecord = append(spec.onRecord, r.Sample)
		}
		defer func() {
			for _, r := range recs {
				if cerr := r.W.Close(); cerr != nil && err == nil {
					res, err = nil, cerr
				}
			}
		}()
	}
	w, err := newWorld(ctx, spec)
	if err != nil {
		return nil, err
	}
	if recs != nil {
		defer func() {
			for _, r := range recs {
				r.W.Finish(w.t())
			}
		}()
	}
	e := &env{cfg: cfg, attrs: attrs, w: w, sel: sel, start: start,
		res: &envResult{metrics: map[string]map[string]Metric{}}}
	run := func(c Case, typ string, fn func(*Case) error) (Case, error) {
		if err := ctx.Err(); err != nil {
			return c, err
		}
		out, err := e.phase(c, typ, fn)
		for _, r := range recs {
			level := flightlog.LevelInfo
			if out.Status == Failed {
				level = flightlog.LevelError
			}
			r.W.Event(w.t(), level, "bench", fmt.Sprintf("%s: %s %s", out.ID(), out.Status, out.Message))
		}
		if err == nil {
			progress(out.ID())
			if out.Status == Failed && poisons(out) {
				e.poisoned = out.ID()
			}
		}
		return out, err
	}
	if p.suite == MarkTakeoffHoverLand {
		mk := func(t string) Case { return Case{Module: ModuleHover, Class: ClassHover, Test: t, Param: p.readyParam} }
		steps := []struct {
			c  Case
			fn func(*Case) error
		}{
			{mk(TestReady), e.ready},
			{mk(TestTakeoff), func(c *Case) error { return e.takeoff(c, p.vel, true) }},
			{mk(TestHover), e.hover},
			{mk(TestLanding), func(c *Case) error { return e.landing(c, p.vel, true) }},
		}
		for _, s := range steps {
			if _, err := run(s.c, "", s.fn); err != nil {
				return nil, err
			}
		}
		return e.res, nil
	}
	mk := func(t, typ string) Case {
		return Case{Module: ModuleTrajectory, Class: ClassTrajectory, Test: t, Param: trajParam(p.robots, typ, p.iter)}
	}
	if _, err := run(Case{Module: ModuleTrajectory, Class: ClassTrajectory, Test: TestReady, Param: p.readyParam}, "", e.ready); err != nil {
		return nil, err
	}
	for _, typ := range p.types {
		if _, err := run(mk(TestTakeoff, typ), typ, func(c *Case) error { return e.takeoff(c, TrajSpeedMS, false) }); err != nil {
			return nil, err
		}
		if _, err := run(mk(TestTrajectory, typ), typ, func(c *Case) error { return e.trajectory(c, typ) }); err != nil {
			return nil, err
		}
		if _, err := run(mk(TestLanding, typ), typ, func(c *Case) error { return e.landing(c, TrajSpeedMS, false) }); err != nil {
			return nil, err
		}
	}
	return e.res, nil
}

// poisons reports whether a failure of c poisons its environment: every
// phase but the trajectory and the hover (airstack.md §2.2, §6).
func poisons(c Case) bool { return c.Test != TestTrajectory && c.Test != TestHover }

func meta(cfg *Config, attrs map[string]map[string]float64, res *Result, selected []string) Meta {
	m := Meta{
		SchemaVersion: 2, Sim: SimName, Tracker: cfg.Tracker, Seed: cfg.Seed,
		Types: cfg.Types, Params: attrs, NumRobots: cfg.NumRobots, Iterations: cfg.Iterations,
		Marks: cfg.Marks, Keyword: cfg.Keyword, TakeoffVelocities: cfg.TakeoffVelocities,
		WindMS: cfg.WindMS, GustMS: cfg.GustMS, SeparationM: cfg.SeparationM,
		Selected: selected, Started: res.Started.UTC().Format("2006-01-02T15:04:05Z"),
	}
	for _, c := range res.Cases {
		switch c.Status {
		case Passed:
			m.Counts.Passed++
		case Failed:
			m.Counts.Failed++
		case Skipped:
			m.Counts.Skipped++
		}
	}
	m.Counts.Total = len(res.Cases)
	m.Outcome, m.FailureClass = "simulation", "none"
	if m.Counts.Failed > 0 {
		m.FailureClass = "assertion"
	}
	m.Fingerprint = m.CampaignFingerprint()
	return m
}
