package campaign_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/avoid"
	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/campaign/campaigntest"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/sim"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

func mission(t testing.TB, name string) *scenario.CaseStudy {
	t.Helper()
	cs, err := scenario.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func newJob(t testing.TB, cs *scenario.CaseStudy, opt run.Options, k int) campaign.Job {
	t.Helper()
	j, err := campaign.NewJob(cs, opt, k, false)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func testJobs(t testing.TB, n int, timeoutS float64) []campaign.Job {
	t.Helper()
	jobs, err := campaigntest.Jobs(n, 7, timeoutS)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func encode(t testing.TB, r campaign.Result) []byte {
	t.Helper()
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The id is a function of the content: equal jobs built apart share it,
// and any change of scenario, configuration, seed or run index changes it.
// Defaults written out or left zero give the same job.
func TestJobID(t *testing.T) {
	cs := mission(t, "mission2")
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}}
	base := run.Options{Seed: 3, Wind: campaignWind}
	id := newJob(t, cs, base, 0).ID
	if !id.Valid() || len(id.Short()) != 12 {
		t.Fatalf("id %q is not a valid id", id)
	}
	def := avoid.DefaultConfig()
	same := []struct {
		name string
		opt  run.Options
	}{
		{"again", base},
		{"autopilot written out", run.Options{Seed: 3, Wind: campaignWind, Autopilot: run.AutopilotAvoid}},
		{"timeout written out", run.Options{Seed: 3, Wind: campaignWind, TimeoutS: run.DefaultTimeoutS}},
		{"default planner written out", run.Options{Seed: 3, Wind: campaignWind, Avoid: &def}},
	}
	for _, c := range same {
		cs2 := mission(t, "mission2")
		cs2.Obstacles = cs.Obstacles
		if got := newJob(t, cs2, c.opt, 0).ID; got != id {
			t.Errorf("%s: got id %s; want %s", c.name, got, id)
		}
	}
	tuned := avoid.DefaultConfig()
	tuned.CruiseMS = 2
	moved := mission(t, "mission2")
	moved.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20.0001}}
	differ := []struct {
		name string
		job  campaign.Job
	}{
		{"seed", newJob(t, cs, run.Options{Seed: 4, Wind: campaignWind}, 0)},
		{"run index", newJob(t, cs, base, 1)},
		{"obstacle", newJob(t, moved, base, 0)},
		{"mission", newJob(t, func() *scenario.CaseStudy { m := mission(t, "mission3"); m.Obstacles = cs.Obstacles; return m }(), base, 0)},
		{"autopilot", newJob(t, cs, run.Options{Seed: 3, Wind: campaignWind, Autopilot: run.AutopilotPlain}, 0)},
		{"timeout", newJob(t, cs, run.Options{Seed: 3, Wind: campaignWind, TimeoutS: 100}, 0)},
		{"wind", newJob(t, cs, run.Options{Seed: 3}, 0)},
		{"planner", newJob(t, cs, run.Options{Seed: 3, Wind: campaignWind, Avoid: &tuned}, 0)},
	}
	seen := map[campaign.ID]string{id: "base"}
	for _, c := range differ {
		if prev, ok := seen[c.job.ID]; ok {
			t.Errorf("%s: same id as %s", c.name, prev)
		}
		seen[c.job.ID] = c.name
	}
	if k, _ := campaign.NewJob(cs, base, 0, true); k.ID == id {
		t.Error("keep_trace does not change the id")
	}
}

var campaignWind = sim.WindConfig{GustSigmaMS: 0.3, GustTauS: 2}

// A job decodes to itself, and the decoder rejects what the encoder never
// writes.
func TestDecodeJob(t *testing.T) {
	j := testJobs(t, 1, 20)[0]
	b, err := j.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := campaign.DecodeJob(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(j, got); diff != "" {
		t.Errorf("decode(encode(job)) differs (-want +got):\n%s", diff)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(m map[string]any)) []byte {
		var c map[string]any
		_ = json.Unmarshal(b, &c)
		f(c)
		out, _ := json.Marshal(c)
		return out
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"tampered seed", mutate(func(m map[string]any) { m["seed"] = 12345 }), "not the hash"},
		{"unknown key", mutate(func(m map[string]any) { m["colour"] = "red" }), "colour"},
		{"bad engine", mutate(func(m map[string]any) { m["vehicle"].(map[string]any)["engine"] = "px4-sitl" }), "px4-sitl"},
		{"bad autopilot", mutate(func(m map[string]any) { m["vehicle"].(map[string]any)["autopilot"] = "magic" }), "magic"},
		{"no items", mutate(func(m map[string]any) { m["scenario"].(map[string]any)["mission"].(map[string]any)["items"] = []any{} }), "item"},
		{"bad kind", mutate(func(m map[string]any) {
			m["scenario"].(map[string]any)["mission"].(map[string]any)["items"].([]any)[0].(map[string]any)["kind"] = "loop"
		}), "loop"},
		{"trailing data", append(append([]byte{}, b...), []byte(" {}")...), "trailing"},
		{"not JSON", []byte("drone: x"), "invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := campaign.DecodeJob(c.data)
			if !errors.Is(err, campaign.ErrBadJob) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want an ErrBadJob naming %q", err, c.want)
			}
		})
	}
}

// A job flies exactly the flight run.Fly flies for its case study and
// options: the conversion to and from the job's form loses nothing.
func TestExecuteMatchesFly(t *testing.T) {
	cs := mission(t, "mission2")
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20}, {L: 10, W: 5, H: 20, X: -10, Y: 20}}
	opt := run.Options{Seed: 9, TimeoutS: 60}
	want, _, err := run.FlySim(context.Background(), cs, opt)
	if err != nil {
		t.Fatal(err)
	}
	j, err := campaign.NewJob(cs, opt, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := campaign.Execute(context.Background(), j)
	if err != nil || !res.OK() {
		t.Fatalf("execute: %v %q", err, res.Error)
	}
	got := res.RunResult(j)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result differs from run.Fly (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(trace.Resample(want.Trace, run.ResamplePeriodS), []trace.Sample(res.Trajectory)); diff != "" {
		t.Errorf("trajectory is not the resampled trace:\n%s", diff)
	}
}

// Results round-trip through their JSON form to the same bytes, and the
// decoder refuses results that are neither a run nor an error.
func TestResultEncoding(t *testing.T) {
	j := testJobs(t, 1, 20)[0]
	j.KeepTrace = true
	res, err := campaign.Execute(context.Background(), j)
	if err != nil || !res.OK() {
		t.Fatal(err, res.Error)
	}
	b := encode(t, res)
	back, err := campaign.DecodeResult(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, back); !bytes.Equal(got, b) {
		t.Error("decode(encode(result)) encodes to other bytes")
	}
	if len(back.Trace) == 0 || len(back.Trajectory) == 0 || len(back.Trajectory) >= len(back.Trace) {
		t.Errorf("trace %d samples, trajectory %d", len(back.Trace), len(back.Trajectory))
	}
	for _, bad := range []string{
		`{"job":"` + string(j.ID) + `"}`,
		`{"job":"` + string(j.ID) + `","error":"x","run":{"verdict":"pass"}}`,
		`{"job":"nope","error":"x"}`,
		`{"job":"` + string(j.ID) + `","run":{"verdict":"meh"}}`,
		`{"job":"` + string(j.ID) + `","error":"x","trajectory":"AAAA"}`,
		`{"job":"` + string(j.ID) + `","error":"x","extra":1}`,
	} {
		if _, err := campaign.DecodeResult([]byte(bad)); !errors.Is(err, campaign.ErrBadResult) {
			t.Errorf("DecodeResult(%s): got %v; want ErrBadResult", bad, err)
		}
	}
}

// A job the engine refuses is a result with an error, not a crash.
func TestExecuteFailure(t *testing.T) {
	cs := mission(t, "mission2")
	cs.Params = map[string]float64{"NOT_A_PARAM": 1}
	j := newJob(t, cs, run.Options{}, 0)
	res, err := campaign.Execute(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || !strings.Contains(res.Error, "NOT_A_PARAM") || !errors.Is(res.Err(), campaign.ErrJobFailed) {
		t.Errorf("got %+v; want an error naming NOT_A_PARAM", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := campaign.Execute(ctx, testJobs(t, 1, 20)[0]); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v; want context.Canceled", err)
	}
}

func FuzzDecodeJob(f *testing.F) {
	for _, j := range testJobs(f, 2, 20) {
		b, _ := j.Encode()
		f.Add(b)
	}
	f.Add([]byte(`{"id":"00000000000000000000000000000000"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := campaign.DecodeJob(data)
		if err != nil {
			return
		}
		b, err := j.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := campaign.DecodeJob(b)
		if err != nil || again.ID != j.ID {
			t.Fatalf("a decoded job does not decode again: %v", err)
		}
	})
}

func FuzzDecodeResult(f *testing.F) {
	j := testJobs(f, 1, 20)[0]
	res, _ := campaign.Execute(context.Background(), j)
	b, _ := res.Encode()
	f.Add(b)
	f.Add([]byte(`{"job":"` + string(j.ID) + `","error":"boom"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := campaign.DecodeResult(data)
		if err != nil {
			return
		}
		b, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := campaign.DecodeResult(b)
		if err != nil {
			t.Fatal(err)
		}
		if b2, _ := again.Encode(); !bytes.Equal(b, b2) {
			t.Fatal("encoding is not stable")
		}
	})
}

// A job's wire form and id are pinned: stored results and queued jobs are
// keyed by the id, so a change of the job's Go types must not change them
// (testdata/job.json, rewritten with -update-job only on purpose).
func TestJobWireGolden(t *testing.T) {
	cs := mission(t, "mission2")
	cs.Obstacles = []world.Box{{L: 10, W: 5, H: 20, X: 10, Y: 20, R: 30}, {L: 3, W: 4, H: 12.5, X: -7, Y: 31, Z: 0.5, R: -15}}
	cs.Params = map[string]float64{"MPC_XY_VEL_MAX": 12, "MPC_YAW_MODE": 0}
	cs.IntParams = map[string]bool{"MPC_YAW_MODE": true}
	cs.Mission.Items[1].AcceptRadiusM = 1.5
	tuned := avoid.DefaultConfig()
	tuned.CruiseMS = 2
	opt := run.Options{Seed: 11, Wind: sim.WindConfig{Steady: geom.Vec3{X: 1, Y: -0.5}, GustSigmaMS: 0.3, GustTauS: 2}, TimeoutS: 300, PreArmS: 19, Avoid: &tuned}
	j, err := campaign.NewJob(cs, opt, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/job.json"
	if *updateJob {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("the job's wire form changed:\n got %s\nwant %s", got, want)
	}
	back, err := campaign.DecodeJob(bytes.TrimSpace(want))
	if err != nil || back.ID != j.ID {
		t.Errorf("decoding the pinned form: %v, id %s; want %s", err, back.ID, j.ID)
	}
}

var updateJob = flag.Bool("update-job", false, "rewrite testdata/job.json (changes every job id)")

// A job holds the limits every command shares (scenario.MaxItems,
// MaxBoxes, MaxParams): a plan that another command refuses is not flown
// through a campaign.
func TestJobLimits(t *testing.T) {
	cs := mission(t, "mission2")
	land := cs.Mission.Items[len(cs.Mission.Items)-1]
	items := []scenario.Item{cs.Mission.Items[0]}
	for len(items) < scenario.MaxItems {
		items = append(items, scenario.Item{Kind: scenario.Waypoint, Pos: geom.Vec3{X: float64(len(items)), Z: -10}})
	}
	cs.Mission.Items = append(items, land) // one more than MaxItems
	if _, err := campaign.NewJob(cs, run.Options{}, 0, false); !errors.Is(err, campaign.ErrBadJob) || !strings.Contains(err.Error(), "items") {
		t.Errorf("%d items: got %v; want ErrBadJob", len(cs.Mission.Items), err)
	}
	cs = mission(t, "mission2")
	cs.Obstacles = make([]world.Box, scenario.MaxBoxes+1)
	for i := range cs.Obstacles {
		cs.Obstacles[i] = world.Box{L: 2, W: 2, H: 2, X: float64(i)}
	}
	if _, err := campaign.NewJob(cs, run.Options{}, 0, false); !errors.Is(err, campaign.ErrBadJob) || !strings.Contains(err.Error(), "obstacles") {
		t.Errorf("%d obstacles: got %v; want ErrBadJob", len(cs.Obstacles), err)
	}
}

// A flight is resampled once, by the judge: the result's trajectory is the
// judge's Resampled, and the closest approach the judge found is kept for
// a local result (computed again only for one that crossed the wire).
func TestResampleOnce(t *testing.T) {
	j := testJobs(t, 1, 30)[0]
	direct, _, err := run.FlySim(context.Background(), j.CaseStudy(), j.Options())
	if err != nil {
		t.Fatal(err)
	}
	if want := trace.Resample(direct.Trace, run.ResamplePeriodS); len(direct.Resampled) == 0 || !cmp.Equal(direct.Resampled, want) {
		t.Fatalf("the judge's Resampled (%d samples) is not the trace in %g-s bins (%d)", len(direct.Resampled), run.ResamplePeriodS, len(want))
	}
	if direct.Closest == nil {
		t.Fatal("the test job has no closest approach to check")
	}
	res, err := campaign.Execute(context.Background(), j)
	if err != nil || !res.OK() {
		t.Fatalf("execute: %v %s", err, res.Error)
	}
	if !cmp.Equal([]trace.Sample(res.Trajectory), direct.Resampled) {
		t.Error("the campaign result's trajectory is not the judge's")
	}
	if res.Run.Resampled != nil || res.Run.Trace != nil {
		t.Error("the result's run keeps a trajectory of its own besides Trajectory")
	}
	local := res.RunResult(j)
	if local.Closest == nil || *local.Closest != *direct.Closest {
		t.Errorf("closest approach %v; want the judge's %v", local.Closest, direct.Closest)
	}
	b := encode(t, res)
	wire, err := campaign.DecodeResult(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := wire.RunResult(j); got.Closest == nil || *got.Closest != *direct.Closest {
		t.Errorf("after the wire: closest approach %v; want the judge's %v", got.Closest, direct.Closest)
	}
}
