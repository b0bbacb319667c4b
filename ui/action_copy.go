package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/clipboard"
)

// copySelection is y on the main screen: what is most useful for the row.
func (m *Model) copySelection(sel Selection) tea.Cmd {
	e := m.env
	switch {
	case sel.Event != nil:
		return e.copy(string(sel.Event.Raw), "the raw event JSON")
	case sel.ToolCall != nil:
		return e.copy(sel.ToolCall.ID, "tool call id")
	case sel.Agent != nil:
		return e.copy(sel.Agent.ID, "agent id")
	case sel.Artifact != nil:
		return e.copy(sel.Artifact.ID, "artifact id")
	case sel.Session != nil:
		if l := liveLink(sel.Session); l != "" {
			return e.copy(l, "live-view link")
		}
		return e.copy(sel.Session.ID, "browser session id")
	case sel.Live != nil:
		return e.copy(sel.Live.LiveViewURL, "live-view link")
	}
	return flash("nothing selected to copy")
}

// onCopied says what was copied (and, for o without a desktop, why it
// was copied rather than opened).
func (m *Model) onCopied(msg clipboard.CopiedMsg) {
	m.env.flash = msg.Status()
	if msg.Err == nil {
		m.env.flash += m.copyNote
	}
	m.copyNote = ""
}
