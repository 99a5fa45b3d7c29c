package surrogate

import (
	"errors"
	"math"
	"math/rand/v2"
)

// NumFeatures is the length of a test vector: l, w, x, y, r of obstacle 1,
// then of obstacle 2 (metres and degrees, canonical frame).
const NumFeatures = 10

// perObstacle is the number of features of one obstacle.
const perObstacle = NumFeatures / 2

// FeatureNames names the features in order, as the dataset CSV does.
var FeatureNames = [NumFeatures]string{"l1", "w1", "x1", "y1", "r1", "l2", "w2", "x2", "y2", "r2"}

// Features is one test vector.
type Features [NumFeatures]float64

// The layer widths of Fig. 2: per branch 5 → 10 → 20, then 40 → 20 → 1.
const (
	branchHidden = 10
	branchOut    = 20
	headHidden   = 20
)

// PaperLog are the features the paper log-transforms before standardising
// (§IV-C: "the obstacle widths and the x coordinate of obstacle one").
var PaperLog = [NumFeatures]bool{1: true, 2: true, 6: true}

// Input is the preprocessing of one feature: z = (log(v + Offset) − Mean)/SD
// when Log, else (v − Mean)/SD. Offset makes a feature with values below 1
// (obstacle 1's x is about −5 m in the canonical frame) loggable; it is 0
// for features that are at least 1.
type Input struct {
	Log    bool    `json:"log"`
	Offset float64 `json:"offset"`
	Mean   float64 `json:"mean"`
	SD     float64 `json:"sd"`
}

// minLogArg is the smallest argument of the log transform: a value further
// below the training data than the offset allows is clamped to it.
const minLogArg = 1e-3

func (in Input) apply(v float64) float64 {
	if in.Log {
		v = math.Log(math.Max(v+in.Offset, minLogArg))
	}
	return (v - in.Mean) / in.SD
}

// dense is a fully connected layer whose weights are stored input-major:
// W[i*Out+j] connects input i to output j. Model.run computes the
// layers; backDense their gradients.
type dense struct {
	In, Out int
	W, B    []float64
}

// Model is the trained surrogate: the preprocessing and the network.
type Model struct {
	Inputs [NumFeatures]Input
	// branch[k] are the two layers of obstacle k's branch; head the two
	// layers after the concatenation.
	branch [2][2]dense
	head   [2]dense
	// params holds every weight and bias; the layers' slices point into it.
	params []float64
	// Info describes how the model was trained (informational).
	Info TrainInfo
}

// TrainInfo records how a model was trained and how well it fits.
type TrainInfo struct {
	Epochs      int     `json:"epochs"`
	BatchSize   int     `json:"batch_size"`
	LearnRate   float64 `json:"learn_rate"`
	Seed        uint64  `json:"seed"`
	TrainN      int     `json:"train_samples"`
	ValN        int     `json:"validation_samples"`
	TrainMAE    float64 `json:"train_mae"`
	ValMAE      float64 `json:"validation_mae"`
	ValRMSE     float64 `json:"validation_rmse"`
	Description string  `json:"description,omitempty"`
}

// layerShapes lists (in, out) of the six layers in the order the parameter
// vector stores them: branch 1, branch 2, head.
var layerShapes = [6][2]int{
	{perObstacle, branchHidden}, {branchHidden, branchOut},
	{perObstacle, branchHidden}, {branchHidden, branchOut},
	{2 * branchOut, headHidden}, {headHidden, 1},
}

// numParams is the number of weights and biases (1401).
var numParams = func() int {
	n := 0
	for _, s := range layerShapes {
		n += s[0]*s[1] + s[1]
	}
	return n
}()

// newModel returns a model whose layers view a zeroed parameter vector.
func newModel() *Model {
	m := &Model{params: make([]float64, numParams)}
	m.bind()
	return m
}

// layers returns pointers to the six layers in parameter order.
func (m *Model) layers() [6]*dense {
	return [6]*dense{&m.branch[0][0], &m.branch[0][1], &m.branch[1][0], &m.branch[1][1], &m.head[0], &m.head[1]}
}

// bind points the layers' weight and bias slices into m.params.
func (m *Model) bind() {
	off := 0
	for k, d := range m.layers() {
		in, out := layerShapes[k][0], layerShapes[k][1]
		d.In, d.Out = in, out
		d.W = m.params[off : off+in*out : off+in*out]
		off += in * out
		d.B = m.params[off : off+out : off+out]
		off += out
	}
}

// initGlorot draws every weight from the Glorot (Xavier) uniform
// distribution, ±√(6/(in+out)), and zeroes the biases: Keras' defaults.
func (m *Model) initGlorot(rng *rand.Rand) {
	for _, d := range m.layers() {
		lim := math.Sqrt(6 / float64(d.In+d.Out))
		for i := range d.W {
			d.W[i] = lim * (2*rng.Float64() - 1)
		}
		clear(d.B)
	}
}

// scratch holds the activations of one forward pass.
type scratch struct {
	in  [NumFeatures]float64
	b1  [2][branchHidden]float64
	cat [2 * branchOut]float64
	h   [headHidden]float64
	out [1]float64
}

// run computes the network on the standardised inputs in s.in. The layer
// sizes are constants here, so the loops compile without bounds checks.
func (m *Model) run(s *scratch) float64 {
	for k := range 2 {
		l0, l1 := &m.branch[k][0], &m.branch[k][1]
		in := (*[perObstacle]float64)(s.in[k*perObstacle:])
		h := &s.b1[k]
		*h = [branchHidden]float64(l0.B)
		for i, v := range in {
			if v == 0 {
				continue
			}
			for j, w := range (*[branchHidden]float64)(l0.W[i*branchHidden:]) {
				h[j] += w * v
			}
		}
		for j, v := range h {
			if v < 0 {
				h[j] = 0
			}
		}
		out := (*[branchOut]float64)(s.cat[k*branchOut:])
		*out = [branchOut]float64(l1.B)
		for i, v := range h {
			if v == 0 {
				continue
			}
			for j, w := range (*[branchOut]float64)(l1.W[i*branchOut:]) {
				out[j] += w * v
			}
		}
		for j, v := range out {
			if v < 0 {
				out[j] = 0
			}
		}
	}
	w2 := m.head[0].W
	s.h = [headHidden]float64(m.head[0].B)
	for i, v := range &s.cat {
		if v == 0 {
			continue
		}
		for j, w := range (*[headHidden]float64)(w2[i*headHidden:]) {
			s.h[j] += w * v
		}
	}
	w3 := (*[headHidden]float64)(m.head[1].W)
	y := m.head[1].B[0]
	for j, v := range &s.h {
		if v < 0 {
			s.h[j] = 0
			continue
		}
		y += w3[j] * v
	}
	s.out[0] = y
	return y
}

// standardize fills s.in from raw features.
func (m *Model) standardize(s *scratch, x *Features) {
	for i, v := range x {
		s.in[i] = m.Inputs[i].apply(v)
	}
}

// Predict returns the predicted minimum clearance for x, metres.
func (m *Model) Predict(x Features) float64 {
	var s scratch
	m.standardize(&s, &x)
	return m.run(&s)
}

// PredictBatch writes the prediction for xs[i] into dst[i]; dst must be at
// least as long as xs. It allocates nothing.
func (m *Model) PredictBatch(dst []float64, xs []Features) {
	if len(dst) < len(xs) {
		panic("surrogate: PredictBatch: dst shorter than xs")
	}
	var s scratch
	for i := range xs {
		m.standardize(&s, &xs[i])
		dst[i] = m.run(&s)
	}
}

// ErrModel is wrapped by every error about a model that cannot be used.
var ErrModel = errors.New("surrogate: bad model")
