package main

import (
	"fmt"
	"io"
	"math"

	"github.com/shakedown-robotics/shakedown/gen/harness"
)

func printGenSummary(w io.Writer, o *harness.Outcome) {
	best := "-"
	if !math.IsInf(float64(o.BestM), 1) {
		best = fmt.Sprintf("%.2f m", o.BestM)
	}
	fmt.Fprintf(w, "%s, strategy %s, budget %d, seed %d\n", o.Mission, o.Strategy, o.Budget, o.Seed)
	fmt.Fprintf(w, "| simulations | critical tests | critical flights | confirmed tests | timed out | hit rate | best distance |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %.1f %% | %s |\n", o.Simulations, o.Critical, o.CriticalFlights, o.Confirmed, o.TimedOut,
		100*float64(o.CriticalFlights)/float64(max(1, o.Simulations)), best)
	if s := o.Search; s != nil {
		fmt.Fprintf(w, "search: %d seeds, %d mutants, %d confirmation flights, %d confirmed (%d robust), %d mutant draws refused, %d failures not written (they fly as a written test)\n",
			s.Seeds, s.Mutants, s.Reflights, s.Confirmed, s.Robust, s.Rejected, o.Duplicates)
	}
	if m := o.FlightModel; m != nil {
		fmt.Fprintf(w, "flight model (%s): %d fits, last on %d flights, leave-one-out RMSE %.2f m (length scale %.2g, noise %.2f m), %d mutants scored\n",
			m.Name, m.Fits, m.Flights, m.LOORMSE, m.LengthScale, m.NoiseSD, m.Scored)
	}
	for _, l := range o.Legs {
		z := l.Zone
		if c := l.CornerAt; c != nil {
			fmt.Fprintf(w, "corner %d (%.1f, %.1f) → (%.1f, %.1f) → (%.1f, %.1f): zone %.0f m², %d simulations, %d critical, %d timed out\n",
				l.Corner, z.LegA[0], z.LegA[1], c[0], c[1], z.LegB[0], z.LegB[1], z.AreaM2, l.Simulations, l.Critical, l.TimedOut)
		} else {
			fmt.Fprintf(w, "leg %d (%.1f, %.1f) → (%.1f, %.1f): zone %.0f m², %d simulations, %d critical, %d timed out\n",
				l.Leg, z.LegA[0], z.LegA[1], z.LegB[0], z.LegB[1], z.AreaM2, l.Simulations, l.Critical, l.TimedOut)
		}
		if p := l.Pipeline; p != nil {
			fmt.Fprintf(w, "  pipeline: %d candidates predicted, %d infeasible, %d phase-2 replacements, input diversity %.2f → %.2f (raster), %d retrainings\n",
				p.Candidates, p.Infeasible, p.Replacements, p.Diversity1, p.Diversity2, p.Retrains)
		}
	}
	if len(o.Legs) == 0 {
		fmt.Fprintln(w, "legs: none (the random strategy draws over the whole placement area)")
	}
	fmt.Fprintf(w, "time: model %.1f s, generation %.1f s, simulation %.1f s\n", o.ModelS, o.GenerateS, o.SimulateS)
}

func printGenReport(w io.Writer, o *harness.Outcome) {
	r := o.Report
	pct := func(o harness.OptFloat) string {
		v := float64(o)
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf("%.1f %%", 100*v)
	}
	m := func(o harness.OptFloat) string {
		v := float64(o)
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf("%.2f m", v)
	}
	fmt.Fprintf(w, "| mission | strategy | budget | critical | timed out | hit rate | confirmed / simulations | precision first 20 (%d runs) | precision best 20 | surrogate precision | RMSE generated | RMSE validation | input diversity first 20 | output diversity first 20 | critical on several legs |\n", r.Runs)
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %d |\n", o.Mission, o.Strategy, o.Budget, o.Critical, o.TimedOut,
		pct(harness.OptFloat(r.HitRate)), pct(harness.OptFloat(r.ConfirmedRate)), pct(r.First20.Precision), pct(r.Best20.Precision), pct(r.SurrogatePrecision), m(r.RMSE), m(r.ValidationRMSE),
		r.First20.InputDiversity, r.First20.OutputDiversity, r.MultiLeg)
}
