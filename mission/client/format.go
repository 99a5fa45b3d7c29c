package client

import (
	"fmt"
	"io"

	"github.com/shakedown-robotics/shakedown/mission"
)

// FormatPoint is a point as "(x, y, z)" with centimetres, or "unknown".
func FormatPoint(p *mission.Point) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("(%.2f, %.2f, %.2f)", p.X, p.Y, p.Z)
}

// FormatQueue is the mission queue in one phrase.
func FormatQueue(q mission.QueueStatus) string {
	s := fmt.Sprintf("%s %d/%d done", q.State, q.Completed, q.Total)
	if q.CurrentIndex != nil {
		s += fmt.Sprintf(", current %d, %d remaining", *q.CurrentIndex, q.Remaining)
	}
	return s
}

// StatusLine is one line of "mission status --watch".
func StatusLine(st mission.Status) string {
	s := fmt.Sprintf("%8.2f s  %-10s pos %s  queue %s", st.TimeS, st.State, FormatPoint(st.Position), FormatQueue(st.MissionQueue))
	if st.PendingCommand != nil {
		s += "  pending " + *st.PendingCommand
	}
	if st.FailsafeReason != nil {
		s += "  failsafe " + *st.FailsafeReason
	}
	return s
}

// GoalLine is a goal's state in one line.
func GoalLine(g mission.GoalStatus) string {
	s := fmt.Sprintf("goal %d %s", g.ID, g.State)
	if g.Reason != "" {
		s += " (" + g.Reason + ")"
	}
	if g.Paused {
		s += " paused"
	}
	s += fmt.Sprintf(": %d/%d waypoints reached", g.Completed, g.Total)
	if g.Dropped > 0 {
		s += fmt.Sprintf(", %d dropped", g.Dropped)
	}
	return s
}

// WriteStatus writes the status as a table of "mission status".
func WriteStatus(w io.Writer, st mission.Status) {
	row := func(k, v string) { fmt.Fprintf(w, "%-19s %s\n", k, v) }
	prev := ""
	if st.PreviousState != "" {
		prev = " from " + st.PreviousState
	}
	row("state", fmt.Sprintf("%s%s, %.1f s", st.State, prev, st.StateTimeS))
	row("adapter", st.AdapterMode)
	row("position", FormatPoint(st.Position)+" m NED")
	row("velocity", FormatPoint(st.Velocity)+" m/s")
	row("home", FormatPoint(st.Home))
	row("armed / landed", fmt.Sprintf("%v / %v (airborne %v)", st.Armed, st.Landed, st.Airborne))
	if st.Target != nil {
		t := fmt.Sprintf("(%.2f, %.2f, %.2f) at %.1f m/s", st.Target.X, st.Target.Y, st.Target.Z, st.Target.SpeedMS)
		if st.Target.Waypoint != nil {
			t += fmt.Sprintf(", waypoint %d", *st.Target.Waypoint)
		}
		row("target", t)
	} else {
		row("target", "none")
	}
	row("mission queue", FormatQueue(st.MissionQueue))
	pend := "none"
	if st.PendingCommand != nil {
		pend = *st.PendingCommand
	}
	row("command pending", pend)
	tk := "none yet"
	if st.TakeoffRPCResult != nil {
		tk = fmt.Sprint(*st.TakeoffRPCResult)
	}
	row("takeoff RPC result", tk)
	if st.TelemetryAgeS != nil {
		row("telemetry age", fmt.Sprintf("%.2f s", *st.TelemetryAgeS))
	}
	if st.Battery != nil {
		row("battery", fmt.Sprintf("%.0f %%", *st.Battery*100))
	}
	row("link", map[bool]string{true: "up", false: "DOWN"}[st.LinkUp])
	if st.FailsafeReason != nil {
		row("failsafe", *st.FailsafeReason+": "+*st.FailsafeDetail)
	}
	if st.LastRPCError != nil {
		row("last RPC error", *st.LastRPCError)
	}
}
