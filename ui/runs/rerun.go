package runs

import (
	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/rerunform"
)

// R and F on a run: R opens a form filled with the run's request as the
// list knows it (each field editable, a changed one marked *), enter starts
// it; F types a follow-up prompt for the run's thread (its status names
// it). Both end the screen with Chosen (the new run) as n does, and the
// shell reads RerunOf and RerunChanged to keep the lineage.

// openRerun fills the form from the selected run's list item.
func (m *Model) openRerun() tea.Cmd {
	r := m.Selected()
	if r == nil {
		return nil
	}
	// The list does not carry the cap.
	m.form = rerunform.New(r.ID, rerunform.Original{Prompt: r.Prompt, URLs: r.URLs, Model: r.Model, Effort: r.Effort})
	m.form.CapNote = "maxCredits: the team's list does not carry the cap; empty sends none (the service's default, 2,500)."
	return nil
}

// formKey edits the form (rerunform.Form.Key): enter starts the run, esc
// drops the form.
func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	switch m.form.Key(msg) {
	case rerunform.Drop:
		m.form = nil
		m.flash = "not rerun"
	case rerunform.Submit:
		return m.startRerun()
	}
	return nil
}

func (m *Model) startRerun() tea.Cmd {
	f := m.form
	req, changed, bad := f.Request()
	if bad != "" {
		m.flash = bad
		return nil
	}
	m.form = nil
	m.flash = "starting the rerun of " + describe.ShortID(f.Of) + "…"
	m.RerunOf, m.RerunChanged = f.Of, changed
	return m.start(req)
}

// start sends req and ends the screen on the new run (startedMsg).
func (m *Model) start(req poller.AgentRequest) tea.Cmd {
	svc := m.cfg.Service
	ctx, cancel := m.ctx()
	return func() tea.Msg {
		defer cancel()
		id, err := svc.StartAgent(ctx, req)
		return startedMsg{id: id, err: err}
	}
}

// openFollowUp starts typing a follow-up for the selected run's thread,
// which its status (the details) names.
func (m *Model) openFollowUp() tea.Cmd {
	r := m.Selected()
	if r == nil {
		return nil
	}
	d := m.details[r.ID]
	if d == nil || d.st == nil {
		m.flash = "the thread of run " + describe.ShortID(r.ID) + " is not known yet: its details are loading"
		return m.fetchDetail()
	}
	if d.st.ThreadID == "" {
		m.flash = "the service does not say which thread run " + describe.ShortID(r.ID) + " is in: start a new run with n"
		return nil
	}
	m.composing, m.draft, m.followThread, m.followOf = true, "", d.st.ThreadID, r.ID
	return nil
}

// formLines draws the form.
func (m *Model) formLines() []string { return m.form.Lines(m.st, m.width) }

// Flash says s in the footer until the next key (the shell's word on what
// it did for the screen).
func (m *Model) Flash(s string) { m.flash = s }
