package statelog

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shakedown-robotics/shakedown/mission"
)

// Stats are the statistics of one mission (one flight: from a transition
// into CONNECTING to the next one) or of several in total, in the shape of
// the specification's evaluation tables. Figures that the source cannot
// give (latency, path and altitude from a black-box CSV, which has no
// dispatches and no samples) are nil.
type Stats struct {
	Mission   string  `json:"mission"` // "<file>#<n>", or "total"
	StartS    float64 `json:"start_s"`
	DurationS float64 `json:"duration_s"`
	// StateDurationsS sums, per state, the time from each transition into
	// it to the next transition (the last one until the flight's last
	// entry).
	StateDurationsS  map[string]float64 `json:"state_durations_s"`
	WaypointsReached int                `json:"waypoints_reached"`
	// WaypointsDropped counts the waypoints of canceled and aborted goals
	// that were never flown.
	WaypointsDropped int `json:"waypoints_dropped"`
	Pauses           int `json:"pauses"`  // transitions into PAUSED
	Cancels          int `json:"cancels"` // accepted cancel and cancel_goal commands
	Returns          int `json:"returns"` // transitions into RETURNING
	// Failsafes counts the transitions into FAILSAFE by reason.
	Failsafes map[string]int `json:"failsafes"`
	// Goals counts goal results by state (SUCCEEDED, CANCELED, ABORTED).
	Goals           map[string]int `json:"goals"`
	Commands        int            `json:"commands"` // operator commands recorded, accepted or refused
	Refusals        int            `json:"refusals"` // of which refused
	RefusalsDropped uint64         `json:"refusals_dropped"`
	// Latency is command → dispatch: from an accepted command to the first
	// vehicle command it caused other than a cancel, in daemon time.
	Latency *Latency `json:"latency"`
	// PathLengthM is the length of the path through the status samples'
	// positions.
	PathLengthM *float64 `json:"path_length_m"`
	// MaxAltDevM is the largest |z − target z| of a sample in EXECUTING
	// with a target (climbs between waypoints of different heights count).
	MaxAltDevM *float64 `json:"max_alt_dev_m"`

	lat []float64 // latency samples, ms
}

// Latency summarizes command → dispatch latencies, ms.
type Latency struct {
	N      int     `json:"n"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Summary is the statistics of some logs: one row per mission, and the
// total.
type Summary struct {
	Missions []Stats `json:"missions"`
	Total    Stats   `json:"total"`
}

func newStats(name string) Stats {
	return Stats{Mission: name, StateDurationsS: map[string]float64{}, Failsafes: map[string]int{}, Goals: map[string]int{}}
}

// Missions splits the entries of one log into missions and computes each
// one's statistics; file names them ("file#1", …). A mission starts at an
// accepted connect command, or at a transition into CONNECTING in a
// mission that already had one (a log without that command). Entries
// before the first mission form mission #0 when there are any.
func Missions(lg Log, file string) []Stats {
	var out []Stats
	var cur []Entry
	n := 0
	connecting := false // the current mission already went to CONNECTING
	flush := func() {
		if len(cur) > 0 {
			out = append(out, compute(cur, fmt.Sprintf("%s#%d", file, n), lg.CSV))
		}
		cur = cur[:0]
		connecting = false
		n++
	}
	for _, e := range lg.Entries {
		switch {
		case e.Kind == "command" && e.Command == "connect" && e.Code == "":
			flush()
		case e.Kind == mission.KindTransition && e.State == "CONNECTING":
			if connecting || n == 0 {
				flush()
			}
			connecting = true
		}
		cur = append(cur, e)
	}
	flush()
	return out
}

func compute(es []Entry, name string, fromCSV bool) Stats {
	s := newStats(name)
	s.StartS = es[0].TimeS
	s.DurationS = es[len(es)-1].TimeS - es[0].TimeS
	lastState, lastAt := "", 0.0
	var cmdAt float64
	waiting := false
	var path, dev float64
	var prev *mission.Point
	samples := false
	for _, e := range es {
		switch e.Kind {
		case mission.KindTransition:
			if lastState != "" {
				s.StateDurationsS[lastState] += e.TimeS - lastAt
			}
			lastState, lastAt = e.State, e.TimeS
			switch e.State {
			case "PAUSED":
				s.Pauses++
			case "RETURNING":
				s.Returns++
			case "FAILSAFE":
				s.Failsafes[reason(e.Detail)]++
			}
		case mission.KindWaypointReached:
			s.WaypointsReached++
		case mission.KindGoalResult:
			st, dropped := goalResult(e)
			if st != "" {
				s.Goals[st]++
			}
			s.WaypointsDropped += dropped
		case "command":
			s.Commands++
			if e.Code != "" {
				s.Refusals++
				break
			}
			if e.Command == "cancel" || e.Command == "cancel_goal" {
				s.Cancels++
			}
			cmdAt, waiting = e.TimeS, true
		case KindDispatch:
			if waiting && e.Command != "cancel" {
				s.lat = append(s.lat, (e.TimeS-cmdAt)*1000)
				waiting = false
			}
		case KindRefusalsDropped:
			s.RefusalsDropped += e.Count
		case KindSample:
			st := e.Status
			if st == nil || st.Position == nil {
				break
			}
			samples = true
			if prev != nil {
				path += math.Sqrt(sq(st.Position.X-prev.X) + sq(st.Position.Y-prev.Y) + sq(st.Position.Z-prev.Z))
			}
			p := *st.Position
			prev = &p
			if st.State == "EXECUTING" && st.Target != nil {
				dev = math.Max(dev, math.Abs(st.Position.Z-st.Target.Z))
			}
		}
	}
	if lastState != "" {
		s.StateDurationsS[lastState] += es[len(es)-1].TimeS - lastAt
	}
	if !fromCSV {
		s.Latency = latency(s.lat)
	}
	if samples {
		s.PathLengthM, s.MaxAltDevM = &path, &dev
	}
	return s.rounded()
}

func sq(f float64) float64 { return f * f }

// reason returns the word after "reason=" in a FAILSAFE transition.
func reason(detail string) string {
	_, after, ok := strings.Cut(detail, "reason=")
	if !ok {
		return "unknown"
	}
	if i := strings.IndexAny(after, ": "); i >= 0 {
		after = after[:i]
	}
	if after == "" {
		return "unknown"
	}
	return after
}

// goalResult reads a goal result: its state and dropped count, from the
// entry's goal or else from its detail ("goal 3 CANCELED (cancel): 1/3
// waypoints reached, 2 dropped").
func goalResult(e Entry) (string, int) {
	if g := e.Goal; g != nil {
		return g.State, g.Dropped
	}
	f := strings.Fields(e.Detail)
	if len(f) < 3 || f[0] != "goal" {
		return "", 0
	}
	st := strings.TrimSuffix(f[2], ":")
	dropped := 0
	if len(f) >= 2 && f[len(f)-1] == "dropped" {
		dropped, _ = strconv.Atoi(f[len(f)-2])
	}
	return st, max(dropped, 0)
}

func latency(ms []float64) *Latency {
	if len(ms) == 0 {
		return nil
	}
	v := append([]float64(nil), ms...)
	sort.Float64s(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	q := func(p float64) float64 { return v[int(math.Ceil(p*float64(len(v))))-1] }
	return &Latency{N: len(v), MeanMS: sum / float64(len(v)), P50MS: q(0.5), P99MS: q(0.99), MaxMS: v[len(v)-1]}
}

func r3(f float64) float64 {
	r := math.Round(f*1000) / 1000
	if r == 0 {
		return 0
	}
	return r
}

// rounded rounds every figure to 1 ms, 1 mm, 1 µs of latency for
// byte-stable output.
func (s Stats) rounded() Stats {
	s.StartS, s.DurationS = r3(s.StartS), r3(s.DurationS)
	for k, v := range s.StateDurationsS {
		s.StateDurationsS[k] = r3(v)
	}
	if s.PathLengthM != nil {
		s.PathLengthM, s.MaxAltDevM = ptr(r3(*s.PathLengthM)), ptr(r3(*s.MaxAltDevM))
	}
	if l := s.Latency; l != nil {
		l.MeanMS, l.P50MS, l.P99MS, l.MaxMS = r3(l.MeanMS), r3(l.P50MS), r3(l.P99MS), r3(l.MaxMS)
	}
	return s
}

func ptr(f float64) *float64 { return &f }

// Summarize adds up missions into their total.
func Summarize(missions []Stats) Summary {
	t := newStats("total")
	var path, dev float64
	havePath := false
	for _, m := range missions {
		t.DurationS += m.DurationS
		for k, v := range m.StateDurationsS {
			t.StateDurationsS[k] += v
		}
		for k, v := range m.Failsafes {
			t.Failsafes[k] += v
		}
		for k, v := range m.Goals {
			t.Goals[k] += v
		}
		t.WaypointsReached += m.WaypointsReached
		t.WaypointsDropped += m.WaypointsDropped
		t.Pauses += m.Pauses
		t.Cancels += m.Cancels
		t.Returns += m.Returns
		t.Commands += m.Commands
		t.Refusals += m.Refusals
		t.RefusalsDropped += m.RefusalsDropped
		t.lat = append(t.lat, m.lat...)
		if m.PathLengthM != nil {
			havePath = true
			path += *m.PathLengthM
			dev = math.Max(dev, *m.MaxAltDevM)
		}
	}
	if len(missions) > 0 {
		t.StartS = missions[0].StartS
	}
	t.Latency = latency(t.lat)
	if havePath {
		t.PathLengthM, t.MaxAltDevM = &path, &dev
	}
	return Summary{Missions: missions, Total: t.rounded()}
}

// States are the mission states in flight order, the CSV's duration
// columns.
var States = []string{"IDLE", "CONNECTING", "ARMING", "TAKEOFF", "EXECUTING", "PAUSED", "RETURNING", "LANDING", "LANDED", "FAILSAFE"}

// CSVColumns are the columns WriteCSV writes.
func CSVColumns() []string {
	cols := []string{"mission", "start_s", "duration_s"}
	for _, st := range States {
		cols = append(cols, "time_"+strings.ToLower(st)+"_s")
	}
	return append(cols, "waypoints_reached", "waypoints_dropped", "pauses", "cancels", "returns", "failsafes",
		"failsafe_reasons", "goals_succeeded", "goals_canceled", "goals_aborted", "commands", "refusals", "refusals_dropped",
		"latency_n", "latency_p50_ms", "latency_p99_ms", "latency_max_ms", "path_length_m", "max_alt_dev_m")
}

func f3(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// Row returns a mission's CSV row (CSVColumns); figures not known are
// empty.
func (s Stats) Row() []string {
	row := []string{s.Mission, f3(s.StartS), f3(s.DurationS)}
	for _, st := range States {
		row = append(row, f3(s.StateDurationsS[st]))
	}
	total := 0
	for _, v := range s.Failsafes {
		total += v
	}
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return f3(*p)
	}
	row = append(row, strconv.Itoa(s.WaypointsReached), strconv.Itoa(s.WaypointsDropped), strconv.Itoa(s.Pauses),
		strconv.Itoa(s.Cancels), strconv.Itoa(s.Returns), strconv.Itoa(total), Reasons(s.Failsafes),
		strconv.Itoa(s.Goals["SUCCEEDED"]), strconv.Itoa(s.Goals["CANCELED"]), strconv.Itoa(s.Goals["ABORTED"]),
		strconv.Itoa(s.Commands), strconv.Itoa(s.Refusals), strconv.FormatUint(s.RefusalsDropped, 10))
	if l := s.Latency; l != nil {
		row = append(row, strconv.Itoa(l.N), f3(l.P50MS), f3(l.P99MS), f3(l.MaxMS))
	} else {
		row = append(row, "", "", "", "")
	}
	return append(row, opt(s.PathLengthM), opt(s.MaxAltDevM))
}

// Reasons renders failsafe counts as "reason=n;…", sorted.
func Reasons(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%s=%d", k, m[k])
	}
	return b.String()
}

// WriteCSV writes the summary as CSV: the header, one row per mission, the
// total last.
func (sum Summary) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns()); err != nil {
		return err
	}
	for _, m := range append(append([]Stats(nil), sum.Missions...), sum.Total) {
		if err := cw.Write(m.Row()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
