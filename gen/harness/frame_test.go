package harness

import (
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/scenario"
)

// FrameWarning: a dataset whose frame line names a mission warns unless
// --mission maps it from that mission's frame (by file or by name, the
// same geometry); a canonical dataset warns only when --mission maps it
// again; a CSV without the line never warns.
func TestFrameWarning(t *testing.T) {
	m2, m3, canon := mission(t, "mission2"), mission(t, "mission3"), mission(t, scenario.CanonicalName)
	for _, c := range []struct {
		name    string
		frame   string
		mission *scenario.CaseStudy
		want    string // "" for no warning
	}{
		{"mission dataset, no --mission", "mission2", nil, "d.csv: the features are obstacles of mission2 in its competition frame, not in the canonical frame the surrogate works in; add --mission mission2"},
		{"mission dataset, its mission", "mission2", m2, ""},
		{"mission dataset, another mission", "mission2", m3, "but --mission mission3 maps them from that mission's frame; give --mission mission2"},
		{"the mission's file, by name", "../../scenario/competition/mission2.yaml", m2, ""},
		{"the mission's file, no --mission", "../../scenario/competition/mission2.yaml", nil, "add --mission ../../scenario/competition/mission2.yaml"},
		{"a file gone, the same name", "gone/m.yaml", &scenario.CaseStudy{Name: "m", Source: "gone/m.yaml"}, ""},
		{"a file gone, no --mission", "gone/m.yaml", nil, "add --mission gone/m.yaml"},
		{"canonical, no --mission", surrogate.FrameCanonical, nil, ""},
		{"canonical, --mission canonical", surrogate.FrameCanonical, canon, ""},
		{"canonical, mapped again", surrogate.FrameCanonical, m2, "d.csv: the features are in the canonical frame already; --mission mission2 maps them again (leave --mission out)"},
		{"the canonical mission by name", scenario.CanonicalName, nil, ""},
		{"no frame line", "", nil, ""},
		{"no frame line, a mission", "", m2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FrameWarning("d.csv", surrogate.Dataset{Frame: c.frame}, c.mission)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("got %q; want %q", got, c.want)
			}
		})
	}
}

// ToCanonical maps a mission's dataset into the canonical frame and says
// so; mapping a canonical mission's dataset leaves the features as they
// are.
func TestToCanonical(t *testing.T) {
	x := surrogate.Features{10, 4, -6, 20, 30, 6, 3, -8, 30, 0}
	d := surrogate.Dataset{X: []surrogate.Features{x}, Y: []float64{1.5}, Frame: "mission2"}
	got, err := ToCanonical(d, mission(t, scenario.CanonicalName))
	if err != nil {
		t.Fatal(err)
	}
	if got.Frame != surrogate.FrameCanonical || got.Y[0] != 1.5 {
		t.Errorf("frame %q, y %v", got.Frame, got.Y)
	}
	for j := range x {
		if d := got.X[0][j] - x[j]; d > 1e-9 || d < -1e-9 {
			t.Errorf("feature %d: %v through the canonical frame; want %v", j, got.X[0][j], x[j])
		}
	}
	if m2, err := ToCanonical(d, mission(t, "mission2")); err != nil || m2.X[0] == x {
		t.Errorf("mission2's frame left the features as they are (%v)", err)
	}
}
