package rosbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// DefaultMaxMessageBytes is the largest message a Server or Client reads
// by default: rosbridge_server's max_message_size is unlimited, but a 10 MB
// frame from a client is an attack on a vehicle's bridge, not telemetry.
const DefaultMaxMessageBytes = 4 << 20

// ServerConfig configures a Server. Zero values mean the defaults named on
// each field.
type ServerConfig struct {
	MaxMessageBytes int64         // largest frame read, reassembled fragments too; 0 = DefaultMaxMessageBytes; larger frames close the connection (1009)
	SendQueue       int           // frames queued per client; 0 = 1024. Topic messages beyond it are dropped for that client; a control message beyond it disconnects the client
	WriteTimeout    time.Duration // a client that takes longer to take one frame is disconnected; 0 = 5 s
	CallTimeout     time.Duration // calls forwarded to a client's service; 0 = 30 s
	NodeName        string        // what rosapi/nodes reports; "" = /rosbridge_websocket
	Logf            func(format string, args ...any)
}

func (c *ServerConfig) defaults() {
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.SendQueue == 0 {
		c.SendQueue = 1024
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 5 * time.Second
	}
	if c.CallTimeout == 0 {
		c.CallTimeout = 30 * time.Second
	}
	if c.NodeName == "" {
		c.NodeName = "/rosbridge_websocket"
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
}

// Server is a rosbridge v2 server: WebSocket clients (roslib, roslibpy,
// Foxglove, Client) join one ROS graph with the server's own local node
// (the Node methods of Server). Topics, services and actions are routed
// between all of them, as rosbridge_server routes them through ROS 2.
type Server struct {
	cfg ServerConfig

	mu       sync.Mutex
	conns    map[*conn]struct{}
	topics   map[string]*topic
	services map[string]*service
	actions  map[string]*action
	calls    map[string]*pendingCall // service calls forwarded to a client, by the server's id
	goals    map[string]*pendingGoal // goals forwarded to a client, by the server's id
	nextID   uint64
	closed   bool
	stats    Stats
}

// Stats counts what a Server did, for tests and logs.
type Stats struct {
	Conns        int // clients connected now
	Dropped      int // topic messages dropped for slow clients or throttling
	Disconnected int // clients disconnected for being too slow
	BadInput     int // messages answered with an error status
}

var _ Node = (*Server)(nil)

type topic struct {
	typ      string
	pubs     map[*conn]int // advertisers; nil is the local node
	subs     map[*subscription]struct{}
	messages uint64
}

type subscription struct {
	c     *conn                       // nil for a local subscriber
	fn    func(json.RawMessage) error // local subscriber
	topic string
	ids   map[string]bool
	opt   SubscribeOptions
	last  time.Time
	queue [][]byte
	timer *time.Timer
}

type service struct {
	typ   string
	owner *conn // nil: local
	fn    ServiceFunc
}

type action struct {
	typ   string
	owner *conn // nil: local
	fn    ActionFunc
}

// pendingCall is a service call forwarded to the client that owns the
// service; reply gets the response.
type pendingCall struct {
	owner *conn
	reply func(ServiceResponse)
	timer *time.Timer
}

// pendingGoal is a goal forwarded to the client that owns the action.
type pendingGoal struct {
	owner    *conn
	action   string
	feedback func(json.RawMessage)
	result   func(ActionResult)
}

// NewServer returns a server with the rosapi services roslib's getTopics,
// getTopicType, getServices, getNodes and getActionServers call.
func NewServer(cfg ServerConfig) (*Server, error) {
	cfg.defaults()
	if cfg.MaxMessageBytes < 1024 || cfg.SendQueue < 1 || cfg.WriteTimeout < 0 || cfg.CallTimeout < 0 {
		return nil, fmt.Errorf("rosbridge: max message %d B (want ≥ 1024), send queue %d, timeouts %v %v: out of range",
			cfg.MaxMessageBytes, cfg.SendQueue, cfg.WriteTimeout, cfg.CallTimeout)
	}
	s := &Server{cfg: cfg, conns: map[*conn]struct{}{}, topics: map[string]*topic{},
		services: map[string]*service{}, actions: map[string]*action{},
		calls: map[string]*pendingCall{}, goals: map[string]*pendingGoal{}}
	s.addRosapi()
	return s, nil
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Conns = len(s.conns)
	return st
}

// Serve accepts WebSocket clients on ln until ctx is done, then closes
// every connection.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		s.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		<-errc
		return nil
	case err := <-errc:
		s.Close()
		return err
	}
}

// Close disconnects every client.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close(websocket.StatusGoingAway, "server closing")
	}
}

// Disconnect closes every client's connection (going away, 1001) and
// keeps serving: clients that reconnect find the graph without what they
// had advertised.
func (s *Server) Disconnect() {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close(websocket.StatusGoingAway, "disconnected by the server")
	}
}

// ServeHTTP upgrades a request on any path to a rosbridge connection.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// rosbridge_server accepts any origin; so does this server.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ws.SetReadLimit(s.cfg.MaxMessageBytes)
	ctx, cancel := context.WithCancel(r.Context())
	c := &conn{s: s, ws: ws, out: make(chan []byte, s.cfg.SendQueue), level: 1, ctx: ctx, cancel: cancel,
		frags: map[string]*fragBuf{}, goals: map[string]func(){}, peer: r.RemoteAddr}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close(websocket.StatusGoingAway, "server closing")
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.cfg.Logf("rosbridge: client %s connected", c.peer)
	go c.writeLoop()
	c.readLoop()
	c.close(websocket.StatusNormalClosure, "")
	s.drop(c)
	s.cfg.Logf("rosbridge: client %s disconnected", c.peer)
}

// conn is one WebSocket client.
type conn struct {
	s     *Server
	ws    *websocket.Conn
	out   chan []byte
	level int // status level rank; guarded by s.mu
	ctx   context.Context
	peer  string

	cancel    context.CancelFunc
	closeOnce sync.Once

	frags     map[string]*fragBuf // read goroutine only
	fragBytes int64
	goals     map[string]func() // this client's goals on local actions: cancel, by the client's id; guarded by s.mu
}

type fragBuf struct {
	parts []string
	got   int
}

func (c *conn) close(code websocket.StatusCode, reason string) {
	c.closeOnce.Do(func() {
		c.cancel()
		_ = c.ws.Close(code, reason)
	})
}

func (c *conn) writeLoop() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case b := <-c.out:
			wctx, cancel := context.WithTimeout(c.ctx, c.s.cfg.WriteTimeout)
			err := c.ws.Write(wctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				if c.ctx.Err() == nil {
					c.s.mu.Lock()
					c.s.stats.Disconnected++
					c.s.mu.Unlock()
					c.s.cfg.Logf("rosbridge: client %s: write: %v; disconnecting", c.peer, err)
				}
				c.close(websocket.StatusPolicyViolation, "too slow")
				return
			}
		}
	}
}

func (c *conn) readLoop() {
	for {
		_, b, err := c.ws.Read(c.ctx)
		if err != nil {
			if websocket.CloseStatus(err) == -1 && c.ctx.Err() == nil {
				c.s.cfg.Logf("rosbridge: client %s: read: %v", c.peer, err)
			}
			return
		}
		c.handle(b, false)
	}
}

// sendControl queues a message the client must get (a response, a result,
// a status); a client whose queue is full is disconnected. Called with or
// without s.mu held.
func (c *conn) sendControl(op Op) {
	b, err := Encode(op)
	if err != nil {
		c.s.cfg.Logf("rosbridge: %v", err)
		return
	}
	select {
	case c.out <- b:
	case <-c.ctx.Done():
	default:
		go func() {
			c.s.mu.Lock()
			c.s.stats.Disconnected++
			c.s.mu.Unlock()
			c.s.cfg.Logf("rosbridge: client %s: send queue full; disconnecting", c.peer)
			c.close(websocket.StatusPolicyViolation, "send queue full")
		}()
	}
}

// sendTopic queues a topic message, split into fragments of fragSize
// bytes; when the queue has no room it is dropped. s.mu is held.
func (c *conn) sendTopic(frame []byte, fragSize int) {
	frames := [][]byte{frame}
	if fragSize > 0 && len(frame) > fragSize {
		c.s.nextID++
		frames = fragment(frame, fragSize, "fragment-"+strconv.FormatUint(c.s.nextID, 10))
	}
	if cap(c.out)-len(c.out) < len(frames) {
		c.s.stats.Dropped++
		return
	}
	for _, f := range frames {
		select {
		case c.out <- f:
		default:
			c.s.stats.Dropped++
			return
		}
	}
}

// fragment splits frame into Fragment messages of at most size bytes of
// data each, on UTF-8 boundaries.
func fragment(frame []byte, size int, id string) [][]byte {
	var parts []string
	for len(frame) > 0 {
		n := min(size, len(frame))
		for n < len(frame) && n > 0 && !utf8.RuneStart(frame[n]) {
			n--
		}
		if n == 0 {
			_, n = utf8.DecodeRune(frame)
		}
		parts = append(parts, string(frame[:n]))
		frame = frame[n:]
	}
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i], _ = Encode(Fragment{ID: id, Data: p, Num: i, Total: len(parts)})
	}
	return out
}

// status sends a status message if the client's level wants it.
func (c *conn) status(level, id, format string, args ...any) {
	r, _ := levelRank(level)
	c.s.mu.Lock()
	if r == 1 {
		c.s.stats.BadInput++
	}
	want := r <= c.level
	c.s.mu.Unlock()
	if want {
		c.sendControl(Status{ID: id, Level: level, Msg: fmt.Sprintf(format, args...)})
	}
}

// handle acts on one frame from the client. A frame that cannot be decoded
// or refers to nothing changes no state and is answered with an error
// status.
func (c *conn) handle(b []byte, inFragment bool) {
	op, err := Decode(b)
	if err != nil {
		id := ""
		var de *DecodeError
		if errors.As(err, &de) {
			id = de.ID
		}
		c.status(LevelError, id, "%v", err)
		return
	}
	s := c.s
	switch o := op.(type) {
	case Fragment:
		if inFragment {
			c.status(LevelError, o.ID, "fragment inside a fragmented message")
			return
		}
		c.fragment(o)
	case SetLevel:
		r, _ := levelRank(o.Level)
		s.mu.Lock()
		c.level = r
		s.mu.Unlock()
	case Status:
		// a client's status is informational
	case Advertise:
		if err := s.advertise(c, resolve(o.Topic), o.Type); err != nil {
			c.status(LevelError, o.ID, "advertise %s: %v", o.Topic, err)
		}
	case Unadvertise:
		s.unadvertise(c, resolve(o.Topic))
	case Publish:
		if err := s.publishRaw(c, resolve(o.Topic), o.Msg); err != nil {
			c.status(LevelError, o.ID, "publish %s: %v", o.Topic, err)
		}
	case Subscribe:
		if o.Compression != "" && o.Compression != "none" {
			c.status(LevelWarning, o.ID, "compression %q is not supported; sending JSON", o.Compression)
		}
		opt := SubscribeOptions{ThrottleMS: o.ThrottleRate, QueueLength: o.QueueLength, FragmentSize: o.FragmentSize}
		if err := s.subscribeConn(c, resolve(o.Topic), o.Type, o.ID, opt); err != nil {
			c.status(LevelError, o.ID, "subscribe %s: %v", o.Topic, err)
		}
	case Unsubscribe:
		s.unsubscribeConn(c, resolve(o.Topic), o.ID)
	case CallService:
		s.callFromConn(c, o)
	case ServiceResponse:
		s.responseFromConn(c, o)
	case AdvertiseService:
		if err := s.advertiseService(c, resolve(o.Service), o.Type, nil); err != nil {
			c.status(LevelError, "", "advertise_service %s: %v", o.Service, err)
		}
	case UnadvertiseService:
		s.unadvertiseService(c, resolve(o.Service))
	case SendActionGoal:
		s.goalFromConn(c, o)
	case CancelActionGoal:
		s.cancelFromConn(c, o)
	case ActionFeedback:
		s.feedbackFromConn(c, o)
	case ActionResult:
		s.resultFromConn(c, o)
	case AdvertiseAction:
		if err := s.advertiseAction(c, resolve(o.Action), o.Type, nil); err != nil {
			c.status(LevelError, "", "advertise_action %s: %v", o.Action, err)
		}
	case UnadvertiseAction:
		s.unadvertiseAction(c, resolve(o.Action))
	}
}

func (c *conn) fragment(f Fragment) {
	fb := c.frags[f.ID]
	if fb == nil {
		if len(c.frags) >= 16 {
			c.status(LevelError, f.ID, "too many fragmented messages in flight")
			return
		}
		fb = &fragBuf{parts: make([]string, f.Total)}
		c.frags[f.ID] = fb
	}
	if len(fb.parts) != f.Total {
		delete(c.frags, f.ID)
		c.status(LevelError, f.ID, "fragment total changed from %d to %d", len(fb.parts), f.Total)
		return
	}
	if fb.parts[f.Num] != "" || len(f.Data) == 0 {
		return
	}
	c.fragBytes += int64(len(f.Data))
	if c.fragBytes > c.s.cfg.MaxMessageBytes {
		clear(c.frags)
		c.fragBytes = 0
		c.status(LevelError, f.ID, "fragments exceed %d bytes", c.s.cfg.MaxMessageBytes)
		return
	}
	fb.parts[f.Num] = f.Data
	fb.got++
	if fb.got < f.Total {
		return
	}
	delete(c.frags, f.ID)
	var n int
	for _, p := range fb.parts {
		n += len(p)
	}
	c.fragBytes -= int64(n)
	whole := make([]byte, 0, n)
	for _, p := range fb.parts {
		whole = append(whole, p...)
	}
	c.handle(whole, true)
}

// drop removes everything a disconnected client owned.
func (s *Server) drop(c *conn) {
	var fail []func()
	s.mu.Lock()
	delete(s.conns, c)
	for name, t := range s.topics {
		delete(t.pubs, c)
		for sub := range t.subs {
			if sub.c == c {
				if sub.timer != nil {
					sub.timer.Stop()
				}
				delete(t.subs, sub)
			}
		}
		s.gcTopic(name)
	}
	for name, sv := range s.services {
		if sv.owner == c {
			delete(s.services, name)
		}
	}
	for name, a := range s.actions {
		if a.owner == c {
			delete(s.actions, name)
		}
	}
	for id, pc := range s.calls {
		if pc.owner == c {
			delete(s.calls, id)
			pc.timer.Stop()
			reply := pc.reply
			fail = append(fail, func() {
				reply(ServiceResponse{Result: false, Values: jsonString("service provider disconnected")})
			})
		}
	}
	for id, pg := range s.goals {
		if pg.owner == c {
			delete(s.goals, id)
			res := pg.result
			fail = append(fail, func() {
				res(ActionResult{Status: GoalAborted, Result: false, Values: jsonString("action server disconnected")})
			})
		}
	}
	for _, cancel := range c.goals {
		cancel()
	}
	s.mu.Unlock()
	for _, f := range fail {
		f()
	}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// gcTopic forgets a topic nobody advertises or subscribes to. s.mu is held.
func (s *Server) gcTopic(name string) {
	if t := s.topics[name]; t != nil && len(t.pubs) == 0 && len(t.subs) == 0 {
		delete(s.topics, name)
	}
}

func (s *Server) advertise(c *conn, name, typ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[name]
	if t == nil {
		t = &topic{typ: typ, pubs: map[*conn]int{}, subs: map[*subscription]struct{}{}}
		s.topics[name] = t
	}
	if t.typ == "" {
		t.typ = typ
	}
	if !sameType(t.typ, typ) {
		return fmt.Errorf("%w: %s, not %s", ErrTypeClash, t.typ, typ)
	}
	t.pubs[c]++
	return nil
}

func (s *Server) unadvertise(c *conn, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.topics[name]; t != nil {
		delete(t.pubs, c)
		s.gcTopic(name)
	}
}

// sameType compares ROS 2 type names, "pkg/msg/T" and "pkg/T" being the
// same (rosbridge accepts both).
func sameType(a, b string) bool {
	return a == "" || b == "" || canonType(a) == canonType(b)
}

func canonType(t string) string {
	for _, mid := range []string{"/msg/", "/srv/", "/action/"} {
		if i := indexOf(t, mid); i >= 0 {
			return t[:i] + "/" + t[i+len(mid):]
		}
	}
	return t
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// publishRaw routes msg from c (nil: the local node) to the topic's
// subscribers.
func (s *Server) publishRaw(c *conn, name string, msg json.RawMessage) error {
	frame, err := Encode(Publish{Topic: name, Msg: msg})
	if err != nil {
		return err
	}
	var local []func(json.RawMessage) error
	s.mu.Lock()
	t := s.topics[name]
	if t == nil || t.pubs[c] == 0 {
		s.mu.Unlock()
		return errors.New("topic not advertised by this client")
	}
	t.messages++
	now := time.Now()
	for sub := range t.subs {
		if sub.c == nil {
			local = append(local, sub.fn)
			continue
		}
		s.offer(sub, frame, now)
	}
	s.mu.Unlock()
	var firstErr error
	for _, fn := range local {
		if err := fn(msg); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// offer hands a frame to a client's subscription, throttled. s.mu is held.
func (s *Server) offer(sub *subscription, frame []byte, now time.Time) {
	th := time.Duration(sub.opt.ThrottleMS) * time.Millisecond
	if th > 0 && !sub.last.IsZero() && now.Sub(sub.last) < th {
		if sub.opt.QueueLength == 0 {
			s.stats.Dropped++
			return
		}
		if len(sub.queue) >= sub.opt.QueueLength {
			sub.queue = sub.queue[1:]
			s.stats.Dropped++
		}
		sub.queue = append(sub.queue, frame)
		if sub.timer == nil {
			sub.timer = time.AfterFunc(th-now.Sub(sub.last), func() { s.flush(sub) })
		}
		return
	}
	sub.last = now
	sub.c.sendTopic(frame, sub.opt.FragmentSize)
}

func (s *Server) flush(sub *subscription) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub.timer = nil
	if len(sub.queue) == 0 || sub.c.ctx.Err() != nil {
		return
	}
	f := sub.queue[0]
	sub.queue = sub.queue[1:]
	now := time.Now()
	sub.last = now
	sub.c.sendTopic(f, sub.opt.FragmentSize)
	if len(sub.queue) > 0 {
		sub.timer = time.AfterFunc(time.Duration(sub.opt.ThrottleMS)*time.Millisecond, func() { s.flush(sub) })
	}
}

func (s *Server) subscribeConn(c *conn, name, typ, id string, opt SubscribeOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[name]
	if t != nil && !sameType(t.typ, typ) {
		return fmt.Errorf("%w: %s, not %s", ErrTypeClash, t.typ, typ)
	}
	if t == nil {
		t = &topic{typ: typ, pubs: map[*conn]int{}, subs: map[*subscription]struct{}{}}
		s.topics[name] = t
	}
	if t.typ == "" {
		t.typ = typ
	}
	for sub := range t.subs {
		if sub.c == c {
			sub.ids[id] = true
			sub.opt = opt // the latest subscribe's throttling wins
			return nil
		}
	}
	t.subs[&subscription{c: c, topic: name, ids: map[string]bool{id: true}, opt: opt}] = struct{}{}
	return nil
}

func (s *Server) unsubscribeConn(c *conn, name, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[name]
	if t == nil {
		return
	}
	for sub := range t.subs {
		if sub.c != c {
			continue
		}
		delete(sub.ids, id)
		if id == "" || len(sub.ids) == 0 {
			if sub.timer != nil {
				sub.timer.Stop()
			}
			delete(t.subs, sub)
		}
	}
	s.gcTopic(name)
}

func (s *Server) advertiseService(c *conn, name, typ string, fn ServiceFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sv := s.services[name]; sv != nil && sv.owner != c {
		return ErrTaken
	}
	s.services[name] = &service{typ: typ, owner: c, fn: fn}
	return nil
}

func (s *Server) unadvertiseService(c *conn, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sv := s.services[name]; sv != nil && sv.owner == c {
		delete(s.services, name)
	}
}

// call routes a service call from anyone to the service's owner; reply
// gets the response exactly once.
func (s *Server) call(ctx context.Context, name string, args json.RawMessage, reply func(ServiceResponse)) {
	s.mu.Lock()
	sv := s.services[name]
	if sv == nil {
		s.mu.Unlock()
		reply(ServiceResponse{Service: name, Result: false, Values: jsonString("service " + name + " does not exist")})
		return
	}
	if sv.owner == nil {
		s.mu.Unlock()
		go func() {
			v, err := sv.fn(ctx, args)
			if err != nil {
				reply(ServiceResponse{Service: name, Result: false, Values: jsonString(err.Error())})
				return
			}
			raw, err := marshalValues(v)
			if err != nil {
				reply(ServiceResponse{Service: name, Result: false, Values: jsonString(err.Error())})
				return
			}
			reply(ServiceResponse{Service: name, Result: true, Values: raw})
		}()
		return
	}
	s.nextID++
	id := "call-" + strconv.FormatUint(s.nextID, 10)
	var once sync.Once
	r := func(resp ServiceResponse) { once.Do(func() { resp.Service = name; reply(resp) }) }
	pc := &pendingCall{owner: sv.owner, reply: r}
	pc.timer = time.AfterFunc(s.cfg.CallTimeout, func() {
		s.mu.Lock()
		_, ok := s.calls[id]
		delete(s.calls, id)
		s.mu.Unlock()
		if ok {
			r(ServiceResponse{Result: false, Values: jsonString("service call timed out")})
		}
	})
	s.calls[id] = pc
	owner := sv.owner
	s.mu.Unlock()
	owner.sendControl(CallService{ID: id, Service: name, Type: sv.typ, Args: args})
}

func (s *Server) callFromConn(c *conn, o CallService) {
	args := o.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	s.call(c.ctx, resolve(o.Service), args, func(r ServiceResponse) {
		r.ID = o.ID
		r.Service = o.Service
		c.sendControl(r)
	})
}

func (s *Server) responseFromConn(c *conn, o ServiceResponse) {
	s.mu.Lock()
	pc := s.calls[o.ID]
	if pc == nil || pc.owner != c {
		s.mu.Unlock()
		c.status(LevelError, o.ID, "service_response for no pending call")
		return
	}
	delete(s.calls, o.ID)
	pc.timer.Stop()
	s.mu.Unlock()
	pc.reply(o)
}

func (s *Server) advertiseAction(c *conn, name, typ string, fn ActionFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.actions[name]; a != nil && a.owner != c {
		return ErrTaken
	}
	s.actions[name] = &action{typ: typ, owner: c, fn: fn}
	return nil
}

func (s *Server) unadvertiseAction(c *conn, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.actions[name]; a != nil && a.owner == c {
		delete(s.actions, name)
	}
}

// goal routes a goal from anyone to the action's owner. It returns a
// function that cancels the goal.
func (s *Server) goal(ctx context.Context, name string, args json.RawMessage, feedback func(json.RawMessage), result func(ActionResult)) (cancel func(), err error) {
	var once sync.Once
	res := func(r ActionResult) { once.Do(func() { result(r) }) }
	s.mu.Lock()
	a := s.actions[name]
	if a == nil {
		s.mu.Unlock()
		return nil, ErrNoAction
	}
	if a.owner == nil {
		s.nextID++
		id := "goal-" + strconv.FormatUint(s.nextID, 10)
		s.mu.Unlock()
		gctx, stop := context.WithCancel(ctx)
		g := &GoalRequest{ID: id, Args: args, feedback: func(v any) error {
			raw, err := marshalValues(v)
			if err != nil {
				return err
			}
			if gctx.Err() == nil && feedback != nil {
				feedback(raw)
			}
			return nil
		}}
		go func() {
			defer stop()
			v, st := a.fn(gctx, g)
			raw, err := marshalValues(v)
			if err != nil {
				res(ActionResult{Status: GoalAborted, Result: false, Values: jsonString(err.Error())})
				return
			}
			res(ActionResult{Status: st, Result: true, Values: raw})
		}()
		return stop, nil
	}
	s.nextID++
	id := "goal-" + strconv.FormatUint(s.nextID, 10)
	s.goals[id] = &pendingGoal{owner: a.owner, action: name, feedback: feedback, result: res}
	owner, typ := a.owner, a.typ
	s.mu.Unlock()
	owner.sendControl(SendActionGoal{ID: id, Action: name, ActionType: typ, Args: args, Feedback: true})
	return func() { owner.sendControl(CancelActionGoal{ID: id, Action: name}) }, nil
}

func (s *Server) goalFromConn(c *conn, o SendActionGoal) {
	args := o.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	s.mu.Lock()
	_, dup := c.goals[o.ID]
	s.mu.Unlock()
	if dup {
		c.status(LevelError, o.ID, "send_action_goal: goal id %q in use", o.ID)
		return
	}
	var fb func(json.RawMessage)
	if o.Feedback {
		fb = func(v json.RawMessage) { c.sendControl(ActionFeedback{ID: o.ID, Action: o.Action, Values: v}) }
	}
	cancel, err := s.goal(c.ctx, resolve(o.Action), args, fb, func(r ActionResult) {
		s.mu.Lock()
		delete(c.goals, o.ID)
		s.mu.Unlock()
		r.ID, r.Action = o.ID, o.Action
		c.sendControl(r)
	})
	if err != nil {
		c.sendControl(ActionResult{ID: o.ID, Action: o.Action, Status: GoalAborted, Result: false, Values: jsonString(err.Error())})
		c.status(LevelError, o.ID, "send_action_goal %s: %v", o.Action, err)
		return
	}
	s.mu.Lock()
	select {
	case <-c.ctx.Done():
		s.mu.Unlock()
		cancel()
		return
	default:
	}
	c.goals[o.ID] = cancel
	s.mu.Unlock()
}

func (s *Server) cancelFromConn(c *conn, o CancelActionGoal) {
	s.mu.Lock()
	cancel := c.goals[o.ID]
	s.mu.Unlock()
	if cancel == nil {
		c.status(LevelWarning, o.ID, "cancel_action_goal: no goal %q", o.ID)
		return
	}
	cancel()
}

func (s *Server) feedbackFromConn(c *conn, o ActionFeedback) {
	s.mu.Lock()
	pg := s.goals[o.ID]
	s.mu.Unlock()
	if pg == nil || pg.owner != c {
		c.status(LevelError, o.ID, "action_feedback for no pending goal")
		return
	}
	if pg.feedback != nil {
		pg.feedback(o.Values)
	}
}

func (s *Server) resultFromConn(c *conn, o ActionResult) {
	s.mu.Lock()
	pg := s.goals[o.ID]
	if pg == nil || pg.owner != c {
		s.mu.Unlock()
		c.status(LevelError, o.ID, "action_result for no pending goal")
		return
	}
	delete(s.goals, o.ID)
	s.mu.Unlock()
	pg.result(o)
}

// Local node.

// Advertise announces a topic the server's own node publishes on.
func (s *Server) Advertise(_ context.Context, name, typ string) error {
	return s.advertise(nil, resolve(name), typ)
}

// Publish sends msg to the topic's subscribers.
func (s *Server) Publish(_ context.Context, name string, msg any) error {
	raw, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("rosbridge: publish %s: %w", name, err)
	}
	return s.publishRaw(nil, resolve(name), raw)
}

// Subscribe calls fn with each message published on topic; an error from
// fn is reported to the publishing client as an error status.
func (s *Server) Subscribe(_ context.Context, name, typ string, _ SubscribeOptions, fn func(json.RawMessage)) (func(), error) {
	return s.SubscribeChecked(resolve(name), typ, func(m json.RawMessage) error { fn(m); return nil })
}

// SubscribeChecked is Subscribe with a function that may refuse a message
// (a wrong message type): the refusal goes back to the publishing client
// as an error status.
func (s *Server) SubscribeChecked(name, typ string, fn func(json.RawMessage) error) (func(), error) {
	name = resolve(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[name]
	if t != nil && !sameType(t.typ, typ) {
		return nil, fmt.Errorf("rosbridge: subscribe %s: %w: %s, not %s", name, ErrTypeClash, t.typ, typ)
	}
	if t == nil {
		t = &topic{typ: typ, pubs: map[*conn]int{}, subs: map[*subscription]struct{}{}}
		s.topics[name] = t
	}
	if t.typ == "" {
		t.typ = typ
	}
	sub := &subscription{fn: fn, topic: name}
	t.subs[sub] = struct{}{}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if t := s.topics[name]; t != nil {
			delete(t.subs, sub)
			s.gcTopic(name)
		}
	}, nil
}

// CallService calls a service of the graph.
func (s *Server) CallService(ctx context.Context, name, _ string, args, reply any) error {
	raw, err := marshalValues(args)
	if err != nil {
		return err
	}
	ch := make(chan ServiceResponse, 1)
	s.call(ctx, resolve(name), raw, func(r ServiceResponse) { ch <- r })
	select {
	case r := <-ch:
		if !r.Result {
			return &ServiceError{Service: name, Values: r.Values}
		}
		if reply != nil {
			return json.Unmarshal(r.Values, reply)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AdvertiseService answers service with fn on the server's own node.
func (s *Server) AdvertiseService(_ context.Context, name, typ string, fn ServiceFunc) error {
	return s.advertiseService(nil, resolve(name), typ, fn)
}

// SendGoal sends a goal to an action of the graph.
func (s *Server) SendGoal(ctx context.Context, name, _ string, args any, feedback func(json.RawMessage)) (*Goal, error) {
	raw, err := marshalValues(args)
	if err != nil {
		return nil, err
	}
	var g *Goal
	ready := make(chan struct{})
	cancel, err := s.goal(context.WithoutCancel(ctx), resolve(name), raw, feedback, func(r ActionResult) {
		<-ready
		g.finish(Result{Status: r.Status, OK: r.Result, Values: r.Values})
	})
	if err != nil {
		return nil, err
	}
	g = newGoal("", func() error { cancel(); return nil })
	close(ready)
	return g, nil
}

// AdvertiseAction serves action with fn on the server's own node.
func (s *Server) AdvertiseAction(_ context.Context, name, typ string, fn ActionFunc) error {
	return s.advertiseAction(nil, resolve(name), typ, fn)
}

// rosapi services (rosapi_msgs), as rosbridge_websocket_launch.xml starts
// them beside the bridge.

func (s *Server) addRosapi() {
	add := func(name, typ string, fn ServiceFunc) { _ = s.advertiseService(nil, name, typ, fn) }
	add("/rosapi/topics", "rosapi_msgs/srv/Topics", func(context.Context, json.RawMessage) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		names := sortedKeys(s.topics)
		types := make([]string, len(names))
		for i, n := range names {
			types[i] = s.topics[n].typ
		}
		return struct {
			Topics []string `json:"topics"`
			Types  []string `json:"types"`
		}{names, types}, nil
	})
	add("/rosapi/topic_type", "rosapi_msgs/srv/TopicType", func(_ context.Context, args json.RawMessage) (any, error) {
		var a struct {
			Topic string `json:"topic"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		typ := ""
		if t := s.topics[resolve(a.Topic)]; t != nil {
			typ = t.typ
		}
		return struct {
			Type string `json:"type"`
		}{typ}, nil
	})
	add("/rosapi/services", "rosapi_msgs/srv/Services", func(context.Context, json.RawMessage) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return struct {
			Services []string `json:"services"`
		}{sortedKeys(s.services)}, nil
	})
	add("/rosapi/nodes", "rosapi_msgs/srv/Nodes", func(context.Context, json.RawMessage) (any, error) {
		return struct {
			Nodes []string `json:"nodes"`
		}{[]string{s.cfg.NodeName, "/rosapi"}}, nil
	})
	add("/rosapi/action_servers", "rosapi_msgs/srv/GetActionServers", func(context.Context, json.RawMessage) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return struct {
			ActionServers []string `json:"action_servers"`
		}{sortedKeys(s.actions)}, nil
	})
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
