package robot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// MowerConfig configures ServeMower. Zero values mean the defaults named on
// each field.
type MowerConfig struct {
	Profile *Profile          // nil = Builtin("mower")
	Sim     *vehicle.MowerSim // required
	Speed   float64           // simulated seconds per wall second; 0 = 1
	Origin  Origin            // zero = DefaultOrigin
	Logf    func(format string, args ...any)
}

// SafetyMsg is the safety topic's JSON.
type SafetyMsg struct {
	Latched bool `json:"latched"`
	Ring    int  `json:"ring"`
	Hold    int  `json:"hold"`
}

// GNSS status on NavSatFix for an RTK receiver (NavSatFix cannot say
// "RTK fixed"): GBAS_FIX is RTK fixed, SBAS_FIX RTK float, FIX a plain 3-D
// fix. A convention of this bridge, written in the profile's comments.
func navSatOf(fix int) int8 {
	switch {
	case fix >= vehicle.FixRTKFixed:
		return ros.NavSatGBAS
	case fix == vehicle.FixRTKFloat:
		return ros.NavSatSBAS
	case fix >= 3:
		return ros.NavSatFixed
	}
	return ros.NavSatNoFix
}

func fixOf(status int8) int {
	switch status {
	case ros.NavSatGBAS:
		return vehicle.FixRTKFixed
	case ros.NavSatSBAS:
		return vehicle.FixRTKFloat
	case ros.NavSatFixed:
		return 3
	}
	return 0
}

// Joint names of the mower's JointState.
var mowerJoints = []string{"left_wheel_joint", "right_wheel_joint", "blade_joint"}

// ServeMower runs the simulated mower in real time on node n: its sensors
// at their own rates, its safety gate listening on the profile's cmd_vel and
// blade topics, its buttons as SetBool services.
func ServeMower(ctx context.Context, n rosbridge.Node, cfg MowerConfig) error {
	if cfg.Sim == nil {
		return errors.New("robot: ServeMower needs a simulator")
	}
	if cfg.Profile == nil {
		p, err := Builtin(KindMower)
		if err != nil {
			return err
		}
		cfg.Profile = p
	}
	p := cfg.Profile
	if p.Kind != KindMower {
		return fmt.Errorf("robot: profile %s is a %s, not a mower", p.Name, p.Kind)
	}
	if cfg.Speed == 0 {
		cfg.Speed = 1
	}
	if cfg.Origin == (Origin{}) {
		cfg.Origin = DefaultOrigin
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	st, err := newStepper(0.005, cfg.Speed)
	if err != nil {
		return err
	}
	sim := cfg.Sim
	sensors := []string{"imu", "gnss", "joints", "scan", "battery", "safety"}
	if err := advertiseAll(ctx, n, p, sensors); err != nil {
		return err
	}
	var blade bool // under st.mu
	locked := func(fn func() error) error {
		st.mu.Lock()
		defer st.mu.Unlock()
		return fn()
	}
	bt := p.Topics["blade"]
	if _, err := n.Subscribe(ctx, bt.Name, bt.Type, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
		var b ros.Bool
		if json.Unmarshal(m, &b) == nil {
			_ = locked(func() error { blade = b.Data; return nil })
		}
	}); err != nil {
		return err
	}
	ct := p.Topics["cmd_vel"]
	if _, err := n.Subscribe(ctx, ct.Name, ct.Type, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
		var tw ros.Twist
		if err := json.Unmarshal(m, &tw); err != nil {
			cfg.Logf("robot: %s: %v", ct.Name, err)
			return
		}
		// FLU: angular.z positive turns left; the gate's W turns right.
		_ = locked(func() error {
			return sim.Send(ctx, gate.Command{V: tw.Linear.X, W: -tw.Angular.Z, Blade: blade})
		})
	}); err != nil {
		return err
	}
	for key, btn := range map[string]vehicle.Button{"stop_button": vehicle.ButtonStop, "go_button": vehicle.ButtonGo} {
		sv, btn := p.Services[key], btn
		if err := n.AdvertiseService(ctx, sv.Name, sv.Type, func(ctx context.Context, args json.RawMessage) (any, error) {
			var req ros.SetBoolRequest
			if err := json.Unmarshal(args, &req); err != nil {
				return nil, err
			}
			if err := locked(func() error { return sim.Press(ctx, btn, req.Data) }); err != nil {
				return ros.SetBoolResponse{Success: false, Message: err.Error()}, nil
			}
			return ros.SetBoolResponse{Success: true, Message: "ok"}, nil
		}); err != nil {
			return err
		}
	}
	var last vehicle.MowerSensors
	var seen [6]uint64
	var cur vehicle.MowerSensors
	pub := func(key string, msg any) {
		if err := n.Publish(ctx, p.Topics[key].Name, msg); err != nil && ctx.Err() == nil {
			cfg.Logf("robot: publish %s: %v", p.Topics[key].Name, err)
		}
	}
	safetyRate := newRate(p.Topics["safety"].RateHz)
	f := p.Frames
	var scanBuf ros.Floats
	return st.run(ctx, func() error {
		s, err := sim.Wait(ctx, 5*time.Millisecond, nil)
		if err != nil && ctx.Err() == nil {
			return err
		}
		cur = s
		if s.Lidar.Ranges != nil {
			scanBuf = append(scanBuf[:0], make(ros.Floats, len(s.Lidar.Ranges))...)
			for i, r := range s.Lidar.Ranges { // reversed: ROS angles turn left
				scanBuf[len(s.Lidar.Ranges)-1-i] = r
			}
		}
		return nil
	}, func() {
		st.mu.Lock()
		s := cur
		scan := append(ros.Floats(nil), scanBuf...)
		st.mu.Unlock()
		if s.IMU.Seq != seen[0] {
			seen[0] = s.IMU.Seq
			pub("imu", ros.Imu{Header: header(s.IMU.T, f.IMU), OrientationCovariance: noCov,
				AngularVelocity: vec(FLU(s.IMU.Gyro)), AngularVelocityCovariance: diag9(1e-6),
				LinearAcceleration: vec(FLU(s.IMU.Accel)), LinearAccelerationCovariance: diag9(1e-3), Orientation: ros.Quaternion{W: 1}})
		}
		if s.GNSS.Seq != seen[1] {
			seen[1] = s.GNSS.Seq
			lat, lon, alt := cfg.Origin.fix(s.GNSS.Pos.X, s.GNSS.Pos.Y, 0)
			v := s.GNSS.SigmaM * s.GNSS.SigmaM
			pub("gnss", ros.NavSatFix{Header: header(s.GNSS.T, f.GNSS), Status: ros.NavSatStatus{Status: navSatOf(s.GNSS.Fix), Service: ros.ServiceGPS},
				Latitude: lat, Longitude: lon, Altitude: alt, PositionCovariance: ros.Covariance9{v, 0, 0, 0, v, 0, 0, 0, 4 * v}, PositionCovarianceType: ros.CovKnownDiag})
		}
		if s.Joints.Seq != seen[2] {
			seen[2] = s.Joints.Seq
			j := s.Joints
			pub("joints", ros.JointState{Header: header(j.T, f.Base), Name: mowerJoints,
				Position: ros.Floats{j.WheelRad[0], j.WheelRad[1], 0}, Velocity: ros.Floats{j.WheelRadS[0], j.WheelRadS[1], j.BladeRadS}, Effort: ros.Floats{}})
		}
		if s.Lidar.Seq != seen[3] && s.Lidar.Ranges != nil {
			seen[3] = s.Lidar.Seq
			l := s.Lidar
			nb := len(l.Ranges)
			pub("scan", ros.LaserScan{Header: header(l.T, f.Lidar), AngleMin: -(l.AngleMinRad + float64(nb-1)*l.AngleIncRad),
				AngleMax: -l.AngleMinRad, AngleIncrement: l.AngleIncRad, ScanTime: 1 / math.Max(p.Topics["scan"].RateHz, 1),
				RangeMin: l.MinM, RangeMax: l.MaxM, Ranges: scan, Intensities: ros.Floats{}})
		}
		if s.Battery.Seq != seen[4] {
			seen[4] = s.Battery.Seq
			b := s.Battery
			pub("battery", batteryState(header(b.T, f.Base), p.Battery, b.VoltageV, b.CurrentA, b.Remaining, b.Cells))
		}
		if s.Safety != last.Safety || safetyRate.due(s.T) {
			js, _ := json.Marshal(SafetyMsg{Latched: s.Safety.Latched, Ring: int(s.Safety.Ring), Hold: int(s.Safety.Hold)})
			pub("safety", ros.String{Data: string(js)})
		}
		last = s
	})
}

// RemoteMower is a mower on a ROS graph as a vehicle.Mower: its sensors
// from the profile's topics (converted back to NED/FRD), its commands
// published where its safety gate listens, its buttons through the
// profile's services. Time is the robot's: the latest header stamp seen.
type RemoteMower struct {
	n      rosbridge.Node
	p      *Profile
	origin Origin

	mu       sync.Mutex
	s        vehicle.MowerSensors
	changed  chan struct{}
	unsubs   []func()
	scanBuf  []float64
	received map[string]uint64
}

var _ vehicle.Mower = (*RemoteMower)(nil)

// NewRemoteMower subscribes to the mower's topics on n.
func NewRemoteMower(ctx context.Context, n rosbridge.Node, p *Profile, origin Origin) (*RemoteMower, error) {
	if p == nil || p.Kind != KindMower {
		return nil, errors.New("robot: NewRemoteMower needs a mower profile")
	}
	if origin == (Origin{}) {
		origin = DefaultOrigin
	}
	m := &RemoteMower{n: n, p: p, origin: origin, changed: make(chan struct{}), received: map[string]uint64{}}
	m.s.Lidar.MountXM = p.Geometry.LidarMountXM
	for _, k := range []string{"cmd_vel", "blade"} {
		t := p.Topics[k]
		if err := n.Advertise(ctx, t.Name, t.Type); err != nil {
			return nil, err
		}
	}
	subs := map[string]func(json.RawMessage) error{
		"imu":     m.onIMU,
		"gnss":    m.onGNSS,
		"joints":  m.onJoints,
		"scan":    m.onScan,
		"battery": m.onBattery,
		"safety":  m.onSafety,
	}
	for _, k := range sortedKeys(subs) {
		t, fn := p.Topics[k], subs[k]
		un, err := n.Subscribe(ctx, t.Name, t.Type, rosbridge.SubscribeOptions{}, func(raw json.RawMessage) {
			m.mu.Lock()
			defer m.mu.Unlock()
			if err := fn(raw); err != nil {
				return
			}
			m.received[k]++
			close(m.changed)
			m.changed = make(chan struct{})
		})
		if err != nil {
			m.Close()
			return nil, err
		}
		m.unsubs = append(m.unsubs, un)
	}
	return m, nil
}

// Close ends the subscriptions.
func (m *RemoteMower) Close() {
	for _, u := range m.unsubs {
		u()
	}
	m.unsubs = nil
}

// Received returns how many messages of each topic key arrived.
func (m *RemoteMower) Received() map[string]uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]uint64, len(m.received))
	for k, v := range m.received {
		out[k] = v
	}
	return out
}

func (m *RemoteMower) stamp(h ros.Header, st *vehicle.Stamp) {
	st.T = h.Stamp.Seconds()
	st.Seq++
	if st.T > m.s.T {
		m.s.T = st.T
	}
}

func (m *RemoteMower) onIMU(raw json.RawMessage) error {
	var v ros.Imu
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	m.s.IMU.Accel, m.s.IMU.Gyro = FRD(ofVec(v.LinearAcceleration)), FRD(ofVec(v.AngularVelocity))
	m.stamp(v.Header, &m.s.IMU.Stamp)
	return nil
}

func (m *RemoteMower) onGNSS(raw json.RawMessage) error {
	var v ros.NavSatFix
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	n, e, _ := m.origin.local(v.Latitude, v.Longitude, v.Altitude)
	m.s.GNSS.Pos = geom.Vec2{X: n, Y: e}
	m.s.GNSS.Fix = fixOf(v.Status.Status)
	m.s.GNSS.SigmaM = math.Sqrt(math.Max(v.PositionCovariance[0], 0))
	m.stamp(v.Header, &m.s.GNSS.Stamp)
	return nil
}

func (m *RemoteMower) onJoints(raw json.RawMessage) error {
	var v ros.JointState
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	for i, name := range v.Name {
		pos, vel := at(v.Position, i), at(v.Velocity, i)
		switch name {
		case mowerJoints[0]:
			m.s.Joints.WheelRad[0], m.s.Joints.WheelRadS[0] = pos, vel
		case mowerJoints[1]:
			m.s.Joints.WheelRad[1], m.s.Joints.WheelRadS[1] = pos, vel
		case mowerJoints[2]:
			m.s.Joints.BladeRadS = vel
		}
	}
	m.stamp(v.Header, &m.s.Joints.Stamp)
	return nil
}

func at(xs ros.Floats, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return math.NaN()
}

func (m *RemoteMower) onScan(raw json.RawMessage) error {
	var v ros.LaserScan
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	nb := len(v.Ranges)
	m.scanBuf = m.scanBuf[:0]
	for i := nb - 1; i >= 0; i-- {
		m.scanBuf = append(m.scanBuf, v.Ranges[i])
	}
	l := &m.s.Lidar
	l.Ranges = m.scanBuf
	l.AngleIncRad = v.AngleIncrement
	l.AngleMinRad = -v.AngleMax
	l.MinM, l.MaxM = v.RangeMin, v.RangeMax
	m.stamp(v.Header, &l.Stamp)
	return nil
}

func (m *RemoteMower) onBattery(raw json.RawMessage) error {
	var v ros.BatteryState
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	b := &m.s.Battery
	b.VoltageV, b.CurrentA, b.Remaining = v.Voltage, -v.Current, v.Percentage
	b.Cells = len(v.CellVoltage)
	if b.Cells == 0 {
		b.Cells = m.p.Battery.Cells
	}
	m.stamp(v.Header, &b.Stamp)
	return nil
}

func (m *RemoteMower) onSafety(raw json.RawMessage) error {
	var v ros.String
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	var s SafetyMsg
	if err := json.Unmarshal([]byte(v.Data), &s); err != nil {
		return err
	}
	m.s.Safety = vehicle.SafetyStatus{Latched: s.Latched, Ring: gate.Ring(s.Ring), Hold: gate.Hold(s.Hold)}
	return nil
}

// Sensors returns the latest samples; the scan's ranges are a copy.
func (m *RemoteMower) Sensors() vehicle.MowerSensors {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.s
	if s.Lidar.Ranges != nil {
		s.Lidar.Ranges = append([]float64(nil), s.Lidar.Ranges...)
	}
	return s
}

// Send publishes the blade state, then the motion request, where the gate
// listens.
func (m *RemoteMower) Send(ctx context.Context, c gate.Command) error {
	if err := m.n.Publish(ctx, m.p.Topics["blade"].Name, ros.Bool{Data: c.Blade}); err != nil {
		return err
	}
	return m.n.Publish(ctx, m.p.Topics["cmd_vel"].Name, ros.Twist{Linear: ros.Vector3{X: c.V}, Angular: ros.Vector3{Z: -c.W}})
}

// Press calls the button's service: on a real robot the service is the
// operator's prompt; on the simulator it presses the button.
func (m *RemoteMower) Press(ctx context.Context, b vehicle.Button, down bool) error {
	key := "stop_button"
	if b == vehicle.ButtonGo {
		key = "go_button"
	}
	sv := m.p.Services[key]
	var resp ros.SetBoolResponse
	if err := m.n.CallService(ctx, sv.Name, sv.Type, ros.SetBoolRequest{Data: down}, &resp); err != nil {
		return err
	}
	if !resp.Success {
		return fmt.Errorf("robot: %s: %s", sv.Name, resp.Message)
	}
	return nil
}

// Wait lets d of the robot's time pass (its header stamps), checking until
// on every message; ErrTimeout when d passed first. A robot that goes silent
// for 5 s of wall time is an error.
func (m *RemoteMower) Wait(ctx context.Context, d time.Duration, until func(vehicle.MowerSensors) bool) (vehicle.MowerSensors, error) {
	m.mu.Lock()
	end := m.s.T + d.Seconds()
	m.mu.Unlock()
	for {
		m.mu.Lock()
		ch := m.changed
		m.mu.Unlock()
		s := m.Sensors()
		if until != nil && until(s) {
			return s, nil
		}
		if s.T >= end-1e-9 {
			if until != nil {
				return s, vehicle.ErrTimeout
			}
			return s, nil
		}
		t := time.NewTimer(5 * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return s, ctx.Err()
		case <-t.C:
			return s, errors.New("robot: the mower sent nothing for 5 s")
		case <-ch:
			t.Stop()
		}
	}
}
