package watchprint

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/attention/attentiontest"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/sim"
)

// closingBlock is the plain closing block of the simulator's scenario,
// merged poll by poll, on a terminal of the given width (0: piped).
func closingBlock(t *testing.T, scenario string, width int) string {
	t.Helper()
	bodies, _ := attentiontest.SimPolls(t, scenario, 2*time.Second)
	s := model.NewStore()
	var out strings.Builder
	run := &follow.Run{Store: s}
	tk := run.Tracker()
	for _, b := range bodies {
		d, err := s.Ingest(b)
		if err != nil {
			t.Fatal(err)
		}
		tk.Update(d, time.Unix(0, 0))
	}
	NewPlain(Watch{Run: run, Width: width, Stdout: &out}).End("")
	return out.String()
}

// The closing block stays in the scrollback: nothing in it is cut with
// "…". On a terminal a long row wraps under its value column, within the
// width; piped, it is one line.
func TestClosingBlockNotCut(t *testing.T) {
	for _, width := range []int{80, 120, 0} {
		out := closingBlock(t, sim.ScenarioCreditLimit, width)
		if flat := strings.Join(strings.Fields(out), " "); strings.Contains(out, "…") || !strings.Contains(flat, "change the request before trying again") {
			t.Errorf("width %d: the closing block is cut:\n%s", width, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if width > 0 && ansi.StringWidth(l) > width {
				t.Errorf("width %d: a line of %d cells: %q", width, ansi.StringWidth(l), l)
			}
		}
		// The errors' explanation is longer than any of these widths.
		for i, l := range lines {
			if !strings.Contains(l, "credit_limit_reached: the run hit its maxCredits") {
				continue
			}
			whole := strings.Contains(l, "change the request before trying again")
			next := lines[i+1]
			under := strings.HasPrefix(next, strings.Repeat(" ", ClosingLabelW)) && next[ClosingLabelW] != ' '
			if width == 0 && !whole || width > 0 && (whole || !under) {
				t.Errorf("width %d: the explanation does not wrap under its column (or is not whole when piped):\n%s", width, out)
			}
		}
	}
}

// "by agent" lists the estimates in the agents' tree order, indented by
// depth as the event lines are: free-tier-checker is pricing-researcher's
// subagent and follows it, though docs-analyst started before it.
func TestClosingByAgentTree(t *testing.T) {
	out := closingBlock(t, sim.ScenarioResearch, 120)
	_, by, ok := strings.Cut(out, "by agent    estimated from tool-call time, not billing\n")
	if !ok {
		t.Fatalf("no estimate per agent:\n%s", out)
	}
	var got []string
	for _, l := range strings.Split(by, "\n") {
		if !strings.HasPrefix(l, strings.Repeat(" ", ClosingLabelW)) {
			break
		}
		l = l[ClosingLabelW:]
		name := l[strings.LastIndexByte(l, ' ')+1:]
		got = append(got, strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " ")))+name)
	}
	want := []string{"orchestrator", "  pricing-researcher", "    free-tier-checker", "  docs-analyst", "  source-verifier"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("by agent %q, want %q:\n%s", got, want, out)
	}
}
