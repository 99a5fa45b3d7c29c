package eol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Result is the outcome of one check, and of a whole run.
type Result string

// Results. A run passes when no check failed; skipped checks (a part the
// robot does not have yet, or a check blocked by an earlier failure) and
// manual checks (signed by an operator on the build record) do not fail it.
const (
	Pass   Result = "PASS"
	Fail   Result = "FAIL"
	Skip   Result = "SKIP"
	Manual Result = "MANUAL"
)

// Check is one row of the report: what was measured and against what.
type Check struct {
	ID       string   `json:"id"`              // step.name, e.g. "stop.standstill"
	Step     int      `json:"step"`            // 1-based step number
	StepName string   `json:"step_name"`       // e.g. "STOP"
	Name     string   `json:"name"`            // what is checked
	Result   Result   `json:"result"`          // PASS, FAIL, SKIP or MANUAL
	Value    *float64 `json:"value,omitempty"` // the measurement, in Unit; absent when not numeric
	Unit     string   `json:"unit,omitempty"`
	Measured string   `json:"measured"` // the measurement as the report prints it
	Limit    string   `json:"limit"`    // the pass criterion as the report prints it
	Detail   string   `json:"detail,omitempty"`
}

// Report is the result of one end-of-line run: the end_of_line entry of the
// robot's build record.
type Report struct {
	Vehicle string    `json:"vehicle"` // "mower" or "quad"
	Serial  string    `json:"serial"`
	RunID   string    `json:"run_id"`
	Time    time.Time `json:"time"`   // start of the run, UTC
	Source  string    `json:"source"` // "simulator" or the link the vehicle was reached by
	Result  Result    `json:"result"`
	Checks  []Check   `json:"checks"`
}

// Failed returns the checks that failed.
func (r *Report) Failed() []Check {
	var f []Check
	for _, c := range r.Checks {
		if c.Result == Fail {
			f = append(f, c)
		}
	}
	return f
}

// Check returns the check with id, and whether there is one.
func (r *Report) Check(id string) (Check, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// verdict sets Result from the checks.
func (r *Report) verdict() {
	r.Result = Pass
	if len(r.Failed()) > 0 {
		r.Result = Fail
	}
}

// JSON returns the build record's end_of_line block, indented, keys in a
// fixed order, ending in a newline.
func (r *Report) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	rec := struct {
		EndOfLine *Report `json:"end_of_line"`
	}{r}
	if err := enc.Encode(rec); err != nil {
		// Every field is a plain value; a failure here is a programming error.
		panic(fmt.Sprintf("eol: encoding the report: %v", err))
	}
	return buf.Bytes()
}

// Markdown returns the report as a Markdown document: a header, the table
// with every measured value, the skipped checks with their reasons and the
// manual checks to sign.
func (r *Report) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# End-of-line test: %s %s\n\n", r.Vehicle, r.Serial)
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| serial | %s |\n| run | %s |\n| time | %s |\n| vehicle | %s (%s) |\n| result | **%s** |\n\n",
		mdCell(r.Serial), mdCell(r.RunID), r.Time.UTC().Format(time.RFC3339), r.Vehicle, mdCell(r.Source), r.Result)
	fmt.Fprintf(&b, "| Step | Check | Measured | Pass if | Result |\n|---|---|---|---|---|\n")
	for _, c := range r.Checks {
		if c.Result == Manual {
			continue
		}
		res := string(c.Result)
		if c.Result == Fail {
			res = "**FAIL**"
		}
		fmt.Fprintf(&b, "| %d %s | %s | %s | %s | %s |\n", c.Step, c.StepName, mdCell(c.Name), mdCell(c.Measured), mdCell(c.Limit), res)
	}
	var notes []Check
	for _, c := range r.Checks {
		if c.Detail != "" && c.Result != Manual {
			notes = append(notes, c)
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n## Details\n\n")
		for _, c := range notes {
			fmt.Fprintf(&b, "- `%s` %s: %s\n", c.ID, c.Result, c.Detail)
		}
	}
	var manual []Check
	for _, c := range r.Checks {
		if c.Result == Manual {
			manual = append(manual, c)
		}
	}
	if len(manual) > 0 {
		b.WriteString("\n## Manual checks (an operator does these and signs each on the build record)\n\n")
		for _, c := range manual {
			fmt.Fprintf(&b, "- [ ] %s: %s\n", c.Name, c.Limit)
		}
	}
	return []byte(b.String())
}

// Summary returns the short text the command prints: one line per check
// that did not pass, and the verdict.
func (r *Report) Summary() string {
	var b strings.Builder
	var pass, fail, skip, manual int
	for _, c := range r.Checks {
		switch c.Result {
		case Pass:
			pass++
		case Fail:
			fail++
		case Skip:
			skip++
		case Manual:
			manual++
		}
	}
	fmt.Fprintf(&b, "%s %s %s: %s (%d passed, %d failed, %d skipped, %d manual)\n", r.RunID, r.Vehicle, r.Serial, r.Result, pass, fail, skip, manual)
	for _, c := range r.Checks {
		switch c.Result {
		case Fail, Skip:
			fmt.Fprintf(&b, "  %-4s %-22s %s (pass if %s)", c.Result, c.ID, c.Measured, c.Limit)
			if c.Detail != "" {
				fmt.Fprintf(&b, ": %s", c.Detail)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// mdCell escapes the characters that break a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// nz0 returns v, or 0 when it would print as −0 with three decimals.
func nz0(v float64) float64 {
	if math.Abs(v) < 0.0005 {
		return 0
	}
	return v
}

// round4 rounds a measurement for the record, so that the JSON does not
// carry the last bits of floating-point noise.
func round4(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r := math.Round(v*1e4) / 1e4
	if r == 0 {
		return 0 // no −0
	}
	return r
}

// check is a row under construction.
type check struct{ c Check }

func newCheck(step int, stepName, id, name string) *check {
	return &check{Check{ID: id, Step: step, StepName: stepName, Name: name}}
}

// val records a numeric measurement printed with format f (e.g. "%.2f s").
func (k *check) val(v float64, unit, f string) *check {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		k.c.Value = nil
		k.c.Measured = "never"
		k.c.Unit = unit
		return k
	}
	x := round4(v)
	k.c.Value, k.c.Unit = &x, unit
	k.c.Measured = fmt.Sprintf(f, v)
	return k
}

// text records a measurement that is not a number.
func (k *check) text(format string, args ...any) *check {
	k.c.Measured = fmt.Sprintf(format, args...)
	return k
}

func (k *check) limit(format string, args ...any) *check {
	k.c.Limit = fmt.Sprintf(format, args...)
	return k
}

func (k *check) detail(format string, args ...any) *check {
	k.c.Detail = fmt.Sprintf(format, args...)
	return k
}

// pass sets the result: Pass if ok, Fail otherwise.
func (k *check) pass(ok bool) Check {
	k.c.Result = Fail
	if ok {
		k.c.Result = Pass
	}
	return k.c
}

// skip sets the result Skip with the reason in the detail.
func (k *check) skip(why string) Check {
	k.c.Result = Skip
	if k.c.Measured == "" {
		k.c.Measured = "—"
	}
	k.c.Detail = why
	return k.c
}
