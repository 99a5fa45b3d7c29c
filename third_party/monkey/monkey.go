// Package monkey is an empty stand-in for bou.ke/monkey, which only
// gomavlib's own tests import and the module proxy refuses.
package monkey
