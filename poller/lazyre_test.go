package poller

import (
	"regexp"
	"testing"
)

// The error texts' patterns are compiled on first use; this compiles every one
// so that a pattern that does not compile fails here.
func TestPatternsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{retryText, alreadyCancelledText, invalidIDText, firstGenText} {
		if re() == nil {
			t.Fatal("nil pattern")
		}
	}
}
