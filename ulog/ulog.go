// Package ulog reads PX4 ULog files (.ulg), the flight logs PX4 writes and
// Aerialist extracts its trajectories from (competition.md §3.1).
//
// The format is PX4's "ULog File Format" (PX4-Autopilot
// docs/en/dev_log/ulog_file_format.md): a 16-byte header, then messages
// with a 3-byte header (uint16 size, uint8 type). Parse keeps what a reader
// of flight data needs: the message formats ('F'), the subscriptions ('A')
// and their data ('D') per topic and instance, information ('I', 'M'),
// parameters ('P'), logged strings ('L', 'C') and dropouts ('O'). It follows
// the rules the specification sets for parsers: unknown message types are
// skipped, a log that ends in the middle of a message loses only that
// message, a log with unknown incompatible flag bits is refused, and data
// appended after a cut-off log (the DATA_APPENDED flag, e.g. a hard-fault
// dump) is read from each appended offset on, the message cut by the offset
// being dropped.
//
// Trajectory turns a parsed log into the trajectory Aerialist scores: the
// vehicle_local_position topic, instance 0, with time and position relative
// to the first sample.
//
// The package is pure: Parse works on bytes and Read on an io.Reader.
package ulog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Errors a ParseError wraps, and those of the accessors.
var (
	ErrMagic        = errors.New("ulog: not a ULog file (bad magic bytes)")
	ErrShort        = errors.New("ulog: file shorter than the 16-byte header")
	ErrIncompatible = errors.New("ulog: unknown incompatible flag bits set; refusing to parse")
	ErrFormat       = errors.New("ulog: bad message format")
	ErrNoTopic      = errors.New("ulog: topic not in the log")
	ErrNoField      = errors.New("ulog: field not in the topic's format")
	ErrTimestamp    = errors.New("ulog: timestamps not monotonic")
	ErrTooLarge     = errors.New("ulog: log larger than MaxBytes")
)

// MaxBytes is the largest log Read reads (and the limit callers should give
// scenario.ReadFile for logs): the competition's flights log a few MB, so
// 128 MiB leaves room for long flights, and it bounds the memory a hostile
// stream (/dev/zero) can take to about 2.5 times as much while Read grows
// its buffer.
const MaxBytes = 128 << 20

// ParseError is an error at a byte offset of the file.
type ParseError struct {
	Offset int64 // byte offset of the message at fault
	Type   byte  // its message type, 0 for the header
	Err    error
}

func (e *ParseError) Error() string {
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "ulog: ")
	}
	if e.Type == 0 {
		return fmt.Sprintf("ulog: offset %d: %s", e.Offset, msg)
	}
	return fmt.Sprintf("ulog: offset %d: message %q: %s", e.Offset, e.Type, msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// magic is the first seven bytes of every ULog file: "ULog" 0x01 0x12 0x35.
var magic = []byte{'U', 'L', 'o', 'g', 0x01, 0x12, 0x35}

// incompatDataAppended is bit 0 of incompat_flags[0], DATA_APPENDED.
const incompatDataAppended = 1

// File is a parsed ULog file.
type File struct {
	Version     uint8  // file format version (header byte 7)
	TimestampUS uint64 // when logging started, µs (header)

	CompatFlags, IncompatFlags [8]byte // from the 'B' message; zero without one
	AppendedOffsets            []int64 // the non-zero appended_offsets

	// Info holds the 'I' messages by key name (without the type): strings
	// for char arrays, int64, uint64, float64 or bool for scalars, and the
	// raw bytes for anything else.
	Info map[string]any
	// MultiInfo holds the 'M' messages by key name, continued parts joined,
	// as raw bytes in file order.
	MultiInfo map[string][][]byte
	// Params are the parameter values when logging started (the 'P'
	// messages before the first data), and ParamChanges those changed later.
	Params       map[string]float64
	ParamChanges []ParamChange

	Logged   []Logged  // 'L' and 'C' messages
	Dropouts []Dropout // 'O' messages
	// Formats are the compiled formats of the subscribed topics and of
	// the formats nested in them, by name.
	Formats map[string]*Format
	Topics  []*Topic // one per subscription, in subscription order
}

// ParamChange is a parameter set during the log.
type ParamChange struct {
	Name  string
	Value float64
}

// Logged is a logged string (printf output of the flight stack).
type Logged struct {
	Level       byte   // '0' (EMERG) … '7' (DEBUG), as in the Linux kernel
	Tag         uint16 // 'C' messages only
	TimestampUS uint64
	Text        string
}

// Dropout marks lost log data.
type Dropout struct {
	DurationMS uint16
}

// Format is a message format: a named list of fields laid out without
// alignment, in order.
type Format struct {
	Name   string
	Fields []Field
	Size   int // bytes, padding included
}

// Field is one field of a Format. Type is a basic type (int8_t … uint64_t,
// float, double, bool, char) or the name of a nested format; Len is the
// array length, 0 for a scalar.
type Field struct {
	Name   string
	Type   string
	Len    int
	Offset int     // bytes from the start of the message
	Elem   int     // bytes per element
	Nested *Format // the format of a nested type; nil for basic types
}

// Topic is one subscription: a format's name, the instance (multi_id), and
// the payloads of its data messages in file order.
type Topic struct {
	Name    string
	MultiID uint8
	MsgID   uint16
	Format  *Format
	Data    [][]byte // payloads, without the msg_id; they alias the parsed bytes
}

// Len returns the number of data messages of the topic.
func (t *Topic) Len() int { return len(t.Data) }

// basicSize are the sizes of the basic types.
var basicSize = map[string]int{
	"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
	"int64_t": 8, "uint64_t": 8, "float": 4, "double": 8, "bool": 1, "char": 1,
}

// Read reads a whole ULog file from r and parses it. A log above MaxBytes
// is refused with ErrTooLarge after reading MaxBytes + 1 bytes.
func Read(r io.Reader) (*File, error) { return read(r, MaxBytes) }

func read(r io.Reader, limit int64) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	return Parse(data)
}

// Parse parses a ULog file held in data. The returned File refers to data
// (the topics' payloads alias it): do not modify data afterwards.
func Parse(data []byte) (*File, error) {
	if len(data) < 16 {
		if len(data) >= len(magic) && string(data[:len(magic)]) != string(magic) {
			return nil, &ParseError{Err: ErrMagic}
		}
		return nil, &ParseError{Err: ErrShort}
	}
	if string(data[:len(magic)]) != string(magic) {
		return nil, &ParseError{Err: ErrMagic}
	}
	f := &File{
		Version:     data[7],
		TimestampUS: binary.LittleEndian.Uint64(data[8:16]),
		Info:        map[string]any{},
		MultiInfo:   map[string][][]byte{},
		Params:      map[string]float64{},
		Formats:     map[string]*Format{},
	}
	p := parser{f: f, data: data, bySub: map[uint16]*Topic{}, formatsRaw: map[string]string{}}
	// Segments: the log up to the first appended offset, then each
	// appended part. The 'B' message, if any, is the first message, so its
	// offsets are known before the first segment ends.
	start := int64(16)
	end := int64(len(data))
	if err := p.segment(start, end, true); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	f          *File
	data       []byte
	bySub      map[uint16]*Topic // current subscriptions by msg_id
	formatsRaw map[string]string // 'F' definitions: name → fields
	dataSeen   bool              // a subscription or data message has been read
	lastMulti  string            // key of the last 'M' message
}

// segment reads the messages in data[start:end]. In the first segment the
// end is moved to the first appended offset once the 'B' message names it;
// then each appended part is read in turn.
func (p *parser) segment(start, end int64, first bool) error {
	off := start
	for off+3 <= end {
		size := int64(binary.LittleEndian.Uint16(p.data[off:]))
		typ := p.data[off+2]
		body := off + 3
		if body+size > end {
			break // cut off: the unfinished message is dropped
		}
		msg := p.data[body : body+size]
		if first && off == 16 && typ == 'B' {
			if err := p.flags(msg); err != nil {
				return &ParseError{Offset: off, Type: typ, Err: err}
			}
			if len(p.f.AppendedOffsets) > 0 {
				a := p.f.AppendedOffsets[0]
				if a > body+size && a < end {
					end = a
				}
			}
		} else if err := p.message(typ, msg); err != nil {
			return &ParseError{Offset: off, Type: typ, Err: err}
		}
		off = body + size
	}
	if !first {
		return nil
	}
	// The appended parts, each up to the next offset or the end of file.
	// An offset inside the part already read would read it twice: skipped.
	offs := p.f.AppendedOffsets
	for i, a := range offs {
		if a < end || a >= int64(len(p.data)) {
			continue
		}
		e := int64(len(p.data))
		if i+1 < len(offs) && offs[i+1] > a && offs[i+1] <= e {
			e = offs[i+1]
		}
		if err := p.segment(a, e, false); err != nil {
			return err
		}
	}
	return nil
}

// flags reads the 'B' message.
func (p *parser) flags(msg []byte) error {
	if len(msg) < 40 {
		return fmt.Errorf("flag bits message of %d bytes, want at least 40", len(msg))
	}
	copy(p.f.CompatFlags[:], msg[0:8])
	copy(p.f.IncompatFlags[:], msg[8:16])
	if p.f.IncompatFlags[0]&^incompatDataAppended != 0 {
		return ErrIncompatible
	}
	for _, b := range p.f.IncompatFlags[1:] {
		if b != 0 {
			return ErrIncompatible
		}
	}
	if p.f.IncompatFlags[0]&incompatDataAppended != 0 {
		for i := range 3 {
			o := binary.LittleEndian.Uint64(msg[16+8*i:])
			if o != 0 && o <= math.MaxInt64 {
				p.f.AppendedOffsets = append(p.f.AppendedOffsets, int64(o))
			}
		}
	}
	return nil
}

// message reads one message of type typ with body msg. Malformed messages
// of kinds that carry no flight data are skipped; malformed formats and
// subscriptions are errors, since data would be misread.
func (p *parser) message(typ byte, msg []byte) error {
	f := p.f
	switch typ {
	case 'F':
		name, fields, ok := strings.Cut(string(msg), ":")
		if !ok || name == "" {
			return fmt.Errorf("%w: %q has no name", ErrFormat, clip(string(msg)))
		}
		p.formatsRaw[name] = fields
	case 'A':
		if len(msg) < 3 {
			return fmt.Errorf("subscription of %d bytes", len(msg))
		}
		name := string(msg[3:])
		format, err := p.format(name, 0)
		if err != nil {
			return err
		}
		t := &Topic{Name: name, MultiID: msg[0], MsgID: binary.LittleEndian.Uint16(msg[1:3]), Format: format}
		f.Topics = append(f.Topics, t)
		p.bySub[t.MsgID] = t
		p.dataSeen = true
	case 'R':
		if len(msg) >= 2 {
			delete(p.bySub, binary.LittleEndian.Uint16(msg))
		}
	case 'D':
		if len(msg) < 2 {
			return nil
		}
		t := p.bySub[binary.LittleEndian.Uint16(msg)]
		if t == nil {
			return nil // data of an unknown subscription: ignored, as pyulog does
		}
		t.Data = append(t.Data, msg[2:len(msg):len(msg)])
		p.dataSeen = true
	case 'I':
		if key, val, ok := keyValue(msg); ok {
			f.Info[keyName(key)] = decodeValue(keyType(key), val)
		}
	case 'M':
		if len(msg) < 1 {
			return nil
		}
		if key, val, ok := keyValue(msg[1:]); ok {
			name := keyName(key)
			v := append([]byte(nil), val...)
			list := f.MultiInfo[name]
			if msg[0] != 0 && len(list) > 0 && p.lastMulti == name {
				list[len(list)-1] = append(list[len(list)-1], v...)
			} else {
				f.MultiInfo[name] = append(list, v)
			}
			p.lastMulti = name
		}
	case 'P':
		if key, val, ok := keyValue(msg); ok {
			v, ok := paramValue(keyType(key), val)
			if !ok {
				return nil
			}
			name := keyName(key)
			if p.dataSeen {
				f.ParamChanges = append(f.ParamChanges, ParamChange{Name: name, Value: v})
			} else {
				f.Params[name] = v
			}
		}
	case 'L':
		if len(msg) >= 9 {
			f.Logged = append(f.Logged, Logged{Level: msg[0], TimestampUS: binary.LittleEndian.Uint64(msg[1:9]), Text: string(msg[9:])})
		}
	case 'C':
		if len(msg) >= 11 {
			f.Logged = append(f.Logged, Logged{Level: msg[0], Tag: binary.LittleEndian.Uint16(msg[1:3]),
				TimestampUS: binary.LittleEndian.Uint64(msg[3:11]), Text: string(msg[11:])})
		}
	case 'O':
		if len(msg) >= 2 {
			f.Dropouts = append(f.Dropouts, Dropout{DurationMS: binary.LittleEndian.Uint16(msg)})
		}
	case 'B':
		// A flag-bits message anywhere but first is out of specification;
		// its flags cannot apply any more.
	default:
		// 'S' (sync), 'Q' (default parameters) and unknown types: skipped.
	}
	return nil
}

// maxNesting bounds nested formats; deeper nesting means a cycle.
const maxNesting = 32

// format compiles the format name, resolving nested formats.
func (p *parser) format(name string, depth int) (*Format, error) {
	if fm, ok := p.f.Formats[name]; ok {
		return fm, nil
	}
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: %s: nesting deeper than %d (a cycle?)", ErrFormat, name, maxNesting)
	}
	raw, ok := p.formatsRaw[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q is not defined", ErrFormat, clip(name))
	}
	fm := &Format{Name: name}
	for _, def := range strings.Split(raw, ";") {
		def = strings.TrimSpace(def)
		if def == "" {
			continue
		}
		typ, fname, ok := strings.Cut(def, " ")
		if !ok || fname == "" {
			return nil, fmt.Errorf("%w: %s: field %q is not \"type name\"", ErrFormat, name, clip(def))
		}
		fd := Field{Name: fname, Type: typ}
		if i := strings.IndexByte(typ, '['); i >= 0 {
			if !strings.HasSuffix(typ, "]") {
				return nil, fmt.Errorf("%w: %s: bad array type %q", ErrFormat, name, clip(typ))
			}
			n, err := strconv.Atoi(typ[i+1 : len(typ)-1])
			if err != nil || n < 0 || n > 1<<16 {
				return nil, fmt.Errorf("%w: %s: bad array length in %q", ErrFormat, name, clip(typ))
			}
			fd.Type, fd.Len = typ[:i], n
		}
		if sz, ok := basicSize[fd.Type]; ok {
			fd.Elem = sz
		} else {
			nested, err := p.format(fd.Type, depth+1)
			if err != nil {
				return nil, err
			}
			fd.Nested, fd.Elem = nested, nested.Size
		}
		fd.Offset = fm.Size
		fm.Size += fd.Elem * max(fd.Len, 1)
		if fm.Size > 1<<20 {
			return nil, fmt.Errorf("%w: %s: larger than 1 MiB", ErrFormat, name)
		}
		fm.Fields = append(fm.Fields, fd)
	}
	p.f.Formats[name] = fm
	return fm, nil
}

// keyValue splits the body of an 'I' or 'P' message: uint8 key_len, the key
// "type name", then the value.
func keyValue(msg []byte) (key string, val []byte, ok bool) {
	if len(msg) < 1 || int(msg[0]) > len(msg)-1 {
		return "", nil, false
	}
	n := int(msg[0])
	return string(msg[1 : 1+n]), msg[1+n:], true
}

func keyType(key string) string {
	t, _, _ := strings.Cut(key, " ")
	return t
}

func keyName(key string) string {
	if _, n, ok := strings.Cut(key, " "); ok {
		return n
	}
	return key
}

// decodeValue decodes an information value of type typ.
func decodeValue(typ string, val []byte) any {
	if strings.HasPrefix(typ, "char[") {
		return string(val)
	}
	if v, ok := scalar(typ, val); ok {
		return v
	}
	return append([]byte(nil), val...)
}

// paramValue decodes a parameter (int32_t or float).
func paramValue(typ string, val []byte) (float64, bool) {
	v, ok := scalar(typ, val)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// scalar decodes a basic scalar type.
func scalar(typ string, b []byte) (any, bool) {
	sz, ok := basicSize[typ]
	if !ok || len(b) < sz {
		return nil, false
	}
	le := binary.LittleEndian
	switch typ {
	case "int8_t":
		return int64(int8(b[0])), true
	case "uint8_t", "char":
		return uint64(b[0]), true
	case "int16_t":
		return int64(int16(le.Uint16(b))), true
	case "uint16_t":
		return uint64(le.Uint16(b)), true
	case "int32_t":
		return int64(int32(le.Uint32(b))), true
	case "uint32_t":
		return uint64(le.Uint32(b)), true
	case "int64_t":
		return int64(le.Uint64(b)), true
	case "uint64_t":
		return le.Uint64(b), true
	case "float":
		return float64(math.Float32frombits(le.Uint32(b))), true
	case "double":
		return math.Float64frombits(le.Uint64(b)), true
	case "bool":
		return b[0] != 0, true
	}
	return nil, false
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
