package surrogate

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseError is an error in a dataset CSV or a model file, naming where.
type ParseError struct {
	File  string
	Line  int    // 1-based; 0 when unknown
	Field string // column or JSON path; "" when not about one field
	Err   error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// TargetColumn is the dataset column the surrogate predicts.
const TargetColumn = "min_distance"

// maxCSVRows bounds the rows ParseCSV reads.
const maxCSVRows = 10_000_000

// FrameCanonical is the frame of features already in the canonical flight
// frame: a dataset of the canonical mission, or one mapped into it.
const FrameCanonical = "canonical"

// framePrefix starts the first line of a dataset CSV that says which
// frame its features are in.
const framePrefix = "# frame: "

// maxFrameLine bounds the frame line, its newline included.
const maxFrameLine = 1024

// FrameLine is the first line of a dataset CSV whose features are in
// frame: FrameCanonical, or the case study the obstacles were placed for
// (a built-in name or its file), in whose competition frame they are.
func FrameLine(frame string) string { return framePrefix + frame + "\n" }

// readFrameLine reads the optional "# frame: NAME" line at the start of
// br: it returns the frame ("" without the line) and the number of lines
// read (0 or 1). Any other line starting with '#' is refused.
func readFrameLine(name string, br *bufio.Reader) (string, int, error) {
	if b, err := br.Peek(1); err != nil || b[0] != '#' {
		return "", 0, nil
	}
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", 1, &ParseError{File: name, Line: 1, Err: fmt.Errorf("comment line longer than %d bytes", maxFrameLine)}
	}
	if err != nil && err != io.EOF {
		return "", 1, &ParseError{File: name, Line: 1, Err: err}
	}
	text := strings.TrimRight(string(line), "\r\n")
	frame, ok := strings.CutPrefix(text, framePrefix)
	frame = strings.TrimSpace(frame)
	bad := !ok || frame == "" || !utf8.ValidString(frame) || strings.ContainsFunc(frame, unicode.IsControl)
	if bad {
		return "", 1, &ParseError{File: name, Line: 1, Err: fmt.Errorf("%q: the only comment a dataset has is a first line %q", text, framePrefix+"NAME")}
	}
	return frame, 1, nil
}

// ParseCSV reads a dataset in the form `shakedown dataset` writes: an
// optional first line naming the features' frame (FrameLine; CSVs written
// before it have none), a header naming at least the ten feature columns
// l1 … r2 and min_distance, then one row per test. Other columns are
// ignored. Every value read must be a finite number.
func ParseCSV(name string, r io.Reader) (Dataset, error) {
	br := bufio.NewReaderSize(r, maxFrameLine)
	frame, skip, err := readFrameLine(name, br)
	if err != nil {
		return Dataset{}, err
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = 0
	cr.ReuseRecord = true
	perr := func(line int, field string, err error) error {
		return &ParseError{File: name, Line: line + skip, Field: field, Err: err}
	}
	head, err := cr.Read()
	if err == io.EOF {
		return Dataset{}, perr(1, "", errors.New("empty file, want a header"))
	}
	if err != nil {
		return Dataset{}, csvError(name, err, skip)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	var idx [NumFeatures + 1]int
	for j, f := range append(FeatureNames[:], TargetColumn) {
		i, ok := col[f]
		if !ok {
			return Dataset{}, perr(1, f, errors.New("column missing from the header"))
		}
		idx[j] = i
	}
	d := Dataset{Frame: frame}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Dataset{}, csvError(name, err, skip)
		}
		line, _ := cr.FieldPos(0)
		if len(d.X) >= maxCSVRows {
			return Dataset{}, perr(line, "", fmt.Errorf("more than %d rows", maxCSVRows))
		}
		var x Features
		var y float64
		for j, i := range idx {
			f := TargetColumn
			if j < NumFeatures {
				f = FeatureNames[j]
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return Dataset{}, perr(line, f, fmt.Errorf("%q is not a finite number", rec[i]))
			}
			if j < NumFeatures {
				x[j] = v
			} else {
				y = v
			}
		}
		d.X = append(d.X, x)
		d.Y = append(d.Y, y)
	}
	if len(d.X) == 0 {
		return Dataset{}, perr(0, "", errors.New("no rows"))
	}
	return d, nil
}

// csvError is a CSV reader's error in a file whose CSV starts after skip
// lines.
func csvError(name string, err error, skip int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: name, Line: pe.Line + skip, Err: pe.Err}
	}
	return &ParseError{File: name, Err: err}
}

// FormatVersion names the model file format.
const FormatVersion = "shakedown-surrogate/1"

// layerNames name the six layers in parameter order.
var layerNames = [6]string{"branch1.dense1", "branch1.dense2", "branch2.dense1", "branch2.dense2", "head.dense1", "head.output"}

type modelFile struct {
	Format   string              `json:"format"`
	Features [NumFeatures]string `json:"features"`
	Target   string              `json:"target"`
	Inputs   []Input             `json:"inputs"`
	Layers   []layerFile         `json:"layers"`
	Training TrainInfo           `json:"training"`
}

type layerFile struct {
	Name string    `json:"name"`
	In   int       `json:"in"`
	Out  int       `json:"out"`
	ReLU bool      `json:"relu"`
	W    []float64 `json:"w"` // input-major: w[i*out+j] joins input i to output j
	B    []float64 `json:"b"`
}

// Encode returns the model as indented JSON: the format name, the
// preprocessing of each feature, each layer's weights and biases, and how
// it was trained. Numbers are written in their shortest exact form, so
// Decode(Encode(m)) predicts exactly as m does and the bytes are stable.
func (m *Model) Encode() ([]byte, error) {
	f := modelFile{Format: FormatVersion, Features: FeatureNames, Target: TargetColumn, Inputs: m.Inputs[:], Training: m.Info}
	for k, d := range m.layers() {
		f.Layers = append(f.Layers, layerFile{Name: layerNames[k], In: d.In, Out: d.Out, ReLU: k != 5, W: d.W, B: d.B})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("surrogate: encode: %w", err)
	}
	return b.Bytes(), nil
}

// Decode reads a model that Encode wrote. name is used in errors.
func Decode(name string, data []byte) (*Model, error) {
	perr := func(field string, format string, args ...any) error {
		return &ParseError{File: name, Field: field, Err: fmt.Errorf("%w: "+format, append([]any{ErrModel}, args...)...)}
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		first, _, _ := bytes.Cut(t, []byte("\n"))
		return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf("%w: not a model file (a model is the JSON object surrogate train writes; this starts %.40q)", ErrModel, first)}
	}
	var f modelFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		case errors.As(err, &te):
			line = 1 + bytes.Count(data[:min(int(te.Offset), len(data))], []byte("\n"))
			return nil, &ParseError{File: name, Line: line, Field: te.Field, Err: fmt.Errorf("%w: %v", ErrModel, err)}
		}
		return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %v", ErrModel, err)}
	}
	if f.Format != FormatVersion {
		return nil, perr("format", "%q, want %q", f.Format, FormatVersion)
	}
	if f.Features != FeatureNames {
		return nil, perr("features", "%v, want %v", f.Features, FeatureNames)
	}
	if f.Target != TargetColumn {
		return nil, perr("target", "%q, want %q", f.Target, TargetColumn)
	}
	if len(f.Inputs) != NumFeatures {
		return nil, perr("inputs", "%d entries, want %d", len(f.Inputs), NumFeatures)
	}
	m := newModel()
	for i, in := range f.Inputs {
		field := fmt.Sprintf("inputs[%d]", i)
		if !finite(in.Offset) || !finite(in.Mean) || !finite(in.SD) || !(in.SD > 0) {
			return nil, perr(field, "offset %v, mean %v, sd %v: want finite numbers and sd > 0", in.Offset, in.Mean, in.SD)
		}
		m.Inputs[i] = in
	}
	if len(f.Layers) != len(layerNames) {
		return nil, perr("layers", "%d layers, want %d", len(f.Layers), len(layerNames))
	}
	for k, d := range m.layers() {
		l := f.Layers[k]
		field := fmt.Sprintf("layers[%d]", k)
		if l.Name != layerNames[k] || l.In != d.In || l.Out != d.Out || l.ReLU != (k != 5) {
			return nil, perr(field, "%s %d→%d relu %v, want %s %d→%d relu %v", l.Name, l.In, l.Out, l.ReLU, layerNames[k], d.In, d.Out, k != 5)
		}
		if len(l.W) != len(d.W) || len(l.B) != len(d.B) {
			return nil, perr(field, "%d weights and %d biases, want %d and %d", len(l.W), len(l.B), len(d.W), len(d.B))
		}
		for i, v := range l.W {
			if !finite(v) {
				return nil, perr(fmt.Sprintf("%s.w[%d]", field, i), "%v is not finite", v)
			}
		}
		for i, v := range l.B {
			if !finite(v) {
				return nil, perr(fmt.Sprintf("%s.b[%d]", field, i), "%v is not finite", v)
			}
		}
		copy(d.W, l.W)
		copy(d.B, l.B)
	}
	m.Info = f.Training
	return m, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
