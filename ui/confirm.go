package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/ui/internal/confirm"
)

// confirmView asks before cancelling the run, which costs money: the
// screens' one question (ui/internal/confirm) as an overlay. y calls yes;
// n or esc keep the run going.
type confirmView struct {
	stackBase
	e    *env
	q    *confirm.Question
	yes  func() tea.Cmd
	w, h int
}

func newConfirmView(e *env, run, state string, yes func() tea.Cmd) *confirmView {
	return &confirmView{e: e, yes: yes, q: confirm.New("Cancel run "+run+" ("+state+")?",
		"firewatch asks the service to stop the run (DELETE /v2/agent/{jobId}). Cancelling is cooperative: credits can still accrue for a moment, then the trace reports run.cancel_requested and the run ends \"cancelled\". The header's badge follows it.",
		"yes, cancel the run", "no, keep it running")}
}

func (v *confirmView) title() string { return "Cancel the run?" }

func (v *confirmView) setSize(w, h int) tea.Cmd { v.w, v.h = w, h; return nil }

func (v *confirmView) update(msg tea.Msg, k keyMap) (overlay, tea.Cmd) {
	switch a, _ := v.q.Update(msg); a {
	case confirm.Yes:
		return v.back, v.yes()
	case confirm.No:
		return v.back, flash("not cancelled: the run goes on")
	}
	return v, nil
}

func (v *confirmView) render() []string {
	out := v.q.Lines(v.e.st, v.w)
	for len(out) < v.h {
		out = append(out, blank(v.w))
	}
	return out[:v.h]
}

func (v *confirmView) helpKeys(k keyMap) []key.Binding { return v.q.HelpKeys() }

// notify takes the question's arming when its timer fires (the question
// may be under another overlay by then).
func (v *confirmView) notify(msg tea.Msg) tea.Cmd {
	if _, key := msg.(tea.KeyPressMsg); !key {
		v.q.Update(msg)
	}
	return nil
}
