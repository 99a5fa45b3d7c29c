// Package bench is the path-tracker benchmark: AirStack's end-to-end
// fixed-trajectory suite (airstack.md §2, the seed
// airstack-e2e-tracker-benchmark.txt) and its takeoff / hover / land suite
// (§6), flown on the embedded simulator.
//
// A campaign (Config) sweeps robot counts × stress iterations × trajectory
// types. Each (robot count, iteration) is one environment: that many
// vehicle.Sim robots in one air mass, stepped in lockstep from start points
// 40 m apart, each with its own tracker and its own noise and gusts drawn
// from the seed. Per trajectory type the chain is
//
//	test_px4_ready  (once per environment) every robot publishing odometry
//	test_takeoff    TakeoffTask to 10 m at 1 m/s; |altitude error| ≤ 10 %
//	test_fixed_trajectory  the trajectory in each robot's body frame at
//	                dispatch, tracked until done (polled at 5 Hz) or 180 s;
//	                mean cross-track < 5 m (AirStack's rule) and success
//	test_landing    LandTask at 1 m/s; landed with final altitude < 0.5 m
//
// Landing runs even after a failed trajectory; a failed ready, takeoff or
// landing poisons the environment and the rest of its tests are skipped.
// The takeoff / hover / land suite (mark takeoff_hover_land) flies ready,
// takeoff, 10 s of hover and landing at each --takeoff-velocities speed; a
// hover failure does not poison.
//
// Takeoff and landing are the vehicle's own modes at the task's speed, so
// they are the same for every tracker and only the trajectory phase differs;
// the tracker (package track) flies the trajectory only. Every metric is
// recorded per robot, "robot_N.<key>", with AirStack's keys, units,
// directions and rounding (package bench/metric), beside the metrics that
// mean what they say. Selection follows pytest: Marks (-m) picks suites,
// Keyword (-k) test ids; a phase the chain needs is flown even when it is
// not selected, and only selected phases are reported.
//
// Departures from AirStack, forced or chosen: the trajectory test also fails
// when the action did not succeed (AirStack only logs it); odometry is
// captured at 30 Hz
// from dispatch to completion (AirStack's capture also holds the hover
// before and after, through the ROS CLI's start-up); the ready check waits
// for 2 s of estimator time; ready_duration_sys_s is the wall time to build
// and ready the simulated world.
//
// The package flies simulations and reads the wall clock through
// Config.Now; writing the results directory is package bench/results, the
// regression compare package bench/compare.
package bench
