package quad

import (
	"fmt"
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/world"
)

// CloudConfig describes a forward depth camera that publishes a point
// cloud, as Gazebo's depth-camera plugin of iris_depth_camera does for
// PX4-Avoidance (px4.md §4.1: 64 × 48 px at 20 Hz, 1.02974 rad horizontal
// field of view, clip 0.5–18 m).
//
// The planner that consumes the cloud keeps at most one point per 2° × 2°
// cell of a world-aligned polar grid around the vehicle (PX4-Avoidance's
// processPointcloud, ALPHA_RES/3). The camera is therefore sampled on that
// grid: one ray through the centre of each cell whose direction lies inside
// the camera frustum (the vehicle's attitude included), at about 1/4 of the
// rays of the 64 × 48 image (whose pixels are about 0.9° apart). This is an
// approximation: the image puts a point in every cell where any of its
// pixels sees a surface, so its silhouettes are about 0.5° wider a side
// (3 % more cells on a box filling the view), and the simulator then passes
// boxes about 0.16 m farther out on wide/
// (docs/measurements/fidelity-2026-12-07-camera.md). Zero CellDeg means 2°.
type CloudConfig struct {
	HFOVDeg   float64 // horizontal field of view
	VFOVDeg   float64 // vertical field of view
	MinRangeM float64 // near clip: closer surfaces give no point
	MaxRangeM float64 // far clip
	RateHz    float64
	CellDeg   float64 // angular sampling; 0 = 2°
}

// IrisDepthCamera returns the depth camera of PX4's iris_depth_camera model:
// 1.02974 rad horizontally, 64 × 48 px (so 2·atan(0.75·tan(hfov/2)) ≈ 46.3°
// vertically), 20 Hz, clip 0.5–18 m.
func IrisDepthCamera() CloudConfig {
	h := 1.02974
	v := 2 * math.Atan(0.75*math.Tan(h/2))
	return CloudConfig{HFOVDeg: h * 180 / math.Pi, VFOVDeg: v * 180 / math.Pi, MinRangeM: 0.5, MaxRangeM: 18, RateHz: 20, CellDeg: 2}
}

// On reports whether the camera is configured.
func (c CloudConfig) On() bool { return c.RateHz > 0 }

// Validate reports a camera that cannot be simulated.
func (c CloudConfig) Validate() error {
	if !c.On() {
		return nil
	}
	cell := c.CellDeg
	if cell == 0 {
		cell = 2
	}
	ok := c.HFOVDeg > 0 && c.HFOVDeg < 180 && c.VFOVDeg > 0 && c.VFOVDeg < 180 &&
		c.MinRangeM >= 0 && c.MaxRangeM > c.MinRangeM && !math.IsInf(c.MaxRangeM, 0) && c.MaxRangeM <= 1000 &&
		!math.IsInf(c.RateHz, 0) && c.RateHz <= 1000 && cell >= 0.5 && cell <= 10 && 180/cell == math.Round(180/cell)
	if !ok {
		return fmt.Errorf("quad: depth cloud %+v: fields of view in (0°, 180°), a finite range interval up to 1 km, a rate up to 1 kHz and a cell of 0.5–10° dividing 180° are needed", c)
	}
	return nil
}

// CloudScan is the latest point cloud: world points (NED, m) seen from the
// camera at Pos with attitude Att at time T. Points is owned by the Quad
// and overwritten by the next scan.
type CloudScan struct {
	T      float64
	Pos    geom.Vec3
	Att    geom.Quat
	Points []geom.Vec3
}

// cloudCam is the camera's state inside the Quad.
type cloudCam struct {
	cfg        CloudConfig
	cell       float64 // rad
	tanH, tanV float64
	scan       CloudScan
	// due is the pose of a frame that is due but not cast yet (pending):
	// Quad.Cloud casts it.
	due     CloudScan
	pending bool
	// Per azimuth column: the entry and exit of the horizontal ray through
	// each box footprint, reused across the column's rows.
	hits []colHit
	// The sines and cosines of the rows' elevations, elSin[ei] and
	// elCos[ei] = math.Sincos(rowElevation(ei, cell)), and of the columns'
	// azimuths for zi in [−nZ, 2·nZ), azSin[zi+nZ] and azCos[zi+nZ] =
	// math.Sincos(colAzimuth(zi, cell)): capture reads them instead of
	// calling Sincos per ray, the same values.
	elSin, elCos []float64
	azSin, azCos []float64
}

// rowElevation is the elevation of the centre of row ei (rad, up).
func rowElevation(ei int, cell float64) float64 { return (float64(ei)+0.5)*cell - math.Pi/2 }

// colAzimuth is the azimuth of the centre of column zi (rad; zi may lie
// outside one turn).
func colAzimuth(zi int, cell float64) float64 { return (float64(zi)+0.5)*cell - math.Pi }

type colHit struct{ sIn, sOut, z0, z1 float64 }

func newCloudCam(c CloudConfig) *cloudCam {
	if c.CellDeg == 0 {
		c.CellDeg = 2
	}
	cell := c.CellDeg * math.Pi / 180
	n := int(math.Round(180/c.CellDeg)) * int(math.Round(360/c.CellDeg))
	cc := &cloudCam{
		cfg: c, cell: cell,
		tanH: math.Tan(c.HFOVDeg * math.Pi / 360), tanV: math.Tan(c.VFOVDeg * math.Pi / 360),
		scan: CloudScan{T: math.Inf(-1), Points: make([]geom.Vec3, 0, n/8)},
	}
	nE := int(math.Round(math.Pi / cell))
	nZ := 2 * nE
	tab := make([]float64, 2*nE+6*nZ)
	cc.elSin, cc.elCos = tab[:nE:nE], tab[nE:2*nE:2*nE]
	cc.azSin, cc.azCos = tab[2*nE:2*nE+3*nZ:2*nE+3*nZ], tab[2*nE+3*nZ:]
	for ei := range nE {
		cc.elSin[ei], cc.elCos[ei] = math.Sincos(rowElevation(ei, cell))
	}
	for i := range 3 * nZ {
		cc.azSin[i], cc.azCos[i] = math.Sincos(colAzimuth(i-nZ, cell))
	}
	return cc
}

// colSincos is math.Sincos(colAzimuth(zi, c.cell)), from the table where
// zi lies in it.
func (c *cloudCam) colSincos(zi int) (s, co float64) {
	nZ := 2 * len(c.elSin)
	if i := zi + nZ; i >= 0 && i < len(c.azSin) {
		return c.azSin[i], c.azCos[i]
	}
	return math.Sincos(colAzimuth(zi, c.cell))
}

// capture fills the scan from pos with attitude att against the scene's
// visual boxes (l × w, as Gazebo renders them) and the ground. It allocates
// only while the point buffer grows to the most cells ever seen.
func (c *cloudCam) capture(t float64, pos geom.Vec3, att geom.Quat, scene *world.Scene) {
	sc := &c.scan
	sc.T, sc.Pos, sc.Att = t, pos, att
	sc.Points = sc.Points[:0]
	yaw := att.Yaw()
	// The frustum's angular extent in world azimuth and elevation, widened
	// for roll and pitch; cells outside it are skipped before any test.
	halfH := math.Atan(c.tanH)
	halfV := math.Atan(c.tanV)
	tilt := math.Acos(geom.Clamp(att.Rotate(geom.Vec3{Z: 1}).Z, -1, 1)) // angle of body down from NED down
	spanH := halfH + tilt + c.cell
	spanV := halfV + tilt + c.cell
	pitch := math.Asin(geom.Clamp(-att.Rotate(geom.Vec3{X: 1}).Z, -1, 1))
	nE := int(math.Round(math.Pi / c.cell))
	z0 := int(math.Floor((yaw - spanH + math.Pi) / c.cell))
	z1 := int(math.Floor((yaw + spanH + math.Pi) / c.cell))
	e0 := max(0, int(math.Floor((pitch-spanV+math.Pi/2)/c.cell)))
	e1 := min(nE-1, int(math.Floor((pitch+spanV+math.Pi/2)/c.cell)))
	if cap(c.hits) < len(scene.Boxes) {
		c.hits = make([]colHit, len(scene.Boxes))
	}
	hits := c.hits[:len(scene.Boxes)]
	minR, maxR := c.cfg.MinRangeM, c.cfg.MaxRangeM
	alt := -pos.Z
	for zi := z0; zi <= z1; zi++ {
		sa, ca := c.colSincos(zi)
		// Horizontal intersections of this column with each footprint.
		anyHit := false
		for i := range scene.Boxes {
			sIn, sOut, ok := footprintSpan(&scene.Boxes[i], pos.X, pos.Y, ca, sa, maxR)
			if !ok {
				hits[i] = colHit{sIn: math.Inf(1)}
				continue
			}
			b := &scene.Boxes[i]
			hits[i] = colHit{sIn: sIn, sOut: sOut, z0: b.Z, z1: b.Top()}
			anyHit = true
		}
		top := e1
		if !anyHit {
			// Only the ground can return a point here: rows that look down
			// steeply enough to meet it within the range.
			if alt >= maxR {
				continue
			}
			top = min(e1, int(math.Floor((-math.Asin(alt/maxR)+math.Pi/2)/c.cell)))
		}
		for ei := e0; ei <= top; ei++ {
			se, ce := c.elSin[ei], c.elCos[ei]
			d := geom.Vec3{X: ce * ca, Y: ce * sa, Z: -se}
			b := att.RotateInv(d)
			if b.X <= 0 || math.Abs(b.Y) > c.tanH*b.X || math.Abs(b.Z) > c.tanV*b.X {
				continue
			}
			r := c.rangeAlong(hits, alt, ce, se, maxR)
			if r < minR || r >= maxR {
				continue
			}
			sc.Points = append(sc.Points, pos.Add(d.Scale(r)))
		}
	}
}

// rangeAlong is the distance along a ray of elevation sin/cos (se, ce) from
// altitude alt to the nearest box surface or the ground, maxR if none.
func (c *cloudCam) rangeAlong(hits []colHit, alt, ce, se, maxR float64) float64 {
	best := maxR
	if se < 0 {
		if r := alt / -se; r < best {
			best = r
		}
	}
	if ce < 1e-9 {
		return best
	}
	tanE := se / ce
	for _, h := range hits {
		if math.IsInf(h.sIn, 1) || h.sIn/ce >= best {
			continue
		}
		// Height of the ray over the footprint's horizontal span.
		zIn := alt + h.sIn*tanE
		switch {
		case zIn >= h.z0 && zIn <= h.z1:
			best = h.sIn / ce // a side face
		case zIn > h.z1 && tanE < 0:
			// Above the top on entry, descending: the top face, if reached
			// before the exit.
			s := (h.z1 - alt) / tanE
			if s <= h.sOut {
				best = math.Min(best, s/ce)
			}
		case zIn < h.z0 && tanE > 0:
			s := (h.z0 - alt) / tanE
			if s <= h.sOut {
				best = math.Min(best, s/ce)
			}
		}
	}
	return best
}

// footprintSpan returns the horizontal distances at which the ray from
// (x, y) along (dx, dy) (unit) enters and leaves b's footprint, within maxS.
// A ray starting inside enters at 0.
func footprintSpan(b *world.Box, x, y, dx, dy, maxS float64) (sIn, sOut float64, ok bool) {
	hl, hw := b.L/2, b.W/2
	cx, cy := b.X-x, b.Y-y
	// Cheap reject on the circumcircle.
	t := geom.Clamp(cx*dx+cy*dy, 0, maxS)
	ex, ey := cx-dx*t, cy-dy*t
	if ex*ex+ey*ey > hl*hl+hw*hw {
		return 0, 0, false
	}
	l := b.Local(geom.Vec2{X: x, Y: y})
	o := b.Local(geom.Vec2{X: x + dx, Y: y + dy})
	ldx, ldy := o.X-l.X, o.Y-l.Y
	t0, t1 := 0.0, maxS
	if !slab1(l.X, ldx, -hl, hl, &t0, &t1) || !slab1(l.Y, ldy, -hw, hw, &t0, &t1) {
		return 0, 0, false
	}
	return t0, t1, true
}

func slab1(o, d, lo, hi float64, t0, t1 *float64) bool {
	if d == 0 {
		return o >= lo && o <= hi
	}
	a, b := (lo-o)/d, (hi-o)/d
	if a > b {
		a, b = b, a
	}
	*t0, *t1 = max(*t0, a), min(*t1, b)
	return *t0 <= *t1
}
