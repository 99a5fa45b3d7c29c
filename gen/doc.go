// Package gen generates obstacle tests for a mission, after the
// surrogate-assisted testing paper (§IV):
//
//   - the random and the constrained-random generators (§IV-C), which
//     sample two box obstacles through semantic categories rather than raw
//     geometry, so that distinct scenario types are covered in balance
//     (Generator);
//   - the canonical flight frame (§IV-B, Fig. 1): each leg's
//     segment-placement zone, the largest rectangle symmetric about the leg
//     inside the placement area; the leg with the largest; the rotation and
//     translation that map it onto the canonical leg (Frame, SegmentZone);
//   - the surrogate-guided pipeline (§IV-E): phase 1 keeps the tests the
//     surrogate predicts closest, phase 2 swaps in critical ones that raise
//     input diversity (Eq. 9–11), phase 3 is the harness flying the
//     leaderboard (Pipeline, KeepClosest, Diversifier), with extensions
//     beyond the paper: active refinement of the surrogate between rounds
//     and a criticality margin for phase 2;
//   - beyond the paper, searches that spend the simulator's cheapness: the
//     local search around failures (Local) and the confirmed search
//     (Search), which re-flies each failure until it is confirmed or
//     disproved, leaves out failures that fly as one it has, and picks its
//     mutants with a Gaussian process of its own flights on the mission
//     whose features include each box's flight context: the legs passing
//     it and its nearest waypoint (FlightModel, FlightContext); every leg
//     and every corner of the mission (Legs, Corners).
//
// Generators talk to the harness by reverse communication (Strategy):
// they propose tests, the harness flies them and hands back each minimum
// clearance, and they learn from it before proposing more; they never run
// a simulation themselves.
//
// The package is pure: randomness comes from a seeded *rand.Rand.
package gen
