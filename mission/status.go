package mission

// Point is a position or velocity in the status, NED, rounded to 1 mm.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
}

// Target is the kept target in the status.
type Target struct {
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Z       float64 `json:"z"`
	SpeedMS float64 `json:"speed"`
	// Waypoint is the queue index of the target, nil for a single goto.
	Waypoint *int `json:"waypoint"`
}

// Status is what the status API shows. Every field is documented in the
// README ("Status fields"). Floats are rounded to 1 mm, 1 mm/s and 1 ms so
// that the JSON is byte-stable.
type Status struct {
	State         string  `json:"state"`
	PreviousState string  `json:"previous_state"`
	AdapterMode   string  `json:"adapter_mode"`
	TimeS         float64 `json:"time_s"`
	StateTimeS    float64 `json:"state_time_s"`

	Connected     bool     `json:"connected"`
	Armed         bool     `json:"armed"`
	Landed        bool     `json:"landed"`
	Airborne      bool     `json:"airborne"`
	Home          *Point   `json:"home"`
	Position      *Point   `json:"position"`
	Velocity      *Point   `json:"velocity"`
	Battery       *float64 `json:"battery"`
	TelemetryAgeS *float64 `json:"telemetry_age_s"`
	LinkUp        bool     `json:"link_up"`

	Target           *Target `json:"target"`
	CommandPending   bool    `json:"command_pending"`
	PendingCommand   *string `json:"pending_command"`
	TakeoffRPCResult *bool   `json:"takeoff_rpc_result"`
	FailsafeReason   *string `json:"failsafe_reason"`
	FailsafeDetail   *string `json:"failsafe_detail"`
	LastRPCError     *string `json:"last_rpc_error"`

	MissionQueue QueueStatus `json:"mission_queue"`
}

func point(x, y, z float64) *Point { return &Point{round3(x), round3(y), round3(z)} }

func ptr[T any](v T) *T { return &v }

// Status returns the status at the time of the last Step.
func (m *Machine) Status() Status {
	s := Status{
		State: m.state.String(), PreviousState: m.prev.String(), AdapterMode: m.cfg.AdapterMode,
		TimeS: round3(m.now.Seconds()), StateTimeS: round3((m.now - m.stateAt).Seconds()),
		Connected: m.connected, Airborne: m.airborne, LinkUp: m.linkUp,
		CommandPending: m.hasPending || m.hasWant,
		MissionQueue:   m.q.status(),
	}
	if !m.moved {
		s.PreviousState = ""
	}
	if m.haveHome {
		s.Home = point(m.home.X, m.home.Y, m.home.Z)
	}
	if m.telSeq > 0 {
		t := m.tel
		s.Armed, s.Landed = t.Armed, t.Landed
		s.Position = point(t.Pos.X, t.Pos.Y, t.Pos.Z)
		s.Velocity = point(t.Vel.X, t.Vel.Y, t.Vel.Z)
		if finite(t.Battery) {
			s.Battery = ptr(round3(t.Battery))
		}
		s.TelemetryAgeS = ptr(round3((m.now - m.telAt).Seconds()))
	}
	if m.hasTarget {
		w := m.target
		s.Target = &Target{X: round3(w.X), Y: round3(w.Y), Z: round3(w.Z), SpeedMS: round3(w.speed())}
		if m.q.state.Live() {
			s.Target.Waypoint = ptr(m.q.index)
		}
	}
	switch {
	case m.hasPending:
		s.PendingCommand = ptr(m.pending.Kind.String())
	case m.hasWant:
		s.PendingCommand = ptr(m.want.Kind.String())
	}
	switch m.takeoffRPC {
	case 1:
		s.TakeoffRPCResult = ptr(true)
	case -1:
		s.TakeoffRPCResult = ptr(false)
	}
	if m.reason != "" {
		s.FailsafeReason, s.FailsafeDetail = ptr(m.reason), ptr(m.detail)
	}
	if m.rpcErr != "" {
		s.LastRPCError = ptr(m.rpcErr)
	}
	return s
}
