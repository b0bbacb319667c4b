package ui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/ui/browser"
	"github.com/firewatch/firewatch/ui/clipboard"
)

// Acting on the run and taking things away: cancel (after a y/n
// confirmation), copy (OSC 52), open (a browser on a desktop, else copy),
// live view on and off, and the result artifact.

// cancelTimeout bounds the cancel request.
const cancelTimeout = 15 * time.Second

// cancelDoneMsg is the service's answer to the cancel request.
type cancelDoneMsg struct{ err error }

// askCancel opens the confirmation, over whatever is shown.
func (m *Model) askCancel() {
	if m.backend == nil {
		m.env.flash = "cancel is not available in replay: the run is not being watched live"
		return
	}
	v := &confirmView{e: m.env, run: m.shortID(), state: m.stateWord(), yes: m.cancelCmd}
	v.back = m.overlay
	m.overlay = v
}

// cancelCmd sends the cancel request, in a command with a timeout.
func (m *Model) cancelCmd() tea.Cmd {
	b := m.backend
	m.env.flash = "cancelling the run" + m.env.sym.Ellipsis
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
		defer cancel()
		return cancelDoneMsg{err: b.Cancel(ctx)}
	}
}

// onCancelDone shows the answer; after a success it polls at once so
// that the screen follows the cancellation as the trace reports it.
func (m *Model) onCancelDone(msg cancelDoneMsg) {
	if msg.err != nil {
		s := oneLine(msg.err.Error())
		if !strings.HasPrefix(s, "cancel") {
			s = "cancel failed: " + s
		}
		m.env.flash = s
		return
	}
	m.env.flash = "cancel accepted by the service: the run stops as its agents do (the badge follows the trace)"
	if m.backend != nil && !m.done {
		m.backend.PollNow()
	}
}

// confirmView asks before cancelling the run: y cancels, n or esc keeps
// it running; other keys are ignored.
type confirmView struct {
	stackBase
	e          *env
	run, state string
	yes        func() tea.Cmd
	w, h       int
}

func (v *confirmView) title() string            { return "Cancel the run?" }
func (v *confirmView) setSize(w, h int) tea.Cmd { v.w, v.h = w, h; return nil }

func (v *confirmView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	switch {
	case key.Matches(km, v.e.dk.Confirm):
		return v.back, v.yes()
	case key.Matches(km, v.e.dk.Decline):
		v.e.flash = "not cancelled: the run goes on"
		return v.back, nil
	}
	return v, nil
}

func (v *confirmView) render() []string {
	st := v.e.st
	lines := []textLine{
		{},
		{st: st.Bold, text: "Cancel run " + v.run + " (" + v.state + ")?"},
		{},
		{st: st.Text, text: "firewatch asks the service to stop the run (DELETE /v2/agent/{jobId}). Cancelling is cooperative: credits can still accrue for a moment, then the trace reports run.cancel_requested and the run ends \"cancelled\". The header's badge follows it."},
		{},
		{text: " " + st.Key.Render("y") + st.Text.Render("  yes, cancel the run") + "      " + st.Key.Render("n") + st.Muted.Render(" or ") + st.Key.Render("esc") + st.Text.Render("  no, keep it running"), styled: true},
	}
	tv := textView{lines: lines, ascii: v.e.ascii}
	tv.setSize(v.w, v.h)
	out := tv.render()
	for len(out) < v.h {
		out = append(out, blank(v.w))
	}
	return out
}

func (v *confirmView) helpKeys(k keyMap) []key.Binding {
	return []key.Binding{v.e.dk.Confirm, v.e.dk.Decline}
}

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
	e.flash = "nothing selected to copy"
	return nil
}

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
			e.flash = "no live-view link: l turns live view on"
		} else {
			e.flash = "no live-view link for this session (it is not in the last poll's active sessions)"
		}
		return nil
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

// onCopied says what was copied (and, for o without a desktop, why it
// was copied rather than opened).
func (m *Model) onCopied(msg clipboard.CopiedMsg) {
	m.env.flash = msg.Status()
	if msg.Err == nil {
		m.env.flash += m.copyNote
	}
	m.copyNote = ""
}

// toggleLiveView is l: ask the trace for live-view links, or stop.
func (m *Model) toggleLiveView() {
	if m.backend == nil {
		m.env.flash = "live view is not available in replay"
		return
	}
	m.env.liveView = !m.env.liveView
	m.backend.SetLiveView(m.env.liveView)
	m.sessions.rebuild()
	if m.env.liveView {
		if !m.done {
			m.backend.PollNow()
		}
		m.env.flash = "live view on: open sessions get their live-view links from the next poll (o opens one)"
	} else {
		m.env.flash = "live view off"
	}
}

// resultArtifact is the run's result: the artifact "result", else the
// json artifact updated last; nil when there is none yet.
func resultArtifact(s *model.Store) *model.Artifact {
	if a := s.Artifact("result"); a != nil {
		return a
	}
	var best *model.Artifact
	for _, a := range s.Artifacts() {
		if a.Kind != model.KindJSON {
			continue
		}
		if best == nil || a.Latest().Event.Pos() > best.Latest().Event.Pos() {
			best = a
		}
	}
	return best
}

// openResult is a: the result artifact's detail.
func (m *Model) openResult() {
	a := resultArtifact(m.env.store)
	if a == nil {
		m.env.flash = "no result yet: the run has no json artifact"
		return
	}
	m.push(newArtifactView(m.env, a))
}

// resultHint is what the banner says about a.
func (m *Model) resultHint() string {
	a := resultArtifact(m.env.store)
	if a == nil {
		return ""
	}
	return "a shows the result (" + describe.Count(len(a.Versions), "version") + ")"
}

// push opens o over what is shown.
func (m *Model) push(o overlay) {
	if o == nil {
		return
	}
	if s, ok := o.(stacked); ok {
		s.setUnder(m.overlay)
	}
	m.overlay = o
}
