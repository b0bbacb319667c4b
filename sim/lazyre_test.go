package sim

import (
	"testing"

	"github.com/firewatch/firewatch/internal/lazyre"
)

// The package's patterns are compiled on first use (internal/lazyre); this
// compiles every one, so that a pattern that does not compile fails here.
func TestPatternsCompile(t *testing.T) {
	if err := lazyre.Check(); err != nil {
		t.Fatal(err)
	}
}
