// Package plot draws flights as a person wants to look at them: the flown
// path over the obstacles' footprints, seen from above, as PNG or SVG.
//
// Plots use the UAV Testing Competition's frame the way Aerialist draws it:
// x (North) on the horizontal axis and y (East) on the vertical axis, so an
// obstacle rotated by a positive r turns its +x end toward +y, that is up the
// page (competition.md §2.1). Both axes have the same scale. Output is
// byte-stable: the same Flight and size give the same bytes.
//
// The package is pure: it writes only to the io.Writer it is given.
package plot

import (
	"errors"
	"fmt"
	"image"
	"io"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Flight is what a flight plot shows. Paths are drawn by their horizontal
// components (NED and the competition frame share x North and y East);
// heights are not shown.
type Flight struct {
	Title     string
	Area      *world.Area // placement area, drawn as a dashed rectangle (nil = none)
	Obstacles []world.Box // footprints, translucent, labelled 1..n in order
	Planned   []geom.Vec3 // planned path in NED (dashed); may be nil
	Flown     []geom.Vec3 // flown path in NED (solid)
	Start     bool        // mark the first flown point
	End       bool        // mark the last flown point
	Note      string      // a line under the title, e.g. "min clearance 2.31 m (obstacle 1)"
	// Closest, when not nil, marks the closest approach: a red segment from
	// the path to the obstacle with its distance written beside it.
	Closest *world.Approach
	// Legs marks stretches of the planned path, each drawn as a broad
	// translucent band under the paths with its label at its middle: the
	// legs a generator placed obstacles on.
	Legs []Segment
}

// Segment is a labelled stretch of a path, in the frame of Planned (NED,
// m; only x and y are drawn).
type Segment struct {
	A, B  geom.Vec2
	Label string
	// LabelAtB writes the label at B instead of the middle (a corner's
	// name at its turn).
	LabelAtB bool
}

// dpi is the resolution that maps the requested pixel sizes to lengths on
// the page: the CSS reference pixel, 96 per inch (1 px = 0.75 pt). An SVG of
// widthPx × heightPx is widthPx·0.75 pt wide, which browsers show as widthPx
// pixels.
const dpi = 96

// Size limits, in pixels. Below the minimum the title, axes and legend
// leave no room for the data; the maximum bounds memory (a 8000 × 8000 RGBA
// image is 256 MB).
const (
	MinSizePx = 200
	MaxSizePx = 8000
)

// ErrSize is returned for image sizes outside [MinSizePx, MaxSizePx].
var ErrSize = errors.New("plot: image size out of range")

// WritePNG draws f on a widthPx × heightPx image and writes it to w as PNG.
//
// The plot shows, from bottom to top: a grid, the placement area, the
// obstacles numbered in order, the planned and the flown path and the start
// and end markers, under the title and the note. Both axes have the same
// scale: the range of the longer side of what is shown (plus a margin) fills
// its axis and the other range is widened to match. The legend sits to the
// right of the plot, or in its top right corner when the image is too
// narrow for that. Errors are ErrSize, ErrTooSmall, a non-finite coordinate
// in f, or the writer's.
func WritePNG(w io.Writer, f Flight, widthPx, heightPx int) error {
	if err := checkSize(widthPx, heightPx); err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, widthPx, heightPx))
	c := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))
	if _, _, err := render(draw.New(c), f); err != nil {
		return err
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// WriteSVG draws f as WritePNG does, as an SVG document of widthPx ×
// heightPx CSS pixels (widthPx·0.75 × heightPx·0.75 pt), and writes it to w.
func WriteSVG(w io.Writer, f Flight, widthPx, heightPx int) error {
	if err := checkSize(widthPx, heightPx); err != nil {
		return err
	}
	c := vgsvg.New(pxLen(widthPx), pxLen(heightPx))
	if _, _, err := render(draw.New(c), f); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

func checkSize(w, h int) error {
	if w < MinSizePx || h < MinSizePx || w > MaxSizePx || h > MaxSizePx {
		return fmt.Errorf("%w: %d × %d px, want each in [%d, %d]", ErrSize, w, h, MinSizePx, MaxSizePx)
	}
	return nil
}

// validate returns an error naming the first non-finite coordinate of f.
func (f *Flight) validate() error {
	if a := f.Area; a != nil {
		if !finite(a.MinX, a.MaxX, a.MinY, a.MaxY) {
			return errors.New("plot: area has a non-finite bound")
		}
	}
	for i, b := range f.Obstacles {
		if !finite(b.L, b.W, b.X, b.Y, b.R) {
			return fmt.Errorf("plot: obstacle %d has a non-finite value: %v", i+1, b)
		}
	}
	for i, p := range f.Planned {
		if !p.XY().IsFinite() {
			return fmt.Errorf("plot: planned point %d is not finite: %v", i, p)
		}
	}
	for i, p := range f.Flown {
		if !p.XY().IsFinite() {
			return fmt.Errorf("plot: flown point %d is not finite: %v", i, p)
		}
	}
	return nil
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// pxLen returns the page length of n pixels at dpi.
func pxLen(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }
