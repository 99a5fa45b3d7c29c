package rosbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// testServer is a Server on a loopback httptest listener.
func testServer(t *testing.T, cfg ServerConfig) (*Server, string) {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, "ws" + strings.TrimPrefix(hs.URL, "http")
}

func testClient(t *testing.T, url string, cfg ClientConfig) *Client {
	t.Helper()
	cfg.URL = url
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// recv waits for a value on ch.
func recv[T any](t *testing.T, ctx context.Context, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		var zero T
		t.Fatalf("waiting for %s: %v", what, ctx.Err())
		return zero
	}
}

type chatter struct {
	Data string `json:"data"`
}

// TestClientToClient routes a topic, a service and an action between two
// clients through the server, as rosbridge routes them through ROS 2.
func TestClientToClient(t *testing.T) {
	_, url := testServer(t, ServerConfig{})
	a, b := testClient(t, url, ClientConfig{}), testClient(t, url, ClientConfig{})
	ctx := testCtx(t)

	got := make(chan string, 10)
	if _, err := b.Subscribe(ctx, "chatter", "std_msgs/msg/String", SubscribeOptions{}, func(m json.RawMessage) {
		var c chatter
		_ = json.Unmarshal(m, &c)
		got <- c.Data
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.Advertise(ctx, "/chatter", "std_msgs/String"); err != nil {
		t.Fatal(err)
	}
	// b's subscribe and a's advertise race on different connections: a
	// service round trip on each orders them before the publish.
	for _, c := range []*Client{a, b} {
		if err := c.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Publish(ctx, "/chatter", chatter{"hello"}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, ctx, got, "the published message"); m != "hello" {
		t.Errorf("b got %q; want hello", m)
	}

	if err := a.AdvertiseService(ctx, "/add", "example_interfaces/srv/AddTwoInts", func(_ context.Context, args json.RawMessage) (any, error) {
		var in struct{ A, B int }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		if in.A < 0 {
			return nil, errors.New("negative")
		}
		return map[string]int{"sum": in.A + in.B}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	var sum struct{ Sum int }
	if err := b.CallService(ctx, "/add", "", map[string]int{"A": 2, "B": 3}, &sum); err != nil || sum.Sum != 5 {
		t.Errorf("add(2, 3) = %v, %v; want 5", sum.Sum, err)
	}
	var se *ServiceError
	if err := b.CallService(ctx, "/add", "", map[string]int{"A": -1}, nil); !errors.As(err, &se) || !strings.Contains(string(se.Values), "negative") {
		t.Errorf("add(-1) error %v; want a ServiceError saying negative", err)
	}

	// An action served by a, its goal sent by b: feedback, result, cancel.
	release := make(chan struct{})
	if err := a.AdvertiseAction(ctx, "/count", "x/action/Count", func(ctx context.Context, g *GoalRequest) (any, int8) {
		var n struct{ N int }
		_ = json.Unmarshal(g.Args, &n)
		for i := range n.N {
			_ = g.Feedback(map[string]int{"i": i})
		}
		if n.N == 0 { // waits to be cancelled
			close(release)
			<-ctx.Done()
			return map[string]string{"why": "cancelled"}, GoalCanceled
		}
		return map[string]int{"done": n.N}, GoalSucceeded
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	fb := make(chan json.RawMessage, 10)
	g, err := b.SendGoal(ctx, "/count", "x/action/Count", map[string]int{"N": 3}, func(m json.RawMessage) { fb <- m })
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Wait(ctx)
	if err != nil || res.Status != GoalSucceeded || !res.OK || string(res.Values) != `{"done":3}` {
		t.Errorf("result %+v (%s), %v; want succeeded with done 3", res, res.Values, err)
	}
	if len(fb) != 3 {
		t.Errorf("%d feedback messages; want 3", len(fb))
	}
	g2, err := b.SendGoal(ctx, "/count", "x/action/Count", map[string]int{"N": 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	recv(t, ctx, release, "the second goal to run")
	if err := g2.Cancel(); err != nil {
		t.Fatal(err)
	}
	if res, err := g2.Wait(ctx); err != nil || res.Status != GoalCanceled {
		t.Errorf("cancelled goal: %+v, %v; want status canceled (5)", res, err)
	}
}

// TestLocalNode publishes from the server's own node to a client and runs
// the server's own action for a client.
func TestLocalNode(t *testing.T) {
	s, url := testServer(t, ServerConfig{})
	c := testClient(t, url, ClientConfig{})
	ctx := testCtx(t)
	if err := s.Advertise(ctx, "/odom", "nav_msgs/msg/Odometry"); err != nil {
		t.Fatal(err)
	}
	if err := s.Advertise(ctx, "/odom", "sensor_msgs/msg/Imu"); !errors.Is(err, ErrTypeClash) {
		t.Errorf("re-advertising with another type: %v; want ErrTypeClash", err)
	}
	got := make(chan json.RawMessage, 1)
	if _, err := c.Subscribe(ctx, "/odom", "nav_msgs/Odometry", SubscribeOptions{}, func(m json.RawMessage) {
		select {
		case got <- m:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx, "/odom", map[string]string{"child_frame_id": "base_link"}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, ctx, got, "odometry"); string(m) != `{"child_frame_id":"base_link"}` {
		t.Errorf("got %s", m)
	}
	var topics struct{ Topics, Types []string }
	if err := c.CallService(ctx, "rosapi/topics", "rosapi/Topics", nil, &topics); err != nil {
		t.Fatal(err)
	}
	if len(topics.Topics) != 1 || topics.Topics[0] != "/odom" || topics.Types[0] != "nav_msgs/msg/Odometry" {
		t.Errorf("rosapi/topics = %+v; want /odom nav_msgs/msg/Odometry", topics)
	}
}

// rawConn is a bare WebSocket to send what no well-behaved client sends.
func rawConn(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func readOp(t *testing.T, ctx context.Context, ws *websocket.Conn) Op {
	t.Helper()
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	op, err := Decode(b)
	if err != nil {
		t.Fatalf("server sent %s: %v", b, err)
	}
	return op
}

// TestBadInput: each bad message is answered with an error status on the
// same connection, which stays usable, and nothing in the graph changes.
func TestBadInput(t *testing.T) {
	s, url := testServer(t, ServerConfig{})
	ctx := testCtx(t)
	if err := s.Advertise(ctx, "/imu", "sensor_msgs/msg/Imu"); err != nil {
		t.Fatal(err)
	}
	ws := rawConn(t, url)
	bad := []struct{ name, msg string }{
		{"malformed JSON", `{"op": "publish", "topic": `},
		{"not JSON at all", "\x00\xff binary"},
		{"unknown op", `{"op":"teleport","id":"t1"}`},
		{"wrong field type", `{"op":"subscribe","topic":["/imu"]}`},
		{"subscribe with the wrong message type", `{"op":"subscribe","id":"s1","topic":"/imu","type":"nav_msgs/msg/Odometry"}`},
		{"advertise with the wrong message type", `{"op":"advertise","topic":"/imu","type":"std_msgs/msg/String"}`},
		{"publish without advertising", `{"op":"publish","topic":"/imu","msg":{}}`},
		{"service response for no call", `{"op":"service_response","id":"x","service":"/s","result":true}`},
		{"fragment inside nothing", `{"op":"fragment","id":"f","data":"{\"op\":\"fragment\",\"id\":\"g\",\"data\":\"x\",\"num\":0,\"total\":1}","num":0,"total":1}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if err := ws.Write(ctx, websocket.MessageText, []byte(tt.msg)); err != nil {
				t.Fatal(err)
			}
			op := readOp(t, ctx, ws)
			st, ok := op.(Status)
			if !ok || st.Level != LevelError {
				t.Fatalf("answer %#v; want an error status", op)
			}
		})
	}
	// Still connected, and the graph is as it was.
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"op":"call_service","id":"q","service":"/rosapi/topics"}`)); err != nil {
		t.Fatal(err)
	}
	resp, ok := readOp(t, ctx, ws).(ServiceResponse)
	if !ok || !resp.Result || string(resp.Values) != `{"topics":["/imu"],"types":["sensor_msgs/msg/Imu"]}` {
		t.Errorf("rosapi/topics after the bad input: %#v (%s); want only /imu as Imu", resp, resp.Values)
	}
	if st := s.Stats(); st.BadInput != len(bad) {
		t.Errorf("BadInput = %d; want %d", st.BadInput, len(bad))
	}
}

// TestOversizeMessage: a 10 MB frame closes that connection with 1009
// (message too big); the server serves on.
func TestOversizeMessage(t *testing.T) {
	_, url := testServer(t, ServerConfig{})
	ctx := testCtx(t)
	ws := rawConn(t, url)
	big := `{"op":"publish","topic":"/x","msg":{"data":"` + strings.Repeat("a", 10<<20) + `"}}`
	_ = ws.Write(ctx, websocket.MessageText, []byte(big)) // may fail once the server closed
	_, _, err := ws.Read(ctx)
	if got := websocket.CloseStatus(err); got != websocket.StatusMessageTooBig {
		t.Errorf("read after a 10 MB frame: %v (status %v); want close 1009", err, got)
	}
	c := testClient(t, url, ClientConfig{})
	if err := c.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Errorf("another client after the oversize frame: %v", err)
	}
}

// TestSlowClient: a client that subscribes and never reads does not slow
// the publisher or the other subscribers; its messages are dropped and,
// once its socket stays full, it is disconnected.
func TestSlowClient(t *testing.T) {
	s, url := testServer(t, ServerConfig{SendQueue: 64, WriteTimeout: 200 * time.Millisecond})
	ctx := testCtx(t)
	if err := s.Advertise(ctx, "/flood", "std_msgs/msg/String"); err != nil {
		t.Fatal(err)
	}
	slow := rawConn(t, url)
	for _, m := range []string{`{"op":"subscribe","topic":"/flood"}`, `{"op":"call_service","id":"sync","service":"/rosapi/nodes"}`} {
		if err := slow.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	readOp(t, ctx, slow) // the call's response: subscribed; from now on it never reads
	fast := testClient(t, url, ClientConfig{})
	arrived := make(chan struct{}, 64)
	if _, err := fast.Subscribe(ctx, "/flood", "", SubscribeOptions{}, func(json.RawMessage) { arrived <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	if err := fast.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	// Batches smaller than a send queue, each received in full by the
	// fast subscriber before the next: it must lose nothing.
	const batches, batch = 200, 32
	payload := map[string]string{"data": strings.Repeat("x", 2000)}
	for range batches {
		for range batch {
			if err := s.Publish(ctx, "/flood", payload); err != nil {
				t.Fatal(err)
			}
		}
		for range batch {
			recv(t, ctx, arrived, "the batch at the fast subscriber")
		}
	}
	st := s.Stats()
	if st.Dropped == 0 && st.Disconnected == 0 {
		t.Errorf("stats %+v; want the slow client's messages dropped or it disconnected", st)
	}
	t.Logf("after %d messages of 2 kB: %+v", batches*batch, st)
}

// TestFragments: a subscriber asking for fragment_size gets large
// messages in fragments (the client reassembles them), and the server
// reassembles a client's fragmented publish.
func TestFragments(t *testing.T) {
	s, url := testServer(t, ServerConfig{})
	ctx := testCtx(t)
	c := testClient(t, url, ClientConfig{})
	if err := s.Advertise(ctx, "/big", "std_msgs/msg/String"); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	if _, err := c.Subscribe(ctx, "/big", "", SubscribeOptions{FragmentSize: 100}, func(m json.RawMessage) {
		var v chatter
		_ = json.Unmarshal(m, &v)
		got <- v.Data
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("ünïcødé ", 200) // multi-byte runes across fragment edges
	if err := s.Publish(ctx, "/big", chatter{want}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, ctx, got, "the fragmented message"); m != want {
		t.Errorf("reassembled %d bytes; want %d, equal", len(m), len(want))
	}

	// The other way: a raw client's publish in 3 fragments.
	in := make(chan string, 1)
	if _, err := s.Subscribe(ctx, "/up", "std_msgs/msg/String", SubscribeOptions{}, func(m json.RawMessage) {
		var v chatter
		_ = json.Unmarshal(m, &v)
		in <- v.Data
	}); err != nil {
		t.Fatal(err)
	}
	ws := rawConn(t, url)
	for _, m := range []string{`{"op":"advertise","topic":"/up","type":"std_msgs/msg/String"}`} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	frames := fragment([]byte(`{"op":"publish","topic":"/up","msg":{"data":"in three parts"}}`), 20, "up-1")
	for i := len(frames) - 1; i >= 0; i-- { // out of order
		if err := ws.Write(ctx, websocket.MessageText, frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	if m := recv(t, ctx, in, "the reassembled publish"); m != "in three parts" {
		t.Errorf("got %q", m)
	}
}

// TestReconnect: after the server drops the link the client reconnects
// with back-off and subscribes again.
func TestReconnect(t *testing.T) {
	s, url := testServer(t, ServerConfig{})
	ctx := testCtx(t)
	reconnected := make(chan struct{}, 1)
	c := testClient(t, url, ClientConfig{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		OnReconnect: func() { reconnected <- struct{}{} }})
	if err := s.Advertise(ctx, "/tick", "std_msgs/msg/String"); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 100)
	if _, err := c.Subscribe(ctx, "/tick", "", SubscribeOptions{}, func(m json.RawMessage) { got <- string(m) }); err != nil {
		t.Fatal(err)
	}
	// A round trip first: the client's handshake can end before the
	// server has registered the connection, and Disconnect drops only the
	// registered ones (without this, 10 of 200 runs never reconnected).
	if err := c.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	s.Disconnect()
	recv(t, ctx, reconnected, "the reconnection")
	if n := c.Reconnects(); n != 1 {
		t.Errorf("Reconnects() = %d; want 1", n)
	}
	if err := c.CallService(ctx, "/rosapi/nodes", "", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx, "/tick", chatter{"after"}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, ctx, got, "a message after reconnecting"); m != `{"data":"after"}` {
		t.Errorf("got %s", m)
	}
}

// BenchmarkPublishLatency measures publish (server's node) → subscriber
// (Client over loopback WebSocket), reporting p50 and p99.
func BenchmarkPublishLatency(b *testing.B) {
	s, err := NewServer(ServerConfig{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	defer s.Close()
	ctx := context.Background()
	c, err := Dial(ctx, ClientConfig{URL: "ws" + strings.TrimPrefix(hs.URL, "http")})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	_ = s.Advertise(ctx, "/imu/data", "sensor_msgs/msg/Imu")
	arrived := make(chan time.Time, 1)
	if _, err := c.Subscribe(ctx, "/imu/data", "", SubscribeOptions{}, func(json.RawMessage) { arrived <- time.Now() }); err != nil {
		b.Fatal(err)
	}
	_ = c.CallService(ctx, "/rosapi/nodes", "", nil, nil)
	msg := map[string]any{"header": map[string]any{"frame_id": "imu_link"}, "linear_acceleration": map[string]float64{"x": 0.01, "y": -0.02, "z": 9.81}}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := s.Publish(ctx, "/imu/data", msg); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, (<-arrived).Sub(t0))
	}
	b.StopTimer()
	sortDurations(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func sortDurations(d []time.Duration) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}
