package mavlink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"syscall"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/frame"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// ServerConfig configures a Server. Zero values mean the defaults named on
// each field.
type ServerConfig struct {
	// Sim is the simulated vehicle, disarmed on the ground; required. The
	// server steps it: do not touch it while the server runs (see Do).
	Sim *vehicle.Sim
	// Endpoints are the links, e.g. the offboard/API link (a UDP server on
	// 14540) and the ground station (a UDP client to 14550); at least one.
	Endpoints []gomavlib.EndpointConf
	// SystemID and ComponentID identify the vehicle; 0 = 1 and 1 (PX4's).
	SystemID, ComponentID uint8
	// Speed is simulated seconds per wall second; 0 = 1.
	Speed float64
	// Clock paces the simulation; nil = RealClock.
	Clock Clock
	// Tick is the wall period of the simulation loop; 0 = 5 ms / Speed
	// (one 200-Hz simulation step per tick), between 0.5 and 5 ms.
	Tick time.Duration
	// Origin is the geographic position of the local frame's origin; zero =
	// scenario.SITLHome (PX4 SITL's default spawn point).
	Origin scenario.LatLonAlt
	// FailsafeDelayS is how long, in vehicle time, the vehicle holds after
	// losing its offboard setpoints before it lands (PX4's COM_FAIL_ACT_T);
	// 0 = 5 s.
	FailsafeDelayS float64
	// MaxPeers bounds the peers of server endpoints (a UDP or TCP server:
	// each remote address is a link) that receive the telemetry streams
	// at once; 0 = 8. PX4 likewise runs a fixed number of MAVLink
	// instances.
	MaxPeers int
	// PeerTimeout is how long a peer of a server endpoint keeps receiving
	// the streams after the last valid MAVLink frame it sent (a ground
	// station sends a HEARTBEAT every second); 0 = 10 s of wall time.
	PeerTimeout time.Duration
	// Logf receives one line per link event; nil = none.
	Logf func(format string, args ...any)
}

// minTick is the shortest default tick.
const minTick = 500 * time.Microsecond

// MaxCatchUpS is the most vehicle time one tick steps: a loop that fell
// further behind (a loaded machine) lets the simulation lag rather than
// flood the link. Below ×500 a tick steps less (catchUpS): no more than a
// quarter of COM_OF_LOSS_T (0.25 s with PX4's default), since the
// setpoints an offboard client sent while the loop was held up are read
// only after the step, and a longer step would run the vehicle past its
// offboard deadline on a link that kept streaming (it held and landed);
// and no more telemetry than one flush sends (sendBudget), so that a
// starved loop never owes more than it can send.
const MaxCatchUpS = 1.0

// sendBudget is the fewest messages one flush hands to one link: three
// quarters of gomavlib's per-link queue of 64, which drops what does not
// fit.
const sendBudget = 48

// maxOwed bounds what a link is owed, in budgets: beyond it the oldest
// messages are dropped (and said so once), rather than sending ever
// staler telemetry.
const maxOwed = 8

// Server serves a vehicle.Sim as a PX4-like MAVLink vehicle. Create it with
// NewServer and call Run.
//
// Each link starts in MAVLink 1 and switches to MAVLink 2 for good once a
// MAVLink 2 frame comes over it, as PX4 does with MAV_PROTO_VER = 0
// (automatic): a MAVLink-1 ground station can parse what it is sent.
// Messages that MAVLink 1 cannot carry (ids above 255) are not sent to a
// MAVLink-1 link, except PROTOCOL_VERSION, which the protocol sends as
// MAVLink 2 to show that the vehicle speaks it.
type Server struct {
	cfg   ServerConfig
	node  *gomavlib.Node
	core  *core
	links map[*gomavlib.Channel]*link
	full  bool // MaxPeers were streamed to when another peer spoke
	reqs  chan func(*vehicle.Sim)
	done  chan struct{}
	// budget is the most messages one flush hands to one link (gomavlib
	// queues 64 per link and drops the rest): sendBudget, or what the
	// streams make in the shortest catch-up at the server's speed. The
	// rest of what a link is owed (link.owed) goes out on the next ticks,
	// in order. streamHz is the streams' total rate, messages per second
	// of vehicle time.
	budget   int
	streamHz float64
}

// link is the state of one channel: the MAVLink version the peer speaks,
// and the sequence number of our MAVLink-1 frames on it.
//
// A link the server opened itself (a UDP client to a ground station, a
// serial port) gets the streams from the start, as PX4's does. A link a
// remote opened on a server endpoint (peer) gets them only once it has
// sent a valid MAVLink frame, while it keeps speaking (PeerTimeout), and
// while fewer than MaxPeers others do: a source that sends garbage, or
// spoofs many addresses, costs the server little, rather than a full
// telemetry stream each.
type link struct {
	v2     bool
	seq    uint8
	peer   bool      // opened by a remote on a server endpoint
	active bool      // a peer that receives the streams
	heard  time.Time // a peer's last valid frame
	owed   []message.Message
	shed   bool // owed overflowed (said once)
}

// NewServer opens the links; nothing is sent before Run.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Sim == nil {
		return nil, errors.New("mavlink: server needs a simulator")
	}
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("mavlink: server needs at least one endpoint")
	}
	if cfg.SystemID == 0 {
		cfg.SystemID = 1
	}
	if cfg.ComponentID == 0 {
		cfg.ComponentID = 1
	}
	if cfg.Speed == 0 {
		cfg.Speed = 1
	}
	if !(cfg.Speed > 0) || cfg.Speed > 1000 {
		return nil, fmt.Errorf("mavlink: speed %v: want a factor in (0, 1000]", cfg.Speed)
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Tick == 0 {
		// One simulation step (5 ms of vehicle time) per tick, at most
		// 2000 ticks a second: a sped-up vehicle spreads its messages over
		// the wall time as PX4 SITL does, rather than sending the
		// messages of several steps in one burst that a reader polling the
		// latest telemetry sees only the last of.
		cfg.Tick = time.Duration(math.Max(float64(5*time.Millisecond)/cfg.Speed, float64(minTick)))
		cfg.Tick = min(cfg.Tick, 5*time.Millisecond)
	}
	if cfg.Tick < 0 {
		return nil, fmt.Errorf("mavlink: tick %v must be > 0", cfg.Tick)
	}
	if cfg.Origin == (scenario.LatLonAlt{}) {
		cfg.Origin = scenario.SITLHome
	}
	if cfg.FailsafeDelayS == 0 {
		cfg.FailsafeDelayS = 5
	}
	if !(cfg.FailsafeDelayS > 0) || math.IsInf(cfg.FailsafeDelayS, 0) {
		return nil, fmt.Errorf("mavlink: failsafe delay %v s must be finite and > 0", cfg.FailsafeDelayS)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.MaxPeers == 0 {
		cfg.MaxPeers = 8
	}
	if cfg.PeerTimeout == 0 {
		cfg.PeerTimeout = 10 * time.Second
	}
	if cfg.MaxPeers < 0 || cfg.PeerTimeout < 0 {
		return nil, fmt.Errorf("mavlink: max peers %d and peer timeout %v must be ≥ 0", cfg.MaxPeers, cfg.PeerTimeout)
	}
	node := &gomavlib.Node{Endpoints: cfg.Endpoints, Dialect: common.Dialect, OutVersion: gomavlib.V2,
		OutSystemID: cfg.SystemID, OutComponentID: cfg.ComponentID, HeartbeatDisable: true}
	if err := node.Initialize(); err != nil {
		return nil, fmt.Errorf("mavlink: %w", err)
	}
	hz := 0.0
	for _, d := range streamDefaults {
		hz += d.hz
	}
	budget := max(sendBudget, int(math.Ceil(1.25*hz*2*cfg.Tick.Seconds()*cfg.Speed)))
	return &Server{cfg: cfg, node: node, core: newCore(cfg.Sim, cfg.SystemID, cfg.ComponentID, cfg.Origin, cfg.FailsafeDelayS),
		links: map[*gomavlib.Channel]*link{}, reqs: make(chan func(*vehicle.Sim)), done: make(chan struct{}), budget: budget, streamHz: hz}, nil
}

// Run serves until ctx is done, then closes the links.
func (s *Server) Run(ctx context.Context) error {
	defer close(s.done)
	defer s.node.Close()
	clk := s.cfg.Clock
	tk := clk.NewTicker(s.cfg.Tick)
	defer tk.Stop()
	c := s.core
	t0, sim0 := clk.Now(), c.now()
	events := s.node.Events()
	refused := map[string]bool{}
	c.advance(sim0, t0) // the first heartbeat and streams at once
	s.flush()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return errors.New("mavlink: server links closed")
			}
			switch e := ev.(type) {
			case *gomavlib.EventFrame:
				if _, v2 := e.Frame.(*frame.V2Frame); v2 {
					s.linkOf(e.Channel).v2 = true
				}
				s.heard(e.Channel)
				c.handle(e.Channel, e.SystemID(), e.ComponentID(), e.Message())
				s.flush()
			case *gomavlib.EventChannelOpen:
				if _, server := e.Channel.Endpoint().Conf().(gomavlib.EndpointCustomServer); server {
					// A peer: greeted and streamed to once it speaks MAVLink.
					s.linkOf(e.Channel).peer = true
					break
				}
				if !refused[e.Channel.String()] {
					s.cfg.Logf("link %s open", e.Channel)
				}
				// Greet a new link at once rather than at the next 1-Hz beat.
				s.write(e.Channel, c.heartbeatMsg())
			case *gomavlib.EventChannelClose:
				delete(s.links, e.Channel)
				// A ground-station link with nobody listening closes on
				// ICMP "port unreachable" and reopens every second: say so
				// once.
				label := e.Channel.String()
				switch {
				case errors.Is(e.Error, syscall.ECONNREFUSED) && !refused[label]:
					refused[label] = true
					s.cfg.Logf("link %s: nobody listening; sending on", label)
				case !refused[label]:
					s.cfg.Logf("link %s closed: %v", label, e.Error)
				}
			}
		case f := <-s.reqs:
			f(c.sim)
		case <-tk.C():
			now := clk.Now()
			target := sim0 + now.Sub(t0).Seconds()*s.cfg.Speed
			if lag, most := target-c.now(), s.catchUpS(); lag > most {
				sim0 -= lag - most
				target -= lag - most
			}
			c.advance(target, now)
			s.flush()
		}
	}
}

// catchUpS is the most vehicle time one tick steps (see MaxCatchUpS): the
// least of MaxCatchUpS, a quarter of COM_OF_LOSS_T and what the streams
// fill four fifths of a budget with (0.15 s), but at least two ticks'
// worth at the server's speed (above ×500 a tick on time steps more).
func (s *Server) catchUpS() float64 {
	most := min(MaxCatchUpS, s.core.ap.Config().OffboardLoss/4, float64(s.budget)/(1.25*s.streamHz))
	return math.Max(most, 2*s.cfg.Tick.Seconds()*s.cfg.Speed)
}

// Do runs f on the simulator inside the server's loop (for fault injection
// and ground truth); it returns false when the server is not running.
func (s *Server) Do(ctx context.Context, f func(*vehicle.Sim)) bool {
	done := make(chan struct{})
	select {
	case s.reqs <- func(v *vehicle.Sim) { f(v); close(done) }:
	case <-s.done:
		return false
	case <-ctx.Done():
		return false
	}
	select {
	case <-done:
		return true
	case <-s.done:
		return false
	}
}

// flush queues what the core made for the links it goes to and sends each
// link the oldest budget messages it is owed.
func (s *Server) flush() {
	now := s.cfg.Clock.Now()
	for _, o := range s.core.take() {
		if ch, ok := o.to.(*gomavlib.Channel); ok && ch != nil {
			if l := s.links[ch]; l != nil { // not closed since
				l.owed = append(l.owed, o.msg)
			}
			continue
		}
		for ch, l := range s.links {
			if s.streaming(ch, l, now) {
				l.owed = append(l.owed, o.msg)
			}
		}
	}
	for ch, l := range s.links {
		if over := len(l.owed) - maxOwed*s.budget; over > 0 {
			clear(l.owed[:over])
			l.owed = l.owed[over:]
			if !l.shed {
				l.shed = true
				s.cfg.Logf("link %s: the loop cannot keep up; dropping the oldest telemetry", ch)
			}
		}
		n := min(len(l.owed), s.budget)
		for _, m := range l.owed[:n] {
			s.write(ch, m)
		}
		clear(l.owed[:n])
		if l.owed = l.owed[n:]; len(l.owed) == 0 {
			l.owed = nil
		}
	}
}

// heard notes a valid frame from ch: a peer that was not streamed to
// starts receiving the streams if there is room, and is greeted.
func (s *Server) heard(ch *gomavlib.Channel) {
	l := s.linkOf(ch)
	if !l.peer {
		return
	}
	l.heard = s.cfg.Clock.Now()
	if l.active {
		return
	}
	n := 0
	for _, o := range s.links {
		if o.active {
			n++
		}
	}
	if n >= s.cfg.MaxPeers {
		if !s.full {
			s.full = true
			s.cfg.Logf("link %s: %d peers are receiving telemetry already (the most); not streaming to more until one goes silent", ch, n)
		}
		return
	}
	l.active = true
	s.cfg.Logf("link %s open", ch)
	s.write(ch, s.core.heartbeatMsg())
}

// streaming reports whether link l of ch receives the streams at now; a
// peer silent for longer than PeerTimeout stops receiving them.
func (s *Server) streaming(ch *gomavlib.Channel, l *link, now time.Time) bool {
	if !l.peer {
		return true
	}
	if l.active && now.Sub(l.heard) > s.cfg.PeerTimeout {
		l.active = false
		s.full = false
		s.cfg.Logf("link %s silent for %v: streaming to it stops until it speaks again", ch, s.cfg.PeerTimeout)
	}
	return l.active
}

func (s *Server) linkOf(ch *gomavlib.Channel) *link {
	l := s.links[ch]
	if l == nil {
		l = &link{}
		s.links[ch] = l
	}
	return l
}

// write sends m on ch in the version the link speaks.
func (s *Server) write(ch *gomavlib.Channel, m message.Message) {
	l := s.linkOf(ch)
	var err error
	switch id := m.GetID(); {
	case l.v2 || id == idProtocolVers:
		err = s.node.WriteMessageTo(ch, m)
	case id > 255:
		return // MAVLink 1 has no room for the id
	default:
		fr := &frame.V1Frame{SequenceNumber: l.seq, SystemID: s.cfg.SystemID, ComponentID: s.cfg.ComponentID, Message: m}
		l.seq++
		if err = s.node.FixFrame(fr); err == nil {
			err = s.node.WriteFrameTo(ch, fr)
		}
	}
	if err != nil {
		s.cfg.Logf("write %T: %v", m, err)
	}
}
