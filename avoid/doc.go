// Package avoid is Shakedown's obstacle-avoidance local planner, the system
// under test of the test generator. It follows the design of PX4-Avoidance's
// local_planner (px4.md §4), reduced to the horizontal plane in which the
// competition's missions fly:
//
//   - a forward range sensor with a limited field of view and range (the
//     depth camera of iris_depth_camera: about 59°, cropped to 15 m);
//   - a memory of obstacle points that keeps a point while it is outside the
//     current field of view and younger than 20 s, and drops it when the
//     sensor looks that way again;
//   - a polar histogram of 6° bins holding the mean distance of the points in
//     each bin;
//   - a cost per candidate direction: a sigmoid obstacle cost (5000·(1 +
//     D/√(1+D²)), D = 8.5 m − d, weighted 3× PX4's 5000: see Config) inflated over
//     ±40°, a yaw cost toward the
//     goal and one back toward the previous-goal→goal line, and a smoothness
//     cost on the change of velocity, with PX4-Avoidance's weights;
//   - a speed that is low-passed (τ = 0.9 s) and scaled down to zero as the
//     chosen direction leaves the field of view, and a heading that turns
//     toward the direction of travel.
//
// Its weaknesses come from this design, not from scripted faults: obstacles
// at the edge of the view are seen late, points behind the vehicle are
// forgotten once it turns toward them, the line cost pulls it back toward
// its leg around corners, the ±40° inflation closes narrow passages, and two
// offset boxes make it weave. Unlike PX4-Avoidance it chooses one direction
// per cycle instead of searching a tree of them.
//
// The planner is pure: observations and time come in as arguments.
package avoid
