package attn

import (
	"flag"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/theme"
	"github.com/firewatch/firewatch/ui/internal/golden"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// Golden panels with items shown (two open, one cleared) at the two sizes,
// with colour, without (NO_COLOR) and in ASCII.
func TestPanelGolden(t *testing.T) {
	s, tk := until(t, "loop", func(tk *attention.Tracker) bool {
		return len(tk.Open()) == 1 && tk.Open()[0].Kind == attention.KindFailingStreak
	})
	views := map[string]string{}
	for _, tc := range []struct {
		name    string
		w, h    int
		noColor bool
		sym     theme.Symbols
	}{
		{"120x40", 120, 40, false, theme.Unicode()},
		{"80x24", 80, 24, false, theme.Unicode()},
		{"80x24-nocolor", 80, 24, true, theme.Unicode()},
		{"80x24-ascii", 80, 24, true, theme.ASCII()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPanel(tk, s, theme.New(theme.Dark(), tc.noColor), tc.sym)
			p.SetSize(tc.w, tc.h)
			v := golden.Colour
			if tc.noColor {
				v = golden.NoColour
			}
			views[tc.name] = v(t, p.View(), tc.w, tc.h)
			golden.Check(t, "panel-"+tc.name+".golden", views[tc.name])
		})
	}
	// The colour golden keeps its SGR sequences, the NO_COLOR one has no
	// ESC byte: were NO_COLOR ignored, the two would not hold this.
	if c, n := views["80x24"], views["80x24-nocolor"]; c == n || !strings.Contains(c, "\x1b[") || strings.Contains(n, "\x1b") {
		t.Errorf("the colour and NO_COLOR panels: same %v, colour has SGR %v, NO_COLOR has ESC %v", c == n, strings.Contains(c, "\x1b["), strings.Contains(n, "\x1b"))
	}

	// ! selects the open item and asks to open its latest call; ↓ and
	// enter open the cleared loop's agent and last call.
	p := NewPanel(tk, s, theme.New(theme.Dark(), true), theme.Unicode())
	p.SetSize(80, 24)
	msg := p.Update(tea.KeyPressMsg{Code: '!', Text: "!"})()
	om, ok := msg.(OpenMsg)
	streak := tk.Open()[0]
	if !ok || om.Target.Item != streak || om.Target.ToolCallID != streak.ToolCallIDs[len(streak.ToolCallIDs)-1] || om.Target.AgentID != streak.AgentID {
		t.Errorf("! gave %+v", msg)
	}
	p.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	om, _ = p.Update(tea.KeyPressMsg{Code: tea.KeyEnter})().(OpenMsg)
	if om.Target.Item == nil || om.Target.Item.Kind != attention.KindLoop || !om.Target.Item.Cleared {
		t.Errorf("enter on the second row opened %+v", om.Target)
	}
}
