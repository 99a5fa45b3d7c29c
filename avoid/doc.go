// Package avoid is PX4-Avoidance's local planner (3DVFH*, the
// local_planner node of PX4/PX4-Avoidance), the system under test of the
// test generator, ported with its published defaults (px4.md §4):
//
//   - the point cloud of the depth camera (package quad: iris_depth_camera,
//     64 × 48 px at 20 Hz, 1.02974 rad, clip 0.5–18 m), cropped to
//     0.2–15 m and sub-sampled to one point per 2° cell; the memory keeps an
//     old point while its cell has no new point, it lies outside the field
//     of view and is younger than 20 s (processPointcloud); a cloud stamped
//     less than 0.3 s after the last one taken is dropped, and the planner
//     runs once per cloud taken, about 3.3 times a second
//     (LocalPlannerNodelet: pointCloudCallback, threadFunction), while the
//     waypoint generator runs at 10 Hz;
//   - the 6° polar histogram in elevation and azimuth (30 × 60 cells) of the
//     mean distance per cell, built around any point (generateNewHistogram);
//   - the cost of each direction (costFunction): the obstacle sigmoid
//     5000·(1 + D/√(1+D²)), D = 8.5 m − d, summed over a conic kernel of
//     ±40° (smoothPolarMatrix, spherical padding), the velocity term
//     6000·(|v| − v·ĉ), the yaw terms 3·Δ² toward the goal and back toward
//     the previous-goal → goal line, and the pitch term 25·Δe², sharpened
//     within 5 m of the goal;
//   - the star planner's tree search (buildLookAheadTree): 8 children per
//     node 2 m apart in the cheapest directions, heuristic 35·|goal − node|,
//     40 expanded nodes, the path to the deepest open node;
//   - the waypoint generator: the LOITER, TRY_PATH, DIRECT and
//     ALTITUDE_CHANGE states, the setpoint moving along the tree's path at
//     the cruise speed, the speed capped by the stopping distance within the
//     sensor range, scaled to 0 at the edge of the field of view and
//     low-passed (τ 0.9 s), the critically damped smoothing of the goto
//     point (P 10 xy, 3 z) and of the heading, and the hover when the point
//     cloud stops (0.5 s after a 5-s start-up).
//
// The planner implements autopilot.Avoider: the PX4-like flight controller
// hands it the current and previous waypoint as PX4 ≤ 1.14 does with
// COM_OBS_AVOID = 1 and flies its setpoint. The code is written for this
// project from the published algorithm and parameters; ties between equal
// costs go to the first cell in row-major order.
//
// The planner is pure: observations and time come in as arguments.
package avoid
