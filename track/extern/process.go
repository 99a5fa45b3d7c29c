package extern

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/shakedown-robotics/shakedown/track"
	"github.com/shakedown-robotics/shakedown/traj"
)

// Process is a Link to a program: the messages go to its stdin, one JSON
// object per line, and each answer comes back as one line on its stdout.
type Process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan lineOrErr
	timeout time.Duration
	cancel  context.CancelFunc
}

type lineOrErr struct {
	b   []byte
	err error
}

var _ Link = (*Process)(nil)

// StartProcess starts argv (no shell) with its stderr to stderr; an answer
// that takes longer than timeout of wall time (0 = 10 s) is an error, so
// that a hung program ends the trajectory instead of the benchmark.
func StartProcess(argv []string, stderr io.Writer, timeout time.Duration) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("extern: no command")
	}
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("extern: start %s: %w", argv[0], err)
	}
	p := &Process{cmd: cmd, stdin: in, lines: make(chan lineOrErr, 1), timeout: timeout, cancel: cancel}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 4096), MaxLine+1)
		for sc.Scan() {
			p.lines <- lineOrErr{b: append([]byte(nil), sc.Bytes()...)}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		p.lines <- lineOrErr{err: fmt.Errorf("the program's output ended: %w", err)}
		close(p.lines)
	}()
	return p, nil
}

func (p *Process) roundTrip(msg any) ([]byte, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("write to the program: %w", err)
	}
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	select {
	case l, ok := <-p.lines:
		if !ok {
			return nil, errors.New("the program's output ended")
		}
		return l.b, l.err
	case <-t.C:
		return nil, fmt.Errorf("no answer within %v", p.timeout)
	}
}

// Start sends the start message.
func (p *Process) Start(path traj.Path, o track.Odom) error {
	line, err := p.roundTrip(StartOf(path, o))
	if err != nil {
		return err
	}
	return ParseStartReply(line)
}

// Step sends odometry and reads the answer.
func (p *Process) Step(o track.Odom) (Reply, error) {
	line, err := p.roundTrip(OdomOf(o))
	if err != nil {
		return Reply{}, err
	}
	return ParseReply(line)
}

// Close closes the program's stdin, then kills it if its output has not
// ended within a second, and waits for it.
func (p *Process) Close() error {
	p.stdin.Close()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for drained := false; !drained; {
		select {
		case _, ok := <-p.lines:
			drained = !ok
		case <-t.C:
			p.cancel() // kill; its output then ends
			for range p.lines {
			}
			drained = true
		}
	}
	err := p.cmd.Wait()
	p.cancel()
	return err
}
