//go:build !long

package main

// longTests is false in go test ./...: the README test shrinks the blocks
// that say how and leaves out the long ones.
const longTests = false
