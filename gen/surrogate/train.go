package surrogate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Dataset is a set of tests with their simulated minimum clearances.
type Dataset struct {
	X []Features
	Y []float64 // metres
	// Frame is the frame the features are in, as the CSV's "# frame:"
	// line says (see FrameLine): FrameCanonical, or the case study whose
	// competition frame they are in; "" when the CSV does not say.
	Frame string
}

// Len returns the number of samples.
func (d Dataset) Len() int { return len(d.X) }

// Subset returns the samples at idx.
func (d Dataset) Subset(idx []int) Dataset {
	out := Dataset{X: make([]Features, len(idx)), Y: make([]float64, len(idx)), Frame: d.Frame}
	for k, i := range idx {
		out.X[k], out.Y[k] = d.X[i], d.Y[i]
	}
	return out
}

// Append returns d with the samples of e added.
func (d Dataset) Append(e Dataset) Dataset {
	return Dataset{X: append(d.X[:len(d.X):len(d.X)], e.X...), Y: append(d.Y[:len(d.Y):len(d.Y)], e.Y...), Frame: d.Frame}
}

// Config configures training. Zero values mean the paper's settings.
type Config struct {
	Epochs    int     // 0 = 200
	BatchSize int     // 0 = 128
	LearnRate float64 // Adam's step size; 0 = 0.001 (Keras' default)
	// ValFraction is the share of samples held out for validation; 0 means
	// 0.2, a negative value none.
	ValFraction float64
	Seed        uint64 // seeds the split, the initialisation and the batches
	// Log selects the log-transformed features; nil means PaperLog.
	Log *[NumFeatures]bool
}

// Adam's decay rates and ε, Keras' defaults.
const (
	adamBeta1 = 0.9
	adamBeta2 = 0.999
	adamEps   = 1e-7
)

// ErrData is wrapped by errors about a dataset that cannot be trained on.
var ErrData = errors.New("surrogate: bad dataset")

// Split returns the indices of the training and validation samples of an
// n-sample dataset under cfg: a seeded shuffle, the first 1 − ValFraction
// for training.
func Split(n int, cfg Config) (train, val []int) {
	frac := cfg.ValFraction
	switch {
	case frac == 0:
		frac = 0.2
	case frac < 0:
		frac = 0
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5b117))
	perm := rng.Perm(n)
	nVal := int(math.Round(frac * float64(n)))
	if nVal >= n {
		nVal = n - 1
	}
	return perm[:n-nVal], perm[n-nVal:]
}

// Train fits a model to d as the paper does (§IV-C): preprocessing
// statistics from the training split, then Adam on the mean absolute
// error. The model's Info holds the final training and validation errors.
func Train(d Dataset, cfg Config) (*Model, error) {
	if len(d.X) != len(d.Y) {
		return nil, fmt.Errorf("%w: %d feature rows but %d targets", ErrData, len(d.X), len(d.Y))
	}
	if len(d.X) < 2 {
		return nil, fmt.Errorf("%w: %d samples, want at least 2", ErrData, len(d.X))
	}
	for i := range d.X {
		for j, v := range d.X[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: sample %d: %s = %v", ErrData, i, FeatureNames[j], v)
			}
		}
		if math.IsNaN(d.Y[i]) || math.IsInf(d.Y[i], 0) {
			return nil, fmt.Errorf("%w: sample %d: target %v", ErrData, i, d.Y[i])
		}
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = 200
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 128
	}
	if cfg.LearnRate == 0 {
		cfg.LearnRate = 0.001
	}
	if cfg.Epochs < 0 || cfg.BatchSize < 0 || !(cfg.LearnRate > 0) || math.IsInf(cfg.LearnRate, 0) || cfg.ValFraction >= 1 {
		return nil, fmt.Errorf("surrogate: bad training configuration %+v", cfg)
	}
	logs := PaperLog
	if cfg.Log != nil {
		logs = *cfg.Log
	}
	trIdx, valIdx := Split(len(d.X), cfg)
	tr, val := d.Subset(trIdx), d.Subset(valIdx)

	m := newModel()
	m.Inputs = fitInputs(tr.X, logs)
	m.initGlorot(rand.New(rand.NewPCG(cfg.Seed, 0x1417)))
	// Standardise once.
	z := make([][NumFeatures]float64, len(tr.X))
	for i := range tr.X {
		for j, v := range tr.X[i] {
			z[i][j] = m.Inputs[j].apply(v)
		}
	}
	t := newTrainer(m, cfg.LearnRate)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xba7c4))
	order := make([]int, len(z))
	for i := range order {
		order[i] = i
	}
	for range cfg.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for b := 0; b < len(order); b += cfg.BatchSize {
			batch := order[b:min(b+cfg.BatchSize, len(order))]
			t.step(z, tr.Y, batch, maeGrad)
		}
	}
	m.Info = TrainInfo{Epochs: cfg.Epochs, BatchSize: cfg.BatchSize, LearnRate: cfg.LearnRate, Seed: cfg.Seed,
		TrainN: tr.Len(), ValN: val.Len()}
	m.Info.TrainMAE, _ = m.Errors(tr)
	if val.Len() > 0 {
		m.Info.ValMAE, m.Info.ValRMSE = m.Errors(val)
	}
	return m, nil
}

// fitInputs computes the preprocessing statistics of xs.
func fitInputs(xs []Features, logs [NumFeatures]bool) [NumFeatures]Input {
	var ins [NumFeatures]Input
	for j := range ins {
		in := Input{Log: logs[j]}
		if in.Log {
			lo := math.Inf(1)
			for i := range xs {
				lo = math.Min(lo, xs[i][j])
			}
			if lo < 1 {
				in.Offset = 1 - lo
			}
		}
		var sum, sq float64
		for i := range xs {
			v := xs[i][j]
			if in.Log {
				v = math.Log(math.Max(v+in.Offset, minLogArg))
			}
			sum += v
			sq += v * v
		}
		n := float64(len(xs))
		in.Mean = sum / n
		in.SD = math.Sqrt(math.Max(0, sq/n-in.Mean*in.Mean))
		if !(in.SD > 1e-12) {
			in.SD = 1 // a constant feature
		}
		ins[j] = in
	}
	return ins
}

// Errors returns the mean absolute error and the root mean squared error
// of m on d.
func (m *Model) Errors(d Dataset) (mae, rmse float64) {
	if d.Len() == 0 {
		return 0, 0
	}
	var s scratch
	for i := range d.X {
		m.standardize(&s, &d.X[i])
		e := m.run(&s) - d.Y[i]
		mae += math.Abs(e)
		rmse += e * e
	}
	n := float64(d.Len())
	return mae / n, math.Sqrt(rmse / n)
}

// lossGrad returns the derivative of one sample's loss with respect to the
// prediction p of target y.
type lossGrad func(p, y float64) float64

// maeGrad is the derivative of |p − y| (0 at the kink, as TensorFlow's
// sign does).
func maeGrad(p, y float64) float64 {
	switch {
	case p > y:
		return 1
	case p < y:
		return -1
	}
	return 0
}

// trainer holds Adam's state and the gradient buffers.
type trainer struct {
	m      *Model
	grad   *Model // a model whose parameters hold the gradient
	mom, v []float64
	lr     float64
	t      int
	s      scratch
	b      backScratch
}

func newTrainer(m *Model, lr float64) *trainer {
	return &trainer{m: m, grad: newModel(), mom: make([]float64, numParams), v: make([]float64, numParams), lr: lr}
}

// step takes one Adam step on the mean loss of the samples batch of z, y.
func (t *trainer) step(z [][NumFeatures]float64, y []float64, batch []int, lg lossGrad) {
	clear(t.grad.params)
	inv := 1 / float64(len(batch))
	for _, i := range batch {
		t.s.in = z[i]
		p := t.m.run(&t.s)
		t.m.backward(t.grad, &t.s, &t.b, lg(p, y[i])*inv)
	}
	t.t++
	c1 := 1 - math.Pow(adamBeta1, float64(t.t))
	c2 := 1 - math.Pow(adamBeta2, float64(t.t))
	// Keras' form: lr_t = lr·√(1−β2ᵗ)/(1−β1ᵗ), ε added to √v.
	lrT := t.lr * math.Sqrt(c2) / c1
	for k, g := range t.grad.params {
		t.mom[k] = adamBeta1*t.mom[k] + (1-adamBeta1)*g
		t.v[k] = adamBeta2*t.v[k] + (1-adamBeta2)*g*g
		t.m.params[k] -= lrT * t.mom[k] / (math.Sqrt(t.v[k]) + adamEps)
	}
}

// backScratch holds the gradients of the activations of one sample.
type backScratch struct {
	dh   [headHidden]float64
	dcat [2 * branchOut]float64
	db1  [2][branchHidden]float64
}

// backward adds to g's parameters the gradient of a sample's loss, whose
// derivative with respect to the output is gOut, for the forward pass
// recorded in s.
func (m *Model) backward(g *Model, s *scratch, b *backScratch, gOut float64) {
	if gOut == 0 {
		return
	}
	out := [1]float64{gOut}
	backDense(&m.head[1], &g.head[1], s.h[:], out[:], b.dh[:])
	reluMask(b.dh[:], s.h[:])
	backDense(&m.head[0], &g.head[0], s.cat[:], b.dh[:], b.dcat[:])
	reluMask(b.dcat[:], s.cat[:])
	for k := range 2 {
		backDense(&m.branch[k][1], &g.branch[k][1], s.b1[k][:], b.dcat[k*branchOut:(k+1)*branchOut], b.db1[k][:])
		reluMask(b.db1[k][:], s.b1[k][:])
		backDense(&m.branch[k][0], &g.branch[k][0], s.in[k*perObstacle:(k+1)*perObstacle], b.db1[k][:], nil)
	}
}

// backDense accumulates the gradients of layer d into gd given its input x
// and the gradient dOut of its (pre-activation) output, and writes the
// gradient of its input into dIn unless dIn is nil.
func backDense(d, gd *dense, x, dOut, dIn []float64) {
	for j, g := range dOut {
		gd.B[j] += g
	}
	for i, v := range x[:d.In] {
		row := d.W[i*d.Out : (i+1)*d.Out]
		grow := gd.W[i*d.Out : (i+1)*d.Out]
		s := 0.0
		for j, g := range dOut[:d.Out] {
			grow[j] += v * g
			s += row[j] * g
		}
		if dIn != nil {
			dIn[i] = s
		}
	}
}

// reluMask zeroes the gradient of units whose ReLU output was 0.
func reluMask(d, act []float64) {
	for i, a := range act[:len(d)] {
		if a <= 0 {
			d[i] = 0
		}
	}
}
