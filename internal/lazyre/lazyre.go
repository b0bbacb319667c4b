// Package lazyre compiles a package's regular expressions the first time they
// are used instead of at program start.
//
// A package-level regexp.MustCompile runs in package initialisation, before
// main, in every command the binary has: `firewatch version` paid for the
// simulator's sandbox patterns and the poller's error texts. With New the
// pattern is compiled once, on first use, and an invalid pattern still
// panics, as MustCompile does, on first use: each package's tests compile
// all of its patterns, so a bad one fails CI rather than a user.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call and returns the
// same *regexp.Regexp on every call. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
