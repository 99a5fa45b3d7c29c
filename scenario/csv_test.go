package scenario

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseParamsCSV(t *testing.T) {
	for _, c := range []struct {
		name     string
		in       string
		want     map[string]float64
		wantInts map[string]bool
		wantErr  string
	}{
		{"competition", string(mustBuiltinFile("mission-params.csv")), competitionParams, competitionIntParams, ""},
		{"blank lines, CRLF and BOM", "\xef\xbb\xbfA, 1\r\n\r\n  \nB,2.5\r\n", map[string]float64{"A": 1, "B": 2.5}, map[string]bool{"A": true}, ""},
		{"float forms", "A, 1e3\nB, -0.25\nC, +7\n", map[string]float64{"A": 1000, "B": -0.25, "C": 7}, map[string]bool{"C": true}, ""},
		{"empty", "", nil, nil, ""},
		{"three fields", "A, 1, 2\n", nil, nil, "p.csv:1: 3 fields, want 2 (NAME, value)"},
		{"header", "name,value\n", nil, nil, `p.csv:1: parameter name "name": want upper-case letters`},
		{"not a number", "A, 1\nB, x\n", nil, nil, `p.csv:2: B: value "x" is not a number`},
		{"NaN", "A, nan\n", nil, nil, "p.csv:1: A: value nan is not a finite number"},
		{"int32 overflow", "A, 3000000000\n", nil, nil, "p.csv:1: A: integer 3000000000 outside the int32 range"},
		{"repeat", "A, 1\nA, 2\n", nil, nil, "p.csv:2: A: repeats line 1"},
		{"long name", "ABCDEFGHIJKLMNOPQ, 1\n", nil, nil, "longer than 16 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ints, err := parseParamsCSV("p.csv", []byte(c.in))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("got error %v; want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v; want none", err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("params (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.wantInts, ints); d != "" {
				t.Errorf("int params (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseCommandsCSV(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      string
		want    []Command
		wantErr string
	}{
		{"competition", string(mustBuiltinFile("mission-commands.csv")), competitionCommands, ""},
		{"columns in another order", "mode,timestamp,r,z,y,x\n100,5000, 0.1,0.5,-1,1.0\n3,6000,0,0,0,0\n", []Command{
			{TimestampUS: 5000, Mode: 100, X: 1, Y: -1, Z: 0.5, R: 0.1}, {TimestampUS: 6000, Mode: 3},
		}, ""},
		{"header only", "timestamp,mode,x,y,z,r\n", nil, ""},
		{"empty", "", nil, "c.csv: empty file"},
		{"missing column", "timestamp,mode,x,y,z\n", nil, "c.csv:1: r: missing column"},
		{"extra column", "timestamp,mode,x,y,z,r,q\n", nil, "extra columns"},
		{"repeated column", "timestamp,mode,x,y,z,x\n", nil, "c.csv:1: x: repeated column"},
		{"short row", "timestamp,mode,x,y,z,r\n1,3,0\n", nil, "c.csv:2: 3 fields, want 6"},
		{"bad mode", "timestamp,mode,x,y,z,r\n1,9,0,0,0.5,0\n", nil, "c.csv:2: mode: mode 9 is not an Aerialist flight mode"},
		{"fractional mode", "timestamp,mode,x,y,z,r\n1,3.5,0,0,0.5,0\n", nil, "c.csv:2: mode: 3.5 is not an integer"},
		{"negative time", "timestamp,mode,x,y,z,r\n-1,3,0,0,0.5,0\n", nil, "c.csv:2: timestamp: timestamp -1 µs"},
		{"not a number", "timestamp,mode,x,y,z,r\n1,3,a,0,0.5,0\n", nil, `c.csv:2: x: "a" is not a number`},
		{"infinite", "timestamp,mode,x,y,z,r\n1,3,0,inf,0.5,0\n", nil, `c.csv:2: y: inf is not a finite number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseCommandsCSV("c.csv", []byte(c.in))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("got error %v; want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v; want none", err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
		})
	}
}
