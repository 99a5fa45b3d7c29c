package mavlink

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakedown-robotics/shakedown/vehicle"
)

// TestServerSendsEveryFrameAfterAStall: a server whose loop was held up
// (a loaded machine) catches up on the vehicle time it owes, a second of
// telemetry at once at ×10; every HIGHRES_IMU of it reaches the vehicle,
// none lost in the link's 64-message write queue.
func TestServerSendsEveryFrameAfterAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigAt(t, vehicle.SimConfig{Seed: 1}, Config{}, 10)
		ctx := context.Background()
		if _, err := r.v.Wait(ctx, time.Second, nil); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			t1 := r.v.Telemetry().IMU
			if !r.srv.Do(ctx, func(*vehicle.Sim) { time.Sleep(150 * time.Millisecond) }) {
				t.Fatal("server stopped")
			}
			if _, err := r.v.Wait(ctx, 2*time.Second, nil); err != nil {
				t.Fatal(err)
			}
			t2 := r.v.Telemetry().IMU
			want := uint64(math.Round((t2.T - t1.T) * 50)) // HIGHRES_IMU at 50 Hz
			if got := t2.Seq - t1.Seq; got != want {
				t.Errorf("stall %d: %d HIGHRES_IMU arrived from %.2f s to %.2f s; want %d", i+1, got, t1.T, t2.T, want)
			}
		}
	})
}
