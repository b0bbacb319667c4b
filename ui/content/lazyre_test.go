package content

import (
	"regexp"
	"testing"
)

// The markdown patterns are compiled on first use; this compiles every one
// so that a pattern that does not compile fails here.
func TestPatternsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{charRef, sgrRe, trailingPad} {
		if re() == nil {
			t.Fatal("nil pattern")
		}
	}
}
