package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writeCase writes a case-study YAML naming mission, params and commands
// files into dir, and the competition's mission2.plan beside it.
func writeCase(t *testing.T, dir, missionFile, paramsFile, commandsFile string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "mission2.plan"), mustBuiltinFile("mission2.plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	y := "drone:\n  port: ros\n  mission_file: " + missionFile + "\n"
	if paramsFile != "" {
		y += "  params_file: " + paramsFile + "\n"
	}
	if commandsFile != "" {
		y += "test:\n  commands_file: " + commandsFile + "\n"
	}
	path := filepath.Join(dir, "test_0.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadCaseStudyHostileFiles is issue 21 item 15: a case study naming
// /dev/zero, /dev/stdin, a FIFO, a directory or an oversized file as its
// mission, params or commands file is refused at once, with the field and
// line of the reference, without reading the file to its (missing) end.
func TestLoadCaseStudyHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.plan")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		name, mission, params, commands string
		field                           string
		want                            error
	}{
		{"mission /dev/zero", "/dev/zero", "", "", "drone.mission_file", ErrNotRegular},
		{"mission /dev/stdin", "/dev/stdin", "", "", "drone.mission_file", ErrNotRegular},
		{"mission FIFO", fifo, "", "", "drone.mission_file", ErrNotRegular},
		{"mission directory", dir, "", "", "drone.mission_file", ErrNotRegular},
		{"mission oversized", big, "", "", "drone.mission_file", ErrFileTooLarge},
		{"params /dev/zero", "mission2.plan", "/dev/zero", "", "drone.params_file", ErrNotRegular},
		{"commands /dev/urandom", "mission2.plan", "", "/dev/urandom", "test.commands_file", ErrNotRegular},
		{"commands oversized", "mission2.plan", "", big, "test.commands_file", ErrFileTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeCase(t, t.TempDir(), c.mission, c.params, c.commands)
			_, err := LoadCaseStudy(path)
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, c.want) || pe.Field != c.field || pe.Line == 0 || pe.File != path {
				t.Fatalf("got %v; want %v at %s:line: %s", err, c.want, path, c.field)
			}
		})
	}
	// The case study itself, and a plan given directly.
	for _, p := range []string{"/dev/zero", fifo, big} {
		for _, arg := range []string{p} {
			if _, err := LoadCaseStudy(arg); !errors.Is(err, ErrNotRegular) && !errors.Is(err, ErrFileTooLarge) {
				t.Errorf("LoadCaseStudy(%s): got %v; want ErrNotRegular or ErrFileTooLarge", arg, err)
			}
		}
	}
	if _, err := Load(big); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("Load(%s): got %v; want ErrFileTooLarge", big, err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("ReadFile at the limit: %q %v", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("ReadFile above the limit: got %v; want ErrFileTooLarge", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of nothing: got %v; want fs.ErrNotExist", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link, 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a link to /dev/zero: got %v; want ErrNotRegular", err)
	}
}

// TestByteOrderMark is issue 21 item 20: YAML allows a UTF-8 BOM and
// PyYAML reads it; line numbers stay those of the file.
func TestByteOrderMark(t *testing.T) {
	in := "\xef\xbb\xbfdrone:\n  mission_file: mission2.plan\nsimulation:\n  speed: 0\n"
	_, err := ParseCaseStudy("t.yaml", []byte(in), testFiles)
	if err == nil || err.Error() != "t.yaml:4: simulation.speed: 0, want a speed factor above 0 and at most 1000" {
		t.Fatalf("with a BOM: got %v; want the speed error on line 4", err)
	}
	cs, err := ParseCaseStudy("t.yaml", []byte(in[:len(in)-len("simulation:\n  speed: 0\n")]), testFiles)
	if err != nil || cs.Mission.Name != "mission2" {
		t.Fatalf("with a BOM: %v", err)
	}
}

// TestCheckCaseStudy is issue 21 item 20: a rule error names the file,
// the line of the obstacle and its field.
func TestCheckCaseStudy(t *testing.T) {
	in := caseStudyInput("simulation:\n  obstacles:\n  - size: {l: 4, w: 4, h: 15}\n    position: {x: -30, y: 20, z: 0, r: 0}\n" +
		"  - size: {l: 4, w: 25, h: 15}\n    position: {x: 0, y: 25, z: 0, r: 0}\n")
	cs, err := ParseCaseStudy("cases/test_0.yaml", []byte(in), testFiles)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cs.ObstacleLines, []int{5, 7}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ObstacleLines = %v; want %v", got, want)
	}
	err = DefaultRules.CheckCaseStudy(cs)
	const want = "cases/test_0.yaml:7: simulation.obstacles[1].size.w: invalid obstacles: obstacle 2: w = 25 out of range [2, 20]"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v; want %q", err, want)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Violations) != 1 {
		t.Errorf("the ValidationError is not wrapped: %v", err)
	}
	cs.Obstacles = append(cs.Obstacles, box(20, 35), box(-15, 15))
	if err := DefaultRules.CheckCaseStudy(cs); err == nil || !strings.HasPrefix(err.Error(), "cases/test_0.yaml: simulation.obstacles: ") {
		t.Errorf("replaced obstacles: got %v; want no line", err)
	}
	cs.Obstacles = cs.Obstacles[:1]
	if err := DefaultRules.CheckCaseStudy(cs); err != nil {
		t.Errorf("valid: %v", err)
	}
}
