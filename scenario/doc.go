// Package scenario is the test-case model of Shakedown: a mission (take-off,
// waypoints, landing) in the local frame, the PX4 parameters and Aerialist
// commands it runs with, and the box obstacles placed in its way.
//
// It reads and writes the files of the UAV Testing Competition and its
// runner Aerialist:
//
//   - QGroundControl .plan missions (JSON), converted between latitude and
//     longitude and local North/East metres with PX4's azimuthal-equidistant
//     projection about the take-off point (ParsePlan, EncodePlan);
//   - Aerialist test-description YAML (ParseCaseStudy, EncodeCaseStudy),
//     with its params_file ("NAME, value" lines) and commands_file
//     (timestamp,mode,x,y,z,r) CSV files;
//   - the obstacle flag l,w,h,x,y,z,r (ParseObstacle).
//
// It also holds the competition's seven case studies (Builtin) and its
// obstacle validity rules (Rules.Check).
//
// Frames: Mission items are in Shakedown's local NED frame about the
// take-off point (X North, Y East, Z Down, so Z is minus the altitude above
// home). Obstacles keep the competition's model (world.Box: x North, y East,
// heights up, rotation in degrees).
//
// The parsers work on bytes and are pure; only load.go touches the file
// system. Sources are cited where a rule comes from: competition.md is
// shared/reference/competition.md, Aerialist is github.com/skhatiri/Aerialist.
package scenario
