package crawl

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/clipboard"
	"github.com/firewatch/firewatch/ui/internal/filterinput"
	"github.com/firewatch/firewatch/ui/internal/program"
	"github.com/firewatch/firewatch/ui/remote"
)

// Where a key goes: the question, the filter, the page view, the list.

func (m *Model) listHeight() int { return max(m.height-6, 1) }

func (m *Model) move(d int) {
	m.sel = min(max(m.sel+d, 0), max(m.shown()-1, 0))
}

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	// Ctrl-C ends the screen from anywhere, a question or the filter too.
	if msg.String() == "ctrl+c" {
		m.result.Interrupted = true
		return tea.Quit
	}
	if m.swallowed() {
		return nil
	}
	if m.question != nil {
		return m.answer(msg)
	}
	if m.typing {
		return m.editFilter(msg)
	}
	if m.page != nil {
		switch {
		case key.Matches(msg, k.Back), key.Matches(msg, k.Quit):
			m.page = nil
			return nil
		case key.Matches(msg, k.Copy):
			return clipboard.Copy(m.page.url, "page URL", m.clipboard())
		case key.Matches(msg, k.Save) && m.cfg.Terminal != nil:
			m.flash = remote.NoSave
			return nil
		case key.Matches(msg, k.Save):
			return m.page.save(m.cfg.SaveDir, m.cfg.Secrets)
		}
		return m.page.update(msg)
	}
	m.flash = ""
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Back):
		switch {
		case m.filter != "":
			m.filter = ""
			m.rebuild()
		case m.cfg.Back:
			m.result.Back = true
			return tea.Quit
		}
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-m.listHeight())
	case key.Matches(msg, k.PageDown):
		m.move(m.listHeight())
	case key.Matches(msg, k.Top):
		m.sel = 0
	case key.Matches(msg, k.Bottom):
		m.sel = max(m.shown()-1, 0)
	case key.Matches(msg, k.Filter):
		m.typing = true
	case key.Matches(msg, k.Open):
		return m.open()
	case key.Matches(msg, k.Copy):
		if r := m.selected(); r != nil {
			return clipboard.Copy(r.url, "page URL", m.clipboard())
		}
	case key.Matches(msg, k.Save) && m.cfg.Terminal != nil:
		m.flash = remote.NoSave
	case key.Matches(msg, k.Save):
		if r := m.selected(); r != nil && r.kind == kindPage {
			return m.saveRow(r)
		}
	case key.Matches(msg, k.Cancel) && m.cfg.ReadOnly != "":
		m.flash = m.cfg.ReadOnly
	case key.Matches(msg, k.Cancel):
		if m.over() {
			m.flash = "the crawl is over (" + oneLine(m.status) + "): nothing to cancel"
			return nil
		}
		if m.cancelling {
			return nil
		}
		return m.askCancel()
	case key.Matches(msg, k.Suspend):
		return program.Suspend
	}
	return nil
}

func (m *Model) editFilter(msg tea.KeyPressMsg) tea.Cmd {
	m.filter, m.typing = filterinput.Edit(m.filter, msg)
	m.rebuild()
	return nil
}

// ShortHelp is the footer's keys.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.question != nil:
		return m.question.HelpKeys()
	case m.page != nil:
		return append(append(append(m.page.shortHelp(), k.Copy), m.save()...), k.Back)
	case m.typing:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "drop filter"))}
	}
	b := append(append([]key.Binding{k.Open, k.Filter, k.Copy}, m.save()...), m.cancelKey()...)
	if m.cfg.Back {
		b = append(b, k.Back)
	}
	return append(b, k.Help, k.Quit)
}

// save is s, or nothing in a remote session (a hub's), which saves
// nothing: its footer and help do not offer it.
func (m *Model) save() []key.Binding {
	if m.cfg.Terminal != nil {
		return nil
	}
	return []key.Binding{m.keys.Save}
}

// FullHelp is every key, grouped.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	keys := append(append([]key.Binding{k.Open, k.Filter, k.Copy}, m.save()...), m.cancelKey()...)
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, append(keys, k.Back, k.Help, k.Quit, k.Suspend)}
}
