// Package score scores test suites the way the UAV Testing Competition
// does, in its 2024, 2025 and 2026 editions, following the formulas of the
// symmetry-aware surrogate-assisted UAV testing paper (§V-A-3, Eq. 1–13;
// shared/seeds/surrogate-assisted-uav-testing-paper.txt) and what the
// organisers actually did where that differs (competition.md §4).
//
// Each formula is a function whose doc comment names its equation. On top
// of them, Plan says which tests of a suite are to be run, Evaluate scores
// one suite on one mission from the runs of those tests, and Compare ranks
// several suites (tools) per mission and across missions, the shape of the
// paper's Tables III–V.
//
// # Choices where the sources leave room
//
//   - Points per run (text before Eq. 2): 5 below 0.25 m, 2 below 1 m, 1
//     below 1.5 m, else 0; a run that timed out scores 0 points (the paper
//     counts timed-out tests apart from critical ones, Table II).
//   - avg_time in Eq. 2 is the mean over the runs of the test's execution
//     time as the competition measures it, in minutes: the whole log, from
//     its start (Aerialist's PX4 logs start about 19 s before arming) to
//     its end after landing, or to the 500-s limit on a timeout, whether or
//     not the vehicle touched a box (a contact does not end the flight).
//     Config.Time = TimeAirborne divides by the time in the air instead,
//     for comparison only. A test without obstacles, without points or
//     without time scores 0.
//   - Selection of the simulated set S_s: 2024 draws 20 tests at random
//     (seeded); 2025 and 2026 take the generator's first 20 in output order,
//     the organisers' practice (SelectFirst); SelectTopScore takes the 20
//     best by test score, the paper's reading for its own generator.
//   - An invalid test (unreadable, or breaking the edition's obstacle rules)
//     keeps its place in S_s, scores 0 and takes part in no diversity.
//   - Duplicates (2025, 2026): a valid test whose obstacle-footprint union
//     has IoU 1 (within 1e-9) with an earlier evaluated test is dropped from
//     the failure score and from every diversity.
//   - Diversity (Eq. 6): NormPairs, the default, is 1 − the mean IoU over
//     the unordered pairs, as the 2025 competition report defines it;
//     NormTests divides the sum over pairs by |S_s| instead, as the paper
//     prints. With fewer than two tests there is no pair and the diversity
//     is 0, as are the output diversity (Eq. 13) and the input diversity
//     of no obstacle.
//   - Similar tests (Eq. 4): a test is similar when the DTW distance from
//     its average trajectory to some other evaluated test's is below 75;
//     #similar counts such tests.
//   - DTW scale (Eq. 4 and 12): the distance is similaritymeasures.dtw's,
//     the sum of Euclidean distances along the cheapest warping path on
//     the 0.5-s-resampled x, y, z; Config.DTWNorm can divide it by the
//     pairs on that path or by the points of both trajectories. The
//     default is the raw sum in 2024 (the scale of the threshold 75) and
//     the per-pair mean in 2026 (the scale of the paper's D_out; see
//     DTWDefault). Config.DTWHeader names the choice for report headers.
//   - Average trajectory of repeated runs: tslearn's soft-DTW barycenter
//     with γ = 200, as Aerialist's Trajectory.average (dtw.SoftBarycenter;
//     Aerialist's cut of the landed tail is not reproduced), or DBA
//     (Config.Average).
//   - Ranks: competition ranking ("1224"): equal values share the best
//     rank of their group and the next value skips; values within 1e-9
//     (relative) are equal. Lower rank values are better; the 2024 overall
//     standing sorts by the sum of suite scores.
//
// The package is pure: no clock, no files, randomness only from the
// *rand.Rand given to Plan.
package score
