// Package campaign runs many simulations as one campaign: jobs with ids
// derived from their content, results that say what each run produced, and
// executors that run the jobs, on this machine or on many.
//
// A Job is one test run: the scenario (the mission and its obstacles, the
// PX4 parameters), the vehicle configuration (autopilot, wind, time limit),
// the seed and the run index. Its ID is a hash of exactly that content, so
// the same test flown with the same seed is the same job wherever and
// whenever it is built, and a results store keyed by job id can skip what is
// already done and never count a result twice.
//
// A job names its Engine, the rung of the fidelity ladder that flies it:
// Embedded (the simulator, judged on its ground truth), MAVLink (a PX4 or
// ArduPilot autopilot at a URL, judged on its estimate) or Aerialist (its
// CLI, scored from the PX4 log it leaves). Every engine ends in run.Judge,
// so a result means the same whoever flew it. The engines live with the
// executor that runs the job (Local.Engines; a NATS worker's Exec), so each
// worker flies its own.
//
// A Result is what the run produced: the run.Result (minimum distances,
// points, flight time, verdict), the trajectory resampled into Aerialist's
// 0.5-s bins, the full-rate trace when the job asks for it, or the error
// that kept the job from running. Execute turns a job into its result; every
// executor calls it, so a result does not depend on which executor ran it.
//
// An Executor runs a set of jobs and hands over each result once:
//
//   - Local, a pool of goroutines, one simulation per core (the default);
//   - NATS, which publishes the jobs to a JetStream work-queue stream that
//     Workers on any number of hosts pull from, and collects their results
//     from a second stream. A worker acknowledges a job only after its
//     result is stored in the results stream, so a worker that dies loses
//     nothing: its jobs are delivered again after AckWait. A job that keeps
//     failing lands, with its error, on the campaign's dead-letter subject.
//
// A Runner ties an executor to a Store (package store implements it on
// SQLite): it records the campaign and its jobs, skips the jobs that already
// have a result, runs the rest and records each result as it arrives.
// Runner.Batch has the contract of run.Batch, for commands that fly a batch
// of run.Jobs.
package campaign
