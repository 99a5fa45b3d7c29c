package surrogate

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// randomModel returns a model with Glorot weights, small random biases and
// identity preprocessing.
func randomModel(seed uint64) *Model {
	m := newModel()
	rng := rand.New(rand.NewPCG(seed, 1))
	m.initGlorot(rng)
	for _, d := range m.layers() {
		for i := range d.B {
			d.B[i] = 0.1 * rng.NormFloat64()
		}
	}
	for i := range m.Inputs {
		m.Inputs[i] = Input{SD: 1}
	}
	return m
}

// The analytic gradient of a smooth loss (½(p − y)²) matches central finite
// differences for every parameter.
func TestGradientCheck(t *testing.T) {
	m := randomModel(7)
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 6
	z := make([][NumFeatures]float64, n)
	y := make([]float64, n)
	for i := range z {
		for j := range z[i] {
			z[i][j] = rng.NormFloat64()
		}
		y[i] = rng.NormFloat64()
	}
	sq := func(p, y float64) float64 { return p - y }
	loss := func() float64 {
		var s scratch
		l := 0.0
		for i := range z {
			s.in = z[i]
			e := m.run(&s) - y[i]
			l += 0.5 * e * e
		}
		return l / n
	}
	g := newModel()
	var s scratch
	var b backScratch
	for i := range z {
		s.in = z[i]
		p := m.run(&s)
		m.backward(g, &s, &b, sq(p, y[i])/n)
	}
	const h = 1e-6
	worst := 0.0
	for k := range m.params {
		old := m.params[k]
		m.params[k] = old + h
		lp := loss()
		m.params[k] = old - h
		lm := loss()
		m.params[k] = old
		num := (lp - lm) / (2 * h)
		err := math.Abs(num-g.params[k]) / math.Max(1e-4, math.Abs(num)+math.Abs(g.params[k]))
		worst = math.Max(worst, err)
		if err > 1e-5 {
			t.Errorf("parameter %d: got analytic %.9g; want numeric %.9g", k, g.params[k], num)
		}
	}
	t.Logf("%d parameters, worst relative error %.2g", numParams, worst)
	if numParams != 1401 {
		t.Errorf("got %d parameters; want 1401 (Fig. 2)", numParams)
	}
}

// synthetic returns n samples of a smooth clearance-like function of the
// ten features.
func synthetic(n int, seed uint64) Dataset {
	rng := rand.New(rand.NewPCG(seed, 2))
	d := Dataset{}
	for range n {
		var x Features
		for k := range 2 {
			x[5*k+0] = 2 + 18*rng.Float64()
			x[5*k+1] = 2 + 18*rng.Float64()
			x[5*k+2] = -40 + 70*rng.Float64()
			x[5*k+3] = 10 + 30*rng.Float64()
			x[5*k+4] = 90 * rng.Float64()
		}
		x[2] = -5 + 8*rng.NormFloat64()
		// A smooth clearance-like function: obstacle 1's edge distance from
		// the line x = −5 through a soft saturation, plus smaller terms.
		edge := math.Abs(x[2]+5) - (x[0]+x[1])/4
		y := 1.5 + math.Tanh(edge/4) + 0.005*x[4] - 0.02*x[6] + 0.01*x[8]
		d.X = append(d.X, x)
		d.Y = append(d.Y, y)
	}
	return d
}

// Training on a known function reaches a known error: the target's spread
// is about 0.75 m; the trained network comes within 0.08 m (0.050 m measured) on held-out data.
func TestTrainSynthetic(t *testing.T) {
	d := synthetic(2200, 1)
	m, err := Train(d, Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, sd := meanSD(d.Y)
	t.Logf("target sd %.3f; train MAE %.3f, validation MAE %.3f, RMSE %.3f", sd, m.Info.TrainMAE, m.Info.ValMAE, m.Info.ValRMSE)
	if m.Info.ValMAE > 0.08 {
		t.Errorf("validation MAE %.3f; want ≤ 0.08", m.Info.ValMAE)
	}
	if m.Info.TrainN != 1760 || m.Info.ValN != 440 {
		t.Errorf("split %d/%d; want 1760/440", m.Info.TrainN, m.Info.ValN)
	}
	// Same seed, same model.
	m2, _ := Train(d, Config{Seed: 3})
	a, _ := m.Encode()
	b, _ := m2.Encode()
	if !bytes.Equal(a, b) {
		t.Error("two trainings with the same seed differ")
	}
}

func meanSD(v []float64) (float64, float64) {
	var s, q float64
	for _, x := range v {
		s += x
		q += x * x
	}
	n := float64(len(v))
	m := s / n
	return m, math.Sqrt(q/n - m*m)
}

func TestEncodeDecode(t *testing.T) {
	d := synthetic(300, 4)
	m, err := Train(d, Config{Seed: 1, Epochs: 3})
	if err != nil {
		t.Fatal(err)
	}
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Decode("m.json", data)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range d.X[:50] {
		if got, want := m2.Predict(x), m.Predict(x); got != want {
			t.Fatalf("sample %d: got %v after a round trip; want %v", i, got, want)
		}
	}
	again, _ := m2.Encode()
	if !bytes.Equal(again, data) {
		t.Error("encoding is not byte-stable")
	}
	dst := make([]float64, 50)
	m.PredictBatch(dst, d.X[:50])
	for i := range dst {
		if dst[i] != m.Predict(d.X[i]) {
			t.Fatalf("PredictBatch[%d] = %v; want %v", i, dst[i], m.Predict(d.X[i]))
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	m := randomModel(1)
	good, _ := m.Encode()
	for _, c := range []struct {
		name, data, want string
	}{
		{"empty", "", "not a model file"},
		{"a dataset", "test,l1,w1,x1\n0,1,2,3\n", `m.json:1: surrogate: bad model: not a model file (a model is the JSON object surrogate train writes; this starts "test,l1,w1,x1")`},
		{"a list", "[1, 2]", "not a model file"},
		{"syntax", "{\n\"format\": }", "m.json:2"},
		{"format", strings.Replace(string(good), FormatVersion, "other/1", 1), "format"},
		{"unknown field", strings.Replace(string(good), `"format"`, `"extra": 1, "format"`, 1), "unknown field"},
		{"layers", strings.Replace(string(good), `"branch1.dense1"`, `"x"`, 1), "layers[0]"},
		{"type", strings.Replace(string(good), `"in": 5`, `"in": "5"`, 1), "in"},
		{"sd", strings.Replace(string(good), `"sd": 1`, `"sd": 0`, 1), "inputs[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode("m.json", []byte(c.data))
			if err == nil {
				t.Fatal("got no error")
			}
			if !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrModel) {
				t.Errorf("got %v; want an ErrModel naming %q", err, c.want)
			}
		})
	}
}

func TestParseCSV(t *testing.T) {
	const head = "test,l1,w1,x1,y1,r1,l2,w2,x2,y2,r2,min_distance,verdict\n"
	const rows = "0,1,2,3,4,5,6,7,8,9,10,0.5,pass\n1,1,2,3,4,5,6,7,8,9,10,2.5,pass\n"
	for _, c := range []struct {
		name, data string
		n          int
		want       string // error text; "" for none
		frame      string
	}{
		{"ok", head + rows, 2, "", ""},
		{"a frame", "# frame: mission2\n" + head + rows, 2, "", "mission2"},
		{"a file's frame, CRLF", "# frame: scenario/my case.yaml \r\n" + head + rows, 2, "", "scenario/my case.yaml"},
		{"canonical", FrameLine(FrameCanonical) + head + rows, 2, "", FrameCanonical},
		{"line numbers after the frame", "# frame: mission2\n" + head + "0,1,2,3,4,5,6,7,8,9,10,x,pass\n", 0, "d.csv:3: min_distance", ""},
		{"header after the frame", "# frame: mission2\nl1,w1\n", 0, "d.csv:2: x1: column missing", ""},
		{"only a frame", "# frame: mission2\n", 0, "d.csv:2: empty file", ""},
		{"another comment", "# made by hand\n" + head + rows, 0, `d.csv:1: "# made by hand": the only comment a dataset has is a first line "# frame: NAME"`, ""},
		{"an empty frame", "# frame: \n" + head + rows, 0, "d.csv:1", ""},
		{"a control character", "# frame: a\x1bb\n" + head + rows, 0, "d.csv:1", ""},
		{"a second frame line", "# frame: a\n# frame: b\n" + head + rows, 0, "d.csv:2", ""},
		{"a huge comment", "# frame: " + strings.Repeat("x", 5000) + "\n" + head + rows, 0, "d.csv:1: comment line longer than 1024 bytes", ""},
		{"no header", "", 0, "d.csv:1: empty file", ""},
		{"missing column", "l1,w1\n1,2\n", 0, "d.csv:1: x1: column missing", ""},
		{"bad number", head + "0,1,2,3,4,5,6,7,8,9,10,x,pass\n", 0, "d.csv:2: min_distance: \"x\" is not a finite number", ""},
		{"inf", head + "0,1,2,3,4,5,6,7,8,9,10,inf,pass\n", 0, "d.csv:2: min_distance", ""},
		{"no rows", head, 0, "no rows", ""},
		{"short row", head + "0,1\n", 0, "d.csv:2", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseCSV("d.csv", strings.NewReader(c.data))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if d.Len() != c.n || d.X[1][9] != 10 || d.Y[1] != 2.5 || d.Frame != c.frame {
					t.Errorf("got %+v; want %d rows in frame %q", d, c.n, c.frame)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want an error containing %q", err, c.want)
			}
		})
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("test,l1,w1,x1,y1,r1,l2,w2,x2,y2,r2,min_distance\n0,1,2,3,4,5,6,7,8,9,10,0.5\n"))
	f.Add([]byte("l1,w1\n\"x"))
	f.Add([]byte("# frame: mission2\ntest,l1,w1,x1,y1,r1,l2,w2,x2,y2,r2,min_distance\n0,1,2,3,4,5,6,7,8,9,10,0.5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseCSV("f.csv", bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for i := range d.X {
			for _, v := range d.X[i] {
				if !finite(v) {
					t.Fatal("non-finite feature accepted")
				}
			}
		}
		// Round trip: the dataset written back as a CSV (shortest exact
		// decimals) parses to the same values.
		var b strings.Builder
		if d.Frame != "" {
			b.WriteString(FrameLine(d.Frame))
		}
		b.WriteString(strings.Join(FeatureNames[:], ",") + "," + TargetColumn + "\n")
		for i := range d.X {
			for _, v := range d.X[i] {
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
			}
			b.WriteString(strconv.FormatFloat(d.Y[i], 'g', -1, 64) + "\n")
		}
		back, err := ParseCSV("back.csv", strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("the parsed dataset written back does not parse: %v\n%s", err, b.String())
		}
		if back.Len() != d.Len() || back.Frame != d.Frame {
			t.Fatalf("round trip: %d rows in frame %q; want %d in %q", back.Len(), back.Frame, d.Len(), d.Frame)
		}
		for i := range d.X {
			if back.X[i] != d.X[i] || back.Y[i] != d.Y[i] {
				t.Fatalf("row %d: %v %v after a round trip; want %v %v", i, back.X[i], back.Y[i], d.X[i], d.Y[i])
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	good, _ := randomModel(2).Encode()
	f.Add(good)
	if trained, err := Train(synthetic(60, 1), Config{Seed: 1, Epochs: 1}); err == nil {
		data, _ := trained.Encode() // with log transforms and offsets
		f.Add(data)
	}
	f.Add([]byte(`{"format":"shakedown-surrogate/1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode("f.json", data)
		if err != nil {
			return
		}
		x := Features{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		p := m.Predict(x)
		if math.IsNaN(p) {
			t.Fatal("a decoded model predicts NaN")
		}
		// Round trip: a decoded model encodes to a model that decodes to the
		// same bytes and the same predictions.
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("a decoded model does not encode: %v", err)
		}
		m2, err := Decode("again.json", enc)
		if err != nil {
			t.Fatalf("an encoded model does not decode: %v", err)
		}
		enc2, _ := m2.Encode()
		if !bytes.Equal(enc, enc2) || m2.Predict(x) != p {
			t.Fatalf("round trip changed the model: predicts %v, then %v", p, m2.Predict(x))
		}
		// What was decoded is what the file says: its preprocessing, read
		// by encoding/json on its own.
		var file struct{ Inputs []Input }
		if err := json.Unmarshal(data, &file); err == nil && len(file.Inputs) == NumFeatures {
			for i, in := range file.Inputs {
				if in != m.Inputs[i] {
					t.Fatalf("input %d: decoded %+v; the file says %+v", i, m.Inputs[i], in)
				}
			}
		}
	})
}

// BenchmarkPredictBatch measures batched inference on one core; ns/op is
// per batch of 1024, and predictions/s is reported.
func BenchmarkPredictBatch(b *testing.B) {
	d := synthetic(1024, 5)
	m, err := Train(d, Config{Seed: 1, Epochs: 5})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, len(d.X))
	b.ReportAllocs()
	for b.Loop() {
		m.PredictBatch(dst, d.X)
	}
	b.ReportMetric(float64(b.N*len(d.X))/b.Elapsed().Seconds(), "predictions/s")
}

// BenchmarkTrain measures the paper's training: 200 epochs on 2,200
// samples (80 % of them trained on).
func BenchmarkTrain(b *testing.B) {
	d := synthetic(2750, 6) // 2,200 training samples after the 80/20 split
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Train(d, Config{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// The stored model (trained by `shakedown generate` on the canonical
// dataset) decodes and encodes back to the same bytes.
func TestStoredModel(t *testing.T) {
	data, err := os.ReadFile("testdata/canonical.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode("testdata/canonical.json", data)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := m.Encode()
	if !bytes.Equal(again, data) {
		t.Error("re-encoding the stored model changes it")
	}
	// A box across the leg predicts closer than one far beside it.
	across := m.Predict(Features{6, 6, -5, 25, 0, 3, 3, -30, 20, 0})
	beside := m.Predict(Features{6, 6, 15, 25, 0, 3, 3, -30, 20, 0})
	if !(across < beside) {
		t.Errorf("across the leg %.2f m, beside it %.2f m; want across closer", across, beside)
	}
}

// BenchmarkPredictCanonical measures batched inference of the stored
// canonical model on one core.
func BenchmarkPredictCanonical(b *testing.B) {
	data, err := os.ReadFile("testdata/canonical.json")
	if err != nil {
		b.Fatal(err)
	}
	m, err := Decode("canonical.json", data)
	if err != nil {
		b.Fatal(err)
	}
	d := synthetic(1024, 5)
	dst := make([]float64, len(d.X))
	b.ReportAllocs()
	for b.Loop() {
		m.PredictBatch(dst, d.X)
	}
	b.ReportMetric(float64(b.N*len(d.X))/b.Elapsed().Seconds(), "predictions/s")
}

// The paper log-transforms the obstacle widths and obstacle 1's x (§IV-C):
// a model trained with the default configuration standardises log(w1),
// log(x1 + offset) and log(w2), and every other feature as it is. The
// statistics are checked against the training split worked out here.
func TestPaperLogTransform(t *testing.T) {
	d := synthetic(200, 4)
	m, err := Train(d, Config{Seed: 1, Epochs: 1, ValFraction: -1})
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]bool{"w1": true, "x1": true, "w2": true}
	for j, in := range m.Inputs {
		name := FeatureNames[j]
		if in.Log != logged[name] {
			t.Errorf("%s: log %v; want %v", name, in.Log, logged[name])
		}
		lo := math.Inf(1)
		for _, x := range d.X {
			lo = math.Min(lo, x[j])
		}
		var vs []float64
		for _, x := range d.X {
			v := x[j]
			if logged[name] {
				v = math.Log(math.Max(v+math.Max(0, 1-lo), minLogArg))
			}
			vs = append(vs, v)
		}
		mean, sd := meanSD(vs)
		if math.Abs(in.Mean-mean) > 1e-9 || math.Abs(in.SD-sd) > 1e-9 {
			t.Errorf("%s: mean %.6f sd %.6f; want %.6f %.6f", name, in.Mean, in.SD, mean, sd)
		}
	}
}
