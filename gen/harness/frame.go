package harness

import (
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/world"
)

// missionFrame is the canonical frame of cs's mission.
func missionFrame(cs *scenario.CaseStudy) (gen.Frame, error) {
	fr, err := gen.NewFrame(cs.Mission.Path(), world.DefaultArea)
	if err != nil {
		return gen.Frame{}, fmt.Errorf("%s: %w", cs.Name, err)
	}
	return fr, nil
}

// ToCanonical maps the features of d, obstacles in mission's competition
// frame, into mission's canonical frame (surrogate train and eval
// --mission).
func ToCanonical(d surrogate.Dataset, mission *scenario.CaseStudy) (surrogate.Dataset, error) {
	fr, err := missionFrame(mission)
	if err != nil {
		return surrogate.Dataset{}, err
	}
	out := surrogate.Dataset{X: make([]surrogate.Features, len(d.X)), Y: d.Y, Frame: surrogate.FrameCanonical}
	for i, x := range d.X {
		var bs [2]world.Box
		for k := range bs {
			bs[k] = fr.BoxToCanonical(world.Box{L: x[5*k], W: x[5*k+1], X: x[5*k+2], Y: x[5*k+3], R: x[5*k+4], H: gen.HeightM})
		}
		out.X[i] = gen.Features(bs[:])
	}
	return out, nil
}

// FrameWarning says, when it is so, that the features of dataset d (read
// from file) do not reach the canonical frame the surrogate works in when
// they are mapped through mission's frame (mission nil: used as they are),
// and what to give instead; "" when they do, or when d does not say its
// frame (a CSV from before the frame line). A frame naming a file that
// can no longer be read is compared by name.
func FrameWarning(file string, d surrogate.Dataset, mission *scenario.CaseStudy) string {
	if d.Frame == "" {
		return ""
	}
	var need, used *gen.Frame // nil: the identity
	var from *scenario.CaseStudy
	if d.Frame != surrogate.FrameCanonical {
		cs, err := scenario.Load(d.Frame)
		if err != nil {
			if mission != nil && DatasetFrame(mission) == d.Frame {
				return ""
			}
		} else {
			from = cs
			if fr, err := missionFrame(cs); err == nil {
				need = &fr
			}
		}
	}
	if mission != nil {
		if fr, err := missionFrame(mission); err == nil {
			used = &fr
		}
	}
	if (from != nil || d.Frame == surrogate.FrameCanonical) && sameMap(need, used) {
		return ""
	}
	switch {
	case d.Frame == surrogate.FrameCanonical:
		return fmt.Sprintf("%s: the features are in the canonical frame already; --mission %s maps them again (leave --mission out)", file, mission.Name)
	case mission == nil:
		return fmt.Sprintf("%s: the features are obstacles of %s in its competition frame, not in the canonical frame the surrogate works in; add --mission %s", file, d.Frame, d.Frame)
	}
	return fmt.Sprintf("%s: the features are obstacles of %s in its competition frame, but --mission %s maps them from that mission's frame; give --mission %s", file, d.Frame, mission.Name, d.Frame)
}

// sameMap reports whether two canonical frames map the area the same way
// (nil is the identity): a few points of the placement area land within a
// millimetre of each other.
func sameMap(a, b *gen.Frame) bool {
	apply := func(f *gen.Frame, p geom.Vec2) geom.Vec2 {
		if f == nil {
			return p
		}
		return f.ToCanonical(p)
	}
	ar := world.DefaultArea
	for _, p := range []geom.Vec2{{X: ar.MinX, Y: ar.MinY}, {X: ar.MaxX, Y: ar.MinY}, {X: ar.MinX, Y: ar.MaxY}} {
		pa, pb := apply(a, p), apply(b, p)
		if math.Hypot(pa.X-pb.X, pa.Y-pb.Y) > 1e-3 {
			return false
		}
	}
	return true
}
