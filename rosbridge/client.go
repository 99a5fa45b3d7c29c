package rosbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// ClientConfig configures a Client. Zero values mean the defaults named on
// each field.
type ClientConfig struct {
	URL             string        // ws://host:9090 (rosbridge_server's default port)
	MaxMessageBytes int64         // largest frame read; 0 = DefaultMaxMessageBytes
	MinBackoff      time.Duration // first wait before reconnecting; 0 = 100 ms
	MaxBackoff      time.Duration // the wait doubles up to this; 0 = 5 s
	Logf            func(format string, args ...any)
	// OnStatus, when not nil, gets every status message the server sends.
	OnStatus func(Status)
	// OnReconnect, when not nil, is called after each reconnection once
	// everything was advertised and subscribed again.
	OnReconnect func()
}

// Client is a rosbridge v2 client: a node on the ROS graph behind a
// rosbridge server. It reconnects with exponential back-off when the link
// drops and then advertises, subscribes and serves again everything it
// did; calls and goals in flight when the link drops fail.
type Client struct {
	cfg ClientConfig

	mu        sync.Mutex
	ws        *websocket.Conn // nil while disconnected
	up        chan struct{}   // closed while connected
	advs      map[string]string
	subs      map[string]*clientSub
	services  map[string]*clientService
	actions   map[string]*clientAction
	calls     map[string]chan ServiceResponse
	goals     map[string]*clientGoal
	served    map[string]context.CancelFunc // goals this client serves, by the server's id
	frags     map[string]*fragBuf
	nextID    uint64
	nextSub   int
	reconnect int // connections made after the first

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

var _ Node = (*Client)(nil)

type clientSub struct {
	typ string
	opt SubscribeOptions
	fns map[int]func(json.RawMessage)
}

type clientService struct {
	typ string
	fn  ServiceFunc
}

type clientAction struct {
	typ string
	fn  ActionFunc
}

type clientGoal struct {
	g        *Goal
	action   string
	feedback func(json.RawMessage)
}

// Dial connects to a rosbridge server; the first connection must succeed
// (within ctx), later ones are retried until Close.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 5 * time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.URL == "" {
		return nil, errors.New("rosbridge: dial: empty URL")
	}
	if cfg.MinBackoff < 0 || cfg.MaxBackoff < cfg.MinBackoff {
		return nil, fmt.Errorf("rosbridge: back-off %v..%v out of order", cfg.MinBackoff, cfg.MaxBackoff)
	}
	ws, err := dialWS(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &Client{cfg: cfg, ws: ws, up: make(chan struct{}), advs: map[string]string{}, subs: map[string]*clientSub{},
		services: map[string]*clientService{}, actions: map[string]*clientAction{}, calls: map[string]chan ServiceResponse{},
		goals: map[string]*clientGoal{}, served: map[string]context.CancelFunc{}, frags: map[string]*fragBuf{},
		ctx: cctx, cancel: cancel, done: make(chan struct{})}
	close(c.up)
	go c.run(ws)
	return c, nil
}

func dialWS(ctx context.Context, cfg ClientConfig) (*websocket.Conn, error) {
	ws, _, err := websocket.Dial(ctx, cfg.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("rosbridge: dial %s: %w", cfg.URL, err)
	}
	ws.SetReadLimit(cfg.MaxMessageBytes)
	return ws, nil
}

// Close disconnects and stops reconnecting.
func (c *Client) Close() error {
	c.cancel()
	<-c.done
	return nil
}

// Reconnects returns how many times the client reconnected.
func (c *Client) Reconnects() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reconnect
}

// Connected returns a channel closed while the client is connected.
func (c *Client) Connected() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

func (c *Client) run(ws *websocket.Conn) {
	defer close(c.done)
	backoff := c.cfg.MinBackoff
	for {
		c.readLoop(ws)
		ws.Close(websocket.StatusNormalClosure, "")
		c.disconnected()
		for {
			if c.ctx.Err() != nil {
				return
			}
			t := time.NewTimer(backoff)
			select {
			case <-c.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			dctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
			var err error
			ws, err = dialWS(dctx, c.cfg)
			cancel()
			if err == nil {
				break
			}
			c.cfg.Logf("rosbridge: reconnect: %v; next try in %v", err, min(2*backoff, c.cfg.MaxBackoff))
			backoff = min(2*backoff, c.cfg.MaxBackoff)
		}
		backoff = c.cfg.MinBackoff
		c.connected(ws)
	}
}

// disconnected fails what was in flight.
func (c *Client) disconnected() {
	c.mu.Lock()
	c.ws = nil
	c.up = make(chan struct{})
	calls, goals, served := c.calls, c.goals, c.served
	c.calls, c.goals, c.served = map[string]chan ServiceResponse{}, map[string]*clientGoal{}, map[string]context.CancelFunc{}
	clear(c.frags)
	c.mu.Unlock()
	for _, ch := range calls {
		ch <- ServiceResponse{Result: false, Values: jsonString(ErrClosed.Error())}
	}
	for _, g := range goals {
		g.g.finish(Result{Status: GoalAborted, Values: jsonString(ErrClosed.Error())})
	}
	for _, cancel := range served {
		cancel()
	}
}

// connected replays the client's advertisements and subscriptions.
func (c *Client) connected(ws *websocket.Conn) {
	var ops []Op
	c.mu.Lock()
	for t, typ := range c.advs {
		ops = append(ops, Advertise{Topic: t, Type: typ})
	}
	for t, s := range c.subs {
		ops = append(ops, Subscribe{Topic: t, Type: s.typ, ThrottleRate: s.opt.ThrottleMS, QueueLength: s.opt.QueueLength, FragmentSize: s.opt.FragmentSize})
	}
	for n, s := range c.services {
		ops = append(ops, AdvertiseService{Service: n, Type: s.typ})
	}
	for n, a := range c.actions {
		ops = append(ops, AdvertiseAction{Action: n, Type: a.typ})
	}
	c.ws = ws
	c.reconnect++
	c.mu.Unlock()
	for _, op := range ops {
		if err := c.writeTo(c.ctx, ws, op); err != nil {
			c.cfg.Logf("rosbridge: replay %s: %v", op.Name(), err)
		}
	}
	c.mu.Lock()
	if c.ws == ws {
		close(c.up)
	}
	c.mu.Unlock()
	if c.cfg.OnReconnect != nil {
		c.cfg.OnReconnect()
	}
}

func (c *Client) readLoop(ws *websocket.Conn) {
	for {
		_, b, err := ws.Read(c.ctx)
		if err != nil {
			if c.ctx.Err() == nil {
				c.cfg.Logf("rosbridge: read: %v", err)
			}
			return
		}
		c.handle(b, false)
	}
}

func (c *Client) handle(b []byte, inFragment bool) {
	op, err := Decode(b)
	if err != nil {
		c.cfg.Logf("rosbridge: from server: %v", err)
		return
	}
	switch o := op.(type) {
	case Fragment:
		if !inFragment {
			c.fragment(o)
		}
	case Status:
		if c.cfg.OnStatus != nil {
			c.cfg.OnStatus(o)
		}
		if o.Level == LevelError {
			c.cfg.Logf("rosbridge: server: %s", o.Msg)
		}
	case Publish:
		c.mu.Lock()
		var fns []func(json.RawMessage)
		if s := c.subs[resolve(o.Topic)]; s != nil {
			for _, fn := range s.fns {
				fns = append(fns, fn)
			}
		}
		c.mu.Unlock()
		for _, fn := range fns {
			fn(o.Msg)
		}
	case ServiceResponse:
		c.mu.Lock()
		ch := c.calls[o.ID]
		delete(c.calls, o.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- o
		}
	case CallService:
		c.serveCall(o)
	case ActionFeedback:
		c.mu.Lock()
		g := c.goals[o.ID]
		c.mu.Unlock()
		if g != nil && g.feedback != nil {
			g.feedback(o.Values)
		}
	case ActionResult:
		c.mu.Lock()
		g := c.goals[o.ID]
		delete(c.goals, o.ID)
		c.mu.Unlock()
		if g != nil {
			g.g.finish(Result{Status: o.Status, OK: o.Result, Values: o.Values})
		}
	case SendActionGoal:
		c.serveGoal(o)
	case CancelActionGoal:
		c.mu.Lock()
		cancel := c.served[o.ID]
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

func (c *Client) fragment(f Fragment) {
	c.mu.Lock()
	fb := c.frags[f.ID]
	if fb == nil {
		if len(c.frags) >= 16 {
			c.mu.Unlock()
			return
		}
		fb = &fragBuf{parts: make([]string, f.Total)}
		c.frags[f.ID] = fb
	}
	if len(fb.parts) != f.Total || fb.parts[f.Num] != "" || f.Data == "" {
		c.mu.Unlock()
		return
	}
	fb.parts[f.Num] = f.Data
	fb.got++
	if fb.got < f.Total {
		c.mu.Unlock()
		return
	}
	delete(c.frags, f.ID)
	c.mu.Unlock()
	var whole []byte
	for _, p := range fb.parts {
		whole = append(whole, p...)
	}
	if int64(len(whole)) <= c.cfg.MaxMessageBytes {
		c.handle(whole, true)
	}
}

func (c *Client) serveCall(o CallService) {
	c.mu.Lock()
	s := c.services[resolve(o.Service)]
	c.mu.Unlock()
	if s == nil {
		_ = c.write(c.ctx, ServiceResponse{ID: o.ID, Service: o.Service, Result: false, Values: jsonString("not served here")})
		return
	}
	go func() {
		args := o.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		v, err := s.fn(c.ctx, args)
		resp := ServiceResponse{ID: o.ID, Service: o.Service, Result: err == nil}
		if err == nil {
			resp.Values, err = marshalValues(v)
			resp.Result = err == nil
		}
		if err != nil {
			resp.Values = jsonString(err.Error())
		}
		_ = c.write(c.ctx, resp)
	}()
}

func (c *Client) serveGoal(o SendActionGoal) {
	c.mu.Lock()
	a := c.actions[resolve(o.Action)]
	if a == nil {
		c.mu.Unlock()
		_ = c.write(c.ctx, ActionResult{ID: o.ID, Action: o.Action, Status: GoalAborted, Values: jsonString("not served here")})
		return
	}
	gctx, cancel := context.WithCancel(c.ctx)
	c.served[o.ID] = cancel
	c.mu.Unlock()
	g := &GoalRequest{ID: o.ID, Args: o.Args, feedback: func(v any) error {
		raw, err := marshalValues(v)
		if err != nil {
			return err
		}
		return c.write(c.ctx, ActionFeedback{ID: o.ID, Action: o.Action, Values: raw})
	}}
	go func() {
		defer cancel()
		v, st := a.fn(gctx, g)
		c.mu.Lock()
		delete(c.served, o.ID)
		c.mu.Unlock()
		raw, err := marshalValues(v)
		res := ActionResult{ID: o.ID, Action: o.Action, Status: st, Result: err == nil, Values: raw}
		if err != nil {
			res.Status, res.Values = GoalAborted, jsonString(err.Error())
		}
		_ = c.write(c.ctx, res)
	}()
}

func (c *Client) write(ctx context.Context, op Op) error {
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	if ws == nil {
		return ErrClosed
	}
	return c.writeTo(ctx, ws, op)
}

func (c *Client) writeTo(ctx context.Context, ws *websocket.Conn, op Op) error {
	b, err := Encode(op)
	if err != nil {
		return err
	}
	if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("rosbridge: %s: %w", op.Name(), err)
	}
	return nil
}

func (c *Client) id(kind string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return kind + ":" + strconv.FormatUint(c.nextID, 10)
}

// Advertise announces a topic to publish on.
func (c *Client) Advertise(ctx context.Context, topic, typ string) error {
	topic = resolve(topic)
	c.mu.Lock()
	c.advs[topic] = typ
	c.mu.Unlock()
	return c.write(ctx, Advertise{ID: c.id("advertise"), Topic: topic, Type: typ})
}

// Publish publishes msg; ErrClosed while disconnected.
func (c *Client) Publish(ctx context.Context, topic string, msg any) error {
	raw, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("rosbridge: publish %s: %w", topic, err)
	}
	return c.write(ctx, Publish{Topic: resolve(topic), Msg: raw})
}

// Subscribe subscribes to topic. fn runs on the client's read goroutine:
// it must not block.
func (c *Client) Subscribe(ctx context.Context, topic, typ string, o SubscribeOptions, fn func(json.RawMessage)) (func(), error) {
	topic = resolve(topic)
	c.mu.Lock()
	s := c.subs[topic]
	first := s == nil
	if first {
		s = &clientSub{typ: typ, opt: o, fns: map[int]func(json.RawMessage){}}
		c.subs[topic] = s
	}
	c.nextSub++
	key := c.nextSub
	s.fns[key] = fn
	c.mu.Unlock()
	unsub := func() {
		c.mu.Lock()
		s := c.subs[topic]
		if s == nil {
			c.mu.Unlock()
			return
		}
		delete(s.fns, key)
		last := len(s.fns) == 0
		if last {
			delete(c.subs, topic)
		}
		c.mu.Unlock()
		if last {
			_ = c.write(context.Background(), Unsubscribe{Topic: topic})
		}
	}
	if first {
		if err := c.write(ctx, Subscribe{Topic: topic, Type: typ, ThrottleRate: o.ThrottleMS, QueueLength: o.QueueLength, FragmentSize: o.FragmentSize}); err != nil && !errors.Is(err, ErrClosed) {
			unsub()
			return nil, err
		}
	}
	return unsub, nil
}

// CallService calls a service and waits for its response.
func (c *Client) CallService(ctx context.Context, service, typ string, args, reply any) error {
	raw, err := marshalValues(args)
	if err != nil {
		return err
	}
	id := c.id("call_service")
	ch := make(chan ServiceResponse, 1)
	c.mu.Lock()
	c.calls[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}()
	if err := c.write(ctx, CallService{ID: id, Service: resolve(service), Type: typ, Args: raw}); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if !r.Result {
			return &ServiceError{Service: service, Values: r.Values}
		}
		if reply != nil && len(r.Values) > 0 {
			return json.Unmarshal(r.Values, reply)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AdvertiseService serves service with fn.
func (c *Client) AdvertiseService(ctx context.Context, service, typ string, fn ServiceFunc) error {
	service = resolve(service)
	c.mu.Lock()
	c.services[service] = &clientService{typ: typ, fn: fn}
	c.mu.Unlock()
	return c.write(ctx, AdvertiseService{Service: service, Type: typ})
}

// SendGoal sends a goal with feedback.
func (c *Client) SendGoal(ctx context.Context, action, typ string, args any, feedback func(json.RawMessage)) (*Goal, error) {
	raw, err := marshalValues(args)
	if err != nil {
		return nil, err
	}
	id := c.id("send_action_goal")
	action = resolve(action)
	g := newGoal(id, func() error { return c.write(context.Background(), CancelActionGoal{ID: id, Action: action}) })
	c.mu.Lock()
	c.goals[id] = &clientGoal{g: g, action: action, feedback: feedback}
	c.mu.Unlock()
	if err := c.write(ctx, SendActionGoal{ID: id, Action: action, ActionType: typ, Args: raw, Feedback: true}); err != nil {
		c.mu.Lock()
		delete(c.goals, id)
		c.mu.Unlock()
		return nil, err
	}
	return g, nil
}

// AdvertiseAction serves action with fn.
func (c *Client) AdvertiseAction(ctx context.Context, action, typ string, fn ActionFunc) error {
	action = resolve(action)
	c.mu.Lock()
	c.actions[action] = &clientAction{typ: typ, fn: fn}
	c.mu.Unlock()
	return c.write(ctx, AdvertiseAction{Action: action, Type: typ})
}
