package rosbridge

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeCases feed the decode test and the fuzz seeds.
var decodeCases = []struct {
	name    string
	in      string
	want    Op    // nil when an error is expected
	wantErr error // errors.Is target
}{
	{"publish", `{"op":"publish","topic":"/chatter","msg":{"data":"hi"}}`, Publish{Topic: "/chatter", Msg: []byte(`{"data":"hi"}`)}, nil},
	{"subscribe with throttle", `{"op":"subscribe","id":"s1","topic":"imu","type":"sensor_msgs/msg/Imu","throttle_rate":100,"queue_length":2,"compression":"none"}`,
		Subscribe{ID: "s1", Topic: "imu", Type: "sensor_msgs/msg/Imu", ThrottleRate: 100, QueueLength: 2, Compression: "none"}, nil},
	{"advertise", `{"op":"advertise","topic":"/a","type":"std_msgs/String","latch":false,"queue_size":100}`, Advertise{Topic: "/a", Type: "std_msgs/String", QueueSize: 100}, nil},
	{"call service without args", `{"op":"call_service","id":"c1","service":"/arm"}`, CallService{ID: "c1", Service: "/arm"}, nil},
	{"service response failed with a string", `{"op":"service_response","id":"c1","service":"/arm","result":false,"values":"nope"}`,
		ServiceResponse{ID: "c1", Service: "/arm", Values: []byte(`"nope"`)}, nil},
	{"send action goal", `{"op":"send_action_goal","id":"g1","action":"/fw","action_type":"a/action/B","args":{"x":1},"feedback":true}`,
		SendActionGoal{ID: "g1", Action: "/fw", ActionType: "a/action/B", Args: []byte(`{"x":1}`), Feedback: true}, nil},
	{"cancel", `{"op":"cancel_action_goal","id":"g1","action":"/fw"}`, CancelActionGoal{ID: "g1", Action: "/fw"}, nil},
	{"action result", `{"op":"action_result","id":"g1","action":"/fw","values":{},"status":4,"result":true}`,
		ActionResult{ID: "g1", Action: "/fw", Values: []byte(`{}`), Status: 4, Result: true}, nil},
	{"fragment", `{"op":"fragment","id":"f","data":"{\"op\"","num":0,"total":2}`, Fragment{ID: "f", Data: `{"op"`, Total: 2}, nil},
	{"set level", `{"op":"set_level","level":"info"}`, SetLevel{Level: "info"}, nil},
	{"status", `{"op":"status","level":"error","msg":"x"}`, Status{Level: "error", Msg: "x"}, nil},
	{"unknown fields ignored", `{"op":"unsubscribe","topic":"/a","extra":[1,2]}`, Unsubscribe{Topic: "/a"}, nil},

	{"malformed JSON", `{"op":"publish",`, nil, nil},
	{"not an object", `[1,2,3]`, nil, ErrType},
	{"no op", `{"topic":"/a"}`, nil, ErrMissing},
	{"op of wrong type", `{"op":5}`, nil, ErrType},
	{"unknown op", `{"op":"teleport","id":"x"}`, nil, ErrUnknown},
	{"topic of wrong type", `{"op":"publish","topic":5,"msg":{}}`, nil, ErrType},
	{"msg not an object", `{"op":"publish","topic":"/a","msg":"hi"}`, nil, ErrType},
	{"missing topic", `{"op":"subscribe","type":"x/y"}`, nil, ErrMissing},
	{"negative throttle", `{"op":"subscribe","topic":"/a","throttle_rate":-1}`, nil, ErrRange},
	{"throttle not a number", `{"op":"subscribe","topic":"/a","throttle_rate":"fast"}`, nil, ErrType},
	{"goal without id", `{"op":"send_action_goal","action":"/fw","action_type":"a/B"}`, nil, ErrMissing},
	{"fragment past its total", `{"op":"fragment","id":"f","data":"x","num":2,"total":2}`, nil, ErrRange},
	{"huge fragment total", `{"op":"fragment","id":"f","data":"x","num":0,"total":100000000}`, nil, ErrRange},
	{"bad level", `{"op":"set_level","level":"loud"}`, nil, ErrRange},
}

func TestDecode(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Decode(%s) = %#v; want an error", tt.in, got)
				}
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Errorf("error %v is a %T; want *DecodeError", err, err)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v; want one wrapping %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
			b, err := Encode(got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode(Encode(op)) = %v for %s", err, b)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("round trip through %s (-first +second):\n%s", b, diff)
			}
		})
	}
}

func TestDecodeErrorCarriesID(t *testing.T) {
	_, err := Decode([]byte(`{"op":"call_service","id":"call-7","service":12}`))
	var de *DecodeError
	if !errors.As(err, &de) || de.ID != "call-7" || de.Op != "call_service" {
		t.Fatalf("error %#v; want a DecodeError with op call_service and id call-7", err)
	}
}

// FuzzDecode: Decode never panics; what it accepts encodes to a message it
// accepts again, to the same bytes (Encode is a fixed point), with the op
// name it was decoded from.
func FuzzDecode(f *testing.F) {
	for _, tt := range decodeCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		op, err := Decode(b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is a %T; want *DecodeError", err, err)
			}
			return
		}
		enc, err := Encode(op)
		if err != nil {
			t.Fatalf("Encode(%#v): %v", op, err)
		}
		op2, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(%q))) = %v (encoded %s)", b, err, enc)
		}
		if op2.Name() != op.Name() {
			t.Fatalf("op %s became %s", op.Name(), op2.Name())
		}
		enc2, err := Encode(op2)
		if err != nil || string(enc2) != string(enc) {
			t.Fatalf("Encode not a fixed point:\n%s\n%s (%v)", enc, enc2, err)
		}
	})
}
