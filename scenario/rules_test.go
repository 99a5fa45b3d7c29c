package scenario

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shakedown-robotics/shakedown/world"
)

// box returns a valid obstacle of the 2025 rules at (x, y).
func box(x, y float64) world.Box { return world.Box{L: 4, W: 4, H: 15, X: x, Y: y} }

func with(b world.Box, edit func(*world.Box)) world.Box { edit(&b); return b }

// TestRulesCheckManyBoxes is issue 21 item 17: 16000 overlapping boxes
// (128 million pairs) are checked as fast as 3, with a short error.
func TestRulesCheckManyBoxes(t *testing.T) {
	obs := make([]world.Box, 16000)
	for i := range obs {
		obs[i] = box(0, 25)
	}
	for _, r := range []Rules{DefaultRules, Rules2024, {MinRDeg: math.Inf(-1)}} {
		err := r.Check(obs)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("got %v; want a *ValidationError", err)
		}
		if n := len(ve.Violations); n > maxViolations+1 {
			t.Errorf("rules %+v: %d violations listed; want at most %d", r.MaxObstacles, n, maxViolations+1)
		}
		if len(err.Error()) > 10000 {
			t.Errorf("rules %+v: error of %d bytes", r.MaxObstacles, len(err.Error()))
		}
		if r.MaxObstacles > 0 {
			if got, want := ve.Violations[0].Msg, fmt.Sprintf("16000 obstacles, at most %d allowed", r.MaxObstacles); got != want {
				t.Errorf("first violation %q; want %q", got, want)
			}
			if last := ve.Violations[len(ve.Violations)-1]; last.Other > r.MaxObstacles {
				t.Errorf("an overlap beyond the box count was listed: %s", last.Msg)
			}
		}
	}
}

func TestRulesCheck(t *testing.T) {
	ok1, ok2, ok3 := box(-30, 20), box(0, 25), box(20, 35)
	for _, c := range []struct {
		name  string
		rules Rules
		obs   []world.Box
		want  []string // the violation messages; none for a valid set
	}{
		{"no obstacles", DefaultRules, nil, nil},
		{"three valid", DefaultRules, []world.Box{ok1, ok2, ok3}, nil},
		{"bounds are closed", DefaultRules, []world.Box{
			{L: 2, W: 20, H: 25, X: -20, Y: 25, R: 0},
			{L: 20, W: 2, H: 10.001, X: 15, Y: 25, R: 90},
		}, nil},
		{"too many", DefaultRules, []world.Box{ok1, ok2, ok3, box(-15, 15)}, []string{"4 obstacles, at most 3 allowed"}},
		{"w too large", DefaultRules, []world.Box{ok1, with(ok2, func(b *world.Box) { b.W = 25 })}, []string{"obstacle 2: w = 25 out of range [2, 20]"}},
		{"l too small", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.L = 1.5 })}, []string{"obstacle 1: l = 1.5 out of range [2, 20]"}},
		{"l zero", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.L = 0 })}, []string{"obstacle 1: l = 0 must be positive"}},
		{"h at the flight altitude", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.H = 10 })}, []string{"obstacle 1: h = 10 out of range (10, 25]"}},
		{"h too tall", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.H = 26 })}, []string{"obstacle 1: h = 26 out of range (10, 25]"}},
		{"h negative", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.H = -1 })}, []string{"obstacle 1: h = -1 must be positive"}},
		{"r negative", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.R = -5 })}, []string{"obstacle 1: r = -5 out of range [0, 90]"}},
		{"r too large", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.R = 91 })}, []string{"obstacle 1: r = 91 out of range [0, 90]"}},
		{"floating", DefaultRules, []world.Box{with(ok1, func(b *world.Box) { b.Z = 1 })}, []string{"obstacle 1: z = 1, want 0 (obstacles stand on the ground)"}},
		{"NaN", DefaultRules, []world.Box{ok1, with(ok2, func(b *world.Box) { b.Y = math.NaN() }), ok3}, []string{"obstacle 2: y = NaN is not a finite number"}},
		{"outside the area", DefaultRules, []world.Box{ok1, {L: 6.4, W: 6, H: 15, X: 28, Y: 15}}, []string{"obstacle 2: footprint leaves the placement area (corner (31.2, 12.0))"}},
		{"centre inside, rotated corner outside", DefaultRules, []world.Box{{L: 10, W: 2, H: 15, X: 0, Y: 12, R: 45}}, []string{"obstacle 1: footprint leaves the placement area (corner (-2.8, 7.8))"}},
		{"overlap", DefaultRules, []world.Box{ok1, ok2, with(ok1, func(b *world.Box) { b.X = -28 })}, []string{"obstacle 1 and obstacle 3 overlap"}},
		{"touching counts", DefaultRules, []world.Box{ok1, with(ok1, func(b *world.Box) { b.X = -26 })}, []string{"obstacle 1 and obstacle 2 overlap"}},
		{"overlap allowed", Rules{Overlap: true}, []world.Box{ok1, ok1}, nil},
		{"every violation", DefaultRules, []world.Box{
			{L: 30, W: 1, H: 5, X: 0, Y: 20, Z: 2, R: 100},
			ok1, ok1, box(-2, 30),
		}, []string{
			"4 obstacles, at most 3 allowed",
			"obstacle 1: l = 30 out of range [2, 20]",
			"obstacle 1: w = 1 out of range [2, 20]",
			"obstacle 1: h = 5 out of range (10, 25]",
			"obstacle 1: z = 2, want 0 (obstacles stand on the ground)",
			"obstacle 1: r = 100 out of range [0, 90]",
			"obstacle 1: footprint leaves the placement area (corner (3.1, 5.3))",
			// obstacle 4 is beyond the count: its overlap with 1 is not listed
			"obstacle 2 and obstacle 3 overlap",
		}},
		{"2024: four, tall, large, any angle", Rules2024, []world.Box{
			{L: 25, W: 2, H: 40, X: -25, Y: 25, R: -30}, box(0, 15), box(10, 35), box(25, 15),
		}, nil},
		{"2024: five", Rules2024, []world.Box{box(-30, 15), box(-20, 15), box(0, 15), box(10, 35), box(25, 15)}, []string{"5 obstacles, at most 4 allowed"}},
		{"2024: h 10", Rules2024, []world.Box{with(ok1, func(b *world.Box) { b.H = 10 })}, []string{"obstacle 1: h = 10 out of range (10, +Inf)"}},
		{"zero rules", Rules{}, []world.Box{{L: 100, W: 0.1, H: 0.1, X: 1e3, Y: -1e3, R: 720}, box(0, 0), box(10, 0), box(20, 0)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.rules.Check(c.obs)
			if c.want == nil {
				if err != nil {
					t.Errorf("got %v; want no error", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v; want a *ValidationError", err)
			}
			var got []string
			for _, v := range ve.Violations {
				got = append(got, v.Msg)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("violations (-want +got):\n%s", d)
			}
		})
	}
}

func TestValidationErrorFields(t *testing.T) {
	err := DefaultRules.Check([]world.Box{box(-30, 20), with(box(0, 25), func(b *world.Box) { b.W = 25 }), box(-29, 21)})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v; want a *ValidationError", err)
	}
	want := []Violation{
		{Obstacle: 2, Field: "w", Msg: "obstacle 2: w = 25 out of range [2, 20]"},
		{Obstacle: 1, Other: 3, Field: "overlap", Msg: "obstacle 1 and obstacle 3 overlap"},
	}
	if d := cmp.Diff(want, ve.Violations); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
	if got, want := err.Error(), "scenario: invalid obstacles: obstacle 2: w = 25 out of range [2, 20]; obstacle 1 and obstacle 3 overlap"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
}
