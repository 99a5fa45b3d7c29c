package robot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/rosbridge"
	"github.com/shakedown-robotics/shakedown/rosbridge/ros"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// QuadConfig configures ServeQuad. Zero values mean the defaults named on
// each field.
type QuadConfig struct {
	Profile     *Profile     // nil = Builtin("quad")
	Sim         *vehicle.Sim // required
	Speed       float64      // simulated seconds per wall second; 0 = 1
	TakeoffAltM float64      // the takeoff service's altitude; 0 = 2.5 m
	Origin      Origin       // zero = DefaultOrigin
	Logf        func(format string, args ...any)
}

// Waypoint is a goal point of the follow-waypoints action, in the odom
// frame (ENU), m.
type Waypoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
}

// WaypointsGoal is the follow-waypoints action's goal.
type WaypointsGoal struct {
	Waypoints []Waypoint `json:"waypoints"`
	SpeedMS   float64    `json:"speed_ms"`
	AcceptM   float64    `json:"accept_radius_m"`
}

// WaypointsFeedback is its feedback.
type WaypointsFeedback struct {
	Index     int     `json:"index"`
	Remaining int     `json:"remaining"`
	DistanceM float64 `json:"distance_m"`
}

// WaypointsResult is its result.
type WaypointsResult struct {
	Reached bool `json:"reached"`
	Index   int  `json:"index"`
}

// QuadStatus is the status topic's JSON.
type QuadStatus struct {
	T      float64 `json:"t"`
	Armed  bool    `json:"armed"`
	Landed bool    `json:"landed"`
	Mode   string  `json:"mode"`
	AltM   float64 `json:"alt_m"`
}

type quadBridge struct {
	cfg   QuadConfig
	p     *Profile
	n     rosbridge.Node
	st    *stepper
	sim   *vehicle.Sim
	rates map[string]*rate
	tel   vehicle.Telemetry // under st.mu
}

// ServeQuad runs the simulated quadrotor in real time on node n, with the
// profile's topics, services and the follow-waypoints action, until ctx is
// done.
func ServeQuad(ctx context.Context, n rosbridge.Node, cfg QuadConfig) error {
	if cfg.Sim == nil {
		return errors.New("robot: ServeQuad needs a simulator")
	}
	if cfg.Profile == nil {
		p, err := Builtin(KindQuad)
		if err != nil {
			return err
		}
		cfg.Profile = p
	}
	if cfg.Profile.Kind != KindQuad {
		return fmt.Errorf("robot: profile %s is a %s, not a quad", cfg.Profile.Name, cfg.Profile.Kind)
	}
	if cfg.Speed == 0 {
		cfg.Speed = 1
	}
	if cfg.TakeoffAltM == 0 {
		cfg.TakeoffAltM = 2.5
	}
	if cfg.Origin == (Origin{}) {
		cfg.Origin = DefaultOrigin
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	st, err := newStepper(0.01, cfg.Speed)
	if err != nil {
		return err
	}
	b := &quadBridge{cfg: cfg, p: cfg.Profile, n: n, st: st, sim: cfg.Sim, rates: map[string]*rate{}}
	sensors := []string{"imu", "odometry", "gnss", "battery", "status"}
	for _, k := range sensors {
		r := newRate(b.p.Topics[k].RateHz)
		b.rates[k] = &r
	}
	if err := advertiseAll(ctx, n, b.p, sensors); err != nil {
		return err
	}
	if err := b.commands(ctx); err != nil {
		return err
	}
	b.tel = b.sim.Telemetry()
	return st.run(ctx, func() error {
		tel, err := b.sim.Wait(ctx, 10*time.Millisecond, nil)
		b.tel = tel
		if ctx.Err() != nil {
			return nil
		}
		return err
	}, func() { b.publish(ctx) })
}

// locked runs fn on the simulator between steps.
func (b *quadBridge) locked(fn func() error) error {
	b.st.mu.Lock()
	defer b.st.mu.Unlock()
	return fn()
}

func (b *quadBridge) telemetry() vehicle.Telemetry {
	b.st.mu.Lock()
	defer b.st.mu.Unlock()
	return b.tel
}

func (b *quadBridge) commands(ctx context.Context) error {
	s, sv := b.sim, b.p.Services
	cmds := map[string]func(context.Context) error{
		"arm":         s.Arm,
		"disarm":      s.Disarm,
		"takeoff":     func(ctx context.Context) error { return s.Takeoff(ctx, b.cfg.TakeoffAltM) },
		"land":        s.Land,
		"hold":        s.Hold,
		"return_home": s.Return,
		"kill":        s.Kill,
	}
	for _, k := range quadServices {
		fn := cmds[k]
		if err := b.n.AdvertiseService(ctx, sv[k].Name, sv[k].Type, trigger(func(ctx context.Context) error {
			return b.locked(func() error { return fn(ctx) })
		})); err != nil {
			return err
		}
	}
	sub := func(key string, fn func(json.RawMessage) error) error {
		t := b.p.Topics[key]
		_, err := b.n.Subscribe(ctx, t.Name, t.Type, rosbridge.SubscribeOptions{}, func(m json.RawMessage) {
			if err := fn(m); err != nil {
				b.cfg.Logf("robot: %s: %v", t.Name, err)
			}
		})
		return err
	}
	if err := sub("setpoint_pose", func(m json.RawMessage) error {
		var ps ros.PoseStamped
		if err := json.Unmarshal(m, &ps); err != nil {
			return err
		}
		sp := vehicle.Setpoint{Pos: NED(ofPoint(ps.Pose.Position)), Vel: nanVec(), Acc: nanVec(), Yaw: math.NaN()}
		if q := ofQuat(ps.Pose.Orientation); q.Norm() > 0.5 {
			sp.Yaw = AttNED(q.Normalize()).Yaw()
		}
		return b.locked(func() error { return s.Setpoint(ctx, sp) })
	}); err != nil {
		return err
	}
	if err := sub("setpoint_twist", func(m json.RawMessage) error {
		var ts ros.TwistStamped
		if err := json.Unmarshal(m, &ts); err != nil {
			return err
		}
		sp := vehicle.Setpoint{Pos: nanVec(), Vel: NED(ofVec(ts.Twist.Linear)), Acc: nanVec(), Yaw: math.NaN()}
		return b.locked(func() error { return s.Setpoint(ctx, sp) })
	}); err != nil {
		return err
	}
	a := b.p.Actions["waypoints"]
	return b.n.AdvertiseAction(ctx, a.Name, a.Type, b.followWaypoints)
}

func nanVec() geom.Vec3 { return geom.Vec3{X: math.NaN(), Y: math.NaN(), Z: math.NaN()} }

// followWaypoints flies the goal's waypoints in order with Goto; cancel
// holds where the vehicle is.
func (b *quadBridge) followWaypoints(ctx context.Context, g *rosbridge.GoalRequest) (any, int8) {
	var goal WaypointsGoal
	if err := json.Unmarshal(g.Args, &goal); err != nil || len(goal.Waypoints) == 0 {
		return WaypointsResult{Index: -1}, rosbridge.GoalAborted
	}
	accept := goal.AcceptM
	if !(accept > 0) {
		accept = 0.5
	}
	for i, w := range goal.Waypoints {
		p := NED(geom.Vec3{X: w.X, Y: w.Y, Z: w.Z})
		if !p.IsFinite() {
			return WaypointsResult{Index: i}, rosbridge.GoalAborted
		}
		if err := b.locked(func() error { return b.sim.Goto(ctx, p, goal.SpeedMS) }); err != nil {
			b.cfg.Logf("robot: follow_waypoints: goto %d: %v", i, err)
			return WaypointsResult{Index: i}, rosbridge.GoalAborted
		}
		nextFB := -1.0
		for {
			tel := b.telemetry()
			d := tel.Pos.Sub(p).Norm()
			if tel.T >= nextFB {
				_ = g.Feedback(WaypointsFeedback{Index: i, Remaining: len(goal.Waypoints) - i, DistanceM: d})
				nextFB = tel.T + 0.5
			}
			if d <= accept {
				break
			}
			select {
			case <-ctx.Done():
				_ = b.locked(func() error { return b.sim.Hold(context.Background()) })
				return WaypointsResult{Index: i}, rosbridge.GoalCanceled
			case <-b.st.next():
			}
		}
	}
	return WaypointsResult{Reached: true, Index: len(goal.Waypoints) - 1}, rosbridge.GoalSucceeded
}

func (b *quadBridge) publish(ctx context.Context) {
	tel := b.telemetry()
	p, f := b.p, b.p.Frames
	pub := func(key string, msg any) {
		if err := b.n.Publish(ctx, p.Topics[key].Name, msg); err != nil && ctx.Err() == nil {
			b.cfg.Logf("robot: publish %s: %v", p.Topics[key].Name, err)
		}
	}
	att := AttENU(tel.Att)
	if b.rates["imu"].due(tel.T) {
		pub("imu", ros.Imu{Header: header(tel.IMU.T, f.IMU), Orientation: quat(att), OrientationCovariance: diag9(1e-4),
			AngularVelocity: vec(FLU(tel.IMU.Gyro)), AngularVelocityCovariance: diag9(1e-6),
			LinearAcceleration: vec(FLU(tel.IMU.Accel)), LinearAccelerationCovariance: diag9(1e-3)})
	}
	if b.rates["odometry"].due(tel.T) {
		var od ros.Odometry
		od.Header = header(tel.T, f.Odom)
		od.ChildFrameID = f.Base
		od.Pose.Pose = ros.Pose{Position: point(ENU(tel.Pos)), Orientation: quat(att)}
		od.Pose.Covariance[0], od.Pose.Covariance[7], od.Pose.Covariance[14] = 0.01, 0.01, 0.01
		od.Twist.Twist = ros.Twist{Linear: vec(FLU(tel.Att.RotateInv(tel.Vel))), Angular: vec(FLU(tel.IMU.Gyro))}
		pub("odometry", od)
	}
	if b.rates["gnss"].due(tel.T) {
		g := tel.GNSS
		lat, lon, alt := b.cfg.Origin.fix(g.Pos.X, g.Pos.Y, -g.Pos.Z)
		status := ros.NavSatFixed
		if g.Fix < 3 {
			status = ros.NavSatNoFix
		}
		pub("gnss", ros.NavSatFix{Header: header(g.T, f.GNSS), Status: ros.NavSatStatus{Status: status, Service: ros.ServiceGPS},
			Latitude: lat, Longitude: lon, Altitude: alt,
			PositionCovariance: ros.Covariance9{g.EphM * g.EphM, 0, 0, 0, g.EphM * g.EphM, 0, 0, 0, g.EpvM * g.EpvM}, PositionCovarianceType: ros.CovKnownDiag})
	}
	if b.rates["battery"].due(tel.T) {
		bt := tel.Battery
		pub("battery", batteryState(header(bt.T, f.Base), p.Battery, bt.VoltageV, bt.CurrentA, bt.Remaining, bt.Cells))
	}
	if b.rates["status"].due(tel.T) {
		js, _ := json.Marshal(QuadStatus{T: tel.T, Armed: tel.Armed, Landed: tel.Landed, Mode: tel.Mode, AltM: tel.AltM()})
		pub("status", ros.String{Data: string(js)})
	}
}

func batteryState(h ros.Header, pb Battery, v, i, remaining float64, cells int) ros.BatteryState {
	if cells < 1 {
		cells = pb.Cells
	}
	cv := make(ros.Floats, cells)
	for k := range cv {
		cv[k] = v / float64(cells)
	}
	return ros.BatteryState{Header: h, Voltage: v, Current: -i, Charge: remaining * pb.CapacityAh,
		Capacity: pb.CapacityAh, DesignCapacity: pb.CapacityAh, Percentage: remaining,
		PowerSupplyStatus: 2, PowerSupplyTechnology: technology(pb.Chemistry), Present: true, CellVoltage: cv}
}

func technology(chem string) uint8 {
	switch chem {
	case "LiPo":
		return ros.TechLiPo
	case "LiIon":
		return ros.TechLiON
	case "LiFePO4":
		return ros.TechLiFe
	case "NiMH":
		return ros.TechNiMH
	}
	return ros.TechUnknown
}
