package flightlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shakedown-robotics/shakedown/gate"
	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// MowerRecorder is a vehicle.Mower that records everything passing through
// it into W: each new sensor sample (by sequence number) of every reading
// the mower reports, the safety gate's status when it changes, every
// request sent to the gate and every button change. It is the bag of an
// end-of-line run: what the runner saw and did, in the vehicle's time,
// written in the order it happened.
type MowerRecorder struct {
	vehicle.Mower
	W *Writer

	imu, gnss, joints, scan, bat uint64
	safety                       vehicle.SafetyStatus
	haveSafety                   bool
	last                         float64
}

var _ vehicle.Mower = (*MowerRecorder)(nil)

// t keeps the log's times in order: a sample is logged when it is seen.
func (r *MowerRecorder) t(s vehicle.MowerSensors) float64 {
	if s.T > r.last {
		r.last = s.T
	}
	return r.last
}

func (r *MowerRecorder) record(s vehicle.MowerSensors) {
	t := r.t(s)
	if s.IMU.Seq != r.imu {
		r.imu = s.IMU.Seq
		r.W.WriteIMU(t, IMU{AccelMS2: s.IMU.Accel, GyroRadS: s.IMU.Gyro})
	}
	if s.GNSS.Seq != r.gnss {
		r.gnss = s.GNSS.Seq
		r.W.WriteGNSS(t, GNSS{Fix: s.GNSS.Fix, EphM: s.GNSS.SigmaM, Pos: geom.Vec3{X: s.GNSS.Pos.X, Y: s.GNSS.Pos.Y}})
	}
	if s.Joints.Seq != r.joints {
		r.joints = s.Joints.Seq
		r.W.write(TopicJoints, t, map[string]any{"timestamp": ts(t), "wheel_rad_s": s.Joints.WheelRadS[:], "wheel_rad": s.Joints.WheelRad[:],
			"blade_rad_s": s.Joints.BladeRadS})
	}
	if s.Lidar.Seq != r.scan && s.Lidar.Ranges != nil {
		r.scan = s.Lidar.Seq
		r.W.WriteRange(t, s.Lidar.Ranges, s.Lidar.MaxM)
	}
	if s.Battery.Seq != r.bat {
		r.bat = s.Battery.Seq
		r.W.WriteBattery(t, s.Battery.VoltageV, s.Battery.CurrentA, s.Battery.Remaining)
	}
	if !r.haveSafety || s.Safety != r.safety {
		r.haveSafety, r.safety = true, s.Safety
		r.W.write(TopicSafety, t, map[string]any{"timestamp": ts(t), "latched": s.Safety.Latched, "ring": s.Safety.Ring.String(), "hold": s.Safety.Hold.String()})
	}
}

// Sensors returns the mower's sensors, recording what is new.
func (r *MowerRecorder) Sensors() vehicle.MowerSensors {
	s := r.Mower.Sensors()
	r.record(s)
	return s
}

// Wait waits on the mower, recording every reading it sees.
func (r *MowerRecorder) Wait(ctx context.Context, d time.Duration, until func(vehicle.MowerSensors) bool) (vehicle.MowerSensors, error) {
	s, err := r.Mower.Wait(ctx, d, func(s vehicle.MowerSensors) bool {
		r.record(s)
		return until != nil && until(s)
	})
	if until == nil && errors.Is(err, vehicle.ErrTimeout) {
		err = nil
	}
	r.record(s)
	return s, err
}

// Send records the request, then sends it.
func (r *MowerRecorder) Send(ctx context.Context, c gate.Command) error {
	t := r.last
	r.W.write(TopicRequest, t, map[string]any{"timestamp": ts(t), "v": c.V, "w": c.W, "blade": c.Blade})
	return r.Mower.Send(ctx, c)
}

// Press records the button change, then makes it.
func (r *MowerRecorder) Press(ctx context.Context, b vehicle.Button, down bool) error {
	name := map[vehicle.Button]string{vehicle.ButtonStop: "STOP", vehicle.ButtonGo: "GO"}[b]
	if name == "" {
		name = fmt.Sprintf("button %d", int(b))
	}
	verb := "released"
	if down {
		verb = "pressed"
	}
	r.W.Event(r.last, LevelInfo, "button", name+" "+verb)
	return r.Mower.Press(ctx, b, down)
}
