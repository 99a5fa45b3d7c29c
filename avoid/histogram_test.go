package avoid

import (
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// rememberedBox is a planner that has seen a box from 6 m at three
// headings, and the tree node beside it whose histogram the benchmarks
// build.
func rememberedBox(b *testing.B) (p *Planner, node geom.Vec3) {
	scene := &world.Scene{Boxes: []world.Box{{L: 4, W: 8, H: 25, X: 10, Y: 1.5}}}
	pos := geom.Vec3{Z: -10}
	p, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for i, yaw := range []float64{0, 0.5, -0.5} {
		c := cloudFrom(b, scene, pos, yaw)
		if err := p.Observe(float64(i)*0.3, c.Points); err != nil {
			b.Fatal(err)
		}
		p.process(float64(i)*0.3, pos, c.Att)
	}
	return p, pos.Add(geom.Vec3{X: 2, Y: 0.5})
}

// BenchmarkHistogramBuild is one histogram of a remembered cloud (a box
// seen from 6 m, three headings) around a tree node: the planner's
// innermost loop, 40 times per tree search at most.
func BenchmarkHistogramBuild(b *testing.B) {
	p, node := rememberedBox(b)
	var h histogram
	b.ReportAllocs()
	for b.Loop() {
		h.build(p.mem, node)
	}
	b.ReportMetric(float64(len(p.mem)), "points")
}

// BenchmarkCandidates is the cost matrix search of one tree node with the
// histogram of BenchmarkHistogramBuild, heading for a goal behind the box.
func BenchmarkCandidates(b *testing.B) {
	p, node := rememberedBox(b)
	p.hist.build(p.mem, node)
	goal, vel := geom.Vec3{X: 40, Z: -10}, geom.Vec3{X: 1.5, Y: 0.3}
	b.ReportAllocs()
	for b.Loop() {
		p.cands = p.cost.candidates(&p.hist, goal, node, vel, goal, &p.cp, p.cfg.Children, p.cands)
	}
	b.ReportMetric(float64(len(p.hist.touched)), "cells")
}
