package eol

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Checklist returns what must be true before the test moves a real robot
// of the vehicle ("mower" or "quad"): the seed's "Before you run it on a
// real robot" for the mower, the same for the quadrotor's flight steps.
// noBlade and noLidar (the run's blade:=false, lidar:=false) change the
// items that depend on them.
func Checklist(vehicle string, noBlade, noLidar bool) []string {
	if vehicle == "quad" {
		items := []string{
			"The test arms the quadrotor, spins each motor, takes off to 3 m and flies forward: propellers on only in a clear area at least 10 m across, nobody within 5 m.",
			"The kill switch in your hand for the whole run; the flight steps need a safety pilot on the RC link.",
			"The autopilot's collision prevention (CP_DIST 2 m) and offboard-loss failsafe (COM_OF_LOSS_T 1 s) set as the thresholds table says.",
		}
		if !noLidar {
			items = append(items, "A wall straight ahead, about 9 m away and above the 3-m flight height (the simulator's is 6 m wide), for the collision-prevention step.")
		}
		return items
	}
	items := []string{"About 4 m of clear, flat lawn ahead, and nobody within 3 m of the robot."}
	if !noLidar {
		items = append(items, "A box at least 20 cm tall about 3 m in front of the robot, for step 6.")
	}
	if noBlade {
		items = append(items, "The test drives the robot (blade:=false: the blade off the motor and its connector taped). Keep a hand near the STOP button for the whole run.")
	} else {
		items = append(items, "The test drives the robot and spins the blade. Keep a hand near the STOP button for the whole run.",
			"Gate 3 (hardware/safety.md) has passed: until it does, run with --blade=false, the blade off the motor and its connector taped.")
	}
	return items
}

// ErrNotConfirmed is returned by Confirm when the operator did not confirm
// the checklist; nothing has moved.
var ErrNotConfirmed = errors.New("eol: the pre-run checklist was not confirmed")

// Confirm writes the checklist to w and reads one line from r: "yes"
// (any case, blanks around it) confirms it; anything else, or the end of
// the input, is ErrNotConfirmed. It reads at most 256 bytes.
func Confirm(r io.Reader, w io.Writer, items []string) error {
	WriteChecklist(w, items)
	fmt.Fprint(w, "Type yes when all of this is true, to start the test: ")
	line, err := bufio.NewReader(io.LimitReader(r, 256)).ReadString('\n')
	answer := strings.TrimSpace(line)
	if strings.EqualFold(answer, "yes") {
		return nil
	}
	if err != nil && answer == "" {
		return fmt.Errorf("%w: no answer (%v); nothing moved", ErrNotConfirmed, err)
	}
	if len(answer) > 40 {
		answer = answer[:40] + "…"
	}
	return fmt.Errorf("%w: answered %q, not yes; nothing moved", ErrNotConfirmed, answer)
}

// WriteChecklist writes the checklist as a numbered list.
func WriteChecklist(w io.Writer, items []string) {
	fmt.Fprintln(w, "Before the end-of-line test moves the robot:")
	for i, it := range items {
		fmt.Fprintf(w, "  %d. %s\n", i+1, it)
	}
}
