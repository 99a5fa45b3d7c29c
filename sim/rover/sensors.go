package rover

import (
	"math"

	"github.com/shakedown-robotics/shakedown/geom"
)

// Every sample carries its time and sequence number, like a ROS message's
// header: Seq counts the samples published since start, so a consumer can
// count a sensor's rate without seeing every sample.

// IMU is one inertial sample in the body frame (FRD).
type IMU struct {
	T     float64
	Seq   uint64
	Accel geom.Vec3 // m/s², specific force
	Gyro  geom.Vec3 // rad/s
}

// GNSS fix types, as MAVLink's GPS_FIX_TYPE.
const (
	FixNone     = 0
	Fix3D       = 3
	FixRTKFloat = 5
	FixRTKFixed = 6
)

// GNSS is one RTK receiver solution in local NED about the base station.
type GNSS struct {
	T      float64
	Seq    uint64
	Fix    int
	SigmaM float64 // reported horizontal accuracy (1σ), m
	Pos    geom.Vec2
}

// Joints is one joint-state sample: the drive wheels' encoders (left,
// right; positive rolling forward) and the blade motor's speed.
type Joints struct {
	T         float64
	Seq       uint64
	WheelRad  [2]float64 // rad
	WheelRadS [2]float64 // rad/s
	BladeRadS float64
}

// Scan is one lidar scan. Beam i looks AngleMinRad + i·AngleIncRad from the
// forward direction, positive to the right (FRD); ranges are NaN below MinM
// and MaxM when nothing is hit. Ranges is owned by the simulator and
// overwritten by the next scan.
type Scan struct {
	T           float64
	Seq         uint64
	AngleMinRad float64
	AngleIncRad float64
	Ranges      []float64
	MinM, MaxM  float64
	MountXM     float64 // lidar ahead of the axle centre, m
}

// Battery is the battery monitor's reading.
type Battery struct {
	T         float64
	Seq       uint64
	VoltageV  float64
	CurrentA  float64
	UsedMAh   float64
	Remaining float64 // 0..1
	Cells     int
}

// IMU returns the latest IMU sample.
func (r *Rover) IMU() IMU { return r.imu }

// GNSS returns the latest GNSS solution.
func (r *Rover) GNSS() GNSS { return r.gnss }

// Joints returns the latest joint states.
func (r *Rover) Joints() Joints { return r.joint }

// Scan returns the latest lidar scan (no ranges without a lidar).
func (r *Rover) Scan() Scan { return r.scan }

// Battery returns the latest battery reading.
func (r *Rover) Battery() Battery { return r.bat }

// sample publishes every sensor whose sample is due now.
func (r *Rover) sample() {
	s := &r.s
	f := &r.Faults
	noise := !r.cfg.NoNoise
	if r.imuT.Due(r.t) && !f.IMUDropout {
		acc := geom.Vec3{X: s.AccMS2, Y: s.SpeedMS * s.YawRate, Z: -GravityMS2}
		gyro := geom.Vec3{Z: s.YawRate}.Add(r.gyroBias).Add(geom.Vec3{Z: f.GyroBiasRadS})
		if noise {
			acc = acc.Add(r.gauss3(0.05))
			gyro = gyro.Add(r.gauss3(0.003))
		}
		if f.IMUUpsideDown {
			acc.Y, acc.Z = -acc.Y, -acc.Z
			gyro.Y, gyro.Z = -gyro.Y, -gyro.Z
		}
		r.imu = IMU{T: r.t, Seq: r.imu.Seq + 1, Accel: acc, Gyro: gyro}
	}
	if r.gnssT.Due(r.t) && !f.GNSSDropout {
		var e geom.Vec2
		if noise {
			e = geom.Vec2{X: r.gpsErr[0].Next(r.rng), Y: r.gpsErr[1].Next(r.rng)}
		}
		fix, sigma := FixRTKFixed, 0.014
		if f.RTKFloat {
			fix, sigma, e = FixRTKFloat, 0.25, e.Scale(20)
		}
		r.gnss = GNSS{T: r.t, Seq: r.gnss.Seq + 1, Fix: fix, SigmaM: sigma, Pos: s.Pos.Add(e)}
	}
	if r.jointT.Due(r.t) && !f.JointDropout {
		var w [2]float64
		for i := range 2 {
			w[i] = s.WheelRad[i]
			if f.ReversedEncoder[i] {
				w[i] = -w[i]
			}
		}
		j := Joints{T: r.t, Seq: r.joint.Seq + 1, WheelRad: w, BladeRadS: s.BladeRadS}
		if dtj := r.t - r.joint.T; r.joint.Seq > 0 && dtj > 0 {
			// Velocity by differencing the encoder positions, as a joint-state
			// publisher does.
			for i := range 2 {
				j.WheelRadS[i] = (w[i] - r.prevWheel[i]) / dtj
			}
		}
		r.prevWheel = w
		if noise {
			j.BladeRadS += 0.5 * r.rng.NormFloat64() // hall-sensor speed, about 5 rpm
		}
		r.joint = j
	}
	if !r.cfg.NoLidar && r.lidarT.Due(r.t) && !f.LidarDropout {
		r.castLidar(noise)
	}
	if r.batT.Due(r.t) && !f.BatteryDropout {
		c := &r.batCfg
		ocv := float64(c.Cells) * (c.VEmptyCell + (c.VFullCell-c.VEmptyCell)*s.BatterySoC)
		r.bat = Battery{T: r.t, Seq: r.bat.Seq + 1, VoltageV: ocv - r.currentA*c.ResistanceOhm, CurrentA: r.currentA,
			UsedMAh: r.usedMAh, Remaining: s.BatterySoC, Cells: c.Cells}
	}
}

func (r *Rover) castLidar(noise bool) {
	lc := &r.cfg.Lidar
	s := &r.s
	sy, cy := math.Sincos(s.Yaw)
	o := s.Pos.Add(geom.Vec2{X: cy * lc.MountXM, Y: sy * lc.MountXM})
	origin := geom.Vec3{X: o.X, Y: o.Y, Z: -lc.HeightM}
	for i, d := range r.lidarDirs {
		dir := geom.Vec3{X: cy*d.X - sy*d.Y, Y: sy*d.X + cy*d.Y}
		rng, _ := r.scene.Raycast(origin, dir, lc.MaxM)
		if noise && lc.NoiseSigmaM > 0 && rng < lc.MaxM {
			rng = math.Min(math.Max(rng+lc.NoiseSigmaM*r.rng.NormFloat64(), 0), lc.MaxM)
		}
		if rng < lc.MinM {
			rng = math.NaN()
		}
		r.scan.Ranges[i] = rng
	}
	r.scan.T = r.t
	r.scan.Seq++
}

func (r *Rover) gauss3(sigma float64) geom.Vec3 {
	return geom.Vec3{X: sigma * r.rng.NormFloat64(), Y: sigma * r.rng.NormFloat64(), Z: sigma * r.rng.NormFloat64()}
}
