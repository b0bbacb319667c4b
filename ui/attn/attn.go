// Package attn draws what package attention found, for the terminal UI:
// the header's badge ("! 2 need attention"), the burn rate and projection
// beside the credits, the marks of the agents tree (stalled, looping, the
// estimated credits) and of the tool calls pane (slow, repeated, failing),
// the note where cancel is offered, and the key that cycles the selection
// through the open items.
//
// Everything here reads a tracker that the root updates once per merge
// (attention.Tracker.Update) and per quiet tick; nothing is computed per
// frame, and every look-up is by id, so a render costs the same at 100
// events as at 100 000.
package attn

import (
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
	"github.com/firewatch/firewatch/theme"
)

// CancelNote is said where cancel is offered: cancelling is cooperative.
const CancelNote = "credits can keep accruing for a moment after a cancel"

// KeyMap is the component's one binding.
type KeyMap struct {
	Next key.Binding
}

// DefaultKeys: ! cycles through the items that need attention.
func DefaultKeys() KeyMap {
	return KeyMap{Next: key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "next item needing attention"))}
}

// ShortHelp is the footer's part.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Next} }

// FullHelp is the help overlay's part.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Next}} }

// BadgeText is the header's badge, " ! 2 need attention ", "" when
// nothing is open; the header styles it (theme's BadgeWarn).
func BadgeText(tk *attention.Tracker, sym theme.Symbols) string {
	if tk == nil {
		return ""
	}
	n := len(tk.Open())
	if n == 0 {
		return ""
	}
	verb := " needs attention "
	if n > 1 {
		verb = " need attention "
	}
	return " " + sym.Error + " " + strconv.Itoa(n) + verb
}

// Badge is BadgeText in the theme's warning badge style.
func Badge(tk *attention.Tracker, st *theme.Styles, sym theme.Symbols) string {
	b := BadgeText(tk, sym)
	if b == "" {
		return ""
	}
	return st.BadgeWarn.Render(b)
}

// Burn is the burn rate and the projection for beside the credits:
// "≈ 258/min · cap 2,500 (assumed) in ~8m", shorter when narrow. "" while
// there is no rate.
func Burn(tk *attention.Tracker, sym theme.Symbols, narrow bool) string {
	if tk == nil {
		return ""
	}
	b := tk.Burn()
	if !b.HasRate {
		return ""
	}
	rate := b.PerMinute
	if !b.Running {
		rate = b.RunPerMin
	}
	v := sym.Approx + " " + describe.Tokens(twoFigures(rate)) + "/min"
	if narrow {
		if b.Running && b.ToCap > 0 {
			v += " " + sym.Arrow + " cap in " + roughly(b.ToCap)
		}
		return v
	}
	dot := " · "
	if sym.ASCII {
		dot = " - "
	}
	v += dot + "cap " + describe.Tokens(b.Cap)
	if b.CapAssumed {
		v += " (assumed)"
	}
	if b.Running && b.ToCap > 0 {
		v += " in " + roughly(b.ToCap)
	}
	return v
}

// AgentMarks are the agents tree's marks for an agent: stalled, looping,
// and its estimated credits ("⏸ ↻ ≈52"); "" when there is nothing to say.
func AgentMarks(tk *attention.Tracker, agentID string, sym theme.Symbols) string {
	return strings.TrimSpace(AgentFlags(tk, agentID, sym) + " " + AgentCredits(tk, agentID, sym))
}

// AgentFlags are the stalled and looping marks ("⏸ ↻"), "" when neither.
func AgentFlags(tk *attention.Tracker, agentID string, sym theme.Symbols) string {
	if tk == nil {
		return ""
	}
	var parts []string
	if tk.Stalled(agentID) {
		parts = append(parts, sym.Stalled)
	}
	if tk.Looping(agentID) {
		parts = append(parts, sym.Looping)
	}
	return strings.Join(parts, " ")
}

// AgentCredits is the agent's estimated credits, "≈52", "" when none.
func AgentCredits(tk *attention.Tracker, agentID string, sym theme.Symbols) string {
	if tk == nil {
		return ""
	}
	if c := tk.EstimateOf(agentID); c > 0 {
		return sym.Approx + describe.Tokens(c)
	}
	return ""
}

// CallMark is the tool calls pane's mark for a call: "slow", "repeated"
// or "failing" while an item says so, else "".
func CallMark(tk *attention.Tracker, toolCallID string) string {
	if tk == nil {
		return ""
	}
	switch tk.CallMark(toolCallID) {
	case attention.KindSlowTool:
		return "slow"
	case attention.KindLoop:
		return "repeated"
	case attention.KindFailingStreak:
		return "failing"
	}
	return ""
}

// Target is what the selection should open for an item: an agent, a tool
// call of that agent, or nothing in particular (the run as a whole).
type Target struct {
	Item       *attention.Item
	AgentID    string
	ToolCallID string // the latest call concerned, when the item names calls
}

// Cycle steps through the open items, one per press of the key, wrapping
// round; it remembers the last item shown so that items appearing or
// clearing in between do not make it skip. While nothing is open (on a
// finished run every item has cleared) it steps through every item
// raised, so what needed a look during the run stays one key away.
type Cycle struct {
	last *attention.Item
}

// Next is the item after the last one shown (the first when that one has
// cleared or none was shown); ok is false when no item was ever raised.
func (c *Cycle) Next(tk *attention.Tracker) (Target, bool) {
	if tk == nil {
		return Target{}, false
	}
	open := tk.Open()
	if len(open) == 0 {
		open = tk.Items()
	}
	if len(open) == 0 {
		return Target{}, false
	}
	i := 0
	for j, it := range open {
		if it == c.last {
			i = (j + 1) % len(open)
			break
		}
	}
	it := open[i]
	c.last = it
	t := Target{Item: it, AgentID: it.AgentID}
	if n := len(it.ToolCallIDs); n > 0 {
		t.ToolCallID = it.ToolCallIDs[n-1]
	}
	return t, true
}

// Line is an item in one line for a status line or a list: "! stall
// docs-analyst no event for 1m12s", with the agent's name given; one that
// cleared says so ("✓ stall  docs-analyst  cleared: no event for 1m30s"),
// as the plain output does.
func Line(it *attention.Item, agentName string, sym theme.Symbols) string {
	if agentName == "" {
		agentName = "run"
	}
	mark, msg := sym.Error, it.Message
	if it.Cleared {
		mark, msg = sym.OK, "cleared: "+msg
	}
	return mark + " " + string(it.Kind) + "  " + agentName + "  " + msg
}

// twoFigures rounds a rate to two significant figures (258 → 260): the
// header redraws only when it changes that much.
func twoFigures(v float64) float64 {
	if v <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-1)
	return math.Round(v/p) * p
}

// roughly is a projection to the cap: seconds under a minute, whole
// minutes past it ("8m").
func roughly(d time.Duration) string {
	if d < time.Minute {
		return text.Elapsed(d)
	}
	return strconv.Itoa(int(d.Round(time.Minute)/time.Minute)) + "m"
}
