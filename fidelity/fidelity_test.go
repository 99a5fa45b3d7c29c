package fidelity

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

func TestSpearmanByHand(t *testing.T) {
	// y's ranks with the tie: 1, 2, 3.5, 5, 3.5; Pearson with 1…5 is
	// 8/√(10·9.5).
	rho, _ := Spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 0, nil)
	if want := 8 / math.Sqrt(95); math.Abs(rho-want) > 1e-12 {
		t.Errorf("rho = %v; want %v", rho, want)
	}
	rho, p := Spearman([]float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{8, 7, 6, 5, 4, 3, 2, 1}, 4000, rand.New(rand.NewPCG(1, 1)))
	if rho != -1 {
		t.Errorf("reversed: rho = %v; want -1", rho)
	}
	// Two of the 8! orders reach |ρ| = 1: p ≈ 2/40320 plus the observed one.
	if p > 0.002 {
		t.Errorf("reversed: p = %v; want < 0.002", p)
	}
	if r, _ := Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}, 0, nil); !math.IsNaN(r) {
		t.Errorf("constant sample: rho = %v; want NaN", r)
	}
}

func TestParseCSV(t *testing.T) {
	good := "mission,test,px4_min_distance_m,px4_class,px4_airborne_s,usable\n" +
		"mission2,test_0,0.82,normal,150.8,yes\nmission4,test_7,0,crash,,no\n"
	refs, err := ParseCSV("dir/ref.csv", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].MinDistM != 0.82 || refs[0].AirborneS != 150.8 || refs[0].YAML != "dir/tests/mission2/test_0.yaml" ||
		!math.IsNaN(refs[1].AirborneS) || refs[1].Usable || refs[1].Class != "crash" || refs[1].Line != 3 {
		t.Errorf("got %+v", refs)
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "ref.csv:1: empty file"},
		{"no distance column", "test,yaml\na,a.yaml\n", "ref.csv:1: px4_min_distance_m: missing column"},
		{"text distance", "test,px4_min_distance_m\na,1\nb,near\n", `ref.csv:3: px4_min_distance_m: "near" is not a distance`},
		{"negative", "test,px4_min_distance_m\na,-1\n", "ref.csv:2: px4_min_distance_m"},
		{"nan", "test,px4_min_distance_m\na,NaN\n", "ref.csv:2: px4_min_distance_m"},
		{"huge", "test,px4_min_distance_m\na,1e300\n", "ref.csv:2: px4_min_distance_m"},
		{"unknown mission", "mission,test,px4_min_distance_m\nmission9,a,1\n", `ref.csv:2: mission: unknown mission "mission9"`},
		{"duplicate", "mission,test,px4_min_distance_m\nmission1,a,1\nmission1,a,2\n", "ref.csv:3: test: mission1/a repeats line 2"},
		{"bad usable", "test,px4_min_distance_m,usable\na,1,maybe\n", "ref.csv:2: usable"},
		{"bad time", "test,px4_min_distance_m,px4_airborne_s\na,1,soon\n", "ref.csv:2: px4_airborne_s"},
		{"no rows", "test,px4_min_distance_m\n", "ref.csv:2: no tests"},
	} {
		_, err := ParseCSV("ref.csv", strings.NewReader(c.in))
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want a ParseError containing %q", c.name, err, c.want)
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add("mission,test,px4_min_distance_m\nmission2,t,0.5\n")
	f.Add("test,px4_min_distance_m,px4_airborne_s,usable\na,1,2,no\nb,0,,yes\n")
	f.Add("test,px4_min_distance_m\n\"a,b\",1\n")
	f.Fuzz(func(t *testing.T, in string) {
		refs, err := ParseCSV("f.csv", strings.NewReader(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v is not a ParseError with a line", err)
			}
			return
		}
		last := 1
		for _, r := range refs {
			if !(r.MinDistM >= 0 && r.MinDistM <= 1e4) || r.Line <= last || r.Test == "" || r.YAML == "" {
				t.Fatalf("bad reference %+v", r)
			}
			last = r.Line
		}
	})
}

// On a hand-made reference whose PX4 distances rank like the boxes'
// offsets from mission1's straight leg (3 tests), ρ is +1; reversed, −1.
func TestEvaluateKnownRho(t *testing.T) {
	if testing.Short() {
		t.Skip("flies 6 missions")
	}
	for _, c := range []struct {
		file string
		rho  float64
	}{{"testdata/tiny/reference.csv", 1}, {"testdata/tiny/reversed.csv", -1}} {
		fh, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := ParseCSV(c.file, fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Evaluate(context.Background(), refs, Config{Runs: 1, Perms: 100})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pooled.Rho != c.rho || rep.Pooled.N != 3 {
			t.Errorf("%s: rho %v over %d tests; want %v over 3", c.file, rep.Pooled.Rho, rep.Pooled.N, c.rho)
		}
		for _, tr := range rep.Tests {
			if tr.Collided != 0 || !(tr.MeanM > 5) || !(tr.AirborneS > 30) {
				t.Errorf("%s: %+v: want a clear flight", tr.Test, tr)
			}
		}
	}
}
