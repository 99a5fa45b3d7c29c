package campaign

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/run"
	"github.com/shakedown-robotics/shakedown/trace"
	"github.com/shakedown-robotics/shakedown/world"
)

// Result is what one job produced. Exactly one of Run and Error is set.
// Its JSON form (Encode) is canonical: the same result always encodes to
// the same bytes, and DecodeResult(Encode(r)) encodes to them again.
type Result struct {
	Job ID `json:"job"`
	// Run is the verdict on the flight: minimum distances, points, flight
	// time, verdict. Its Trace and Resampled are not kept (Trajectory and
	// Trace are), nor is its Closest encoded (see RunResult).
	Run *run.Result `json:"run,omitempty"`
	// Error says why the job could not be flown.
	Error string `json:"error,omitempty"`
	// Trajectory is the flight's ground truth resampled into Aerialist's
	// 0.5-s bins (run.ResamplePeriodS), the form scoring reads.
	Trajectory Samples `json:"trajectory,omitempty"`
	// Trace is the full-rate ground truth, when the job asked for it.
	Trace Samples `json:"trace,omitempty"`
}

// OK reports whether the job was flown.
func (r Result) OK() bool { return r.Error == "" && r.Run != nil }

// Err returns the job's error wrapped in ErrJobFailed, or nil.
func (r Result) Err() error {
	if r.OK() {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrJobFailed, r.Error)
}

// Encode returns the canonical JSON form of r.
func (r Result) Encode() ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResult, err)
	}
	return b, nil
}

// DecodeResult reads a result from its JSON form, rejecting unknown keys
// and results that are neither a run nor an error.
func DecodeResult(data []byte) (Result, error) {
	var r Result
	if len(data) > 16*maxMessage {
		return r, fmt.Errorf("%w: %d bytes", ErrBadResult, len(data))
	}
	if err := decodeStrict(data, &r); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrBadResult, err)
	}
	if !r.Job.Valid() {
		return Result{}, fmt.Errorf("%w: job id %q", ErrBadResult, r.Job)
	}
	if (r.Run == nil) == (r.Error == "") {
		return Result{}, fmt.Errorf("%w: job %s: want either a run or an error", ErrBadResult, r.Job)
	}
	if r.Run != nil {
		switch r.Run.Verdict {
		case run.VerdictPass, run.VerdictSoftFail, run.VerdictHardFail:
		default:
			return Result{}, fmt.Errorf("%w: job %s: verdict %q", ErrBadResult, r.Job, r.Run.Verdict)
		}
	}
	return r, nil
}

// RunResult returns the result as run.Fly would have: a copy of Run with
// Trace set to the full-rate trace when there is one (nil otherwise),
// Resampled to the trajectory, and Closest as the judge found it; a result
// that came over the wire (from a NATS worker, from the store) has no
// Closest, which is then computed from the trajectory as the judge does.
// It is nil when the job failed.
func (r Result) RunResult(j Job) *run.Result {
	if r.Run == nil {
		return nil
	}
	out := *r.Run
	out.Trace = nil
	if r.Trace != nil {
		out.Trace = append([]trace.Sample(nil), r.Trace...)
	}
	out.Resampled = r.Trajectory // shared: neither is written to
	obs := j.Scenario.Obstacles
	if k := out.MinObstacle; out.Closest == nil && k >= 1 && k <= len(obs) && len(r.Trajectory) > 0 {
		a := world.ClosestApproach(obs[k-1], trace.Positions(r.Trajectory))
		out.Closest = &a
	}
	return &out
}

// Samples is a trajectory whose JSON form is exact and compact: the base64
// of its samples as little-endian float64 quintuples t, x, y, z, heading
// (local NED, SI units), EncodeSamples's bytes.
type Samples []trace.Sample

// MarshalJSON implements json.Marshaler.
func (s Samples) MarshalJSON() ([]byte, error) {
	return json.Marshal(base64.StdEncoding.EncodeToString(EncodeSamples(s)))
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *Samples) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return fmt.Errorf("trajectory: %v", err)
	}
	v, err := DecodeSamples(b)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

const sampleBytes = 5 * 8

// EncodeSamples returns the samples as little-endian float64 quintuples
// t, x, y, z, heading.
func EncodeSamples(s []trace.Sample) []byte {
	b := make([]byte, 0, len(s)*sampleBytes)
	for _, p := range s {
		for _, v := range [5]float64{p.T, p.Pos.X, p.Pos.Y, p.Pos.Z, p.Heading} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// DecodeSamples reads what EncodeSamples wrote. Empty input gives nil.
func DecodeSamples(b []byte) ([]trace.Sample, error) {
	if len(b)%sampleBytes != 0 {
		return nil, fmt.Errorf("trajectory: %d bytes is not a whole number of %d-byte samples", len(b), sampleBytes)
	}
	if len(b) == 0 {
		return nil, nil
	}
	s := make([]trace.Sample, len(b)/sampleBytes)
	f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])) }
	for i := range s {
		k := 5 * i
		s[i] = trace.Sample{T: f(k), Pos: geom.Vec3{X: f(k + 1), Y: f(k + 2), Z: f(k + 3)}, Heading: f(k + 4)}
	}
	return s, nil
}

// Execute flies the job on the embedded simulator (the only engine of a nil
// Engines) and returns its result; see Engines.Execute.
func Execute(ctx context.Context, j Job) (Result, error) { return Engines(nil).Execute(ctx, j) }

// Execute flies the job on the engine it names and returns its result. A
// job that cannot be flown (a bad configuration, an engine this executor
// does not have, a panic in the engine) is a Result with Error set. The
// error is non-nil only when ctx ended before the job finished: the job
// did not run and belongs to someone else.
func (e Engines) Execute(ctx context.Context, j Job) (res Result, err error) {
	res.Job = j.ID
	defer func() {
		if p := recover(); p != nil {
			res = Result{Job: j.ID, Error: fmt.Sprintf("panic: %v", p)}
			err = nil
		}
	}()
	if err := j.validate(); err != nil {
		res.Error = err.Error()
		return res, nil
	}
	eng, err := e.get(j.Vehicle.Engine)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	r, err := eng.Fly(ctx, j)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		res.Error = err.Error()
		return res, nil
	}
	res.Trajectory = r.Resampled // the judge's: resampled once per flight
	if j.KeepTrace {
		res.Trace = r.Trace
	}
	// Run holds the verdict only; its closest approach stays (it does not
	// travel: see RunResult).
	r.Trace, r.Resampled = nil, nil
	res.Run = r
	return res, nil
}

// Delivery is a result with where and how it was produced. The extra
// fields are bookkeeping, not part of the result.
type Delivery struct {
	Result
	Worker  string        // the worker's name: "local" for the local pool
	Attempt int           // 1 for the first delivery of the job
	Elapsed time.Duration // wall time of the run
}
