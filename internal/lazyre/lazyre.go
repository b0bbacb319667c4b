// Package lazyre compiles a package's regular expressions the first time they
// are used instead of at program start.
//
// A package-level regexp.MustCompile runs in package initialisation, before
// main, in every command the binary has: `firewatch version` paid for the
// simulator's sandbox patterns and the poller's error texts. With New the
// pattern is compiled once, on first use, and an invalid pattern still
// panics, as MustCompile does, on first use. So that a bad one fails CI
// rather than a user, New records every pattern and the tests of each
// package that uses it call Check, which compiles them all.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

var (
	mu       sync.Mutex
	patterns []string // every expression given to New
)

// New returns a function that compiles expr on its first call and returns the
// same *regexp.Regexp on every call. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	mu.Lock()
	patterns = append(patterns, expr)
	mu.Unlock()
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Check compiles every expression given to New so far (in a test binary:
// those of every package it links) and returns the first error.
func Check() error {
	mu.Lock()
	defer mu.Unlock()
	for _, expr := range patterns {
		if _, err := regexp.Compile(expr); err != nil {
			return fmt.Errorf("lazyre: %q: %w", expr, err)
		}
	}
	return nil
}
