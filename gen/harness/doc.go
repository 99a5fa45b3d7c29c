// Package harness is the main job of `shakedown generate`: it spends a
// simulation budget on a generator's proposals through a campaign runner
// (any executor, any engine), builds and caches the training datasets and
// the surrogate trained on them, ranks the tests and computes the
// measures of the surrogate-assisted testing paper (§VI).
//
// The generators of package gen only propose and observe (reverse
// communication); Run decides how each proposal is evaluated: every
// proposal is flown, and every flight counts against the budget. The
// command line parses its flags into a Config, calls Run, and writes the
// output folder Outcome.Files renders; nothing here reads flags or prints
// to a terminal.
//
// The package is not pure: the cache reads and writes files, and the
// simulations run wherever the runner sends them.
package harness
