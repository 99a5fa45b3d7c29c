//go:build long

package main

// longTests is true with -tags long: the README test runs every block as
// written, the long ones too.
const longTests = true
