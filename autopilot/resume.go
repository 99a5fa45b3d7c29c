package autopilot

import "fmt"

// StartMissionAt flies items in order from item from (0-based), the way
// PX4 resumes a mission at its current item (Mission mode after Hold,
// MAV_CMD_MISSION_START's first item, MAV_CMD_DO_SET_MISSION_CURRENT):
// the items before it are not flown again. From 0 it is StartMission. In
// the air the first leg starts where the vehicle comes to rest; on the
// ground only a take-off item can be the first.
func (a *Autopilot) StartMissionAt(items []Item, from int) error {
	if from == 0 {
		return a.StartMission(items)
	}
	if err := a.checkMission(items); err != nil {
		return err
	}
	if from < 0 || from >= len(items) {
		return fmt.Errorf("autopilot: mission item %d of %d", from, len(items))
	}
	if a.landed && items[from].Kind != ItemTakeoff {
		return ErrOnGround
	}
	a.items = append([]Item(nil), items...)
	a.item, a.done, a.landing = from, false, false
	a.mode = ModeMission
	a.legStart = a.r.stopPoint(a.lim(0))
	a.enterItem()
	a.emit("mission resumed at item %d of %d", from, len(items))
	return nil
}
