package ui

import (
	"strings"
	"testing"
)

// paneRows are the screen's rows under the rule that starts with title,
// up to the next rule.
func paneRows(lines []string, title string) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimLeft(l, "─- "), title) || strings.Contains(l, "─ "+title) || strings.Contains(l, "- "+title):
			in = true
		case in && (strings.HasPrefix(l, "─") || strings.HasPrefix(l, "-")):
			return out
		case in:
			out = append(out, l)
		}
	}
	return out
}

// The tool calls pane names each tool as the timeline does
// ("mcp__tools__extract", not "extract"), and with --ascii a state has
// one symbol in both: a finished call is "+" in the pane and "tool +" in
// the timeline.
func TestToolCallsPaneNamesAsTimeline(t *testing.T) {
	for _, ascii := range []bool{false, true} {
		m := newTestModel(t, "succeeded.json", 120, 40, Config{ASCII: ascii})
		lines := screenLines(m)
		tools, timeline := paneRows(lines, "Tool calls"), paneRows(lines, "Timeline")
		if len(tools) == 0 || len(timeline) == 0 {
			t.Fatalf("no tool calls or timeline pane:\n%s", strings.Join(lines, "\n"))
		}
		named := strings.Join(timeline, "\n")
		done, ok := "✓", "tool ✓"
		if ascii {
			done, ok = "+", "tool +"
		}
		if !strings.Contains(named, ok) {
			t.Errorf("ascii %v: the timeline has no %q:\n%s", ascii, ok, named)
		}
		for _, r := range tools {
			f := strings.Fields(r)
			if len(f) < 2 {
				continue
			}
			if f[0] != done && f[0] != "x" && f[0] != "✗" {
				t.Errorf("ascii %v: a finished call's symbol is %q, the timeline's %q", ascii, f[0], ok)
			}
			// The fixture's tools are mcp__tools__* and spawn_subagent.
			if !strings.HasPrefix(f[1], "mcp__tools__") && f[1] != "spawn_subagent" {
				t.Errorf("ascii %v: the pane names a tool %q, not as the timeline does:\n%s", ascii, f[1], r)
			}
		}
	}
}
