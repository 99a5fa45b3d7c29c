package campaign_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
)

var specCases = []struct {
	name  string
	data  string
	want  campaign.Spec
	line  int    // of the error; 0 with no error
	field string // of the error
}{
	{name: "defaults", data: "tests: [mission2]\n",
		want: campaign.Spec{Tests: []string{"mission2"}, Runs: 1, Seed: 1, GustMS: run.DefaultGustMS, Autopilot: "avoid", TimeoutS: 500, Rules: "2025", PreArmS: 19, Engine: "embedded"}},
	{name: "every key", data: "name: nightly\ntests:\n  - gen/test_*.yaml\n  - mission3\nruns: 3\nseed: 0\ngust: 0\nautopilot: plain\ntimeout: 120\nrules: 2024\npre_arm: 0\nengine: aerialist\n",
		want: campaign.Spec{Name: "nightly", Tests: []string{"gen/test_*.yaml", "mission3"}, Runs: 3, Seed: 0, GustMS: 0, Autopilot: "plain", TimeoutS: 120, Rules: "2024", PreArmS: 0, Engine: "aerialist"}},
	{name: "rules as text", data: "tests: [a.yaml]\nrules: \"2026\"\n",
		want: campaign.Spec{Tests: []string{"a.yaml"}, Runs: 1, Seed: 1, GustMS: run.DefaultGustMS, Autopilot: "avoid", TimeoutS: 500, Rules: "2026", PreArmS: 19, Engine: "embedded"}},
	{name: "unknown key", data: "tests: [mission2]\nrepeats: 3\n", line: 2, field: "repeats"},
	{name: "wrong type", data: "tests: [mission2]\nruns: many\n", line: 2, field: "runs"},
	{name: "tests not a list", data: "tests: mission2\n", line: 1, field: "tests"},
	{name: "duplicate key", data: "tests: [a]\ntests: [b]\n", line: 2, field: "tests"},
	{name: "no tests", data: "name: x\n", field: "tests"},
	{name: "no runs", data: "tests: [a]\nruns: 0\n", line: 2, field: "runs"},
	{name: "zero timeout", data: "tests: [a]\ntimeout: 0\n", line: 2, field: "timeout"},
	{name: "too many runs", data: "tests: [a]\nruns: 5000\n", line: 2, field: "runs"},
	{name: "negative gust", data: "tests: [a]\ngust: -1\n", line: 2, field: "gust"},
	{name: "NaN timeout", data: "tests: [a]\ntimeout: .nan\n", line: 2, field: "timeout"},
	{name: "bad autopilot", data: "tests: [a]\nautopilot: wishful\n", line: 2, field: "autopilot"},
	{name: "bad rules", data: "tests: [a]\nrules: 1999\n", line: 2, field: "rules"},
	{name: "bad pre-arm", data: "tests: [a]\npre_arm: -1\n", line: 2, field: "pre_arm"},
	{name: "bad engine", data: "tests: [a]\nengine: gazebo\n", line: 2, field: "engine"},
	{name: "empty test", data: "tests: ['']\n", line: 1, field: "tests[0]"},
	{name: "two documents", data: "tests: [a]\n---\ntests: [b]\n"},
	{name: "not YAML", data: "tests: [a\n", line: 1, field: "tests"},
}

func TestParseSpec(t *testing.T) {
	for _, c := range specCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := campaign.ParseSpec("spec.yaml", []byte(c.data))
			wantErr := c.line != 0 || c.field != "" || c.want.Tests == nil
			if !wantErr {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("spec (-want +got):\n%s", diff)
				}
				return
			}
			var se *campaign.SpecError
			if !errors.As(err, &se) || !errors.Is(err, campaign.ErrSpec) {
				t.Fatalf("got %v; want a *SpecError", err)
			}
			if se.File != "spec.yaml" || se.Line != c.line || se.Field != c.field {
				t.Errorf("got file %q line %d field %q; want spec.yaml, %d, %q (%v)", se.File, se.Line, se.Field, c.line, c.field, err)
			}
		})
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, c := range specCases {
		f.Add([]byte(c.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := campaign.ParseSpec("fuzz.yaml", data)
		if err != nil {
			var se *campaign.SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SpecError", err)
			}
			return
		}
		if len(s.Tests) == 0 || s.Runs < 1 || s.TimeoutS <= 0 {
			t.Fatalf("accepted spec %+v breaks the rules", s)
		}
	})
}
