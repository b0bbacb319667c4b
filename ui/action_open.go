package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/browser"
)

// openSelection is o on the main screen: a session's live view, a
// screenshot's link.
func (m *Model) openSelection(sel Selection) tea.Cmd {
	e := m.env
	switch {
	case sel.Session != nil:
		if l := liveLink(sel.Session); l != "" {
			return e.open(l, "live-view link")
		}
		if !e.liveView {
			return flash("no live-view link: l turns live view on")
		}
		return flash("no live-view link for this session (it is not in the last poll's active sessions)")
	case sel.Live != nil:
		return e.open(sel.Live.LiveViewURL, "live-view link")
	case sel.Event != nil:
		if b := sessionOf(e, sel.Event); b != nil && liveLink(b) != "" {
			return e.open(liveLink(b), "live-view link")
		}
	case sel.Artifact != nil && sel.Artifact.Kind == model.KindScreenshot:
		v := newArtifactView(e, sel.Artifact)
		v.openWhen = true
		m.push(v)
		return nil
	}
	return e.open("", "")
}

// onOpened reports o: opened, or (no desktop here) copied instead.
func (m *Model) onOpened(msg openedMsg) tea.Cmd {
	switch {
	case msg.Err == nil:
		m.env.flash = "opened the " + msg.what + " in a browser"
	case msg.NoDesktop():
		why := strings.TrimPrefix(oneLine(msg.Err.Error()), browser.ErrNoDesktop.Error()+": ")
		m.copyNote = " instead of opening it: " + why
		return m.env.copy(msg.URL, "the "+msg.what)
	default:
		m.env.flash = "not opened: " + oneLine(msg.Err.Error())
	}
	return nil
}
