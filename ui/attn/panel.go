package attn

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/theme"
)

// OpenMsg asks the root to open what an item concerns: the agent, or the
// tool call (Target.ToolCallID) in the tool calls pane.
type OpenMsg struct{ Target Target }

// PanelKeys are the panel's bindings.
type PanelKeys struct {
	Next, Up, Down, Open key.Binding
}

// DefaultPanelKeys: ! to the next open item, ↑/↓ (k/j) to move, enter to
// open what the item concerns.
func DefaultPanelKeys() PanelKeys {
	return PanelKeys{
		Next: DefaultKeys().Next,
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the agent or call")),
	}
}

// Panel is the list of what needs attention: the open items first, then
// those that cleared, each in one line, with the burn rate and the cancel
// note at the top. It reads the tracker the root updates per merge; its
// View draws only the rows that fit.
type Panel struct {
	tk    *attention.Tracker
	store *model.Store
	st    *theme.Styles
	sym   theme.Symbols
	keys  PanelKeys
	cycle Cycle

	w, h int
	sel  int
	off  int
}

// NewPanel makes a panel of tk's items.
func NewPanel(tk *attention.Tracker, store *model.Store, st *theme.Styles, sym theme.Symbols) *Panel {
	return &Panel{tk: tk, store: store, st: st, sym: sym, keys: DefaultPanelKeys()}
}

// SetSize gives the panel its box.
func (p *Panel) SetSize(w, h int) { p.w, p.h = w, h }

// rows are the open items, then the others (cleared, or a budget the run
// reached), latest first.
func (p *Panel) rows() []*attention.Item {
	open := p.tk.Open()
	out := make([]*attention.Item, 0, len(p.tk.Items()))
	out = append(out, open...)
	all := p.tk.Items()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].State() != "open" {
			out = append(out, all[i])
		}
	}
	return out
}

// Update handles the panel's keys; enter and ! answer with an OpenMsg.
func (p *Panel) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	rows := p.rows()
	switch {
	case key.Matches(km, p.keys.Next):
		t, ok := p.cycle.Next(p.tk)
		if !ok {
			return nil
		}
		for i, it := range rows {
			if it == t.Item {
				p.sel = i
			}
		}
		p.settle(len(rows))
		return func() tea.Msg { return OpenMsg{Target: t} }
	case key.Matches(km, p.keys.Up):
		p.sel = max(0, p.sel-1)
	case key.Matches(km, p.keys.Down):
		p.sel = min(len(rows)-1, p.sel+1)
	case key.Matches(km, p.keys.Open):
		if p.sel < len(rows) {
			it := rows[p.sel]
			t := Target{Item: it, AgentID: it.AgentID}
			if n := len(it.ToolCallIDs); n > 0 {
				t.ToolCallID = it.ToolCallIDs[n-1]
			}
			return func() tea.Msg { return OpenMsg{Target: t} }
		}
	}
	p.settle(len(rows))
	return nil
}

func (p *Panel) settle(n int) {
	p.sel = max(0, min(p.sel, n-1))
	body := max(1, p.h-2)
	if p.sel < p.off {
		p.off = p.sel
	}
	if p.sel >= p.off+body {
		p.off = p.sel - body + 1
	}
}

// View draws the panel: a title line with the count and the burn, the
// cancel note, then one row per item.
func (p *Panel) View() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	fit := func(s string) string { return ansi.Truncate(s, p.w, p.sym.Ellipsis) }
	open := len(p.tk.Open())
	title := "Needs attention: nothing"
	if open > 0 {
		title = "Needs attention: " + describe.Count(open, "item")
	}
	cleared, reached := 0, 0
	for _, it := range p.tk.Items() {
		switch it.State() {
		case "cleared":
			cleared++
		case "reached":
			reached++
		}
	}
	if cleared > 0 {
		title += ", " + strconv.Itoa(cleared) + " cleared"
	}
	if reached > 0 {
		title += ", the cap reached"
	}
	lines := []string{p.st.Title.Render(fit(title))}
	burn := Burn(p.tk, p.sym, p.w < 90)
	if burn != "" && p.h > 1 {
		lines = append(lines, p.st.Muted.Render(fit(burn)))
	}
	if p.h > 4 {
		lines = append(lines, p.st.Muted.Render(fit(CancelNote)))
	}
	rows := p.rows()
	p.settle(len(rows))
	for i := p.off; i < len(rows) && len(lines) < p.h; i++ {
		it := rows[i]
		line := fit(" " + Line(it, p.name(it.AgentID), p.sym))
		switch {
		case i == p.sel:
			line = p.st.Selected.Render(line + strings.Repeat(" ", max(0, p.w-ansi.StringWidth(line))))
		case it.Cleared:
			line = p.st.Muted.Render(line)
		default:
			line = p.st.Warn.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func (p *Panel) name(agentID string) string {
	if agentID == "" {
		return "run"
	}
	if a := p.store.Agent(agentID); a != nil && a.Name != "" {
		return a.Name
	}
	return describe.ShortID(agentID)
}

// ShortHelp is the footer's part.
func (p *Panel) ShortHelp() []key.Binding { return []key.Binding{p.keys.Next, p.keys.Open} }

// FullHelp is the help overlay's part.
func (p *Panel) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.keys.Next, p.keys.Up, p.keys.Down, p.keys.Open}}
}
