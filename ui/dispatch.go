package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/internal/suspend"
)

// onKey routes a key: the filter input first, then an overlay, then the
// root's bindings and the focused pane.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if msg.String() == "ctrl+c" {
		m.userQuit, m.interrupted = true, true
		return tea.Quit
	}
	if key.Matches(msg, k.Suspend) {
		// Through SIGTSTP, so that Ctrl-Z and kill -TSTP are one path
		// (ui/internal/suspend).
		return suspend.Request
	}
	m.env.flash = ""
	if m.filtering {
		return m.onFilterKey(msg)
	}
	if m.overlay != nil {
		_, confirming := m.overlay.(*confirmView)
		_, helping := m.overlay.(*textView)
		_, typing := m.overlay.(*startView)
		switch {
		case confirming, typing:
		case key.Matches(msg, k.Quit):
			m.userQuit = true
			return tea.Quit
		case key.Matches(msg, k.Cancel):
			return m.askCancel()
		case key.Matches(msg, k.Help) && !helping:
			m.push(newHelpOverlay(m))
			return nil
		case key.Matches(msg, k.Attention) && !helping:
			m.overlay = nil // from one item's details to the next one's
			return m.nextAttention()
		}
		ov, cmd := m.overlay.update(msg, k)
		m.overlay = ov
		return cmd
	}
	p := m.focused()
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.Quit):
		m.userQuit = true
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.overlay = newHelpOverlay(m)
	case key.Matches(msg, k.NextPane):
		m.setFocus(m.focus + 1)
	case key.Matches(msg, k.PrevPane):
		m.setFocus(m.focus - 1)
	case key.Matches(msg, k.Left):
		m.sideways(-1)
	case key.Matches(msg, k.Right):
		m.sideways(1)
	case key.Matches(msg, k.Up):
		p.move(-1)
	case key.Matches(msg, k.Down):
		p.move(1)
	case key.Matches(msg, k.PageUp):
		p.move(-max(1, p.height()-1))
	case key.Matches(msg, k.PageDown):
		p.move(max(1, p.height()-1))
	case key.Matches(msg, k.Top):
		p.home()
	case key.Matches(msg, k.Bottom):
		p.end()
	case key.Matches(msg, k.Enter):
		sel := p.selection()
		if sel.Empty() {
			m.env.flash = "nothing selected"
			break
		}
		m.openDetail(sel)
	case key.Matches(msg, k.Back):
		if !m.scope.q.empty() {
			m.input.SetValue("")
			m.setFilter("")
		} else if m.backToList {
			m.back = true
			return tea.Quit
		}
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.input.SetValue(m.scope.q.text)
	case key.Matches(msg, k.NextMatch), key.Matches(msg, k.PrevMatch):
		dir := 1
		if key.Matches(msg, k.PrevMatch) {
			dir = -1
		}
		if m.scope.q.empty() {
			m.env.flash = "no filter: press / to set one"
		} else if !p.step(dir) {
			m.env.flash = "no match for " + quote(m.scope.q.text) + " in " + p.name()
		}
	case key.Matches(msg, k.NextError), key.Matches(msg, k.PrevError):
		dir := 1
		if key.Matches(msg, k.PrevError) {
			dir = -1
		}
		m.setFocus(paneTimeline)
		if !m.timeline.nextError(dir) {
			if dir > 0 {
				m.env.flash = "no more errors below"
			} else {
				m.env.flash = "no more errors above"
			}
		}
	case key.Matches(msg, k.Follow):
		m.setFocus(paneTimeline)
		m.timeline.toggleFollow()
	case key.Matches(msg, k.Attention):
		return m.nextAttention()
	case key.Matches(msg, k.Pause):
		if !m.canPoll("pause") {
			break
		}
		if m.shared != nil {
			m.pauseShared()
			break
		}
		m.paused = !m.paused
		m.backend.SetPaused(m.paused)
		if m.paused {
			m.env.flash = "polling paused: p resumes"
		} else {
			m.env.flash = "polling resumed"
			return m.armTicks()
		}
	case key.Matches(msg, k.PollNow):
		if !m.canPoll("poll") {
			break
		}
		m.backend.PollNow()
		m.env.flash = "polling now"
	case key.Matches(msg, k.Waterfall):
		m.wf.SetNow(m.env.clock.Now())
		m.push(&waterfallView{e: m.env, wf: m.wf})
	case key.Matches(msg, k.Result):
		m.openResult()
	case key.Matches(msg, k.Cancel):
		cmd = m.askCancel()
	case key.Matches(msg, k.Rerun):
		m.openRerun()
	case key.Matches(msg, k.FollowUp):
		m.openFollowUp()
	case key.Matches(msg, k.Compare):
		cmd = m.compareRerun()
	case key.Matches(msg, k.Copy):
		cmd = m.copySelection(p.selection())
	case key.Matches(msg, k.Open):
		cmd = m.openSelection(p.selection())
	case key.Matches(msg, k.LiveView):
		m.toggleLiveView()
	case key.Matches(msg, k.Save), key.Matches(msg, k.Diff):
		if k.noContent {
			m.env.flash = "no content to save or compare: a replay has the artifacts' versions, not their content"
			break
		}
		a := p.selection().Artifact
		if a == nil {
			m.env.flash = "s and d act on an artifact: select one in Artifacts (or a shows the result)"
			break
		}
		v := newArtifactView(m.env, a)
		if key.Matches(msg, k.Save) {
			v.saveWhen = true
		} else if v.previous(v.selV) != nil && a.Kind != model.KindScreenshot {
			v.diffOn = true
		}
		m.push(v)
	case key.Matches(msg, k.Zoom):
		m.env.flash = "+ and - zoom the waterfall: w opens it"
	}
	if m.focus == paneAgents {
		m.rescope(false)
	}
	return cmd
}

// sideways moves the focus to the pane beside the focused one.
func (m *Model) sideways(dir int) {
	if m.layoutKind() != layoutFull {
		m.setFocus(m.focus + dir)
		return
	}
	switch m.focus {
	case paneAgents, paneSessions:
		m.focus = paneAgents + (dir+1)/2
	}
}

func (m *Model) onFilterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		m.filtering = false
		m.setFilter(m.input.Value())
		return nil
	case "esc":
		m.filtering = false
		m.input.SetValue("")
		m.setFilter("")
		return nil
	}
	if m.input.Update(msg) {
		// The filter applies as it is typed.
		m.setFilter(m.input.Value())
	}
	return nil
}

func (m *Model) onWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if m.overlay != nil {
		ov, cmd := m.overlay.update(msg, m.keys)
		m.overlay = ov
		return cmd
	}
	if i, ok := m.paneAt(msg.X, msg.Y); ok {
		m.setFocus(i)
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		m.focused().move(-3)
	case tea.MouseWheelDown:
		m.focused().move(3)
	}
	if m.focus == paneAgents {
		m.rescope(false)
	}
	return nil
}

func (m *Model) onClick(msg tea.MouseClickMsg) tea.Cmd {
	if m.overlay != nil || msg.Button != tea.MouseLeft {
		return nil
	}
	i, ok := m.paneAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	m.setFocus(i)
	r := m.paneRects()[i]
	row := msg.Y - r.y
	p := m.focused()
	if row >= 0 && row < p.height() {
		p.move(p.rowDelta(row))
	}
	if m.focus == paneAgents {
		m.rescope(false)
	}
	return nil
}

// canPoll reports whether p and P can act on the poll; when not (a
// replay, or the watch has ended) the footer says why: "nothing to <verb>".
func (m *Model) canPoll(verb string) bool {
	switch {
	case m.backend == nil:
		m.env.flash = "nothing to " + verb + ": this is a replay"
	case m.done:
		m.env.flash = "the watch has ended"
	default:
		return true
	}
	return false
}
