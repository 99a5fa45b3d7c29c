package eol_test

import (
	"slices"
	"testing"

	"github.com/shakedown-robotics/shakedown/eol"
	"github.com/shakedown-robotics/shakedown/sim/rover"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// A sensor made to fail fails exactly its row. Rows that need the broken
// sensor's data report SKIP with the reason, so that a single fault does not
// blame other parts.
func TestMowerFaultRows(t *testing.T) {
	cases := []struct {
		name     string
		f        rover.Faults
		wantFail []string
		wantSkip []string
	}{
		{"GNSS dropout", rover.Faults{GNSSDropout: true}, []string{"sensors.gnss_rate"}, []string{"sensors.rtk"}},
		{"IMU dropout", rover.Faults{IMUDropout: true}, []string{"sensors.imu_rate"}, []string{"sensors.gravity", "sensors.gyro_bias", "wheels.yaw_rate"}},
		{"battery dropout", rover.Faults{BatteryDropout: true}, []string{"sensors.battery_rate"}, []string{"sensors.battery_voltage", "sensors.battery_charge"}},
		{"no RTK fix", rover.Faults{RTKFloat: true}, []string{"sensors.rtk"}, nil},
		{"gyro bias", rover.Faults{GyroBiasRadS: 0.05}, []string{"sensors.gyro_bias"}, nil},
		{"reversed left encoder", rover.Faults{ReversedEncoder: [2]bool{true, false}}, []string{"wheels.speed"}, nil},
		{"reversed right encoder", rover.Faults{ReversedEncoder: [2]bool{false, true}}, []string{"wheels.speed"}, nil},
		{"IMU mounted upside down", rover.Faults{IMUUpsideDown: true}, []string{"wheels.yaw_rate"}, nil},
		{"drive motors swapped", rover.Faults{SwappedMotors: true}, []string{"wheels.speed", "wheels.yaw_rate"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mc := mowerCase{faults: c.f}
			rep := runMower(t, newMower(t, mc), mc, "f")
			if got := ids(rep, eol.Fail); !slices.Equal(got, c.wantFail) {
				t.Errorf("failed: got %v; want %v\n%s", got, c.wantFail, rep.Summary())
			}
			if got := ids(rep, eol.Skip); !slices.Equal(got, c.wantSkip) {
				t.Errorf("skipped: got %v; want %v", got, c.wantSkip)
			}
		})
	}
}

// A lidar that stops publishing fails its rate; the gate then blocks
// forward motion (fail-safe), and the runner reports the driving rows as
// held by the gate rather than failing them.
func TestMowerLidarDropout(t *testing.T) {
	mc := mowerCase{faults: rover.Faults{LidarDropout: true}}
	rep := runMower(t, newMower(t, mc), mc, "f")
	if got := ids(rep, eol.Fail); !slices.Equal(got, []string{"sensors.lidar_rate"}) {
		t.Errorf("failed: got %v; want [sensors.lidar_rate]\n%s", got, rep.Summary())
	}
	for _, id := range []string{"wheels.speed", "stop.standstill", "watchdog.drive", "obstacle.stop"} {
		if c, _ := rep.Check(id); c.Result != eol.Skip {
			t.Errorf("%s: got %s; want SKIP", id, c.Result)
		}
	}
}

// blade=false and lidar=false (the seed's H2 robots) make those rows SKIP,
// and the run passes.
func TestMowerOptionalParts(t *testing.T) {
	cases := []struct {
		name     string
		mc       mowerCase
		wantSkip []string
	}{
		{"blade=false", mowerCase{noBlade: true}, []string{"blade.spin_up", "blade.stop", "stop.blade", "watchdog.blade"}},
		{"lidar=false", mowerCase{noLidar: true}, []string{"sensors.lidar_rate", "obstacle.stop"}},
		{"both", mowerCase{noBlade: true, noLidar: true}, []string{"sensors.lidar_rate", "blade.spin_up", "blade.stop", "stop.blade", "watchdog.blade", "obstacle.stop"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := runMower(t, newMower(t, c.mc), c.mc, "h2")
			if rep.Result != eol.Pass {
				t.Errorf("result %s\n%s", rep.Result, rep.Summary())
			}
			if got := ids(rep, eol.Skip); !slices.Equal(got, c.wantSkip) {
				t.Errorf("skipped: got %v; want %v", got, c.wantSkip)
			}
		})
	}
}

// The quadrotor: a swapped or reversed motor fails the motor row and
// nothing else; the flight rows are not flown (SKIP). A dropped-out sensor
// fails its rate.
func TestQuadFaultRows(t *testing.T) {
	flight := []string{"offboard.failsafe", "obstacle.cp"}
	cases := []struct {
		name     string
		fault    func(*vehicle.Sim) error
		wantFail []string
		wantSkip []string
	}{
		{"motors 1 and 3 swapped", func(s *vehicle.Sim) error { return s.SwapMotors(0, 2) }, []string{"motors.test"}, flight},
		{"motor 2 reversed", func(s *vehicle.Sim) error { return s.ReverseMotor(1) }, []string{"motors.test"}, flight},
		{"GNSS dropout", func(s *vehicle.Sim) error { s.Quad().Faults.GNSSDropout = true; return nil }, []string{"sensors.gnss_rate"}, append([]string{"sensors.gnss"}, flight...)},
		{"barometer dropout", func(s *vehicle.Sim) error { s.Quad().Faults.BaroDropout = true; return nil }, []string{"sensors.baro_rate"}, append([]string{"sensors.baro"}, flight...)},
		{"range sensor dropout", func(s *vehicle.Sim) error { s.Quad().Faults.RangeDropout = true; return nil }, []string{"sensors.range_rate"}, []string{"obstacle.cp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newQuad(t, 1)
			if err := c.fault(s); err != nil {
				t.Fatal(err)
			}
			rep := runQuad(t, s, "f")
			if got := ids(rep, eol.Fail); !slices.Equal(got, c.wantFail) {
				t.Errorf("failed: got %v; want %v\n%s", got, c.wantFail, rep.Summary())
			}
			if got := ids(rep, eol.Skip); !slices.Equal(got, c.wantSkip) {
				t.Errorf("skipped: got %v; want %v", got, c.wantSkip)
			}
		})
	}
}
