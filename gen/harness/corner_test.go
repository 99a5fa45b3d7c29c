package harness

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/scenario"
)

// The square's four turns lie in the placement area: with --legs auto each
// gets a share of the budget by its zone's area beside the legs, its
// tests are drawn around the turn and are the corner's alone (leg 0), and
// the output folder has a corner_N/generation.json for each; --legs 3
// tests that leg and no corner.
func TestRunCorners(t *testing.T) {
	cs, err := scenario.Load("../testdata/square.plan")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), Config{CaseStudy: cs, Budget: 30, Strategy: StratConstrained, Seed: 3, Runner: runner(2)})
	if err != nil {
		t.Fatal(err)
	}
	corners := map[int]LegOutcome{}
	legShare, cornerShare := 0, 0
	for _, l := range o.Legs {
		if l.Corner == 0 {
			legShare += l.Share
			if l.CornerAt != nil {
				t.Errorf("leg %d has a corner point", l.Leg)
			}
			continue
		}
		if l.Leg != 0 || l.CornerAt == nil || l.CornerZone == nil || l.Zone.AreaM2 != 600 || l.Share < 1 || l.Simulations != l.Share ||
			(l.CornerZone[1]-l.CornerZone[0])*(l.CornerZone[3]-l.CornerZone[2]) != 600 {
			t.Errorf("corner %+v: want leg 0, a point, 600 m², a share flown", l)
		}
		corners[l.Corner] = l
		cornerShare += l.Share
	}
	if len(corners) != 4 || legShare+cornerShare != 30 {
		t.Fatalf("%d corners, shares legs %d + corners %d; want 4 and 30 in all", len(corners), legShare, cornerShare)
	}
	// By area: 4 × 600 m² of corners against 2400 m² of legs (3 and 5 of
	// 1000, 4 and 6 of 200), 3.75 simulations each; the largest remainders
	// (0.75 against the legs' 0.25) give them 4.
	if cornerShare != 16 {
		t.Errorf("corners' share %d of 30; want 16", cornerShare)
	}
	n := 0
	for _, tst := range o.Tests {
		if tst.Corner == 0 {
			continue
		}
		n++
		c := corners[tst.Corner]
		b := tst.Obstacles[0]
		if tst.Leg != 0 || math.Hypot(b.X-c.CornerAt[0], b.Y-c.CornerAt[1]) > gen.CornerHalfM*math.Sqrt2 {
			t.Errorf("corner %d test: leg %d, first box at (%.1f, %.1f)", tst.Corner, tst.Leg, b.X, b.Y)
		}
	}
	if n != cornerShare {
		t.Errorf("%d corner tests; want %d", n, cornerShare)
	}
	files, err := o.Files()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		if !strings.HasPrefix(f.Name, "corner_") {
			continue
		}
		found++
		var lg struct {
			Corner int `json:"corner"`
			Tests  []Test
		}
		if err := json.Unmarshal(f.Data, &lg); err != nil {
			t.Fatal(err)
		}
		if f.Name != "corner_"+strconv.Itoa(lg.Corner)+"/generation.json" || len(lg.Tests) != corners[lg.Corner].Share {
			t.Errorf("%s: corner %d with %d tests", f.Name, lg.Corner, len(lg.Tests))
		}
		for _, tst := range lg.Tests {
			if tst.Corner != lg.Corner {
				t.Errorf("%s lists a test of corner %d", f.Name, tst.Corner)
			}
		}
	}
	if found != 4 {
		t.Errorf("%d corner files; want 4", found)
	}
	// The search seeds each corner with its share of the seeds (its own
	// draws: the training data has nothing for a turn) and flies them.
	s, err := Run(context.Background(), Config{CaseStudy: cs, Budget: 30, Seed: 3, DatasetN: 12, Runner: runner(2), Cache: &Cache{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	seeds := gen.SearchConfig{}.SeedCount(30)
	flown := 0
	for _, l := range s.Legs {
		if l.Corner > 0 {
			if l.Share < 1 || l.Simulations < l.Share {
				t.Errorf("search, corner %d: share %d, %d simulations", l.Corner, l.Share, l.Simulations)
			}
			flown += l.Share
		}
	}
	if flown == 0 || flown >= seeds {
		t.Errorf("search: corners' seeds %d of %d", flown, seeds)
	}
	one, err := Run(context.Background(), Config{CaseStudy: cs, Budget: 4, Strategy: StratConstrained, Legs: LegChoice{List: []int{3}}, Runner: runner(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Legs) != 1 || one.Legs[0].Leg != 3 || one.Legs[0].Corner != 0 {
		t.Errorf("--legs 3: %+v", one.Legs)
	}
}
