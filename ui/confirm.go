package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// confirmView asks before cancelling the run, which costs money: a
// lower-case y cancels, n or esc keeps it running; other keys are ignored,
// and so is every key until it is armed (see askCancel).
type confirmView struct {
	stackBase
	e          *env
	run, state string
	yes        func() tea.Cmd
	w, h       int
	armed      bool
}

func (v *confirmView) title() string { return "Cancel the run?" }

func (v *confirmView) setSize(w, h int) tea.Cmd { v.w, v.h = w, h; return nil }

func (v *confirmView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || !v.armed {
		return v, nil
	}
	switch {
	case key.Matches(km, v.e.dk.Confirm):
		return v.back, v.yes()
	case key.Matches(km, v.e.dk.Decline):
		return v.back, flash("not cancelled: the run goes on")
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
	if !v.armed {
		// The answers appear when they are taken (see askCancel).
		lines[len(lines)-1] = textLine{}
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
	if !v.armed {
		return nil
	}
	return []key.Binding{v.e.dk.Confirm, v.e.dk.Decline}
}
