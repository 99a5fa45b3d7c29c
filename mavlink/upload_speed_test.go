package mavlink

import (
	"testing"

	"github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
	"github.com/shakedown-robotics/shakedown/vehicle"
)

// TestMissionItemsSpeed: a mission item's speed goes to the autopilot as a
// DO_CHANGE_SPEED before it, once per change.
func TestMissionItemsSpeed(t *testing.T) {
	items := []vehicle.MissionItem{
		{Kind: vehicle.Takeoff, Pos: geom.Vec3{Z: -10}},
		{Kind: vehicle.Waypoint, Pos: geom.Vec3{X: 10, Z: -10}, SpeedMS: 3},
		{Kind: vehicle.Waypoint, Pos: geom.Vec3{X: 20, Z: -10}, SpeedMS: 3},
		{Kind: vehicle.Land, Pos: geom.Vec3{X: 20}, SpeedMS: 1.5},
	}
	ms, err := missionItems(items, refPoint{ll: scenario.SITLHome, ok: true}, geom.Vec3{}, FlavorPX4)
	if err != nil {
		t.Fatal(err)
	}
	var got []common.MAV_CMD
	var speeds []float32
	for i, m := range ms {
		if int(m.Seq) != i {
			t.Errorf("item %d has seq %d", i, m.Seq)
		}
		got = append(got, m.Command)
		if m.Command == common.MAV_CMD_DO_CHANGE_SPEED {
			speeds = append(speeds, m.Param2)
		}
	}
	want := []common.MAV_CMD{common.MAV_CMD_NAV_TAKEOFF, common.MAV_CMD_DO_CHANGE_SPEED, common.MAV_CMD_NAV_WAYPOINT,
		common.MAV_CMD_NAV_WAYPOINT, common.MAV_CMD_DO_CHANGE_SPEED, common.MAV_CMD_NAV_LAND}
	if len(got) != len(want) {
		t.Fatalf("got commands %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got commands %v; want %v", got, want)
		}
	}
	if len(speeds) != 2 || speeds[0] != 3 || speeds[1] != 1.5 {
		t.Errorf("got speeds %v; want [3 1.5]", speeds)
	}
}
