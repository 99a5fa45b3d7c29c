// Package gen generates obstacle tests for a mission: the random and the
// constrained-random generators of the surrogate-assisted testing paper
// (§IV-C), which sample two box obstacles through semantic categories
// rather than raw geometry, so that distinct scenario types are covered in
// balance.
//
// The package is pure: randomness comes from a seeded *rand.Rand.
package gen
