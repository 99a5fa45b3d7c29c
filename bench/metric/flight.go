package metric

import "math"

// Constants of AirStack's test modules (airstack.md §2.1, §6).
const (
	// TakeoffMotionM is the rise over the first sample that marks the start
	// of the climb (TAKEOFF_MOTION_THRESHOLD_M).
	TakeoffMotionM = 0.3
	// SettlingWindowS is the window of the steady-state altitude
	// (SETTLING_WINDOW_S) and of the hover reference.
	SettlingWindowS = 1.0
	// TakeoffReachFrac is the fraction of the target that ends the climb.
	TakeoffReachFrac = 0.95
	// LandStartFrac is the fraction of the peak below which descent counts.
	LandStartFrac = 0.8
	// LandedAltM ends the descent and bounds final_altitude_m.
	LandedAltM = 0.5
)

// Takeoff holds _takeoff_metrics over a takeoff capture.
type Takeoff struct {
	// AltErr is mean(z over the last SettlingWindowS) − target, signed.
	AltErr float64
	// Overshoot is max(0, max z − target).
	Overshoot float64
	// Duration is t(first z ≥ 0.95·target) − t(first z > z0 + 0.3), z0
	// the first sample's; HasDuration is false unless both exist in that
	// order.
	Duration    float64
	HasDuration bool
	// VelRMSE is the RMSE of the finite-difference climb rate against the
	// commanded speed over the same window (takeoff_hover_land's
	// velocity_rmse_m_sim_s); NaN without a window.
	VelRMSE float64
}

// TakeoffMetrics computes Takeoff for samples climbing to targetM at
// speedMS.
func TakeoffMetrics(samples []Sample, targetM, speedMS float64) Takeoff {
	m := Takeoff{VelRMSE: math.NaN()}
	if len(samples) == 0 {
		return m
	}
	last := samples[len(samples)-1].T
	var sum float64
	var n int
	maxZ := math.Inf(-1)
	for _, s := range samples {
		if s.T >= last-SettlingWindowS {
			sum += s.Alt()
			n++
		}
		maxZ = math.Max(maxZ, s.Alt())
	}
	m.AltErr = sum/float64(n) - targetM
	m.Overshoot = math.Max(0, maxZ-targetM)
	z0 := samples[0].Alt()
	start := firstIndex(samples, func(s Sample) bool { return s.Alt() > z0+TakeoffMotionM })
	end := firstIndex(samples, func(s Sample) bool { return s.Alt() >= TakeoffReachFrac*targetM })
	if start >= 0 && end >= 0 && samples[start].T < samples[end].T {
		m.Duration, m.HasDuration = samples[end].T-samples[start].T, true
		m.VelRMSE = rateRMSE(samples[start:end+1], speedMS)
	}
	return m
}

// Landing holds _landing_metrics over a landing capture.
type Landing struct {
	// FinalAlt is the last sample's height.
	FinalAlt float64
	// Duration is t(first z < 0.5) − t(first z < 0.8·peak), peak the
	// capture's highest; HasDuration is false unless both exist in order.
	Duration    float64
	HasDuration bool
	// VelRMSE is the RMSE of the finite-difference descent rate against −speed
	// over the same window; NaN without a window.
	VelRMSE float64
}

// LandingMetrics computes Landing for samples descending at speedMS.
func LandingMetrics(samples []Sample, speedMS float64) Landing {
	m := Landing{VelRMSE: math.NaN()}
	if len(samples) == 0 {
		return m
	}
	m.FinalAlt = samples[len(samples)-1].Alt()
	peak := math.Inf(-1)
	for _, s := range samples {
		peak = math.Max(peak, s.Alt())
	}
	start := firstIndex(samples, func(s Sample) bool { return s.Alt() < LandStartFrac*peak })
	end := firstIndex(samples, func(s Sample) bool { return s.Alt() < LandedAltM })
	if start >= 0 && end >= 0 && samples[start].T < samples[end].T {
		m.Duration, m.HasDuration = samples[end].T-samples[start].T, true
		m.VelRMSE = rateRMSE(samples[start:end+1], -speedMS)
	}
	return m
}

// Hover holds the hover phase's metrics of takeoff_hover_land.
type Hover struct {
	// AltMeanErr is |mean z − mean z over the first SettlingWindowS|.
	AltMeanErr float64
	// PosStd is √(var x + var y + var z) (population variances).
	PosStd float64
}

// HoverMetrics computes Hover; zero for no samples.
func HoverMetrics(samples []Sample) Hover {
	var h Hover
	if len(samples) == 0 {
		return h
	}
	t0 := samples[0].T
	var mean, first [3]float64
	var nFirst int
	for _, s := range samples {
		v := [3]float64{s.Pos.X, s.Pos.Y, s.Alt()}
		for i := range v {
			mean[i] += v[i]
		}
		if s.T < t0+SettlingWindowS {
			first[2] += s.Alt()
			nFirst++
		}
	}
	n := float64(len(samples))
	for i := range mean {
		mean[i] /= n
	}
	h.AltMeanErr = math.Abs(mean[2] - first[2]/float64(nFirst))
	var v float64
	for _, s := range samples {
		d := [3]float64{s.Pos.X - mean[0], s.Pos.Y - mean[1], s.Alt() - mean[2]}
		v += d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
	}
	h.PosStd = math.Sqrt(v / n)
	return h
}

func firstIndex(s []Sample, f func(Sample) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// rateRMSE is the RMSE of the finite-difference dz/dt over s against want.
func rateRMSE(s []Sample, want float64) float64 {
	var sq float64
	var n int
	for i := 1; i < len(s); i++ {
		dt := s[i].T - s[i-1].T
		if dt <= 0 {
			continue
		}
		e := (s[i].Alt()-s[i-1].Alt())/dt - want
		sq += e * e
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(sq / float64(n))
}
