package fidelity

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

func num(v float64, prec int) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// WriteText writes the report as a table: one line per group (pooled, per
// source and mission, per mission), then the tests that disagree most.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tests, %d run(s) each\n", len(r.Tests), r.Runs)
	fmt.Fprintf(&b, "%-24s %5s %6s %7s %5s %8s %6s %6s %6s %6s %8s %7s\n",
		"group", "n", "rho", "p", "near", "rho<3m", "MAE m", "bias m", "coll%", "crit%", "air x", "path m")
	row := func(s Stats) {
		fmt.Fprintf(&b, "%-24s %5d %6s %7s %5d %8s %6s %6s %6s %6s %8s %7s\n", s.Group, s.N, num(s.Rho, 2), num(s.P, 4),
			s.NearN, num(s.RhoNear, 2), num(s.MAE, 2), num(s.Bias, 2), num(100*s.CollisionAgree, 1), num(100*s.CriticalAgree, 1),
			num(s.AirRatio, 2), num(s.PathErrM, 2))
	}
	row(r.Pooled)
	for _, g := range r.Groups {
		row(g)
	}
	fmt.Fprintf(&b, "the simulator's critical verdict (under %g m) as a prediction of PX4's: of the tests it found critical, the share critical on PX4 too (precision); of PX4's critical tests, the share it found (recall):\n", CriticalM)
	fmt.Fprintf(&b, "  %-24s %5s %8s %8s %5s %7s %8s\n", "group", "n", "sim crit", "px4 crit", "both", "prec %", "recall %")
	for _, s := range append([]Stats{r.Pooled}, r.Groups...) {
		fmt.Fprintf(&b, "  %-24s %5d %8d %8d %5d %7s %8s\n", s.Group, s.N, s.SimCritN, s.PX4CritN, s.BothCritN,
			num(100*s.CritPrecision, 1), num(100*s.CritRecall, 1))
	}
	var slow []Stats
	for _, s := range append([]Stats{r.Pooled}, r.Groups...) {
		if s.SlowN > 0 {
			slow = append(slow, s)
		}
	}
	if len(slow) > 0 {
		fmt.Fprintf(&b, "share of the time at cruise height flown slower than %g m/s (over %g s), over the tests with PX4's time series: median, mean, and the tests that crawled (slow share at least %g %%):\n", SlowMS, SpeedWindowS, 100*CrawlShare)
		fmt.Fprintf(&b, "  %-24s %5s %6s %6s %8s %8s %9s %9s\n", "group", "n", "px4 %", "sim %", "px4 mean", "sim mean", "px4 crawl", "sim crawl")
		for _, s := range slow {
			fmt.Fprintf(&b, "  %-24s %5d %6s %6s %8s %8s %9s %9s\n", s.Group, s.SlowN, num(100*s.PX4Slow, 1), num(100*s.SimSlow, 1),
				num(100*s.PX4SlowMean, 1), num(100*s.SimSlowMean, 1), num(100*s.PX4Crawled, 1), num(100*s.SimCrawled, 1))
		}
	}
	if len(r.Bands) > 0 {
		b.WriteString("by PX4's clearance (m), pooled:\n")
		fmt.Fprintf(&b, "  %-11s %5s %8s %8s %6s %9s\n", "px4", "n", "px4 mean", "sim mean", "bias", "sim crit%")
		for _, d := range r.Bands {
			band := fmt.Sprintf("%g-%g", d.LoM, d.HiM)
			if math.IsInf(d.HiM, 1) {
				band = fmt.Sprintf("%g+", d.LoM)
			}
			fmt.Fprintf(&b, "  %-11s %5d %8.2f %8.2f %+6.2f %9.1f\n", band, d.N, d.PX4MeanM, d.SimMeanM, d.SimMeanM-d.PX4MeanM, 100*d.SimCritical)
		}
	}
	if len(r.Geometry) > 0 {
		b.WriteString("by where the boxes stand on the mission's straight path, pooled:\n")
		fmt.Fprintf(&b, "  %-22s %5s %8s %8s %6s %9s %9s\n", "boxes", "n", "px4 mean", "sim mean", "bias", "px4 crit%", "sim crit%")
		for _, g := range r.Geometry {
			where := "beside the path"
			switch {
			case g.Across && math.IsInf(g.HiM, 1):
				where = fmt.Sprintf("across, detour %g+ m", g.LoM)
			case g.Across:
				where = fmt.Sprintf("across, detour %g-%g m", g.LoM, g.HiM)
			}
			fmt.Fprintf(&b, "  %-22s %5d %8.2f %8.2f %+6.2f %9.1f %9.1f\n", where, g.N, g.PX4MeanM, g.SimMeanM,
				g.SimMeanM-g.PX4MeanM, 100*g.PX4Critical, 100*g.SimCritical)
		}
	}
	if len(r.Repeat) > 0 {
		b.WriteString("repeat scatter, |difference of clearance| between two flights of one layout (m):\n")
		fmt.Fprintf(&b, "  %-28s %5s %5s %5s %5s %5s %5s\n", "flights", "pairs", "mean", "q25", "q50", "q75", "q90")
		for _, s := range r.Repeat {
			fmt.Fprintf(&b, "  %-28s %5d %5.2f %5.2f %5.2f %5.2f %5.2f\n", s.What, s.N, s.Mean, s.Q25, s.Q50, s.Q75, s.Q90)
		}
	}
	if len(r.Floor) > 0 {
		b.WriteString("PX4's floor: on the layouts flown more than once, each PX4 flight predicted by the layout's other flights, and the simulator on the same flights:\n")
		for _, s := range r.Floor {
			row(s)
		}
	}
	if len(r.Grounded) > 0 {
		fmt.Fprintf(&b, "PX4 apparently never left the ground in %d test(s): its distance is the take-off point's to the nearest box, and the simulator flew past closer:\n", len(r.Grounded))
		for _, t := range r.Grounded {
			fmt.Fprintf(&b, "  %-44s px4 %5.2f  sim %5.2f\n", t.Mission+"/"+t.Test, t.PX4M, t.MeanM)
		}
	}
	b.WriteString("disagree most (PX4 vs simulator mean clearance, m):\n")
	for _, t := range r.Worst {
		runs := make([]string, len(t.SimM))
		for i, v := range t.SimM {
			runs[i] = num(v, 2)
		}
		name := t.Test
		if t.Mission != "" {
			name = t.Mission + "/" + t.Test
		}
		fmt.Fprintf(&b, "  %-44s px4 %5.2f  sim %5.2f  runs [%s]  collided %d/%d\n", name, t.PX4M, t.MeanM, strings.Join(runs, " "), t.Collided, len(t.SimM))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarshalJSON writes the statistics with null for values that could not be
// computed (NaN), which JSON has no number for.
func (s Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	b, err := json.Marshal(struct {
		plain
		Rho      *float64 `json:"spearman_rho"`
		P        *float64 `json:"p_value"`
		RhoNear  *float64 `json:"spearman_rho_near"`
		AirRatio *float64 `json:"airborne_ratio_median"`
		PathErrM *float64 `json:"path_error_mean_m"`
		PX4Slow  *float64 `json:"px4_slow_share_median"`
		SimSlow  *float64 `json:"sim_slow_share_median"`
		PX4Mean  *float64 `json:"px4_slow_share_mean"`
		SimMean  *float64 `json:"sim_slow_share_mean"`
		PX4Crawl *float64 `json:"px4_crawled_share"`
		SimCrawl *float64 `json:"sim_crawled_share"`
		CritPrec *float64 `json:"critical_precision"`
		CritRec  *float64 `json:"critical_recall"`
	}{plain(s), opt(s.Rho), opt(s.P), opt(s.RhoNear), opt(s.AirRatio), opt(s.PathErrM), opt(s.PX4Slow), opt(s.SimSlow),
		opt(s.PX4SlowMean), opt(s.SimSlowMean), opt(s.PX4Crawled), opt(s.SimCrawled), opt(s.CritPrecision), opt(s.CritRecall)})
	return b, err
}

// MarshalJSON writes the open upper edge of the last band as null.
func (g Geometry) MarshalJSON() ([]byte, error) {
	type plain Geometry
	return json.Marshal(struct {
		plain
		HiM *float64 `json:"detour_hi_m"`
	}{plain(g), opt(g.HiM)})
}

// MarshalJSON writes the open upper edge of the last band as null.
func (d Band) MarshalJSON() ([]byte, error) {
	type plain Band
	return json.Marshal(struct {
		plain
		HiM *float64 `json:"hi_m"`
	}{plain(d), opt(d.HiM)})
}

func opt(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
