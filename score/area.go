package score

import (
	sf "github.com/peterstace/simplefeatures/geom"

	"github.com/shakedown-robotics/shakedown/world"
)

// Polygon areas come from github.com/peterstace/simplefeatures v0.59.0;
// earlier versions' UnionMany returns wrong areas for many rotated
// rectangles (deps.md §3).

// footprint returns the rotated rectangle of a box as a polygon.
func footprint(b world.Box) sf.Geometry {
	c := b.Corners()
	ring := sf.NewSequence([]float64{
		c[0].X, c[0].Y, c[1].X, c[1].Y, c[2].X, c[2].Y, c[3].X, c[3].Y, c[0].X, c[0].Y,
	}, sf.DimXY)
	return sf.NewPolygon([]sf.LineString{sf.NewLineString(ring)}).AsGeometry()
}

// Union returns the union of the footprints of boxes, the area(t) of Eq. 7
// for one test's obstacles; the empty geometry for no box.
func Union(boxes []world.Box) (sf.Geometry, error) {
	switch len(boxes) {
	case 0:
		return sf.Geometry{}, nil
	case 1:
		return footprint(boxes[0]), nil
	}
	gs := make([]sf.Geometry, len(boxes))
	for i, b := range boxes {
		gs[i] = footprint(b)
	}
	return sf.UnionMany(gs)
}

// UnionArea returns the area of the union of the footprints of boxes, m².
func UnionArea(boxes []world.Box) (float64, error) {
	u, err := Union(boxes)
	if err != nil {
		return 0, err
	}
	return u.Area(), nil
}

// IoU returns Eq. 7 for two footprint unions (see Union): the area of
// their intersection over the area of their union.
func IoU(a, b sf.Geometry) (float64, error) {
	aa, ab := a.Area(), b.Area()
	if aa <= 0 || ab <= 0 {
		return Similarity(aa, ab, 0), nil
	}
	in, err := sf.Intersection(a, b)
	if err != nil {
		return 0, err
	}
	return Similarity(aa, ab, in.Area()), nil
}

// BoxIoU is IoU of the footprint unions of two tests' obstacles.
func BoxIoU(a, b []world.Box) (float64, error) {
	ua, err := Union(a)
	if err != nil {
		return 0, err
	}
	ub, err := Union(b)
	if err != nil {
		return 0, err
	}
	return IoU(ua, ub)
}
