package statelog

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// CSVHeader is the first line of a black-box flight_events.csv.
const CSVHeader = "seq,time_s,kind,state,detail"

// MaxLine is the longest line read (a status sample is about 1 KiB).
const MaxLine = 1 << 20

// Log is what Read returns: the entries, and whether the last line was
// left out because it had no newline yet (a line being written).
type Log struct {
	Entries []Entry
	Partial bool
	CSV     bool // read from a black-box CSV
}

// Read reads a state log (JSONL) or a black-box flight_events.csv, told
// apart by the CSV header; file names the source in errors. Every line must
// be a whole entry: a line that is not JSON, has unknown fields or a
// non-finite or negative time is an error naming file and line. Only a last
// JSONL line without a newline is skipped (Partial).
func Read(r io.Reader, file string) (Log, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(len(CSVHeader))
	if string(head) == CSVHeader {
		es, err := readCSV(br, file)
		return Log{Entries: es, CSV: true}, err
	}
	return readJSONL(br, file)
}

func readJSONL(br *bufio.Reader, file string) (Log, error) {
	var lg Log
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var long []byte
			long = append(long, line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= MaxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > MaxLine {
				return lg, lineErr(file, n, "", "longer than %d bytes", MaxLine)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return lg, &ParseError{File: file, Line: n, Err: err}
		}
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(line)) > 0 {
				lg.Partial = true // being written: its newline is not there yet
			}
			return lg, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, perr := parseLine(line, file, n)
		if perr != nil {
			return lg, perr
		}
		lg.Entries = append(lg.Entries, e)
	}
}

// parseLine decodes one JSONL entry strictly.
func parseLine(line []byte, file string, n int) (Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var raw struct {
		Entry
		Kind  *string  `json:"kind"`
		TimeS *float64 `json:"time_s"`
	}
	if err := dec.Decode(&raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Entry{}, lineErr(file, n, te.Field, "%s is not a %s", te.Value, te.Type)
		}
		return Entry{}, lineErr(file, n, "", "%v", err)
	}
	if dec.More() {
		return Entry{}, lineErr(file, n, "", "data after the entry")
	}
	e := raw.Entry
	switch {
	case raw.Kind == nil || *raw.Kind == "":
		return Entry{}, lineErr(file, n, "kind", "missing")
	case raw.TimeS == nil:
		return Entry{}, lineErr(file, n, "time_s", "missing")
	case math.IsNaN(*raw.TimeS) || math.IsInf(*raw.TimeS, 0) || *raw.TimeS < 0:
		return Entry{}, lineErr(file, n, "time_s", "%v is not a time ≥ 0", *raw.TimeS)
	case *raw.Kind == KindSample && raw.Status == nil:
		return Entry{}, lineErr(file, n, "status", "missing in a sample")
	}
	e.Kind, e.TimeS = *raw.Kind, *raw.TimeS
	return e, nil
}

// readCSV reads flight_events.csv: the header, then seq, time_s, kind,
// state, detail per row.
func readCSV(r io.Reader, file string) ([]Entry, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 5
	var out []Entry
	for first := true; ; first = false {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, lineErr(file, max(pe.StartLine, 1), "", "%v", pe.Err)
			}
			return nil, &ParseError{File: file, Line: 1, Err: err}
		}
		line, _ := cr.FieldPos(0)
		if first {
			continue // the header, checked by Read
		}
		seq, err := strconv.ParseUint(row[0], 10, 64)
		if err != nil {
			return nil, lineErr(file, line, "seq", "%q is not a sequence number", row[0])
		}
		t, err := strconv.ParseFloat(row[1], 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
			return nil, lineErr(file, line, "time_s", "%q is not a time ≥ 0", row[1])
		}
		if row[2] == "" {
			return nil, lineErr(file, line, "kind", "missing")
		}
		e := Entry{Seq: seq, TimeS: t, Kind: row[2], State: row[3], Detail: row[4]}
		if e.Kind == "command" {
			e.Command, e.Code = commandOf(e.Detail)
		}
		out = append(out, e)
	}
}

// commandOf reads the command name and refusal code from a black-box
// command detail: "pause: rejected (wrong_state): …", "goto (1, 0, -2) 3
// m/s: accepted", "mission of 3 waypoints: accepted".
func commandOf(detail string) (name, code string) {
	name = detail
	if i := strings.IndexAny(name, " :"); i >= 0 {
		name = name[:i]
	}
	if _, after, ok := strings.Cut(detail, ": rejected ("); ok {
		if c, _, ok := strings.Cut(after, ")"); ok {
			code = c
		} else {
			code = "unknown"
		}
	}
	return name, code
}
