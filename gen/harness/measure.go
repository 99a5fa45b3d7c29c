package harness

import (
	"math"

	"github.com/shakedown-robotics/shakedown/gen"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/world"
)

// report flies every written test cfg.Runs more times and computes the
// paper's measures (§VI) into o.Report.
func (e *env) report(o *Outcome, model *surrogate.Model) error {
	runs := e.cfg.Runs
	var boxes [][]world.Box
	for _, i := range o.order {
		for range runs {
			boxes = append(boxes, o.Tests[i].Obstacles)
		}
	}
	var repeats [][]float64
	if len(boxes) > 0 {
		res, err := e.fly(o.cs, boxes, e.cfg.Seed, o.Budget, false, "confirming")
		if err != nil {
			return err
		}
		for k := range o.order {
			var d []float64
			for j := range runs {
				d = append(d, clearanceOf(res[k*runs+j]))
			}
			repeats = append(repeats, d)
		}
	}
	r, err := Measures(o, model, runs, repeats)
	if err != nil {
		return err
	}
	o.Report = r
	return nil
}

// Measures computes the paper's measures of a ranked generation: repeats[k]
// are the clearances of the runs fresh flights of written test k (in
// o.Written order), which are also recorded in the tests' Repeats. model
// (nil without one) gives the validation RMSE.
func Measures(o *Outcome, model *surrogate.Model, runs int, repeats [][]float64) (*Report, error) {
	nan := OptFloat(math.NaN())
	r := &Report{Runs: runs, Precision: nan, SurrogatePrecision: nan, RMSE: nan, ValidationRMSE: nan}
	r.HitRate = float64(o.Critical) / float64(o.Budget)
	if model != nil {
		r.ValidationRMSE = OptFloat(model.Info.ValRMSE)
	}
	if len(o.order) > 0 && len(repeats) == len(o.order) {
		confirmed := 0
		for k, i := range o.order {
			sum := 0.0
			for _, d := range repeats[k] {
				o.Tests[i].Repeats = append(o.Tests[i].Repeats, d)
				sum += d
			}
			if sum/float64(len(repeats[k])) < run.CriticalM {
				confirmed++
			}
		}
		r.Precision = OptFloat(float64(confirmed) / float64(len(o.order)))
	}
	var predCrit, predConf, n int
	var se float64
	for _, t := range o.Tests {
		if t.Predicted == nil {
			continue
		}
		n++
		e := *t.Predicted - t.ClearanceM
		se += e * e
		if *t.Predicted <= run.CriticalM {
			predCrit++
			if t.ClearanceM < run.CriticalM {
				predConf++
			}
		}
	}
	if n > 0 {
		r.RMSE = OptFloat(math.Sqrt(se / float64(n)))
	}
	if predCrit > 0 {
		r.SurrogatePrecision = OptFloat(float64(predConf) / float64(predCrit))
	}
	var written, all [][]world.Box
	for _, t := range o.Tests {
		all = append(all, t.Obstacles)
		if t.Rank >= 0 {
			written = append(written, t.Obstacles)
		}
	}
	var err error
	if r.InputDiversity, err = gen.InputDiversity(written); err != nil {
		return nil, err
	}
	if r.InputDiversity20, err = gen.InputDiversity(written[:min(20, len(written))]); err != nil {
		return nil, err
	}
	if r.InputDiversityAll, err = gen.InputDiversity(all); err != nil {
		return nil, err
	}
	return r, nil
}
