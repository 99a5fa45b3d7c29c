package results

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/shakedown-robotics/shakedown/bench"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/plot"
)

// Plot sizes, pixels.
const (
	pathW, pathH   = 900, 700
	errorW, errorH = 900, 450
)

// Files returns every file of the run directory for res, by relative path:
// metrics.json, results.xml, summary.txt, run_meta.json, and per flight a
// path plot, per trajectory test an error plot and a CSV of the flown
// odometry with its errors.
func Files(name string, res *bench.Result) (map[string][]byte, error) {
	files := map[string][]byte{}
	mj, err := EncodeMetrics(res.Metrics)
	if err != nil {
		return nil, err
	}
	files[MetricsFile] = mj
	ts := res.Started.UTC().Format("2006-01-02T15:04:05")
	xj, err := EncodeJUnit(res.Cases, ts)
	if err != nil {
		return nil, err
	}
	files[JUnitFile] = xj
	files[SummaryFile] = Summary(FromResult(name, res))
	meta, err := EncodeMeta(&res.Meta)
	if err != nil {
		return nil, err
	}
	files[MetaFile] = meta

	byCase := map[string][]bench.Flight{}
	var order []string
	for _, f := range res.Flights {
		if _, ok := byCase[f.Case]; !ok {
			order = append(order, f.Case)
		}
		byCase[f.Case] = append(byCase[f.Case], f)
	}
	// Plots are rendered in parallel: they are most of a run's wall time.
	type job struct {
		name   string
		render func() ([]byte, error)
	}
	var jobs []job
	for _, id := range order {
		fl := byCase[id]
		stem := stemOf(fl[0])
		for _, f := range fl {
			jobs = append(jobs, job{filepath.Join(PlotsDir, fmt.Sprintf("path-%s-robot%d.png", stem, f.Robot)), func() ([]byte, error) {
				return pathPlot(f, len(fl), res.Metrics[f.Case])
			}})
		}
		jobs = append(jobs, job{filepath.Join(PlotsDir, "error-"+stem+".png"), func() ([]byte, error) { return errorPlot(fl) }})
		files[filepath.Join(TracksDir, stem+".csv")] = tracksCSV(fl)
	}
	out := make([][]byte, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = jobs[i].render()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, fmt.Errorf("results: %s: %w", j.name, errs[i])
		}
		files[j.name] = out[i]
	}
	return files, nil
}

// pathPlot draws one robot's ideal and flown path.
func pathPlot(f bench.Flight, robots int, m map[string]bench.Metric) ([]byte, error) {
	var buf bytes.Buffer
	title := fmt.Sprintf("%s, %s, robot %d of %d", f.Type, strings.TrimPrefix(f.Param, bench.SimName+"-"), f.Robot, robots)
	flown := make([]geom.Vec3, len(f.Flown))
	for i, s := range f.Flown {
		flown[i] = s.Pos
	}
	err := plot.WritePNG(&buf, plot.Flight{Title: title, Note: pathNote(m, f.Robot), Planned: f.Ideal, Flown: flown, Start: true, End: true}, pathW, pathH)
	return buf.Bytes(), err
}

// stemOf names a flight's files: Circle-rob1-iter0.
func stemOf(f bench.Flight) string {
	p := strings.TrimPrefix(f.Param, bench.SimName+"-")
	p = strings.ReplaceAll(p, "rob#", "rob")
	p = strings.TrimPrefix(p, "rob")
	// rob1-trajCircle-iter0 → Circle-rob1-iter0
	parts := strings.Split(p, "-")
	if len(parts) == 3 && strings.HasPrefix(parts[1], "traj") {
		return strings.TrimPrefix(parts[1], "traj") + "-rob" + parts[0] + "-" + parts[2]
	}
	return strings.ReplaceAll(p, "#", "")
}

func pathNote(m map[string]bench.Metric, robot int) string {
	get := func(k string) string {
		v, ok := m["robot_"+strconv.Itoa(robot)+"."+k]
		if !ok {
			return "–"
		}
		return v.String()
	}
	return fmt.Sprintf("to path: mean %s, max %s · AirStack's (to vertices): mean %s · time %s",
		get("segment_cross_track_error_mean_m"), get("segment_cross_track_error_max_m"),
		get("cross_track_error_mean_m"), get("trajectory_execution_time_sim_s"))
}

// Colours of the error plot's robots (the plot package's palette order).
var robotColors = []color.NRGBA{
	{R: 31, G: 119, B: 180, A: 255}, {R: 255, G: 127, B: 14, A: 255}, {R: 44, G: 160, B: 44, A: 255},
	{R: 214, G: 39, B: 40, A: 255}, {R: 148, G: 103, B: 189, A: 255}, {R: 140, G: 86, B: 75, A: 255},
}

// sans is the face of the error plot's text, as the plot package's.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// errorPlot draws the distance to the path (solid) and AirStack's distance
// to the nearest vertex (dashed) over time since dispatch, per robot.
func errorPlot(fl []bench.Flight) ([]byte, error) {
	p := gplot.New()
	p.Title.Text = fmt.Sprintf("%s: distance to the path (solid) and to the nearest vertex, AirStack's rule (dashed)", fl[0].Type)
	p.Title.TextStyle.Font = font.From(sans, vg.Points(11))
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = "time since dispatch (s)"
	p.Y.Label.Text = "error (m)"
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, vg.Points(10))
		a.Tick.Label.Font = font.From(sans, vg.Points(9))
	}
	p.Legend.TextStyle.Font = font.From(sans, vg.Points(9))
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	maxY := 0.0
	for i, f := range fl {
		if len(f.Series) == 0 {
			continue
		}
		seg := make(plotter.XYs, len(f.Series))
		vtx := make(plotter.XYs, len(f.Series))
		for j, s := range f.Series {
			seg[j] = plotter.XY{X: s.T, Y: s.Seg}
			vtx[j] = plotter.XY{X: s.T, Y: s.Vertex}
			maxY = max(maxY, s.Seg, s.Vertex)
		}
		c := robotColors[i%len(robotColors)]
		l, err := plotter.NewLine(seg)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = c, vg.Points(1.4)
		lv, err := plotter.NewLine(vtx)
		if err != nil {
			return nil, err
		}
		lv.Color, lv.Width, lv.Dashes = c, vg.Points(0.7), []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(lv, l)
		p.Legend.Add(fmt.Sprintf("robot %d", f.Robot), l)
	}
	p.Y.Min, p.Y.Max = 0, math.Max(0.1, maxY*1.2)
	img := vgimg.NewWith(vgimg.UseWH(vg.Length(errorW)*vg.Inch/96, vg.Length(errorH)*vg.Inch/96), vgimg.UseDPI(96))
	c := draw.New(img)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	p.Draw(draw.Crop(c, vg.Points(4), -vg.Points(8), vg.Points(4), -vg.Points(4)))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tracksCSV writes the flown odometry of every robot of one trajectory
// test with its errors. Positions are in the competition's frame (x North,
// y East, z Up), times since dispatch.
func tracksCSV(fl []bench.Flight) []byte {
	var b strings.Builder
	b.WriteString("robot,t_s,x_m,y_m,z_m,to_path_m,to_vertex_m,lateral_m,lag_m\n")
	f6 := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, f := range fl {
		for i, s := range f.Flown {
			if i >= len(f.Series) {
				break
			}
			e := f.Series[i]
			fmt.Fprintf(&b, "%d,%s,%s,%s,%s,%s,%s,%s,%s\n", f.Robot, f6(e.T), f6(s.Pos.X), f6(s.Pos.Y), f6(-s.Pos.Z),
				f6(e.Seg), f6(e.Vertex), f6(e.Lateral), f6(e.Lag))
		}
	}
	return []byte(b.String())
}

// Write writes res into a new run directory under root, named after the
// campaign's start (DirLayout; "-2", "-3", … appended when the name is
// taken), and returns its path. Everything is rendered first and written
// into a hidden temporary directory that is renamed into place, so that a
// run directory is either complete or absent.
func Write(root string, res *bench.Result) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	base := res.Started.Format(DirLayout)
	name := base
	for i := 2; ; i++ {
		if _, err := os.Stat(filepath.Join(root, name)); os.IsNotExist(err) {
			break
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	files, err := Files(name, res)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, "."+name+".*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, rel := range sortedIDs(files) {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, files[rel], 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	dir := filepath.Join(root, name)
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return dir, nil
}
