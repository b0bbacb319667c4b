package waterfall

import (
	"regexp"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestUntrustedTimesOnTheAxis: a tool call finished in the year 9999 and
// one that ends before it starts: no negative or centuries-long figure on
// the axis or after a bar.
func TestUntrustedTimesOnTheAxis(t *testing.T) {
	tr := finished()
	tool(tr, orch, "tc-future", "future", 3000, 250000000000000, "ok") // ~ year 9900
	tool(tr, orch, "tc-back", "backwards", 9000, 100, "ok")
	m := newModel(t, tr, 120, 30)
	out := ansi.Strip(m.View())
	if regexp.MustCompile(`(^|\s)-\d`).MatchString(out) {
		t.Errorf("a negative figure:\n%s", out)
	}
	if regexp.MustCompile(`\d{4,}h|\d{3,}d`).MatchString(out) {
		t.Errorf("an absurd figure:\n%s", out)
	}
}
