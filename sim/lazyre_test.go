package sim

import (
	"regexp"
	"testing"
)

// The sandbox's and the previews' patterns are compiled on first use; this
// compiles every one so that a pattern that does not compile fails here.
func TestPatternsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{reBusy, reThrow, reRaise, reExit, reCall, reClick, reGoto,
		reRepeat, rePyRepeat, reSleep, reYesHead, reIdent, rePreviewPath, rePreviewDepth, rePreviewLimit} {
		if re() == nil {
			t.Fatal("nil pattern")
		}
	}
}
