package runs

import (
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/internal/cell"
)

// R and F on a run: R opens a form filled with the run's request as the
// list knows it (each field editable, a changed one marked *), enter starts
// it; F types a follow-up prompt for the run's thread (its status names
// it). Both end the screen with Chosen (the new run) as n does, and the
// shell reads RerunOf and RerunChanged to keep the lineage.

// formField is one field of the rerun form: its body name, the original's
// value as text, and the value being edited.
type formField struct {
	name, was, value string
}

// rerunForm is the form R opens.
type rerunForm struct {
	of     string // the run rerun
	fields []formField
	at     int // the field being edited
}

// openRerun fills the form from the selected run's list item.
func (m *Model) openRerun() tea.Cmd {
	r := m.Selected()
	if r == nil {
		return nil
	}
	f := &rerunForm{of: r.ID}
	f.fields = []formField{
		{name: "prompt", was: r.Prompt},
		{name: "urls", was: strings.Join(r.URLs, " ")},
		{name: "model", was: r.Model},
		{name: "effort", was: r.Effort},
		{name: "maxCredits"}, // the list does not carry the cap
	}
	for i := range f.fields {
		f.fields[i].value = f.fields[i].was
	}
	m.form = f
	return nil
}

// formKey edits the form: up/down (tab) move between fields, typing and
// backspace edit the one shown, enter starts the run, esc drops the form.
func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.form
	switch msg.String() {
	case "esc", "ctrl+c":
		m.form = nil
		m.flash = "not rerun"
		return nil
	case "up", "shift+tab":
		f.at = (f.at + len(f.fields) - 1) % len(f.fields)
	case "down", "tab":
		f.at = (f.at + 1) % len(f.fields)
	case "backspace":
		v := []rune(f.fields[f.at].value)
		if len(v) > 0 {
			f.fields[f.at].value = string(v[:len(v)-1])
		}
	case "ctrl+u":
		f.fields[f.at].value = ""
	case "enter":
		return m.startRerun()
	default:
		t := msg.Text
		if t == "" && msg.String() == "space" {
			t = " "
		}
		for _, r := range t {
			if r < 0x20 || r == 0x7f {
				return nil
			}
		}
		if t != "" && poller.PromptLen(f.fields[f.at].value+t) <= poller.MaxPromptLen {
			f.fields[f.at].value += t
		}
	}
	return nil
}

// request is the form as a start's body, and the fields changed; an error
// says what is wrong (the form stays).
func (f *rerunForm) request() (poller.AgentRequest, []string, string) {
	var req poller.AgentRequest
	var changed []string
	for _, fl := range f.fields {
		v := strings.TrimSpace(fl.value)
		if v != strings.TrimSpace(fl.was) {
			changed = append(changed, fl.name)
		}
		switch fl.name {
		case "prompt":
			req.Prompt = v
		case "urls":
			req.URLs = strings.Fields(v)
		case "model":
			if v != "" && v != "spark-2" && !strings.HasPrefix(v, "spark-1-") {
				return req, nil, "model " + strconv.Quote(v) + ": the service runs spark-2"
			}
			req.Model = v
		case "effort":
			req.Effort = strings.ToLower(v)
		case "maxCredits":
			if v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return req, nil, "maxCredits " + strconv.Quote(v) + ": a positive whole number of credits"
				}
				req.MaxCredits = n
			}
		}
	}
	if err := req.Validate(); err != nil {
		return req, nil, err.Error()
	}
	return req, changed, ""
}

func (m *Model) startRerun() tea.Cmd {
	f := m.form
	req, changed, bad := f.request()
	if bad != "" {
		m.flash = bad
		return nil
	}
	m.form = nil
	m.flash = "starting the rerun of " + describe.ShortID(f.of) + "…"
	m.RerunOf, m.RerunChanged = f.of, changed
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

// formLines draws the form: one line a field, the one edited marked ›, a
// changed one * with what it was.
func (m *Model) formLines() []string {
	f := m.form
	out := []string{m.st.Bold.Render(" Rerun " + describe.ShortID(f.of) + ": edit its request"), ""}
	w := m.width - 18
	for i, fl := range f.fields {
		cur, mark := "  ", " "
		if i == f.at {
			cur = m.st.Accent.Render("› ")
		}
		if strings.TrimSpace(fl.value) != strings.TrimSpace(fl.was) {
			mark = m.st.Warn.Render("*")
		}
		val := describe.Truncate(fl.value, max(w, 8))
		if i == f.at {
			v := []rune(fl.value)
			for len(v) > 0 && describe.Width(string(v)) > w {
				v = v[1:] // the end of what is typed stays in sight
			}
			val = string(v) + "▏"
		}
		if val == "" {
			val = m.st.Muted.Render("(none)")
		}
		out = append(out, cur+mark+" "+cell.Fit(fl.name, 11, "…")+" "+val)
		if mark != " " {
			was := fl.was
			if was == "" {
				was = "none"
			}
			out = append(out, "               "+m.st.Muted.Render("was: "+describe.Truncate(was, max(w-5, 8))))
		}
	}
	out = append(out, "", m.st.Muted.Render(" maxCredits: the team's list does not carry the cap; empty sends none (the service's default, 2,500)."))
	if slices.ContainsFunc(f.fields, func(fl formField) bool { return fl.name == "urls" }) {
		out = append(out, m.st.Muted.Render(" urls: separated by spaces."))
	}
	return out
}

// Flash says s in the footer until the next key (the shell's word on what
// it did for the screen).
func (m *Model) Flash(s string) { m.flash = s }
