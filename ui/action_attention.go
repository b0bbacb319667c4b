package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/attn"
)

// nextAttention (!) moves to the next item that needs attention (once
// none is open, as on a finished run, the next of those that cleared): it
// selects the agent concerned in the agents pane and opens the tool call's
// details, or the agent's; the item is said in the footer.
func (m *Model) nextAttention() tea.Cmd {
	t, ok := m.attnCycle.Next(m.env.attn)
	if !ok {
		m.env.flash = "nothing needs attention"
		if m.env.store.Run().State == model.StateFinished {
			m.env.flash = "nothing needed attention in this run"
		}
		return nil
	}
	name := ""
	if a := m.env.store.Agent(t.AgentID); a != nil {
		name = a.Name
		for i, r := range m.agents.rows {
			if r.a == a {
				m.agents.sel = i
				m.agents.settle()
				m.setFocus(paneAgents)
				m.rescope(false)
				break
			}
		}
		sel := Selection{Agent: a}
		if tc := m.env.store.ToolCall(t.ToolCallID); t.ToolCallID != "" && tc != nil {
			sel = Selection{ToolCall: tc}
		}
		m.openDetail(sel)
	}
	m.env.flash = m.env.text(attn.Line(t.Item, name, m.env.sym))
	return nil
}
