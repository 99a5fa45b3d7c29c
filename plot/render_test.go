package plot

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// renderImage draws f on a w × h image and returns the image, the plot and
// its data area.
func renderImage(t *testing.T, f Flight, w, h int) (image.Image, *gplot.Plot, draw.Canvas) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	c := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))
	p, da, err := render(draw.New(c), f)
	if err != nil {
		t.Fatal(err)
	}
	return c.Image(), p, da
}

// pixel returns the image point under the data point (x, y) of p drawn in
// da on an image of height h.
func pixel(p *gplot.Plot, da draw.Canvas, h int, x, y float64) image.Point {
	trX, trY := p.Transforms(&da)
	k := float64(dpi) / 72
	return image.Point{X: int(float64(trX(x)) * k), Y: h - 1 - int(float64(trY(y))*k)}
}

func TestEqualAspect(t *testing.T) {
	area := world.DefaultArea
	tests := []struct {
		name string
		f    Flight
		w, h int
	}{
		{"example landscape", exampleFlight(), 1000, 700},
		{"example portrait", exampleFlight(), 500, 900},
		{"example small", exampleFlight(), 320, 240},
		{"area only", Flight{Area: &area}, 800, 800},
		{"flight along y in a wide image", Flight{Flown: []geom.Vec3{{}, {Y: 100}}}, 1200, 400},
		{"flight along x in a tall image", Flight{Flown: []geom.Vec3{{}, {X: 100}}}, 400, 1200},
		{"single point", Flight{Flown: []geom.Vec3{{X: 3, Y: 4}}, Start: true, End: true}, 640, 480},
		{"nothing", Flight{Title: "empty"}, 640, 480},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p, da := renderImage(t, tt.f, tt.w, tt.h)
			w, h := float64(da.Max.X-da.Min.X), float64(da.Max.Y-da.Min.Y)
			mx, my := (p.X.Max-p.X.Min)/w, (p.Y.Max-p.Y.Min)/h
			if math.Abs(mx-my) > 0.01*math.Max(mx, my) {
				t.Errorf("metres per point: x %.5f, y %.5f; want equal within 1%%", mx, my)
			}
			need := bounds(tt.f)
			if p.X.Min > need.minX || p.X.Max < need.maxX || p.Y.Min > need.minY || p.Y.Max < need.maxY {
				t.Errorf("ranges x [%g, %g], y [%g, %g] do not cover %+v", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, need)
			}
		})
	}
}

// TestObstacleOrientation checks that a box l = 10 (along x), w = 4 at
// (0, 20) rotated by r = 30° is drawn with its +x end turned toward +y: a
// point near that end is filled, its mirror image across the line y = 20
// is not.
func TestObstacleOrientation(t *testing.T) {
	f := Flight{Obstacles: []world.Box{{L: 10, W: 4, H: 10, X: 0, Y: 20, R: 30}}}
	img, p, da := renderImage(t, f, 800, 600)
	// Box-local (3.7, 0.9), off the grid lines; its mirror is local
	// (1.07, −3.65), outside the 4 m width.
	q := geom.Vec2{X: 3.7, Y: 0.9}.Rotate(30 * math.Pi / 180)
	in := geom.Vec2{X: q.X, Y: 20 + q.Y}
	out := geom.Vec2{X: q.X, Y: 20 - q.Y}
	if b := f.Obstacles[0]; !b.Contains(in) || b.Contains(out) {
		t.Fatalf("test points wrong: %v should be inside, %v outside", in, out)
	}
	if px := pixel(p, da, 600, in.X, in.Y); !fillNear(img, px) {
		t.Errorf("pixel %v at %v, inside the box, is %v; want the obstacle fill", px, in, img.At(px.X, px.Y))
	}
	if px := pixel(p, da, 600, out.X, out.Y); fillNear(img, px) {
		t.Errorf("pixel %v at %v, outside the box, has the obstacle fill", px, out)
	}
	// x grows to the right and y upward on the image.
	o, px, py := pixel(p, da, 600, 0, 20), pixel(p, da, 600, 1, 20), pixel(p, da, 600, 0, 21)
	if px.X <= o.X || py.Y >= o.Y {
		t.Errorf("x → %v, y → %v from %v: want x to the right and y up", px, py, o)
	}
}

// fillNear reports whether a pixel within one of pt has the obstacle fill.
func fillNear(img image.Image, pt image.Point) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if isFill(img.At(pt.X+dx, pt.Y+dy)) {
				return true
			}
		}
	}
	return false
}

// isFill reports whether c is the obstacle fill over the white background,
// c·a + 255·(1−a) per channel, within 3 levels.
func isFill(c color.Color) bool {
	a := float64(obstacleFill.A) / 255
	r, g, b, _ := c.RGBA()
	return near(r>>8, float64(obstacleFill.R)*a+255*(1-a)) &&
		near(g>>8, float64(obstacleFill.G)*a+255*(1-a)) &&
		near(b>>8, float64(obstacleFill.B)*a+255*(1-a))
}

func TestWriteErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		f    Flight
		w, h int
		is   error
	}{
		{"too narrow", exampleFlight(), MinSizePx - 1, 600, ErrSize},
		{"too tall", exampleFlight(), 600, MaxSizePx + 1, ErrSize},
		{"NaN flown point", Flight{Flown: []geom.Vec3{{}, {X: nan}}}, 600, 600, nil},
		{"Inf planned point", Flight{Planned: []geom.Vec3{{Y: math.Inf(1)}}}, 600, 600, nil},
		{"NaN obstacle", Flight{Obstacles: []world.Box{{L: 1, W: nan}}}, 600, 600, nil},
		{"NaN area", Flight{Area: &world.Area{MinX: nan}}, 600, 600, nil},
	}
	for _, tt := range tests {
		for _, write := range []func(*bytes.Buffer) error{
			func(b *bytes.Buffer) error { return WritePNG(b, tt.f, tt.w, tt.h) },
			func(b *bytes.Buffer) error { return WriteSVG(b, tt.f, tt.w, tt.h) },
		} {
			var buf bytes.Buffer
			err := write(&buf)
			if err == nil {
				t.Errorf("%s: no error", tt.name)
				continue
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%s: error %v, want %v", tt.name, err, tt.is)
			}
			if buf.Len() != 0 {
				t.Errorf("%s: wrote %d bytes before failing", tt.name, buf.Len())
			}
		}
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		min  float64
		want float64
	}{{0.7, 1}, {1, 1}, {1.1, 2}, {3, 5}, {7.5, 10}, {12, 20}, {0.03, 0.05}, {0, 1}}
	for _, tt := range tests {
		if got := ticks(tt.min).step(); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ticks(%g).step() = %g, want %g", tt.min, got, tt.want)
		}
	}
	got := ticks(0.2).Ticks(-0.5, 0.45)
	var labels []string
	for _, tk := range got {
		labels = append(labels, tk.Label)
	}
	want := []string{"-0.4", "-0.2", "0.0", "0.2", "0.4"}
	if len(labels) != len(want) {
		t.Fatalf("labels %q, want %q", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Errorf("labels %q, want %q", labels, want)
			break
		}
	}
}

func near(v uint32, want float64) bool { return math.Abs(float64(v)-want) <= 3 }
