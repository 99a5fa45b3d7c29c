package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/shakedown-robotics/shakedown/geom"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Colours. Translucent ones are color.NRGBA: color.RGBA is alpha-premultiplied
// and gonum/plot would read {220, 60, 60, 90} as an invalid, cyan-ish colour
// (deps.md §4).
var (
	obstacleFill = color.NRGBA{R: 255, G: 127, B: 14, A: 90} // orange
	obstacleEdge = color.NRGBA{R: 190, G: 85, B: 0, A: 255}
	obstacleText = color.NRGBA{R: 120, G: 50, B: 0, A: 255}
	areaColor    = color.NRGBA{R: 214, G: 39, B: 40, A: 255} // red, as Aerialist's borders plot
	plannedColor = color.NRGBA{R: 80, G: 80, B: 80, A: 255}
	flownColor   = color.NRGBA{R: 31, G: 119, B: 180, A: 255} // blue
	startColor   = color.NRGBA{R: 44, G: 160, B: 44, A: 255}  // green
	endColor     = color.NRGBA{R: 20, G: 20, B: 20, A: 255}
	closestColor = color.NRGBA{R: 200, G: 0, B: 0, A: 255}
	legColor     = color.NRGBA{R: 255, G: 170, B: 0, A: 90} // translucent amber band
	legText      = color.NRGBA{R: 150, G: 90, B: 0, A: 255}
	gridColor    = color.NRGBA{R: 215, G: 215, B: 215, A: 255}
	frameColor   = color.NRGBA{R: 160, G: 160, B: 160, A: 255}
)

// sans is the face of all text: Liberation Sans, embedded in gonum/plot.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// ErrTooSmall is returned when the text leaves no room for the data.
var ErrTooSmall = errors.New("plot: image too small for its text")

// render draws f on c. It returns the gonum plot it drew and its data
// area, for tests.
func render(c draw.Canvas, f Flight) (*gplot.Plot, draw.Canvas, error) {
	if err := f.validate(); err != nil {
		return nil, draw.Canvas{}, err
	}
	size := c.Rectangle.Size()
	fs := fontSize(size.X, size.Y)
	margin := fs

	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin/2, -margin*0.8)

	// Title and note, centred at the top.
	top := c.Max.Y
	for _, line := range []struct {
		s    string
		size vg.Length
	}{{f.Title, fs * 1.3}, {f.Note, fs}} {
		if line.s == "" {
			continue
		}
		sty := textStyle(line.size)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: top}, line.s)
		top -= sty.Rectangle(line.s).Size().Y + fs*0.3
	}
	if top < c.Max.Y {
		c.Max.Y = top - fs*0.4
	}

	p, legend := build(f, fs)

	// The legend gets a column to the right of the plot, so that it never
	// hides data, unless that would leave the plot less than 60 % of the
	// width; then it goes in the top right corner of the data area.
	plotC := c
	hasLegend := len(f.Obstacles) > 0 || f.Area != nil || len(f.Planned) > 0 || len(f.Flown) > 0
	lw := legend.Rectangle(c).Size().X + 2*legendPad(fs)
	beside := hasLegend && c.Max.X-c.Min.X-lw-margin >= 0.6*(c.Max.X-c.Min.X)
	if beside {
		plotC.Max.X -= lw + margin
	}

	da, err := equalAspect(p, plotC, bounds(f), fs)
	if err != nil {
		return nil, draw.Canvas{}, err
	}
	p.Draw(plotC)
	frame(da)

	if hasLegend {
		legC := da
		if beside {
			legC.Max.X = c.Max.X
		}
		legC.Min.X = legC.Max.X - lw
		drawLegend(legC, legend, fs)
	}
	return p, da, nil
}

// fontSize returns the base font size for a page of w × h: about a fortieth
// of the shorter side, within limits that keep text readable on small images
// and modest on large ones.
func fontSize(w, h vg.Length) vg.Length {
	s := min(w, h) / 40
	return max(vg.Points(8), min(s, vg.Points(13)))
}

func legendPad(fs vg.Length) vg.Length { return fs * 0.6 }

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		Handler: gplot.DefaultTextHandler,
	}
}

// build returns the gonum plot of f, without axis ranges, and its legend.
func build(f Flight, fs vg.Length) (*gplot.Plot, gplot.Legend) {
	p := gplot.New()
	p.X.Label.Text = "x (North) [m]"
	p.Y.Label.Text = "y (East) [m]"
	for _, ax := range []*gplot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sans, fs)
		ax.Tick.Label.Font = font.From(sans, fs*0.9)
		ax.Padding = 0
	}
	legend := gplot.NewLegend()
	legend.TextStyle.Font = font.From(sans, fs*0.9)
	legend.ThumbnailWidth = fs * 2
	legend.Padding = fs * 0.35
	legend.Top, legend.Left = true, true

	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridColor, gridColor
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.6), vg.Points(0.6)
	p.Add(grid)

	if a := f.Area; a != nil {
		cs := a.Corners()
		l := newLine(append(cs[:], cs[0]))
		l.Color = areaColor
		l.Width = vg.Points(1.2)
		l.Dashes = []vg.Length{vg.Points(7), vg.Points(4)}
		p.Add(l)
		legend.Add("placement area", l)
	}

	if len(f.Obstacles) > 0 {
		var first *plotter.Polygon
		labels := plotter.XYLabels{XYs: make(plotter.XYs, len(f.Obstacles)), Labels: make([]string, len(f.Obstacles))}
		for i, b := range f.Obstacles {
			cs := b.Corners()
			poly, err := plotter.NewPolygon(xys(cs[:]))
			if err != nil {
				panic(err) // unreachable: validate checked the values
			}
			poly.Color = obstacleFill
			poly.LineStyle = draw.LineStyle{Color: obstacleEdge, Width: vg.Points(1)}
			p.Add(poly)
			if first == nil {
				first = poly
			}
			labels.XYs[i] = plotter.XY{X: b.X, Y: b.Y}
			labels.Labels[i] = strconv.Itoa(i + 1)
		}
		lab, err := plotter.NewLabels(labels)
		if err != nil {
			panic(err) // unreachable: the lengths match and the values are finite
		}
		for i := range lab.TextStyle {
			sty := textStyle(fs)
			sty.Color = obstacleText
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
			lab.TextStyle[i] = sty
		}
		p.Add(lab)
		legend.Add("obstacles", first)
	}

	for k, sg := range f.Legs {
		pts := xy2([]geom.Vec3{{X: sg.A.X, Y: sg.A.Y}, {X: sg.B.X, Y: sg.B.Y}})
		l := newLine(pts)
		l.Color = legColor
		l.Width = vg.Points(7)
		p.Add(l)
		if k == 0 {
			legend.Add("legs tested", l)
		}
		if sg.Label == "" {
			continue
		}
		mid := pts[0].Add(pts[1]).Scale(0.5)
		if sg.LabelAtB {
			mid = pts[1]
		}
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: mid.X, Y: mid.Y}}, Labels: []string{sg.Label}})
		if err == nil {
			sty := textStyle(fs)
			sty.Color = legText
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
			labels.TextStyle[0] = sty
			p.Add(labels)
		}
	}
	if len(f.Planned) > 0 {
		l := newLine(xy2(f.Planned))
		l.Color = plannedColor
		l.Width = vg.Points(1.2)
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
		legend.Add("planned path", l)
	}
	if len(f.Flown) > 0 {
		l := newLine(xy2(f.Flown))
		l.Color = flownColor
		l.Width = vg.Points(1.8)
		p.Add(l)
		legend.Add("flown path", l)
	}
	if c := f.Closest; c != nil && !math.IsInf(c.DistM, 0) {
		l := newLine([]geom.Vec2{c.OnPath, c.OnBox})
		l.Color = closestColor
		l.Width = vg.Points(2)
		p.Add(l)
		m := newMarker(c.OnPath, draw.CrossGlyph{}, closestColor, fs*0.45)
		p.Add(m)
		labels, err := plotter.NewLabels(plotter.XYLabels{
			XYs:    plotter.XYs{{X: c.OnPath.X, Y: c.OnPath.Y}},
			Labels: []string{fmt.Sprintf(" %.2f m", c.DistM)},
		})
		if err == nil {
			sty := textStyle(fs)
			sty.Color = closestColor
			sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
			labels.TextStyle[0] = sty
			p.Add(labels)
		}
		legend.Add(fmt.Sprintf("closest approach %.2f m", c.DistM), m)
	}
	if len(f.Flown) > 0 && f.Start {
		s := newMarker(f.Flown[0].XY(), draw.CircleGlyph{}, startColor, fs*0.45)
		p.Add(s)
		legend.Add("start", s)
	}
	if len(f.Flown) > 0 && f.End {
		s := newMarker(f.Flown[len(f.Flown)-1].XY(), draw.BoxGlyph{}, endColor, fs*0.4)
		p.Add(s)
		legend.Add("end", s)
	}
	return p, legend
}

func newLine(pts []geom.Vec2) *plotter.Line {
	l, err := plotter.NewLine(xys(pts))
	if err != nil {
		panic(err) // unreachable: validate checked the values
	}
	l.LineStyle.Color = color.Black
	return l
}

func newMarker(pt geom.Vec2, shape draw.GlyphDrawer, c color.Color, radius vg.Length) *plotter.Scatter {
	s, err := plotter.NewScatter(xys([]geom.Vec2{pt}))
	if err != nil {
		panic(err) // unreachable: validate checked the values
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: radius, Shape: shape}
	return s
}

func xys(pts []geom.Vec2) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return out
}

func xy2(pts []geom.Vec3) []geom.Vec2 {
	out := make([]geom.Vec2, len(pts))
	for i, p := range pts {
		out[i] = p.XY()
	}
	return out
}

// box is an axis-aligned rectangle in metres.
type box struct{ minX, maxX, minY, maxY float64 }

func (b *box) add(p geom.Vec2) {
	b.minX, b.maxX = math.Min(b.minX, p.X), math.Max(b.maxX, p.X)
	b.minY, b.maxY = math.Min(b.minY, p.Y), math.Max(b.maxY, p.Y)
}

// bounds returns the rectangle that holds everything f shows, with a margin
// of 5 % of its larger side (at least 1 m) all round; ±10 m about the origin
// when f shows nothing.
func bounds(f Flight) box {
	b := box{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	if f.Area != nil {
		for _, c := range f.Area.Corners() {
			b.add(c)
		}
	}
	for _, o := range f.Obstacles {
		for _, c := range o.Corners() {
			b.add(c)
		}
	}
	for _, p := range f.Planned {
		b.add(p.XY())
	}
	for _, p := range f.Flown {
		b.add(p.XY())
	}
	if b.minX > b.maxX {
		return box{-10, 10, -10, 10}
	}
	m := math.Max(0.05*math.Max(b.maxX-b.minX, b.maxY-b.minY), 1)
	return box{b.minX - m, b.maxX + m, b.minY - m, b.maxY + m}
}

// equalAspect sets the axis ranges of p so that they cover need and one
// metre is as long on the x axis as on the y axis when p is drawn on c; it
// returns the data area. The longer side of need fills its axis and the
// other range is widened about its centre. The data area depends on the
// width of the tick labels, which depends on the ranges, so the ranges are
// refined until they no longer change (two or three rounds).
func equalAspect(p *gplot.Plot, c draw.Canvas, need box, fs vg.Length) (draw.Canvas, error) {
	cx, cy := (need.minX+need.maxX)/2, (need.minY+need.maxY)/2
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = need.minX, need.maxX, need.minY, need.maxY
	var da draw.Canvas
	for range 6 {
		t := ticks(math.Max(need.maxX-need.minX, need.maxY-need.minY) / 5)
		p.X.Tick.Marker, p.Y.Tick.Marker = t, t
		da = p.DataCanvas(c)
		w, h := float64(da.Max.X-da.Min.X), float64(da.Max.Y-da.Min.Y)
		if w < float64(4*fs) || h < float64(4*fs) {
			return da, ErrTooSmall
		}
		mpp := math.Max((need.maxX-need.minX)/w, (need.maxY-need.minY)/h) // metres per point
		t = ticks(mpp * float64(fs) * 3.5)
		p.X.Tick.Marker, p.Y.Tick.Marker = t, t
		x0, x1 := cx-mpp*w/2, cx+mpp*w/2
		y0, y1 := cy-mpp*h/2, cy+mpp*h/2
		if x0 == p.X.Min && x1 == p.X.Max && y0 == p.Y.Min && y1 == p.Y.Max {
			break
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = x0, x1, y0, y1
	}
	return p.DataCanvas(c), nil
}

// ticks marks every multiple of a round step (1, 2 or 5 × 10ⁿ m) of at least
// minStep on both axes, so that grid squares are squares.
type ticks float64

// step returns the smallest round step ≥ minStep.
func (t ticks) step() float64 {
	minStep := float64(t)
	if !(minStep > 0) || math.IsInf(minStep, 0) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(minStep)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= minStep*(1-1e-9) {
			return m * e
		}
	}
	return 10 * e
}

// Ticks implements gonum/plot's Ticker.
func (t ticks) Ticks(lo, hi float64) []gplot.Tick {
	step := t.step()
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var out []gplot.Tick
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		v := k * step
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if k == 0 {
			s = strconv.FormatFloat(0, 'f', prec, 64)
		}
		out = append(out, gplot.Tick{Value: v, Label: s})
	}
	return out
}

// frame draws a thin box around the data area.
func frame(da draw.Canvas) {
	r := da.Rectangle
	da.StrokeLines(draw.LineStyle{Color: frameColor, Width: vg.Points(0.6)}, []vg.Point{
		r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min,
	})
}

// drawLegend draws l at the top of c inside a light frame.
func drawLegend(c draw.Canvas, l gplot.Legend, fs vg.Length) {
	pad := legendPad(fs)
	inner := draw.Crop(c, pad, -pad, 0, -pad)
	r := l.Rectangle(inner)
	box := vg.Rectangle{
		Min: vg.Point{X: c.Min.X, Y: r.Min.Y - pad},
		Max: vg.Point{X: c.Max.X, Y: c.Max.Y},
	}
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.StrokeLines(draw.LineStyle{Color: frameColor, Width: vg.Points(0.6)}, []vg.Point{
		box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}, box.Min,
	})
	l.Draw(inner)
}
