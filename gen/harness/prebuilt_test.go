package harness

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/scenario"
)

// defaultEnv is the generation environment of `shakedown generate` with
// its default flags.
func defaultEnv(t *testing.T) *env {
	t.Helper()
	cfg := Config{GustMS: DefaultGustMS}.withDefaults()
	return &env{ctx: context.Background(), cfg: cfg}
}

// The binary ships the canonical dataset of its own simulator, and only
// that one: a change to the simulator, the autopilot or the planner moves
// the fingerprint and fails this test until the dataset is rebuilt
// (prebuilt/README.md), so a first generation never silently falls back to
// flying 2716 flights.
func TestPrebuiltCanonicalIsCurrent(t *testing.T) {
	e := defaultEnv(t)
	fp, err := e.fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	name := canonicalName(e.cfg, fp)
	data, ok, err := prebuiltDataset(name)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("no prebuilt dataset %s.gz for this simulator: rebuild it as gen/harness/prebuilt/README.md says", name)
	}
	d, err := surrogate.ParseCSV(name, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Y) != DefaultDatasetN {
		t.Errorf("%d rows; want %d", len(d.Y), DefaultDatasetN)
	}
	files, err := fs.Glob(prebuiltFS, "prebuilt/canonical-*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Errorf("prebuilt canonical datasets %v; want only %s.gz (remove the stale ones)", files, name)
	}
}

// The prebuilt dataset is what the simulator flies: its first rows are
// rebuilt here flight by flight and must match byte for byte.
func TestPrebuiltCanonicalReproduces(t *testing.T) {
	e := defaultEnv(t)
	fp, err := e.fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	data, ok, err := prebuiltDataset(canonicalName(e.cfg, fp))
	if err != nil || !ok {
		t.Fatalf("no prebuilt dataset (%v): TestPrebuiltCanonicalIsCurrent says how to rebuild it", err)
	}
	cs, err := scenario.Builtin(scenario.CanonicalName)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	d, err := BuildDataset(context.Background(), DatasetConfig{CaseStudy: cs, N: n, Seed: DefaultDatasetSeed, GustMS: e.cfg.GustMS,
		TimeoutS: e.cfg.TimeoutS, Runner: runner(2)})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.SplitAfter(string(d.CSV), "\n")
	got := strings.SplitAfter(string(data), "\n")
	// The frame line, the header and the first n rows.
	for i := range len(want) - 1 {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("line %d of the prebuilt dataset:\n %q\nflown now:\n %q", i+1, got[i], want[i])
		}
	}
}

// A name with no shipped dataset is no error: the dataset is built as
// before.
func TestPrebuiltMissing(t *testing.T) {
	if _, ok, err := prebuiltDataset("canonical-n2716-seed1-gust0.3-t500-simnothing-v2.csv"); ok || err != nil {
		t.Errorf("ok %v, err %v; want neither", ok, err)
	}
}
