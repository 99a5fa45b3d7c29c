package server

import (
	"context"
	"math"
	"strconv"

	"github.com/shakedown-robotics/shakedown/flightlog"
	"github.com/shakedown-robotics/shakedown/geom"
)

// Record writes the mission to w as it flies, until ctx ends or the server
// stops: the vehicle's reported position (NED, with the heading of its
// velocity) at every status change, the queue as the ideal path whenever it
// changes, and every machine record (transitions with their reasons,
// milestones, commands) as a log line. It works with any adapter, since it
// reads only what the daemon itself sees. It finishes the flown path but
// does not close w.
func (s *Server) Record(ctx context.Context, w *flightlog.Writer) {
	ch, unsub := s.Subscribe()
	defer unsub()
	var lastRec uint64
	var lastT float64
	queueKey := ""
	sample := func() {
		st := s.Status()
		t := st.TimeS
		if t < lastT {
			t = lastT
		}
		lastT = t
		if p := st.Position; p != nil {
			yaw := 0.0
			if v := st.Velocity; v != nil && (v.X != 0 || v.Y != 0) {
				yaw = math.Atan2(v.Y, v.X)
			}
			w.Pose(t, geom.Vec3{X: p.X, Y: p.Y, Z: p.Z}, geom.QuatEuler(0, 0, yaw))
		}
		q := st.MissionQueue
		if key := q.State + "/" + strconv.Itoa(q.Total); key != queueKey {
			queueKey = key
			var path []geom.Vec3
			if h := st.Home; h != nil {
				path = append(path, geom.Vec3{X: h.X, Y: h.Y, Z: h.Z})
			}
			for _, wp := range s.Waypoints() {
				path = append(path, wp.Pos())
			}
			w.IdealPath(t, path)
		}
		recs, n := s.Feed(lastRec)
		lastRec = n
		for _, r := range recs {
			level := flightlog.LevelInfo
			if r.State == "FAILSAFE" {
				level = flightlog.LevelError
			}
			w.Event(r.TimeS, level, r.Kind, r.State+": "+r.Detail)
		}
	}
	sample()
	for {
		select {
		case <-ctx.Done():
			sample()
			w.Finish(lastT)
			return
		case <-s.Done():
			sample()
			w.Finish(lastT)
			return
		case <-ch:
			sample()
		}
	}
}
