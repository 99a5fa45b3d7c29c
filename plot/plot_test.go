package plot

import (
	"bytes"
	"flag"
	"image/png"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

var examplePath = flag.String("example", "", "also write the example flight's PNG to this file")

// exampleFlight is competition mission 2 (competition.md §2.3) with two
// rotated obstacles in the placement area and a flown path that swerves
// around the first.
func exampleFlight() Flight {
	area := world.DefaultArea
	planned := []geom.Vec3{
		{X: 0, Y: 0, Z: 0}, {X: 0, Y: 0, Z: -10},
		{X: -6.84, Y: 53.97, Z: -10}, {X: -12.36, Y: 0.13, Z: -10}, {X: -12.36, Y: 0.13, Z: 0},
	}
	var flown []geom.Vec3
	for i := 0; i <= 400; i++ {
		u := float64(i) / 400
		var p geom.Vec2
		if u < 0.5 {
			v := u / 0.5
			p = geom.Vec2{X: -6.84 * v, Y: 53.97 * v}
			// Swerve around obstacle 1, east of the planned leg.
			p.X += 10 * math.Exp(-math.Pow((p.Y-20)/8, 2))
		} else {
			v := (u - 0.5) / 0.5
			p = geom.Vec2{X: -6.84 + (-12.36+6.84)*v, Y: 53.97 + (0.13-53.97)*v}
		}
		flown = append(flown, geom.Vec3{X: p.X, Y: p.Y, Z: -10})
	}
	return Flight{
		Title: "mission2 with 2 obstacles",
		Area:  &area,
		Obstacles: []world.Box{
			{L: 10, W: 4, H: 20, X: 0, Y: 20, R: 30},
			{L: 6, W: 3, H: 15, X: -15, Y: 35, R: -60},
		},
		Planned: planned,
		Flown:   flown,
		Start:   true,
		End:     true,
		Note:    "min clearance 2.31 m (obstacle 1)",
	}
}

func TestWritePNG(t *testing.T) {
	f := exampleFlight()
	var buf bytes.Buffer
	if err := WritePNG(&buf, f, 1000, 700); err != nil {
		t.Fatal(err)
	}
	if *examplePath != "" {
		if err := os.WriteFile(*examplePath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1000 || b.Dy() != 700 {
		t.Fatalf("image is %d × %d, want 1000 × 700", b.Dx(), b.Dy())
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if isFill(img.At(x, y)) {
				n++
			}
		}
	}
	// The two footprints cover 52 m²; at this scale that is thousands of
	// pixels. Labels, grid lines and paths cover some of them.
	if n < 1000 {
		t.Errorf("%d pixels have the obstacle fill, want at least 1000", n)
	}
}

func TestWriteSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSVG(&buf, exampleFlight(), 800, 600); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{"<svg", `width="600pt" height="450pt"`, "x (North) [m]", "y (East) [m]", "min clearance 2.31 m", "</svg>"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestByteStable(t *testing.T) {
	for _, format := range []struct {
		name  string
		write func(*bytes.Buffer, Flight) error
	}{
		{"png", func(b *bytes.Buffer, f Flight) error { return WritePNG(b, f, 640, 480) }},
		{"svg", func(b *bytes.Buffer, f Flight) error { return WriteSVG(b, f, 640, 480) }},
	} {
		var a, b bytes.Buffer
		if err := format.write(&a, exampleFlight()); err != nil {
			t.Fatal(err)
		}
		if err := format.write(&b, exampleFlight()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renders of the same flight differ", format.name)
		}
	}
}

// The legs a generator tested are drawn, labelled and named in the legend.
func TestLegs(t *testing.T) {
	f := exampleFlight()
	f.Legs = []Segment{{A: geom.Vec2{}, B: geom.Vec2{X: -6.84, Y: 53.97}, Label: "leg 2"}}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, f, 800, 600); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"legs tested", "leg 2"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}
